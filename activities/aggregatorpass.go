package activities

import (
	"context"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// aggregatorPass is what the job import and the application sync share before their first page:
// the company, its connected integration and the aggregator's client. State is set instead when
// the pass cannot run (waiting_for_sync, needs_attention); refused is the aggregator's refusal of
// the credentials, for the caller's importRefused.
type aggregatorPass struct {
	co      *models.Company
	integ   *models.AggregatorIntegration
	client  *aggregator.Kombo
	State   string
	refused error
}

// openAggregatorPass loads what a pass of kind (the starts it launches, for the message) needs.
func (a *Activities) openAggregatorPass(ctx context.Context, companyID uuid.UUID, what string) (*aggregatorPass, error) {
	if a.Launcher == nil {
		return nil, temporal.NewNonRetryableApplicationError("the worker has no start launcher for "+what, ErrTypePermanent, nil)
	}
	co, err := a.Store.Company(ctx, companyID)
	if err != nil {
		return nil, permanentIfMissing(err)
	}
	integ, err := a.Store.AggregatorIntegration(ctx, companyID)
	if err != nil {
		return nil, permanentIfMissing(err)
	}
	p := &aggregatorPass{co: co, integ: integ}
	switch {
	case integ.State == models.IntegrationNeedsAttention:
		p.State = "needs_attention"
		return p, nil
	case integ.State != models.IntegrationConnected || integ.IntegrationID == nil:
		p.State = "waiting_for_sync"
		return p, nil
	}
	creds, _, err := store.OpenAggregatorSecrets(a.Box, integ)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypePermanent, err)
	}
	if p.client, err = aggregator.NewKombo(creds, nil); err != nil {
		p.refused = err
	}
	return p, nil
}

// passProgress is the heartbeat of a paged pass: a retried attempt (a worker restart) resumes
// from the page after the last one committed, with the pass's start (what a full pass compares
// records with) and its counts so far.
type passProgress[C any] struct {
	Began    time.Time
	Cursor   string
	MaxSeen  time.Time
	Counts   C
	Pages    int
	HasPages bool
}

// resumePass returns the progress a retried attempt recorded, or a new pass beginning now.
func resumePass[C any](ctx context.Context) passProgress[C] {
	p := passProgress[C]{Began: time.Now().UTC()}
	if activity.HasHeartbeatDetails(ctx) {
		if err := activity.GetHeartbeatDetails(ctx, &p); err != nil {
			p = passProgress[C]{Began: time.Now().UTC()}
		}
	}
	return p
}

// pages runs page (given the cursor, it writes one page and returns the next cursor and the
// latest change it held) until the last page, recording the progress after each.
func (p *passProgress[C]) pages(ctx context.Context, page func(cursor string) (next string, maxSeen time.Time, err error)) error {
	for {
		if p.HasPages && p.Cursor == "" {
			return nil // a resumed attempt whose last page was committed
		}
		next, maxSeen, err := page(p.Cursor)
		if err != nil {
			return err
		}
		p.Pages++
		if maxSeen.After(p.MaxSeen) {
			p.MaxSeen = maxSeen
		}
		p.Cursor, p.HasPages = next, true
		activity.RecordHeartbeat(ctx, *p)
		if next == "" {
			return nil
		}
	}
}

// cursor is the latest change the pass read, for the next incremental pass; nil when none.
func (p *passProgress[C]) cursor() *time.Time {
	if p.MaxSeen.IsZero() {
		return nil
	}
	t := p.MaxSeen
	return &t
}
