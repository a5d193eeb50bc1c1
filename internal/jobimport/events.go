package jobimport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// ErrBadSignature means a webhook delivery is not signed by a known integration. It is one error
// whatever failed (the body, the integration it names, the signature), so a caller learns nothing
// about which integrations exist.
var ErrBadSignature = errors.New("the delivery is not signed by a known integration")

// signalTimeout bounds the signal of the job import, so a delivery is answered within seconds
// while Temporal is down (the aggregator redelivers).
const signalTimeout = 2 * time.Second

// EventResult is what receiving an event did: Outcome as store.EventResult records it.
type EventResult struct {
	Duplicate bool
	Outcome   string
}

// ReceiveEvent takes an aggregator delivery: it finds the integration the event names, verifies
// the Standard Webhooks signature with that integration's secret (ErrBadSignature and nothing
// stored otherwise), records the event once per id and applies it in one transaction (with the
// start of the company's job import when the card is connected), then starts the import, and
// signals it when the card just became connected or the aggregator reports changed jobs,
// candidates or applications (the import's passes sync the latter for an ATS). When
// Temporal does not take the start or the signal the error wraps outbox.ErrUnavailable, for the
// aggregator to redeliver.
func (in *Integrations) ReceiveEvent(ctx context.Context, header http.Header, body []byte, requestID string) (EventResult, error) {
	ev, signedAt, integ, err := in.verify(ctx, header, body, requestID)
	if err != nil {
		in.Metrics.Webhook("unverified", "rejected")
		return EventResult{}, err
	}
	co, err := in.Store.Company(ctx, integ.CompanyID)
	if err != nil {
		return EventResult{}, err
	}
	rec := store.AggregatorEvent{ID: ev.ID, Type: ev.Type, IntegrationID: ev.IntegrationID, State: ev.State,
		SetupStatus: ev.SetupStatus, Body: body, SignedAt: signedAt}
	if ev.Type == aggregator.EventIntegrationStateChanged {
		rec.Card, rec.Reason = aggregator.Card(ev.State, ev.SetupStatus)
	}
	res, err := in.Store.RecordAggregatorEvent(ctx, co.ID, rec, kinds.JobImportStart(co.Slug, co.ID))
	if err != nil {
		return EventResult{}, err
	}
	in.Metrics.Webhook(ev.Type, res.Outcome)
	if res.ImportStart != nil {
		if err := in.Launcher.Launch(ctx, res.ImportStart); err != nil {
			return EventResult{}, err
		}
	}
	if res.State == models.IntegrationConnected && (res.BecameConnected || ev.Type == aggregator.EventDataChanged && ev.Touches(aggregator.ModelJobs, aggregator.ModelCandidates, aggregator.ModelApplications)) {
		sctx, cancel := context.WithTimeout(ctx, signalTimeout)
		start := kinds.JobImportStart(co.Slug, co.ID)
		err := in.Launcher.Starter.Signal(sctx, &start)
		cancel()
		if err != nil {
			in.Log.WarnContext(ctx, "job import not signalled; the aggregator redelivers", "company", co.Slug, "event_id", ev.ID, "err", err)
			return EventResult{}, fmt.Errorf("%w: signal the job import of %s: %v", outbox.ErrUnavailable, co.Slug, err)
		}
	}
	return EventResult{Duplicate: res.Duplicate, Outcome: res.Outcome}, nil
}

// verify parses the body and checks its signature against the secret of the integration it
// names. Every failure but the store's is ErrBadSignature.
func (in *Integrations) verify(ctx context.Context, header http.Header, body []byte, requestID string) (aggregator.Event, time.Time, *models.AggregatorIntegration, error) {
	ev, err := aggregator.ParseEvent(body)
	if err != nil {
		return ev, time.Time{}, nil, ErrBadSignature
	}
	integ, err := in.Store.IntegrationForEvent(ctx, ev.IntegrationID, ev.OriginID)
	if errors.Is(err, store.ErrNotFound) {
		return ev, time.Time{}, nil, ErrBadSignature
	}
	if err != nil {
		return ev, time.Time{}, nil, err
	}
	_, secret, err := store.OpenAggregatorSecrets(in.Box, integ)
	if err != nil {
		return ev, time.Time{}, nil, err
	}
	signedAt, err := aggregator.VerifySignature(header, body, secret, time.Now())
	if err != nil {
		in.Log.WarnContext(ctx, "aggregator webhook refused", "request_id", requestID, "reason", err)
		return ev, time.Time{}, nil, ErrBadSignature
	}
	return ev, signedAt, integ, nil
}
