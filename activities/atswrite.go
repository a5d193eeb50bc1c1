package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/atswrite"
	"github.com/recruitd/recruitd/internal/kinds"
)

// The writes of results back to a company's ATS (internal/atswrite). They return ids, statuses
// and counts: the note's text and the report stay in Postgres and the ATS.

func (a *Activities) atsWrites() *atswrite.Writes {
	return &atswrite.Writes{Store: a.Store, Launcher: a.Launcher, Box: a.Box, Links: a.Links, Log: a.Log}
}

// QueueReportNote commits the session's report note to the ATS and its ats-write run's start,
// once per session, and launches it. false when there is nothing to write to (an HR-suite
// company, an application without an ATS id).
func (a *Activities) QueueReportNote(ctx context.Context, in SessionRef) (bool, error) {
	if a.Launcher == nil {
		return false, temporal.NewNonRetryableApplicationError("the worker has no start launcher for ATS writes", ErrTypePermanent, nil)
	}
	ok, err := a.atsWrites().QueueNote(ctx, in.CompanyID, in.SessionID)
	return ok, permanentIfMissing(err)
}

// ATSWriteResult is a write's status after an attempt and its attempts so far.
type ATSWriteResult struct {
	Status   string
	Attempts int
}

// PerformATSWrite makes one attempt at a write (atswrite.Writes.Perform): a permanent refusal
// is a non-retryable error, recorded on the row.
func (a *Activities) PerformATSWrite(ctx context.Context, in kinds.ATSWriteInput) (ATSWriteResult, error) {
	out, err := a.atsWrites().Perform(ctx, in.CompanyID, in.WriteID)
	res := ATSWriteResult{Status: out.Status, Attempts: out.Attempts}
	if errors.Is(err, atswrite.ErrPermanent) {
		return res, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypePermanent, err)
	}
	return res, permanentIfMissing(err)
}

// GiveUpATSWrite records a write whose retries ran out as failed.
func (a *Activities) GiveUpATSWrite(ctx context.Context, in kinds.ATSWriteInput) error {
	return permanentIfMissing(a.atsWrites().GiveUp(ctx, in.CompanyID, in.WriteID))
}
