package thread

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// How long Delivery waits for the message a report names: a provider may report a status before
// the send that handed it the message has recorded the provider's id.
const (
	deliveryWait = 2 * time.Second
	deliveryLook = 100 * time.Millisecond
)

// Delivery records a provider's delivery report of a message recruitd sent. A status moves the
// message forward only (channels.MessageStatus.Supersedes): a late, repeated or out-of-order
// report changes nothing. delivered and read make the message delivered; undelivered, failed and
// canceled make it failed, with the provider's error code. A report of a message recruitd does
// not know (a reply sent as TwiML, another application's message) is ignored.
func (t *Threads) Delivery(ctx context.Context, cb channels.StatusCallback) error {
	deadline := time.Now().Add(deliveryWait)
	for {
		m, err := t.Store.MessageByProviderID(ctx, ProviderTwilio, cb.MessageSID)
		if errors.Is(err, store.ErrNotFound) {
			if time.Now().After(deadline) {
				t.log().DebugContext(ctx, "delivery report of an unknown message", "message_sid", cb.MessageSID, "status", cb.Status)
				return nil
			}
			if err := sleep(ctx, deliveryLook); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		var prev channels.MessageStatus
		if m.ProviderStatus != nil {
			prev = channels.MessageStatus(*m.ProviderStatus)
		}
		if !cb.Status.Supersedes(prev) {
			return nil
		}
		d := store.DeliveryStatus{ProviderStatus: string(cb.Status)}
		switch {
		case cb.Status == channels.StatusDelivered || cb.Status == channels.StatusRead:
			d.Status = models.MessageStatusDelivered
		case cb.Status.Failed():
			d.Status, d.Error = models.MessageStatusFailed, fmt.Sprintf("%s by the provider (error %s)", cb.Status, orNone(cb.ErrorCode))
		}
		done, err := t.Store.RecordDeliveryStatus(ctx, m.CompanyID, m.ID, m.ProviderStatus, d)
		if err != nil || done {
			if done && d.Status == models.MessageStatusFailed {
				t.log().WarnContext(ctx, "text not delivered", "message_id", m.ID, "channel", m.Channel, "status", cb.Status, "error_code", cb.ErrorCode)
			}
			return err
		}
		// Another report of the same message was recorded meanwhile: read it and decide again.
	}
}

func orNone(code string) string {
	if code == "" {
		return "none"
	}
	return code
}

func sleep(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}
