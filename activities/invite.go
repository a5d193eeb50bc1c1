package activities

import (
	"context"
	"fmt"

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
	receipt, provider, sendErr, err := a.deliver(ctx, row, msg)
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
