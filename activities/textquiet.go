package activities

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/thread"
	"github.com/recruitd/recruitd/models"
)

// QuietUntilInput names an invitation of a session about to go on Channel at Now (the run's
// clock).
type QuietUntilInput struct {
	CompanyID uuid.UUID
	SessionID uuid.UUID
	Channel   models.MessageChannel
	Now       time.Time
}

// QuietHoursHold reports whether quiet hours may hold an invitation on ch (texts and calls,
// thread.Initiated); QuietUntil returns its input's Now for every other channel.
func QuietHoursHold(ch models.MessageChannel) bool { return thread.Initiated(ch) }

// QuietUntil returns when the session's invitation on in.Channel may go: in.Now, or the end of
// the company's quiet hours in every zone of the candidate's (the reminders' rule) for a text or
// a call (thread.Initiated). It holds nothing for e-mail, for a channel without a provider (the
// attempt fails at once and the next channel is tried) and for the outbox, which reaches no
// candidate.
func (a *Activities) QuietUntil(ctx context.Context, in QuietUntilInput) (time.Time, error) {
	if !QuietHoursHold(in.Channel) || a.Channels == nil {
		return in.Now, nil
	}
	if p, err := a.Channels.Provider(in.Channel); err != nil || p.Name() == "outbox" {
		return in.Now, nil
	}
	lc, err := a.Store.InterviewLifecycle(ctx, in.CompanyID, in.SessionID)
	if err != nil {
		return time.Time{}, permanentIfMissing(err)
	}
	q, zones, err := a.candidateQuiet(ctx, in.CompanyID, lc)
	if err != nil {
		return time.Time{}, err
	}
	at, ok := q.Next(in.Now, zones.Zones)
	if !ok {
		return in.Now, nil
	}
	if at.After(in.Now) {
		a.Log.InfoContext(ctx, "invitation held for the candidate's quiet hours", "session_id", in.SessionID, "channel", in.Channel,
			"until", at.UTC(), "zones", zones.Names(), "quiet_hours", q.String())
	}
	return at, nil
}
