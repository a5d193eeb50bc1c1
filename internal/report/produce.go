package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// ErrNotCompleted is returned by Produce for a session that is not COMPLETED.
var ErrNotCompleted = errors.New("the session is not completed")

// Produce returns the report of the company's session, made once: a stored report is returned
// as it is; otherwise the session's transcript and its job's rubric are evaluated by ev and the
// report stored with the session's service_rating and service_review (store.SaveReport), so
// that a retry after a crash, or two runs at once, store one report and return it. A session
// that is not COMPLETED is ErrNotCompleted; one the company does not have, store.ErrNotFound.
func Produce(ctx context.Context, st *store.Store, ev Evaluator, companyID, sessionID uuid.UUID) (*Report, error) {
	rec, err := st.Report(ctx, companyID, sessionID)
	if err == nil {
		return FromRecord(rec)
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	src, err := st.ReportSources(ctx, companyID, sessionID)
	if err != nil {
		return nil, err
	}
	if src.Session.Status != models.SessionStatusCompleted {
		return nil, fmt.Errorf("report of session %s (%s): %w", sessionID, src.Session.Status, ErrNotCompleted)
	}
	r := ev.Evaluate(ctx, InputFromSources(src))
	row, err := r.Record(companyID, sessionID)
	if err != nil {
		return nil, err
	}
	saved, _, err := st.SaveReport(ctx, row)
	if err != nil {
		return nil, err
	}
	return FromRecord(saved)
}

// Load returns the stored report of the company's session; store.ErrNotFound while it has none.
func Load(ctx context.Context, st *store.Store, companyID, sessionID uuid.UUID) (*Report, error) {
	rec, err := st.Report(ctx, companyID, sessionID)
	if err != nil {
		return nil, err
	}
	return FromRecord(rec)
}

// Record is r as the store keeps it, for the company's session.
func (r Report) Record(companyID, sessionID uuid.UUID) (store.SessionReport, error) {
	criteria, tags := r.Criteria, r.Tags
	if criteria == nil {
		criteria = []CriterionScore{}
	}
	if tags == nil {
		tags = []Tag{}
	}
	cj, err := json.Marshal(criteria)
	if err != nil {
		return store.SessionReport{}, fmt.Errorf("encode criteria of report of session %s: %w", sessionID, err)
	}
	tj, err := json.Marshal(tags)
	if err != nil {
		return store.SessionReport{}, fmt.Errorf("encode tags of report of session %s: %w", sessionID, err)
	}
	rec := store.SessionReport{
		SessionID: sessionID, CompanyID: companyID, Status: string(r.Status), Rating: r.Rating,
		Summary: r.Summary, RubricVersion: r.RubricVersion, Engine: string(r.Engine),
		Criteria: models.NewJSON(json.RawMessage(cj)), Tags: models.NewJSON(json.RawMessage(tj)),
	}
	if r.Reason != ReasonNone {
		reason := string(r.Reason)
		rec.Reason = &reason
	}
	if r.Model != "" {
		model := r.Model
		rec.Model = &model
	}
	return rec, nil
}

// FromRecord is the report a store row holds.
func FromRecord(rec *store.SessionReport) (*Report, error) {
	r := &Report{
		SessionID: rec.SessionID, Status: Status(rec.Status), Rating: rec.Rating, Summary: rec.Summary,
		RubricVersion: rec.RubricVersion, Engine: Engine(rec.Engine), CreatedAt: rec.CreatedAt,
		Criteria: []CriterionScore{}, Tags: []Tag{},
	}
	if rec.Reason != nil {
		r.Reason = Reason(*rec.Reason)
	}
	if rec.Model != nil {
		r.Model = *rec.Model
	}
	if len(rec.Criteria.V) > 0 {
		if err := json.Unmarshal(rec.Criteria.V, &r.Criteria); err != nil {
			return nil, fmt.Errorf("decode criteria of report of session %s: %w", rec.SessionID, err)
		}
	}
	if len(rec.Tags.V) > 0 {
		if err := json.Unmarshal(rec.Tags.V, &r.Tags); err != nil {
			return nil, fmt.Errorf("decode tags of report of session %s: %w", rec.SessionID, err)
		}
	}
	return r, nil
}
