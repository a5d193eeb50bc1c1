package activities

import (
	"context"
	"strings"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// deliver records row (the message, queued) in the candidate's conversation, sends msg through
// its channel's provider and records the outcome on row, sent or failed. sendErr is the
// provider's failure as it came (its recording, if that fails too, is only logged); err is a
// failure to record the message or its sending.
func (a *Activities) deliver(ctx context.Context, row *models.Message, msg channels.Message) (receipt channels.Receipt, provider string, sendErr, err error) {
	if msg.Subject != "" {
		row.Subject = &msg.Subject
	}
	if err := a.Store.CreateMessage(ctx, row); err != nil {
		return channels.Receipt{}, "", nil, err
	}
	receipt, provider, sendErr = a.Channels.Send(ctx, msg)
	if sendErr != nil {
		if ferr := a.Store.FinishMessage(ctx, row.CompanyID, row.ID, store.MessageResult{Status: models.MessageStatusFailed, Provider: provider, Error: sendErr.Error()}); ferr != nil {
			a.Log.ErrorContext(ctx, "message outcome not recorded", "message_id", row.ID, "err", ferr)
		}
		return receipt, provider, sendErr, nil
	}
	return receipt, provider, nil, a.Store.FinishMessage(ctx, row.CompanyID, row.ID, store.MessageResult{
		Status: models.MessageStatusSent, Provider: provider, ProviderMessageID: receipt.ProviderMessageID,
	})
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
