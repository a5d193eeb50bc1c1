package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/conversation"
	"github.com/recruitd/recruitd/internal/thread"
	"github.com/recruitd/recruitd/models"
)

// SendInviteInput names one delivery attempt of a session's invitation through one channel.
type SendInviteInput struct {
	CompanyID uuid.UUID
	SessionID uuid.UUID
	Channel   models.MessageChannel
	// SendKey names the message when the attempt goes on one that OpenAndSendInvite began
	// (its retries send under the first attempt's key); empty, the activity's own id does.
	SendKey string
}

// SendInviteResult is a delivered invitation. It does not hold the interview link: the link
// carries the session's token, which opens the interview, and stays in Postgres.
type SendInviteResult struct {
	MessageID         uuid.UUID
	Provider          string
	ProviderMessageID string
}

// SendInvite sends the session's invitation through one channel and records the attempt in the
// candidate's conversation, delivered or failed. A channel the candidate cannot be reached on, or
// a provider's permanent refusal, is a non-retryable error, so the workflow falls back to the
// next channel at once.
func (a *Activities) SendInvite(ctx context.Context, in SendInviteInput) (SendInviteResult, error) {
	sub, err := a.Store.InvitationSubjects(ctx, in.CompanyID, in.SessionID)
	if err != nil {
		return SendInviteResult{}, permanentIfMissing(err)
	}
	sess, cand, job, company := &sub.Session, &sub.Candidate, &sub.Job, &sub.Company
	if sess.Status == models.SessionStatusCancelled {
		return SendInviteResult{}, temporal.NewNonRetryableApplicationError("session "+sess.ID.String()+" was cancelled", ErrTypePermanent, nil)
	}
	link := a.Links.Interview(sess.LinkToken)
	to, ok := channels.Address(in.Channel, deref(cand.Email), deref(cand.Phone))
	if !ok {
		// Expected (a definition's SMS step for a candidate with an e-mail address only), not a
		// failure: benign, so the SDK logs it at DEBUG and counts no failed activity.
		return SendInviteResult{}, temporal.NewApplicationErrorWithOptions(
			fmt.Sprintf("candidate has no address for %s", in.Channel), ErrTypePermanent,
			temporal.ApplicationErrorOptions{NonRetryable: true, Category: temporal.ApplicationErrorCategoryBenign})
	}
	if in.Channel == models.MessageChannelSMS || in.Channel == models.MessageChannelWhatsApp || in.Channel == models.MessageChannelPhone {
		out, err := a.Store.OptedOut(ctx, in.CompanyID, to)
		if err != nil {
			return SendInviteResult{}, err
		}
		if out { // the number said STOP to this company: another channel, or none
			return SendInviteResult{}, temporal.NewApplicationErrorWithOptions("the candidate's number opted out of "+string(in.Channel), ErrTypePermanent,
				temporal.ApplicationErrorOptions{NonRetryable: true, Category: temporal.ApplicationErrorCategoryBenign})
		}
	}
	msg := inviteMessage(in.Channel, to, cand, job, company, link)
	switch {
	case in.Channel == models.MessageChannelWhatsApp:
		// Recruitd writes first: outside WhatsApp's window, so an approved template.
		name, title := addressee(cand, job)
		key := conversation.TemplateInvite
		if textInterview(sess.MediumType) {
			key = conversation.TemplateInviteText
		}
		msg = thread.WhatsAppTemplate(a.WhatsAppTemplates, key, to, name, company.Name, title, link)
	case textInterview(sess.MediumType) && in.Channel == models.MessageChannelSMS:
		msg.Text += "\nReply YES to take it here by text."
	}
	row := &models.Message{
		CompanyID: in.CompanyID, CandidateID: cand.ID, ApplicationID: sess.ApplicationID, SessionID: &sess.ID,
		Direction: models.MessageDirectionOutbound, Channel: in.Channel, Status: models.MessageStatusQueued,
		ToAddress: to, Body: msg.Text,
	}
	key := in.SendKey
	if key == "" {
		key = sendKey(ctx)
	}
	receipt, provider, sendErr, err := a.deliverOnce(ctx, key, row, msg)
	if err != nil {
		return SendInviteResult{}, err
	}
	if sendErr != nil {
		a.Log.WarnContext(ctx, "invitation not delivered", "company", company.Slug, "session_id", sess.ID, "channel", in.Channel, "err", channels.Redacted(sendErr))
		if channels.IsPermanent(sendErr) {
			// What reaches Temporal is the redacted text, without the provider's error as cause:
			// a provider may quote the recipient's address or number.
			return SendInviteResult{}, temporal.NewNonRetryableApplicationError(channels.Redacted(sendErr), ErrTypePermanent, nil)
		}
		return SendInviteResult{}, temporal.NewApplicationError(fmt.Sprintf("send %s invitation: %s", in.Channel, channels.Redacted(sendErr)), "SendFailed")
	}
	a.Log.InfoContext(ctx, "invitation sent", "company", company.Slug, "session_id", sess.ID, "channel", in.Channel, "provider", provider)
	return SendInviteResult{MessageID: row.ID, Provider: provider, ProviderMessageID: receipt.ProviderMessageID}, nil
}

