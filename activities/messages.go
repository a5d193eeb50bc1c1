package activities

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/internal/thread"
	"github.com/recruitd/recruitd/models"
)

// deliver records row (the message, queued) in the candidate's conversation, sends msg through
// its channel's provider and records the outcome on row, sent or failed. sendErr is the
// provider's failure as it came (its recording, if that fails too, is only logged); err is a
// failure to record the message or its sending.
//
// Called in an activity, the message carries the activity's send key, so a retry of the same
// activity (its worker stopped after sending, before Temporal heard of it) finds the message
// sent and returns it without sending again. An attempt that died between the provider's answer
// and its recording leaves the message queued; its retry sends again (at least once, for a
// crash in that instant). The outcome is recorded even when the activity's context ends after
// the provider answered. A free-form WhatsApp message outside the thread's 24-hour window is
// never attempted (thread.Admit): it is recorded failed with a permanent sendErr.
func (a *Activities) deliver(ctx context.Context, row *models.Message, msg channels.Message) (receipt channels.Receipt, provider string, sendErr, err error) {
	return a.deliverOnce(ctx, sendKey(ctx), row, msg)
}

// deliverOnce is deliver with the send key chosen by the caller ("" for none): a key that
// names the message rather than the activity (a session's reminder, store.ReminderSendKey) is
// sent once across the workflow's runs too.
func (a *Activities) deliverOnce(ctx context.Context, key string, row *models.Message, msg channels.Message) (receipt channels.Receipt, provider string, sendErr, err error) {
	if msg.Subject != "" {
		row.Subject = &msg.Subject
	}
	if key != "" {
		row.SendKey = &key
		prev, err := a.Store.MessageBySendKey(ctx, row.CompanyID, key)
		switch {
		case err == nil && (prev.Status == models.MessageStatusSent || prev.Status == models.MessageStatusDelivered):
			*row = *prev
			return channels.Receipt{ProviderMessageID: deref(prev.ProviderMessageID)}, deref(prev.Provider), nil, nil
		case err == nil:
			row.ID, row.CreatedAt = prev.ID, prev.CreatedAt
			if err := a.Store.RequeueMessage(ctx, row); err != nil {
				return channels.Receipt{}, "", nil, err
			}
		case errors.Is(err, store.ErrNotFound):
			if err := a.Store.CreateMessage(ctx, row); err != nil {
				return channels.Receipt{}, "", nil, err
			}
		default:
			return channels.Receipt{}, "", nil, err
		}
	} else if err := a.Store.CreateMessage(ctx, row); err != nil {
		return channels.Receipt{}, "", nil, err
	}
	record := context.WithoutCancel(ctx) // the provider answered: what it said must be recorded
	if sendErr = thread.Admit(ctx, a.Store, row.CompanyID, msg, time.Now()); sendErr == nil {
		receipt, provider, sendErr = a.Channels.Send(ctx, msg)
	} else if !channels.IsPermanent(sendErr) {
		return receipt, provider, nil, sendErr
	}
	if sendErr != nil {
		if ferr := a.Store.FinishMessage(record, row.CompanyID, row.ID, store.MessageResult{Status: models.MessageStatusFailed, Provider: provider, Error: sendErr.Error()}); ferr != nil {
			a.Log.ErrorContext(ctx, "message outcome not recorded", "message_id", row.ID, "err", ferr)
		}
		return receipt, provider, sendErr, nil
	}
	return receipt, provider, nil, a.Store.FinishMessage(record, row.CompanyID, row.ID, store.MessageResult{
		Status: models.MessageStatusSent, Provider: provider, ProviderMessageID: receipt.ProviderMessageID,
	})
}

// sendKey is the identity of the running activity in its workflow run, the same for each of its
// retries: "" outside an activity.
func sendKey(ctx context.Context) string {
	if !activity.IsActivity(ctx) {
		return ""
	}
	info := activity.GetInfo(ctx)
	if info.WorkflowExecution.ID == "" || info.ActivityID == "" {
		return ""
	}
	return info.WorkflowExecution.ID + "/" + info.WorkflowExecution.RunID + "/" + info.ActivityID
}

// addressee is how a message greets the candidate and names the job: the first name ("there"
// without one) and the candidate-facing title.
func addressee(cand *models.Candidate, job *models.Job) (name, title string) {
	name = strings.TrimSpace(cand.FirstName)
	if name == "" {
		name = "there"
	}
	title = job.ExternalTitle
	if title == "" {
		title = job.Title
	}
	return name, title
}
