// Package thread is the interview in the candidate's text thread (SMS or WhatsApp): a second
// surface of the interview core (internal/interview), beside the web page. An inbound message is
// routed to the session whose texts went to the sender's number; keywords (STOP and its
// synonyms, a refusal in words, START, HELP) are honoured first, in the request that carries
// them; then YES starts the interview, and a reply answers the current question. What goes back
// is the next question, a follow-up or the closing message, as texts that fit the channel
// (internal/conversation), built from the core's Prompt as the page builds its screens from it.
// Consent, answers, follow-ups, completion and the lifecycle are the core's: the thread holds
// no state of its own but the provider message ids it has handled, the numbers that opted out
// and, for a monitored session, when it sent each question and when the answer arrived (the
// thread's integrity signals, internal/integrity).
package thread

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/conversation"
	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Threads answers inbound messages.
type Threads struct {
	Store      *store.Store
	Interviews *interview.Sessions
	// Timings keeps the thread's integrity signals of a monitored session (internal/integrity):
	// when a question was handed to the provider and when its answer arrived; nil keeps none.
	Timings Timings
	Log     *slog.Logger
	// Now is the clock (of WhatsApp's window and the thread's timings); nil is time.Now.
	Now func() time.Time
}

// Timings records the server's times of a thread's questions and answers.
type Timings interface {
	QuestionSent(ctx context.Context, companyID, sessionID uuid.UUID, seq int, channel models.AnswerChannel, at time.Time) error
	AnswerReceived(ctx context.Context, companyID, sessionID uuid.UUID, seq int, channel models.AnswerChannel, at time.Time) error
}

// ProviderTwilio names the provider of the message ids Receive records.
const ProviderTwilio = "twilio"

// consentTurn is the turn an inbound message records (store.InboundTurn) when it consents: no
// question's.
const consentTurn = -1

// Receive handles one inbound message and returns the texts to send back in the thread (none for
// a message id handled before, or after an opt-out's confirmation was sent once).
func (t *Threads) Receive(ctx context.Context, in channels.Inbound) (texts []string, err error) {
	received := t.now()
	claim, first, err := t.Store.RecordInbound(ctx, ProviderTwilio, in.MessageSID)
	if err != nil || !first {
		return nil, err
	}
	defer func() {
		if err != nil {
			return // not handled: the provider's retry of the same id is handled again
		}
		if herr := t.Store.HandledInbound(context.WithoutCancel(ctx), ProviderTwilio, in.MessageSID); herr != nil {
			t.log().WarnContext(ctx, "inbound message not marked handled; a redelivery repeats it", "err", herr)
		}
	}()
	th, err := t.Store.ThreadSession(ctx, string(in.Channel), in.From)
	if errors.Is(err, store.ErrNotFound) {
		if conversation.OptsOut(in.Body) {
			return nil, nil // nobody to opt out of, and silence is what was asked
		}
		return []string{conversation.Fill(conversation.TextUnknownNumber, conversation.Vars{})}, nil
	}
	if err != nil {
		return nil, err
	}
	if in.Channel == models.MessageChannelWhatsApp {
		// Any message of the candidate's opens WhatsApp's window, STOP included: the replies
		// below are free-form and go inside it (initiated messages are templates, Admit).
		if err := t.Store.TouchThreadWindow(ctx, th.CompanyID, string(in.Channel), in.From, t.now()); err != nil {
			return nil, err
		}
	}
	vars := conversation.Vars{Company: th.CompanyName}
	kw := conversation.ParseKeyword(in.Body)
	switch {
	case conversation.OptsOut(in.Body):
		keyword := in.Body
		if kw != conversation.KeywordStop {
			keyword = "free-text"
		}
		firstStop, err := t.Store.OptOut(ctx, th.CompanyID, in.From, clip(keyword, 40))
		if err != nil || !firstStop {
			return nil, err // one confirmation, then silence
		}
		t.log().InfoContext(ctx, "opted out by text", "company_id", th.CompanyID, "session_id", th.SessionID)
		return []string{conversation.Fill(conversation.TextOptOutConfirmation, vars)}, nil
	case kw == conversation.KeywordStart:
		if _, err := t.Store.OptIn(ctx, th.CompanyID, in.From); err != nil {
			return nil, err
		}
		return []string{conversation.Fill(conversation.TextOptInConfirmation, vars)}, nil
	}
	if out, err := t.Store.OptedOut(ctx, th.CompanyID, in.From); err != nil || out {
		return nil, err // an opted-out number gets nothing until START
	}
	if kw == conversation.KeywordHelp {
		return []string{conversation.Fill(conversation.TextHelp, vars)}, nil
	}
	ref := interview.BySession(th.CompanyID, th.SessionID)
	ref.Channel = models.AnswerChannel(in.Channel)
	p, err := t.Interviews.Open(ctx, ref)
	if err != nil {
		return nil, err
	}
	vars.Role = p.JobTitle
	if movedOn(claim, p) {
		// An earlier attempt at this message, whose process died before it was handled, took it
		// (the consent or the answer of its turn): say what comes next.
		return t.next(ctx, ref, in.Channel)
	}
	switch p.Stage {
	case interview.StageConsent:
		switch kw {
		case conversation.KeywordYes:
			if err := t.Store.InboundTurn(ctx, ProviderTwilio, in.MessageSID, consentTurn); err != nil {
				return nil, err
			}
			if err := t.Interviews.Consent(ctx, ref); err != nil {
				return nil, err
			}
			return t.next(ctx, ref, in.Channel)
		case conversation.KeywordNo:
			return []string{conversation.Fill(conversation.TextConsentDeclined, vars)}, nil
		}
		return []string{conversation.Fill(conversation.TextConsentRequest, vars)}, nil
	case interview.StageQuestion:
		answer := in.Body
		if in.ButtonPayload != "" {
			answer = in.ButtonPayload
		} else if in.ListID != "" {
			answer = in.ListID
		}
		if choices := p.Question.Choices; len(choices) > 0 {
			i, m := conversation.ParseChoice(answer, choices)
			if m != conversation.Matched {
				return questionMessages(in.Channel, conversation.Fill(conversation.TextChooseNumber, conversation.Vars{N: len(choices)}), choices), nil
			}
			answer = choices[i]
		}
		if err := t.Store.InboundTurn(ctx, ProviderTwilio, in.MessageSID, p.Question.Seq); err != nil {
			return nil, err
		}
		err := t.Interviews.Answer(ctx, ref, p.Question.Seq, answer, nil)
		if err == nil && p.Monitored && t.Timings != nil {
			if terr := t.Timings.AnswerReceived(ctx, th.CompanyID, th.SessionID, p.Question.Seq, ref.Channel, received); terr != nil {
				t.log().WarnContext(ctx, "thread answer timing not kept", "session_id", th.SessionID, "turn", p.Question.Seq, "err", terr)
			}
		}
		var refused *interview.AnswerError
		switch {
		case errors.As(err, &refused):
			return []string{"Sorry, that answer could not be taken: " + refused.Error() + ". Please answer again."}, nil
		case errors.Is(err, interview.ErrAnswerConflict):
			// answered meanwhile on the web page: say what comes next
		case err != nil && !errors.Is(err, interview.ErrInterviewClosed):
			return nil, err
		}
		return t.next(ctx, ref, in.Channel)
	case interview.StageIdentity:
		return []string{fmt.Sprintf("%s: this interview starts with an identity check; please open the link in your invitation to continue.", th.CompanyName)}, nil
	}
	return []string{conversation.Fill(conversation.TextSessionClosed, vars)}, nil
}

