// Package atswrite writes interview results back to a company's ATS (never to an HR suite,
// whose connection is read-only): one note per session when its report is ready (the result
// summary and the report's link), and the company's decision-stage field/value pair when a
// recruiter records a decision. Each write is an ats_writes row committed with the start of its
// ats-write run; the run's activity calls Perform, which writes through internal/ats (ATS-A,
// ATS-B, ATS-C) or internal/aggregator (an ATS connected through the aggregator) once per row.
package atswrite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/ats"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/report"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows/kinds"
)

// MaxNote bounds a decision's note, in bytes.
const MaxNote = 2000

// ErrPermanent marks a write that retrying cannot do: the ATS refused it (an unknown stage or
// field, a record it does not have), the credentials are missing or refused, or the pair does
// not fit the target. The row is recorded failed with the reason.
var ErrPermanent = errors.New("ATS write refused")

// ErrNoteTooLong is a decision note over MaxNote.
var ErrNoteTooLong = errors.New("the note is longer than 2000 bytes")

// Writes is the feature.
type Writes struct {
	Store    *store.Store
	Launcher *outbox.Launcher
	Box      *secretbox.Box
	// Links builds the report links of the notes (links.Builder.Session).
	Links links.Builder
	// Timeout bounds one ATS request (ats.DefaultTimeout when zero); HTTPClient may be nil.
	Timeout    time.Duration
	HTTPClient *http.Client
	Log        *slog.Logger
}

// QueueNote commits the session's report note and its run's start, once per session, and
// launches it. queued is false when the session's application has no ATS record to write to
// (an HR-suite company, an application without an ATS id) or the note was queued before.
func (w *Writes) QueueNote(ctx context.Context, companyID, sessionID uuid.UUID) (queued bool, err error) {
	sess, err := w.Store.Session(ctx, companyID, sessionID)
	if err != nil {
		return false, err
	}
	if sess.ApplicationID == nil {
		return false, nil
	}
	rec, ok, err := w.Store.ATSRecordOf(ctx, companyID, *sess.ApplicationID)
	if err != nil || !ok {
		return false, err
	}
	row := &models.ATSWrite{ID: uuid.New(), CompanyID: companyID, SessionID: sessionID, ApplicationID: *sess.ApplicationID,
		Key: sessionID.String() + "/note", Op: models.ATSWriteNote, Target: rec.Target, Ref: rec.Ref, RefJob: rec.RefJob}
	return w.commit(ctx, row, sessionID.String()+"-note")
}

// Decided is what a recorded decision did: the session, and the write it queued (nil when none;
// Skipped says why: "no ATS record", "no pair for the decision").
type Decided struct {
	Session *models.InterviewSession
	Write   *models.ATSWrite
	Skipped string
}

