package hrsuite

// What support staff do with stored deliveries, across companies, shared by the operator CLI
// (recruitd hrsuite ...) and the support endpoints (/v1/support/hrsuite/...): list and show
// them, and replay them. Callers authenticate support staff first (a platform admin's support
// token, or shell access to the CLI).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// FilterInput is a delivery filter as typed by a person: every field optional. From and To are
// RFC 3339 times or YYYY-MM-DD dates (To's date is included whole).
type FilterInput struct {
	DeliveryID, Company, From, To, Outcome string
}

// ErrInvalid is a filter or request that names something malformed; its message says what.
var ErrInvalid = errors.New("invalid")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// outcomes are the row outcomes a filter may name ("invalid" stands for every invalid:<reason>).
var outcomes = []string{"accepted", "duplicate", "do_not_hire", "unknown_job", "no_trigger", "invalid"}

// ParseFilter validates in.
func ParseFilter(in FilterInput) (models.HRSuiteFilter, error) {
	var f models.HRSuiteFilter
	if s := strings.TrimSpace(in.DeliveryID); s != "" {
		id, err := uuid.Parse(s)
		if err != nil {
			return f, invalid("delivery id %q is not a UUID", clip(s))
		}
		f.DeliveryID = &id
	}
	f.Company = strings.ToLower(strings.TrimSpace(in.Company))
	if len(f.Company) > 63 {
		return f, invalid("company slug is longer than 63 characters")
	}
	var err error
	if f.From, err = parseTime("from", in.From, false); err != nil {
		return f, err
	}
	if f.To, err = parseTime("to", in.To, true); err != nil {
		return f, err
	}
	if f.From != nil && f.To != nil && !f.From.Before(*f.To) {
		return f, invalid("from must be before to")
	}
	f.Outcome = strings.ToLower(strings.TrimSpace(in.Outcome))
	if f.Outcome != "" && !strings.HasPrefix(f.Outcome, "invalid:") && !contains(outcomes, f.Outcome) {
		return f, invalid("outcome %q is not one of %s or invalid:<reason>", clip(f.Outcome), strings.Join(outcomes, ", "))
	}
	if len(f.Outcome) > 100 {
		return f, invalid("outcome is longer than 100 characters")
	}
	return f, nil
}

func parseTime(name, s string, endOfDay bool) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		t = t.UTC()
		return &t, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return nil, invalid("%s %q is neither an RFC 3339 time nor a YYYY-MM-DD date", name, clip(s))
	}
	if endOfDay {
		t = t.AddDate(0, 0, 1)
	}
	return &t, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// checkCompany makes a filter's company one that exists, so a typo is an error, not an empty
// answer.
func (d *Deliveries) checkCompany(ctx context.Context, f models.HRSuiteFilter) error {
	if f.Company == "" {
		return nil
	}
	if _, err := d.Store.CompanyBySlug(ctx, f.Company); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return invalid("no company has the slug %q", clip(f.Company))
		}
		return err
	}
	return nil
}

// List lists up to limit stored deliveries matching f, newest first.
func (d *Deliveries) List(ctx context.Context, f models.HRSuiteFilter, limit int) ([]store.HRSuiteDeliverySummary, error) {
	if err := d.checkCompany(ctx, f); err != nil {
		return nil, err
	}
	return d.Store.ListHRSuiteDeliveries(ctx, f, limit)
}

// Show loads a delivery with its row outcomes (only those of outcome, when set: a filter's
// outcome, "invalid" for every invalid one).
func (d *Deliveries) Show(ctx context.Context, id uuid.UUID, outcome string) (*store.HRSuiteDeliveryDetail, error) {
	return d.Store.HRSuiteDeliveryDetail(ctx, id, outcome)
}

// Plan counts what a replay of f would reprocess (the dry run).
func (d *Deliveries) Plan(ctx context.Context, f models.HRSuiteFilter) (*store.HRSuiteReplayPlan, error) {
	if err := d.checkCompany(ctx, f); err != nil {
		return nil, err
	}
	return d.Store.PlanHRSuiteReplay(ctx, f)
}

// Replay records a replay of f requested by who and starts its runs, one per company whose
// deliveries it covers. A start Temporal does not take now stays in the outbox for the
// reconciler.
func (d *Deliveries) Replay(ctx context.Context, f models.HRSuiteFilter, who string) (*models.HRSuiteReplay, error) {
	if err := d.checkCompany(ctx, f); err != nil {
		return nil, err
	}
	companies, err := d.Store.HRSuiteReplayCompanies(ctx, f)
	if err != nil {
		return nil, err
	}
	r := &models.HRSuiteReplay{ID: uuid.New(), RequestedBy: who}
	starts := make([]models.WorkflowStart, 0, len(companies))
	for _, c := range companies {
		starts = append(starts, kinds.HRSuiteReplayStart(c.Slug, kinds.HRSuiteReplayInput{CompanyID: c.ID, ReplayID: r.ID}))
	}
	starts, err = d.Store.CreateHRSuiteReplay(ctx, f, r, starts)
	if err != nil {
		return nil, err
	}
	if err := d.Launcher.LaunchMany(ctx, starts); err != nil {
		d.Log.WarnContext(ctx, "hr-suite replay recorded; its runs start when Temporal is back (reconciler)", "replay_id", r.ID, "err", err)
	}
	return r, nil
}

// ReplayStatus loads a replay's record and progress.
func (d *Deliveries) ReplayStatus(ctx context.Context, id uuid.UUID) (*models.HRSuiteReplay, error) {
	return d.Store.HRSuiteReplay(ctx, id)
}