// movedOn reports whether the session left the step an earlier attempt at the same message
// recorded (claim.TurnSeq): the consent, or the question it answered. Nil: no attempt got there.
func movedOn(claim store.InboundClaim, p *interview.Prompt) bool {
	switch {
	case claim.TurnSeq == nil:
		return false
	case *claim.TurnSeq == consentTurn:
		return p.Stage != interview.StageConsent
	}
	return p.Stage != interview.StageQuestion || p.Question.Seq != *claim.TurnSeq
}

// next is the texts of what the session asks now on ch: the question (with the guide's intro
// before the first), or the closing message. They answer the candidate's message at once, also
// in quiet hours: only the messages recruitd initiates wait for them (docs/decisions.md).
func (t *Threads) next(ctx context.Context, ref interview.Ref, ch models.MessageChannel) ([]string, error) {
	p, err := t.Interviews.Open(ctx, ref)
	if err != nil {
		return nil, err
	}
	switch p.Stage {
	case interview.StageQuestion:
		q := p.Question.Text
		if !p.Question.FollowUp {
			q = fmt.Sprintf("Question %d of %d: %s", p.Question.Index, p.Question.Total, q)
		}
		var out []string
		if p.Question.First && p.Intro != "" {
			out = append(out, textMessages(ch, p.Intro)...)
		}
		out = append(out, questionMessages(ch, q, p.Question.Choices)...)
		// The texts are handed to the provider as the webhook's answer, now.
		if p.Monitored && t.Timings != nil {
			if terr := t.Timings.QuestionSent(ctx, ref.CompanyID, ref.SessionID, p.Question.Seq, ref.Channel, t.now()); terr != nil {
				t.log().WarnContext(ctx, "thread question timing not kept", "session_id", ref.SessionID, "turn", p.Question.Seq, "err", terr)
			}
		}
		return out, nil
	case interview.StageCompleted:
		return textMessages(ch, p.Outro), nil
	case interview.StageIdentity:
		return []string{fmt.Sprintf("%s: this interview starts with an identity check; please open the link in your invitation to continue.", p.CompanyName)}, nil
	}
	return []string{conversation.Fill(conversation.TextSessionClosed, conversation.Vars{Company: p.CompanyName, Role: p.JobTitle})}, nil
}

func (t *Threads) now() time.Time {
	if t.Now != nil {
		return t.Now().UTC()
	}
	return time.Now().UTC()
}

// textMessages is a text as messages of ch: SMS parts that fit their segments, or one WhatsApp
// message.
func textMessages(ch models.MessageChannel, text string) []string {
	if ch == models.MessageChannelWhatsApp {
		return whatsAppMessages(text, nil)
	}
	return conversation.Split(conversation.SmartEncode(text), conversation.DefaultMaxParts)
}

// questionMessages is a question and its choices as messages of ch.
func questionMessages(ch models.MessageChannel, q string, choices []string) []string {
	if ch == models.MessageChannelWhatsApp {
		return whatsAppMessages(q, choices)
	}
	return conversation.SMSMessages(q, choices, 0)
}

func (t *Threads) log() *slog.Logger {
	if t.Log != nil {
		return t.Log
	}
	return slog.New(slog.DiscardHandler)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