// Decide records the recruiter's decision d on the session (and note, when not empty, as a
// recruiter note), and queues the write of the company's pair for d to the ATS record of the
// session's application. author is the recruiter's user id (uuid.Nil for an API key).
func (w *Writes) Decide(ctx context.Context, co *models.Company, sessionID uuid.UUID, d models.Decision, note string, author uuid.UUID) (*Decided, error) {
	if len(note) > MaxNote {
		return nil, ErrNoteTooLong
	}
	sess, err := w.Store.Session(ctx, co.ID, sessionID)
	if err != nil {
		return nil, err
	}
	var rec store.ATSRecord
	ok := false
	if sess.ApplicationID != nil {
		if rec, ok, err = w.Store.ATSRecordOf(ctx, co.ID, *sess.ApplicationID); err != nil {
			return nil, err
		}
	}
	pair, hasPair := models.SyncFieldFor(co.DecisionSyncFields.V, d)
	tx, err := w.Store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	out := &Decided{}
	if out.Session, err = tx.SetSessionDecision(co.ID, sessionID, d, note, author); err != nil {
		return nil, err
	}
	var start *models.WorkflowStart
	switch {
	case !ok:
		out.Skipped = "no ATS record"
	case !hasPair:
		out.Skipped = "no pair for the decision"
	default:
		id := uuid.New()
		dec := d
		row := &models.ATSWrite{ID: id, CompanyID: co.ID, SessionID: sessionID, ApplicationID: *sess.ApplicationID,
			Key: sessionID.String() + "/stage/" + id.String(), Op: models.ATSWriteStage, Target: rec.Target, Ref: rec.Ref, RefJob: rec.RefJob,
			Decision: &dec, Field: pair.Field, Value: pair.Value}
		if _, err := tx.InsertATSWrite(row); err != nil {
			return nil, err
		}
		ws := kinds.ATSWriteStart(co.Slug, sessionID.String()+"-stage-"+id.String(), kinds.ATSWriteInput{CompanyID: co.ID, WriteID: row.ID})
		started, err := tx.InsertStarts([]models.WorkflowStart{ws})
		if err != nil {
			return nil, err
		}
		if len(started) == 1 {
			start = &started[0]
		}
		out.Write = row
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	if start != nil && w.Launcher != nil { // without one (an operator command offline) the reconciler starts it
		if err := w.Launcher.Launch(ctx, start); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// commit writes row and its run's start in one transaction (nothing when the company has the
// row's key already) and launches the start.
func (w *Writes) commit(ctx context.Context, row *models.ATSWrite, runKey string) (bool, error) {
	co, err := w.Store.Company(ctx, row.CompanyID)
	if err != nil {
		return false, err
	}
	tx, err := w.Store.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	created, err := tx.InsertATSWrite(row)
	if err != nil || !created {
		return false, err
	}
	started, err := tx.InsertStarts([]models.WorkflowStart{kinds.ATSWriteStart(co.Slug, runKey, kinds.ATSWriteInput{CompanyID: co.ID, WriteID: row.ID})})
	if err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	if len(started) == 1 && w.Launcher != nil {
		if err := w.Launcher.Launch(ctx, &started[0]); err != nil {
			return true, err
		}
	}
	return true, nil
}

// Outcome is what Perform did: the row's status after the attempt and its attempts.
type Outcome struct {
	Status   string
	Attempts int
}

// Perform makes one attempt at the write: nothing when it is done or failed already. Every
// request carries the row's key as Idempotency-Key, so an attempt repeated after one that
// reached the ATS but was not recorded (its worker stopped) is recorded once by the ATS. A
// permanent refusal is recorded failed and returned wrapping ErrPermanent; another failure is
// recorded on the row (last_error) and returned for the caller to retry.
func (w *Writes) Perform(ctx context.Context, companyID, writeID uuid.UUID) (Outcome, error) {
	row, _, err := w.Store.BeginATSWrite(ctx, companyID, writeID)
	if err != nil {
		return Outcome{}, err
	}
	if row.Status == models.ATSWriteDone || row.Status == models.ATSWriteFailed {
		return Outcome{Status: row.Status, Attempts: row.Attempts}, nil
	}
	werr := w.write(ctx, row)
	record := context.WithoutCancel(ctx) // the ATS answered: what it said must be recorded
	switch {
	case werr == nil:
		if err := w.Store.FinishATSWrite(record, companyID, writeID, models.ATSWriteDone, ""); err != nil {
			return Outcome{}, err
		}
		return Outcome{Status: models.ATSWriteDone, Attempts: row.Attempts}, nil
	case errors.Is(werr, ErrPermanent):
		if err := w.Store.FinishATSWrite(record, companyID, writeID, models.ATSWriteFailed, werr.Error()); err != nil {
			return Outcome{}, err
		}
		return Outcome{Status: models.ATSWriteFailed, Attempts: row.Attempts}, werr
	default:
		if err := w.Store.FinishATSWrite(record, companyID, writeID, models.ATSWriteSending, werr.Error()); err != nil {
			return Outcome{}, err
		}
		return Outcome{Status: models.ATSWriteSending, Attempts: row.Attempts}, werr
	}
}

// GiveUp records a write whose retries ran out as failed, keeping its last error.
func (w *Writes) GiveUp(ctx context.Context, companyID, writeID uuid.UUID) error {
	row, err := w.Store.ATSWrite(ctx, companyID, writeID)
	if err != nil {
		return err
	}
	if row.Status == models.ATSWriteDone || row.Status == models.ATSWriteFailed {
		return nil
	}
	msg := row.LastError
	if msg == "" {
		msg = "retries ran out"
	}
	return w.Store.FinishATSWrite(ctx, companyID, writeID, models.ATSWriteFailed, "gave up after retries: "+msg)
}

// write sends the row's requests.
func (w *Writes) write(ctx context.Context, row *models.ATSWrite) error {
	var text string
	var link string
	if row.Op == models.ATSWriteNote {
		rep, err := report.Load(ctx, w.Store, row.CompanyID, row.SessionID)
		if err != nil {
			return permanentIfMissing(err)
		}
		link = w.Links.Session(row.SessionID)
		text = NoteText(rep, link)
	}
	if row.Target == models.ATSTargetAggregator {
		return w.writeAggregator(ctx, row, text, link)
	}
	co, err := w.Store.Company(ctx, row.CompanyID)
	if err != nil {
		return err
	}
	if co.HRSuiteAccount {
		return fmt.Errorf("%w: the HR-suite connection is read-only", ErrPermanent)
	}
	creds, err := store.OpenATSCredentials(w.Box, co)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	wr, err := ats.NewWriter(models.ATSType(row.Target), ats.Config{Credentials: creds, Timeout: w.Timeout, HTTPClient: w.HTTPClient})
	if err != nil {
		return classifyATS(err)
	}
	rec := ats.Record{ID: row.Ref, JobID: row.RefJob}
	if row.Op == models.ATSWriteNote {
		return classifyATS(wr.AddNote(ctx, rec, text, row.ID.String()))
	}
	return classifyATS(wr.SetField(ctx, rec, row.Field, row.Value, row.ID.String()))
}

func (w *Writes) writeAggregator(ctx context.Context, row *models.ATSWrite, text, link string) error {
	integ, err := w.Store.AggregatorIntegration(ctx, row.CompanyID)
	if err != nil {
		return permanentIfMissing(err)
	}
	if integ.IntegrationID == nil || *integ.IntegrationID == "" {
		return fmt.Errorf("%w: the aggregator integration is not connected", ErrPermanent)
	}
	creds, _, err := store.OpenAggregatorSecrets(w.Box, integ)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	k, err := aggregator.NewKombo(creds, w.HTTPClient)
	if err != nil {
		return classifyAggregator(err)
	}
	id, key := *integ.IntegrationID, row.ID.String()
	if row.Op == models.ATSWriteNote {
		if err := k.AddNote(ctx, id, row.Ref, text, key+"/note"); err != nil {
			return classifyAggregator(err)
		}
		return classifyAggregator(k.AddResultLink(ctx, id, row.Ref, aggregator.ResultLink{Label: "recruitd interview report", URL: link}, key+"/link"))
	}
	if row.Field != "stage" {
		return fmt.Errorf("%w: an aggregator pair sets field \"stage\" (the aggregator's stage id), not %q", ErrPermanent, row.Field)
	}
	return classifyAggregator(k.MoveStage(ctx, id, row.Ref, row.Value, key+"/stage"))
}

// NoteText is the note a session's report leaves on the ATS application: the status, the
// rating, the service review and the report's link; never an answer's text.
func NoteText(r *report.Report, link string) string {
	var b strings.Builder
	b.WriteString("recruitd interview result\n")
	b.WriteString("Status: " + string(r.Status) + "\n")
	if r.Rating != nil {
		b.WriteString("Rating: " + strconv.FormatFloat(*r.Rating, 'f', 2, 64) + "\n")
	}
	if s := strings.TrimSpace(r.Summary); s != "" {
		b.WriteString("Review: " + s + "\n")
	}
	b.WriteString("Report: " + link)
	return b.String()
}

func permanentIfMissing(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %w", ErrPermanent, err)
	}
	return err
}

// classifyATS makes the adapter's final refusals permanent; ErrUnavailable stays retryable.
func classifyATS(err error) error {
	if err == nil || errors.Is(err, ats.ErrUnavailable) {
		return err
	}
	for _, e := range []error{ats.ErrRejected, ats.ErrNotFound, ats.ErrAuth, ats.ErrBadResponse, ats.ErrInvalidID, ats.ErrUnsupported, ats.ErrMisconfigured} {
		if errors.Is(err, e) {
			return fmt.Errorf("%w: %w", ErrPermanent, err)
		}
	}
	return err
}

func classifyAggregator(err error) error {
	if err == nil || errors.Is(err, aggregator.ErrTransient) {
		return err
	}
	if errors.Is(err, aggregator.ErrPermanent) || errors.Is(err, aggregator.ErrUnauthorized) || errors.Is(err, aggregator.ErrSetupPending) {
		return fmt.Errorf("%w: %w", ErrPermanent, err)
	}
	return err
}
