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
	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/report"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// MaxNote bounds a decision's note, in bytes.
const MaxNote = 2000

// ErrPermanent marks a write that retrying cannot do: the ATS refused it (an unknown stage or
// field, a record it does not have), the credentials are missing or refused, or the pair does
// not fit the target. The row is recorded failed with the reason.
var ErrPermanent = errors.New("ATS write refused")

// ErrNoteTooLong is a decision note over MaxNote.
var ErrNoteTooLong = errors.New("the note is longer than 2000 bytes")

// ErrInvalidNote is a decision note that is not text: invalid UTF-8, or a control character
// other than tab and line breaks (the rule of interview answers).
var ErrInvalidNote = errors.New("the note holds characters that are not text")

// ErrSessionOpen is a decision on a session that has not ended (SessionOpenError says its status).
var ErrSessionOpen = errors.New("the session has not ended")

// SessionOpenError refuses a decision on a session still open, with its status.
type SessionOpenError struct{ Status models.SessionStatus }

func (e *SessionOpenError) Error() string {
	return "the session is " + string(e.Status) + ": a decision is taken once the interview has ended"
}

// Unwrap makes it ErrSessionOpen.
func (e *SessionOpenError) Unwrap() error { return ErrSessionOpen }

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
	rec, ok, err := w.recordOf(ctx, companyID, *sess.ApplicationID)
	if err != nil || !ok {
		return false, err
	}
	row := &models.ATSWrite{ID: uuid.New(), CompanyID: companyID, SessionID: sessionID, ApplicationID: *sess.ApplicationID,
		Key: sessionID.String() + "/note", Op: models.ATSWriteNote, Target: rec.Target, Ref: rec.Ref, RefJob: rec.RefJob}
	return w.commit(ctx, row, sessionID.String()+"-note")
}

// Record is where an application's results are written: Target is an ATS type (ATS-A, ATS-B,
// ATS-C) or models.ATSTargetAggregator, Ref the record's id there (the aggregator's application
// id for the aggregator), RefJob the ATS job id (ATS-C records live under their job).
type Record struct {
	Target, Ref, RefJob string
}

// RecordOf chooses where an application's results are written. ok is false when nothing may be
// written: an HR-suite company (its connection is read-only), an application the aggregator did
// not sync and that carries no ATS id, or an ATS type without write-back. An application the
// aggregator synced is written through the aggregator, whatever ATS id it also carries.
func RecordOf(r store.ApplicationATSRefs) (rec Record, ok bool) {
	switch {
	case r.HRSuite:
		return Record{}, false
	case r.AggregatorRef != "":
		return Record{Target: models.ATSTargetAggregator, Ref: r.AggregatorRef}, true
	case r.ATSType == "" || r.ExternalID == "":
		return Record{}, false
	}
	switch t := models.ATSType(r.ATSType); t {
	case models.ATSTypeA, models.ATSTypeB, models.ATSTypeC:
		return Record{Target: string(t), Ref: r.ExternalID, RefJob: r.JobExternalID}, true
	}
	return Record{}, false
}

// recordOf is RecordOf of the company's application as stored.
func (w *Writes) recordOf(ctx context.Context, companyID, applicationID uuid.UUID) (Record, bool, error) {
	refs, err := w.Store.ApplicationATSRefs(ctx, companyID, applicationID)
	if err != nil {
		return Record{}, false, err
	}
	rec, ok := RecordOf(refs)
	return rec, ok, nil
}

// Decided is what a recorded decision did: the session, and the write it queued (nil when none;
// Skipped says why: "no ATS record", "no pair for the decision"). Changed is false when the
// decision was the session's already: nothing changed and nothing was queued; Write is then the
// session's latest write of that decision, if any.
type Decided struct {
	Session *models.InterviewSession
	Write   *models.ATSWrite
	Skipped string
	Changed bool
}

// CleanNote checks a decision's note as an interview answer is checked (interview.CleanAnswer:
// valid UTF-8, no control characters other than tab and line breaks, CRLF made LF, trimmed) and
// bounds it to MaxNote bytes. A note of white space only is no note ("").
func CleanNote(note string) (string, error) {
	if len(note) > MaxNote {
		return "", ErrNoteTooLong
	}
	if strings.TrimSpace(note) == "" {
		return "", nil
	}
	clean, err := interview.CleanAnswer(note)
	switch {
	case errors.Is(err, interview.ErrEmptyAnswer):
		return "", nil
	case errors.Is(err, interview.ErrInvalidText):
		return "", ErrInvalidNote
	case err != nil:
		return "", ErrNoteTooLong
	}
	return clean, nil
}