// inviteMessage writes the invitation for a channel.
func inviteMessage(ch models.MessageChannel, to string, cand *models.Candidate, job *models.Job, co *models.Company, link string) channels.Message {
	name, title := addressee(cand, job)
	m := channels.Message{Channel: ch, To: to}
	switch ch {
	case models.MessageChannelEmail:
		m.Subject = fmt.Sprintf("Your interview for %s at %s", title, co.Name)
		m.Text = fmt.Sprintf("Hi %s,\n\nThanks for your interest in the %s role at %s. The next step is a short automated interview you can take whenever it suits you:\n\n%s\n\nGood luck!\n%s", name, title, co.Name, link, co.Name)
	case models.MessageChannelPhone:
		m.Text = fmt.Sprintf("Hello %s. This is %s about your application for %s. We have sent you a link to your interview by text message. Thank you.", name, co.Name, title)
	default:
		m.Text = fmt.Sprintf("Hi %s, %s invites you to a short interview for %s: %s", name, co.Name, title, link)
	}
	return m
}

// textInterview reports whether a session of medium is taken in the candidate's text thread
// (SMS, WhatsApp, phone-and-SMS) as well as on the web page.
func textInterview(medium models.MediumType) bool {
	return medium == models.MediumTypeSMS || medium == models.MediumTypeWhatsApp || medium == models.MediumTypePhoneSMS
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// OpenAndSendInput is an invitation's first step, taken in one local activity: open the session
// once the job's interview is ready, then, unless quiet hours hold Channel at Now (the run's
// clock), send the invitation on Channel.
type OpenAndSendInput struct {
	OpenSessionWhenReadyInput
	Channel models.MessageChannel
	Now     time.Time
}

// OpenAndSendResult is how far OpenAndSendInvite went. Without a session (Wait or NotSent) it
// sent nothing. With one: Sent; or HeldUntil, the end of the candidate's quiet hours; or
// QuietUnknown, the quiet hours could not be read; or SendFailed, the attempt failed, for good
// when Permanent, else its retries send under SendKey. It holds ids, times and flags only.
type OpenAndSendResult struct {
	OpenSessionResult
	Sent         bool
	Send         SendInviteResult
	HeldUntil    time.Time
	QuietUnknown bool
	SendFailed   bool
	Permanent    bool
	SendKey      string
}

// OpenAndSendInvite is OpenSessionWhenReady, QuietUntil and the first SendInvite attempt in one
// step, so an invitation that goes out at once costs the run one local activity. Only opening the
// session fails the activity (it is retried; a retry finds the session opened); what happens
// after is in the result, and the run goes on from there with the separate steps.
func (a *Activities) OpenAndSendInvite(ctx context.Context, in OpenAndSendInput) (OpenAndSendResult, error) {
	opened, err := a.OpenSessionWhenReady(ctx, in.OpenSessionWhenReadyInput)
	res := OpenAndSendResult{OpenSessionResult: opened}
	if err != nil || opened.Wait || opened.NotSent != "" {
		return res, err
	}
	if QuietHoursHold(in.Channel) {
		until, err := a.QuietUntil(ctx, QuietUntilInput{CompanyID: in.CompanyID, SessionID: opened.SessionID, Channel: in.Channel, Now: in.Now})
		if err != nil {
			a.Log.WarnContext(ctx, "quiet hours not read; the run asks again", "session_id", opened.SessionID, "channel", in.Channel, "err", err)
			res.QuietUnknown = true
			return res, nil
		}
		if until.After(in.Now) {
			res.HeldUntil = until
			return res, nil
		}
	}
	res.SendKey = sendKey(ctx)
	sent, err := a.SendInvite(ctx, SendInviteInput{CompanyID: in.CompanyID, SessionID: opened.SessionID, Channel: in.Channel, SendKey: res.SendKey})
	if err != nil {
		var appErr *temporal.ApplicationError
		res.SendFailed, res.Permanent = true, errors.As(err, &appErr) && appErr.NonRetryable()
		a.Log.InfoContext(ctx, "first invitation attempt failed", "session_id", opened.SessionID, "channel", in.Channel, "permanent", res.Permanent, "err", err)
		return res, nil
	}
	res.Sent, res.Send = true, sent
	return res, nil
}
