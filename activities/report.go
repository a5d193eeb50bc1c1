package activities

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/identity"
	"github.com/recruitd/recruitd/internal/integrity"
	"github.com/recruitd/recruitd/internal/report"
	"github.com/recruitd/recruitd/models"
)

// The steps of a session's interview run around the interview itself: the candidate's fraud
// check at invitation, and after completion the report and the integrity evaluations. Each
// reads and writes Postgres only and returns enumerations and counts: the report's quotes,
// the answers and the contact details never reach Temporal.

// SessionRef names one company's session.
type SessionRef struct {
	CompanyID uuid.UUID
	SessionID uuid.UUID
}

// ReportResult is what a session's report came to.
type ReportResult struct {
	Status   report.Status
	Reason   report.Reason
	Engine   report.Engine
	Criteria int
}

// ProduceReport evaluates a completed session's transcript and stores its report, once: a
// retried or repeated activity returns the stored report (internal/report.Produce). A session
// that is not COMPLETED is a permanent error.
func (a *Activities) ProduceReport(ctx context.Context, in SessionRef) (ReportResult, error) {
	ev := a.Evaluator
	if ev == nil {
		ev = report.NewLocal()
	}
	r, err := report.Produce(ctx, a.Store, ev, in.CompanyID, in.SessionID)
	if errors.Is(err, report.ErrNotCompleted) {
		return ReportResult{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypePermanent, err)
	}
	if err != nil {
		return ReportResult{}, permanentIfMissing(err)
	}
	return ReportResult{Status: r.Status, Reason: r.Reason, Engine: r.Engine, Criteria: len(r.Criteria)}, nil
}

// IntegrityResult is what the integrity checks of a session did: "" or the reason they were
// skipped, and the scores (0-100) they stored.
type IntegrityResult struct {
	CheatingSkipped string
	CheatingScore   float64
	FraudSkipped    string
	FraudScore      float64
}

// CheckIntegrity runs the session's integrity checks: with cheating set (after completion), the
// cheating evaluation from the page's signals; always, the candidate's fraud check for the
// session (at invitation; after completion it refreshes the same row). Each does nothing when
// its company flag is off.
func (a *Activities) CheckIntegrity(ctx context.Context, in SessionRef, cheating bool) (IntegrityResult, error) {
	var out IntegrityResult
	svc := &integrity.Service{Store: a.Store}
	sess, err := a.Store.Session(ctx, in.CompanyID, in.SessionID)
	if err != nil {
		return out, permanentIfMissing(err)
	}
	if cheating {
		ev, err := svc.EvaluateSession(ctx, in.CompanyID, in.SessionID)
		if err != nil {
			return out, err
		}
		out.CheatingSkipped, out.CheatingScore = ev.Skipped, ev.Result.CheatingScore
	}
	v, err := svc.VerifyCandidate(ctx, in.CompanyID, sess.CandidateID, integrity.VerifyInput{SessionID: &sess.ID})
	if err != nil {
		return out, err
	}
	out.FraudSkipped, out.FraudScore = v.Skipped, v.Result.Score
	return out, nil
}

// ExpireIdentity moves the session's identity verification from PENDING to EXPIRED when its
// expiry has passed by the database's clock (internal/identity.Expire), and returns its status:
// still PENDING when the run's timer fired before the database's clock got there.
func (a *Activities) ExpireIdentity(ctx context.Context, companyID, verificationID uuid.UUID) (models.IdentityStatus, error) {
	res, err := identity.New(a.Store, identity.Settings{}, a.Log).Expire(ctx, companyID, verificationID)
	if err != nil {
		return "", permanentIfMissing(err)
	}
	return res.Status, nil
}