// Decide records the recruiter's decision d on the session (and note, when not empty, as a
// recruiter note), and queues the write of the company's pair for d to the ATS record of the
// session's application. author is the recruiter's user id (uuid.Nil for an API key).
//
// A decision is taken on a session that has ended (COMPLETED, and also INCOMPLETE, EXPIRED,
// DECLINED or CANCELLED: a recruiter may reject a candidate who never finished); a session still
// open (INVITED, STARTED) is refused with ErrSessionOpen, since a stage move may fire the ATS's
// automations while the candidate is still answering. The decisions on one session are recorded
// one after the other: the same decision again changes nothing and queues nothing (its note is
// kept unless it repeats the latest one); a new decision supersedes the session's stage writes
// not sent yet, so the ATS ends on the current decision (store.WithCurrentStageWrite).
func (w *Writes) Decide(ctx context.Context, co *models.Company, sessionID uuid.UUID, d models.Decision, note string, author uuid.UUID) (*Decided, error) {
	note, err := CleanNote(note)
	if err != nil {
		return nil, err
	}
	sess, err := w.Store.Session(ctx, co.ID, sessionID)
	if err != nil {
		return nil, err
	}
	var rec Record
	ok := false
	if sess.ApplicationID != nil {
		if rec, ok, err = w.recordOf(ctx, co.ID, *sess.ApplicationID); err != nil {
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
	if out.Session, err = tx.LockSession(co.ID, sessionID); err != nil {
		return nil, err
	}
	if out.Session.Status.Open() {
		return nil, &SessionOpenError{Status: out.Session.Status}
	}
	if note != "" {
		if _, err := tx.AddSessionNote(out.Session, note, author); err != nil {
			return nil, err
		}
	}
	switch {
	case !ok:
		out.Skipped = "no ATS record"
	case !hasPair:
		out.Skipped = "no pair for the decision"
	}
	if out.Session.Decision == d {
		if out.Skipped == "" {
			if out.Write, err = tx.LatestStageWrite(co.ID, sessionID, d); err != nil {
				return nil, err
			}
		}
		return out, tx.Commit()
	}
	out.Changed = true
	if err := tx.SetSessionDecision(out.Session, d); err != nil {
		return nil, err
	}
	var start *models.WorkflowStart
	if out.Skipped == "" {
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

// Perform makes one attempt at the write: nothing when it is done, failed or superseded. Every
// request carries the row's key as Idempotency-Key, so an attempt repeated after one that
// reached the ATS but was not recorded (its worker stopped) is recorded once by an ATS that
// honours it; for one that ignores it, a retried write reads the record first where the ATS's
// API allows (ATS-A, ATS-B, ATS-C: a stage already set, a note already holding the write's
// marker) and is then not sent again. A stage write is sent only while it is its session's
// current one, one stage write of a session at a time (store.WithCurrentStageWrite); it also
// reads the record first and is not sent when the ATS is at the stage already. A permanent
// refusal is recorded failed and returned wrapping ErrPermanent; another failure is recorded on
// the row (last_error) and returned for the caller to retry.
func (w *Writes) Perform(ctx context.Context, companyID, writeID uuid.UUID) (Outcome, error) {
	row, prior, err := w.Store.BeginATSWrite(ctx, companyID, writeID)
	if err != nil {
		return Outcome{}, err
	}
	if row.Final() {
		return Outcome{Status: row.Status, Attempts: row.Attempts}, nil
	}
	send, werr := w.prepare(ctx, row, prior == models.ATSWriteSending)
	switch {
	case werr != nil:
	case row.Op == models.ATSWriteStage:
		var stale bool
		stale, werr = w.Store.WithCurrentStageWrite(ctx, companyID, writeID, send)
		if stale && werr == nil {
			return Outcome{Status: models.ATSWriteSuperseded, Attempts: row.Attempts}, nil
		}
	default:
		werr = send()
	}
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
	if row.Final() {
		return nil
	}
	msg := row.LastError
	if msg == "" {
		msg = "retries ran out"
	}
	return w.Store.FinishATSWrite(ctx, companyID, writeID, models.ATSWriteFailed, "gave up after retries: "+msg)
}

// Marker is the line a write's note carries, which a retry looks for in the ATS's notes.
func Marker(row *models.ATSWrite) string { return "recruitd-write: " + row.ID.String() }

// prepare loads what the row's requests need (the report, the credentials) and returns the
// function that sends them, which talks to the ATS only and never to the store (a stage write's
// runs while its session's lock holds a database connection); retry says an earlier attempt may
// have reached the ATS.
func (w *Writes) prepare(ctx context.Context, row *models.ATSWrite, retry bool) (func() error, error) {
	var text string
	var link string
	if row.Op == models.ATSWriteNote {
		rep, err := report.Load(ctx, w.Store, row.CompanyID, row.SessionID)
		if err != nil {
			return nil, permanentIfMissing(err)
		}
		link = w.Links.Session(row.SessionID)
		text = NoteText(rep, link, Marker(row))
	}
	if row.Target == models.ATSTargetAggregator {
		return w.prepareAggregator(ctx, row, text, link)
	}
	co, err := w.Store.Company(ctx, row.CompanyID)
	if err != nil {
		return nil, err
	}
	if co.HRSuiteAccount {
		return nil, fmt.Errorf("%w: the HR-suite connection is read-only", ErrPermanent)
	}
	creds, err := store.OpenATSCredentials(w.Box, co)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	wr, err := ats.NewWriter(models.ATSType(row.Target), ats.Config{Credentials: creds, Timeout: w.Timeout, HTTPClient: w.HTTPClient})
	if err != nil {
		return nil, classifyATS(err)
	}
	rec := ats.Record{ID: row.Ref, JobID: row.RefJob}
	if row.Op == models.ATSWriteNote {
		return func() error {
			if retry {
				if found, err := wr.HasNote(ctx, rec, Marker(row)); err != nil || found {
					return classifyATS(err)
				}
			}
			return classifyATS(wr.AddNote(ctx, rec, text, row.ID.String()))
		}, nil
	}
	return func() error {
		if v, set, err := wr.FieldValue(ctx, rec, row.Field); err != nil || set && v == row.Value {
			return classifyATS(err)
		}
		return classifyATS(wr.SetField(ctx, rec, row.Field, row.Value, row.ID.String()))
	}, nil
}

func (w *Writes) prepareAggregator(ctx context.Context, row *models.ATSWrite, text, link string) (func() error, error) {
	integ, err := w.Store.AggregatorIntegration(ctx, row.CompanyID)
	if err != nil {
		return nil, permanentIfMissing(err)
	}
	if integ.IntegrationID == nil || *integ.IntegrationID == "" {
		return nil, fmt.Errorf("%w: the aggregator integration is not connected", ErrPermanent)
	}
	creds, _, err := store.OpenAggregatorSecrets(w.Box, integ)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPermanent, err)
	}
	k, err := aggregator.NewKombo(creds, w.HTTPClient)
	if err != nil {
		return nil, classifyAggregator(err)
	}
	id, key := *integ.IntegrationID, row.ID.String()
	if row.Op == models.ATSWriteNote {
		return func() error {
			if err := k.AddNote(ctx, id, row.Ref, text, key+"/note"); err != nil {
				return classifyAggregator(err)
			}
			return classifyAggregator(k.AddResultLink(ctx, id, row.Ref, aggregator.ResultLink{Label: "recruitd interview report", URL: link}, key+"/link"))
		}, nil
	}
	if row.Field != "stage" {
		return nil, fmt.Errorf("%w: an aggregator pair sets field \"stage\" (the aggregator's stage id), not %q", ErrPermanent, row.Field)
	}
	return func() error {
		if cur, found, err := k.StageOf(ctx, id, row.Ref); err != nil || found && cur == row.Value {
			return classifyAggregator(err)
		}
		return classifyAggregator(k.MoveStage(ctx, id, row.Ref, row.Value, key+"/stage"))
	}, nil
}

// NoteText is the note a session's report leaves on the ATS application: the status, the
// rating, the service review, the report's link and the write's marker; never an answer's text.
func NoteText(r *report.Report, link, marker string) string {
	var b strings.Builder
	b.WriteString("recruitd interview result\n")
	b.WriteString("Status: " + string(r.Status) + "\n")
	if r.Rating != nil {
		b.WriteString("Rating: " + strconv.FormatFloat(*r.Rating, 'f', 2, 64) + "\n")
	}
	if s := strings.TrimSpace(r.Summary); s != "" {
		b.WriteString("Review: " + s + "\n")
	}
	b.WriteString("Report: " + link + "\n")
	b.WriteString(marker)
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
