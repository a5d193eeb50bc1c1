package store_test

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/pagesignal"
	"github.com/recruitd/recruitd/internal/rollup"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

func ptrTo[T any](v T) *T { return &v }

// integrityFixture is a company with a job, and helpers to add candidates, sessions and turns.
type integrityFixture struct {
	t   *testing.T
	st  *store.Store
	co  *models.Company
	job *models.Job
}

func newIntegrityFixture(t *testing.T, st *store.Store, slug string) *integrityFixture {
	t.Helper()
	co := &models.Company{Slug: slug, Name: slug, DefaultJobStatus: models.JobStatusActive, FraudDetectionEnabled: true,
		ModelCheatDetectionEnabled: true, CheatThreshold: 70}
	if err := st.CreateCompany(t.Context(), co); err != nil {
		t.Fatal(err)
	}
	job := &models.Job{CompanyID: co.ID, ExternalID: "J-1", InterviewerID: slug + "-J-1", Title: "Welder", Status: models.JobStatusActive, IsOpen: true}
	f := &integrityFixture{t: t, st: st, co: co, job: job}
	f.create(job)
	return f
}

func (f *integrityFixture) create(v any) {
	f.t.Helper()
	if err := f.st.DB().WithContext(f.t.Context()).Create(v).Error; err != nil {
		f.t.Fatal(err)
	}
}

func (f *integrityFixture) candidate(email, phone string) *models.Candidate {
	c := &models.Candidate{CompanyID: f.co.ID, FirstName: "Ada", LastName: "Lovelace", Status: "interviewing"}
	if email != "" {
		c.Email = &email
	}
	if phone != "" {
		c.Phone = &phone
	}
	f.create(c)
	return c
}

func (f *integrityFixture) session(c *models.Candidate, medium models.MediumType) *models.InterviewSession {
	now := time.Now().UTC()
	s := &models.InterviewSession{CompanyID: f.co.ID, CandidateID: c.ID, JobID: f.job.ID, MediumType: medium,
		Status: models.SessionStatusCompleted, InvitedAt: now.Add(-time.Hour), StartedAt: ptrTo(now.Add(-30 * time.Minute)), CompletedAt: &now}
	f.create(s)
	return s
}

// turn adds turn seq to s, answered after took when answer is not empty.
func (f *integrityFixture) turn(s *models.InterviewSession, seq int, answer string, took time.Duration) {
	asked := time.Now().UTC().Add(-20 * time.Minute)
	t := &models.InterviewTurn{CompanyID: f.co.ID, SessionID: s.ID, Seq: seq, StepIndex: seq, Source: "guide", Question: "Question?", AskedAt: asked}
	if answer != "" {
		t.Answer, t.AnsweredAt = &answer, ptrTo(asked.Add(took))
	}
	f.create(t)
}

func checkRollups(t *testing.T, st *store.Store, companies ...uuid.UUID) {
	t.Helper()
	for _, id := range companies {
		if err := rollup.Check(t.Context(), st.SQL(), id); err != nil {
			t.Errorf("rollups of company %s: %v", id, err)
		}
	}
}

// TestAnswerSignalsAndCheatingEvaluation: the page's reports are kept per answered turn (the
// first one), read back with the answers' lengths and durations; the session's evaluation is
// one row, written through the table's triggers (candidate and job filled in, rollups exact),
// replaced when its figures change and untouched by a repeat; another company reaches nothing.
func TestAnswerSignalsAndCheatingEvaluation(t *testing.T) {
	st := newStore(t)
	f := newIntegrityFixture(t, st, "acme")
	other := newIntegrityFixture(t, st, "globex")
	ctx := t.Context()
	c := f.candidate("ada@example.com", "")
	s := f.session(c, models.MediumTypeVideo)
	f.turn(s, 1, "Ça va — très bien", 60*time.Second) // 17 characters, more bytes
	f.turn(s, 2, "Second answer", 90500*time.Millisecond)
	f.turn(s, 3, "", 0) // asked, not answered

	sig := pagesignal.Signals{PastedChars: 40, PasteEvents: 1, HiddenMs: 9000, HiddenCount: 1, BlurMs: 9500, BlurCount: 2,
		Keystrokes: 3, TypingMs: 800, AnswerChars: 17}
	if stored, err := st.SaveAnswerSignals(ctx, f.co.ID, s.ID, 1, sig); err != nil || !stored {
		t.Fatalf("SaveAnswerSignals = %v, %v", stored, err)
	}
	if stored, err := st.SaveAnswerSignals(ctx, f.co.ID, s.ID, 1, pagesignal.Signals{AnswerChars: 1}); err != nil || stored {
		t.Errorf("repeat SaveAnswerSignals = %v, %v; want kept first, not stored", stored, err)
	}
	if _, err := st.SaveAnswerSignals(ctx, f.co.ID, s.ID, 9, sig); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("signals of a turn that does not exist: err = %v, want ErrNotFound", err)
	}
	if _, err := st.SaveAnswerSignals(ctx, other.co.ID, s.ID, 2, sig); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("signals for another company's session: err = %v, want ErrNotFound", err)
	}

	turns, err := st.AnsweredTurns(ctx, f.co.ID, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.AnsweredTurn{{Seq: 1, AnswerChars: 17, DurationMs: 60_000, Signals: &sig}, {Seq: 2, AnswerChars: 13, DurationMs: 90_500}}
	if got, _ := json.Marshal(turns); string(got) != string(must(json.Marshal(want))) {
		t.Errorf("AnsweredTurns = %s\nwant %s", got, must(json.Marshal(want)))
	}
	if turns, err := st.AnsweredTurns(ctx, other.co.ID, s.ID); err != nil || len(turns) != 0 {
		t.Errorf("another company's AnsweredTurns = %v, %v", turns, err)
	}

	evidence := []byte(`{"rules":"page-signals/1","answers":2}`)
	in := store.CheatingEvaluationInput{SessionID: s.ID, CheatingScore: 87.64, TranscriptScore: ptrTo(87.64), Evidence: evidence}
	if changed, err := st.SaveCheatingEvaluation(ctx, f.co.ID, in); err != nil || !changed {
		t.Fatalf("SaveCheatingEvaluation = %v, %v", changed, err)
	}
	type row struct {
		CandidateID, JobID                  uuid.UUID
		CheatingScore                       float64
		Transcript, Eye, Head, Voice, Multi *float64
		Evidence                            string
		CreatedAt                           time.Time
	}
	read := func() (row, int) {
		t.Helper()
		var r row
		var n int
		if err := st.SQL().QueryRowContext(ctx, `SELECT candidate_id, job_id, cheating_score, transcript_score, eye_tracking_score,
				head_tracking_score, voice_score, multi_person_score, evidence::text, created_at, count(*) OVER ()
			FROM cheating_evaluations WHERE company_id = $1`, f.co.ID).
			Scan(&r.CandidateID, &r.JobID, &r.CheatingScore, &r.Transcript, &r.Eye, &r.Head, &r.Voice, &r.Multi, &r.Evidence, &r.CreatedAt, &n); err != nil {
			t.Fatal(err)
		}
		return r, n
	}
	first, n := read()
	if n != 1 || first.CandidateID != c.ID || first.JobID != f.job.ID || first.CheatingScore != 87.64 || first.Transcript == nil ||
		*first.Transcript != 87.64 || first.Eye != nil || first.Head != nil || first.Voice != nil || first.Multi != nil ||
		first.Evidence != `{"rules": "page-signals/1", "answers": 2}` {
		t.Errorf("stored evaluation = %+v (%d rows)", first, n)
	}
	checkRollups(t, st, f.co.ID)

	if changed, err := st.SaveCheatingEvaluation(ctx, f.co.ID, in); err != nil || changed {
		t.Errorf("the same evaluation again = %v, %v; want unchanged", changed, err)
	}
	if again, _ := read(); !again.CreatedAt.Equal(first.CreatedAt) {
		t.Errorf("a repeat moved the evaluation time from %v to %v", first.CreatedAt, again.CreatedAt)
	}
	in.CheatingScore, in.TranscriptScore = 63, ptrTo(63.0)
	if changed, err := st.SaveCheatingEvaluation(ctx, f.co.ID, in); err != nil || !changed {
		t.Errorf("a new evaluation = %v, %v; want replaced", changed, err)
	}
	if r, n := read(); n != 1 || r.CheatingScore != 63 || *r.Transcript != 63 || r.CreatedAt.Before(first.CreatedAt) {
		t.Errorf("replaced evaluation = %+v (%d rows)", r, n)
	}
	var evaluated int64
	if err := st.SQL().QueryRowContext(ctx, `SELECT evaluated FROM job_totals WHERE company_id = $1 AND job_id = $2`, f.co.ID, f.job.ID).
		Scan(&evaluated); err != nil || evaluated != 1 {
		t.Errorf("job_totals.evaluated = %d, %v; want 1", evaluated, err)
	}
	checkRollups(t, st, f.co.ID, other.co.ID)

	if _, err := st.SaveCheatingEvaluation(ctx, other.co.ID, in); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("evaluation of another company's session: err = %v, want ErrNotFound", err)
	}
	in.Evidence = []byte(`[1]`)
	if _, err := st.SaveCheatingEvaluation(ctx, f.co.ID, in); err == nil {
		t.Error("evidence that is no JSON object was stored")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestFraudVerificationRefresh: a check inserts the candidate's row for the session, a refresh
// updates it in place (time included), another session or no session gets its own row;
// concurrent saves of one candidate and session leave one row; the latest signals are the
// refreshed ones; the rollups stay exact; wrong candidates, sessions and companies reach nothing.
func TestFraudVerificationRefresh(t *testing.T) {
	st := newStore(t)
	f := newIntegrityFixture(t, st, "acme")
	other := newIntegrityFixture(t, st, "globex")
	ctx := t.Context()
	a, b := f.candidate("ada@example.com", "+447400123456"), f.candidate("bob@example.com", "")
	s1, s2, sb := f.session(a, models.MediumTypeSMS), f.session(a, models.MediumTypeVideo), f.session(b, models.MediumTypeVideo)

	save := func(company uuid.UUID, cand uuid.UUID, sess *uuid.UUID, score float64, signals string) (uuid.UUID, bool, error) {
		return st.SaveFraudVerification(ctx, company, store.FraudVerificationInput{CandidateID: cand, SessionID: sess, Score: score,
			DisposableEmail: score < 50, Signals: []byte(signals)})
	}
	id1, refreshed, err := save(f.co.ID, a.ID, &s1.ID, 40, `{"at":"invitation"}`)
	if err != nil || refreshed {
		t.Fatalf("first check = %v, %v", refreshed, err)
	}
	var firstAt time.Time
	if err := st.SQL().QueryRowContext(ctx, `SELECT created_at FROM fraud_verifications WHERE id = $1`, id1).Scan(&firstAt); err != nil {
		t.Fatal(err)
	}
	checkRollups(t, st, f.co.ID)
	time.Sleep(5 * time.Millisecond)
	id, refreshed, err := save(f.co.ID, a.ID, &s1.ID, 85, `{"at":"completion"}`)
	if err != nil || !refreshed || id != id1 {
		t.Fatalf("refresh = %s, %v, %v; want row %s refreshed", id, refreshed, err, id1)
	}
	var score float64
	var disposable bool
	var signals string
	var at time.Time
	if err := st.SQL().QueryRowContext(ctx, `SELECT overall_verification_score, disposable_email, signals::text, created_at
		FROM fraud_verifications WHERE id = $1`, id1).Scan(&score, &disposable, &signals, &at); err != nil {
		t.Fatal(err)
	}
	if score != 85 || disposable || signals != `{"at": "completion"}` || !at.After(firstAt) {
		t.Errorf("refreshed row = %v %v %s %v (first at %v)", score, disposable, signals, at, firstAt)
	}
	id2, refreshed, err := save(f.co.ID, a.ID, &s2.ID, 70, `{"at":"s2"}`)
	if err != nil || refreshed || id2 == id1 {
		t.Errorf("check of another session = %s, %v, %v; want a new row", id2, refreshed, err)
	}
	id3, refreshed, err := save(f.co.ID, a.ID, nil, 60, `{"at":"candidate"}`)
	if err != nil || refreshed || id3 == id1 || id3 == id2 {
		t.Errorf("check without a session = %s, %v, %v; want a new row", id3, refreshed, err)
	}
	if id, refreshed, err := save(f.co.ID, a.ID, nil, 61, `{"at":"candidate again"}`); err != nil || !refreshed || id != id3 {
		t.Errorf("refresh without a session = %s, %v, %v; want row %s", id, refreshed, err, id3)
	}
	latest, found, err := st.LatestFraudSignals(ctx, f.co.ID, a.ID)
	if err != nil || !found || string(latest) != `{"at": "candidate again"}` {
		t.Errorf("LatestFraudSignals = %s, %v, %v", latest, found, err)
	}
	if _, found, err := st.LatestFraudSignals(ctx, f.co.ID, b.ID); err != nil || found {
		t.Errorf("LatestFraudSignals of a candidate never checked = %v, %v", found, err)
	}

	// Concurrent checks of one candidate and session: one row.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := save(f.co.ID, b.ID, &sb.ID, float64(50+i), `{}`); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var rows, verifications int64
	if err := st.SQL().QueryRowContext(ctx, `SELECT count(*) FROM fraud_verifications WHERE company_id = $1 AND candidate_id = $2`, f.co.ID, b.ID).
		Scan(&rows); err != nil || rows != 1 {
		t.Errorf("concurrent checks left %d rows, %v; want 1", rows, err)
	}
	if err := st.SQL().QueryRowContext(ctx, `SELECT sum(verifications) FROM fraud_daily WHERE company_id = $1`, f.co.ID).
		Scan(&verifications); err != nil || verifications != 4 {
		t.Errorf("fraud_daily verifications = %d, %v; want 4 (three of a, one of b)", verifications, err)
	}
	checkRollups(t, st, f.co.ID, other.co.ID)

	for name, tt := range map[string]struct {
		company, cand uuid.UUID
		sess          *uuid.UUID
	}{
		"another candidate's session": {f.co.ID, b.ID, &s1.ID},
		"an unknown candidate":        {f.co.ID, uuid.New(), nil},
		"another company":             {other.co.ID, a.ID, &s1.ID},
		"another company, no session": {other.co.ID, a.ID, nil},
	} {
		if _, _, err := save(tt.company, tt.cand, tt.sess, 10, `{}`); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", name, err)
		}
	}
	if _, _, err := save(f.co.ID, a.ID, nil, 10, `"x"`); err == nil {
		t.Error("signals that are no JSON object were stored")
	}
}

// TestSharedContactsOf counts the company's other candidates with the same e-mail (any case)
// or phone, never another company's.
func TestSharedContactsOf(t *testing.T) {
	st := newStore(t)
	f := newIntegrityFixture(t, st, "acme")
	other := newIntegrityFixture(t, st, "globex")
	a := f.candidate("ada@example.com", "+447400123456")
	f.candidate("ADA@Example.com", "+447400999999")
	f.candidate("other@example.com", "+447400123456")
	f.candidate("third@example.com", "+447400123456")
	none := f.candidate("", "")
	stranger := other.candidate("ada@example.com", "+447400123456")
	tests := []struct {
		name         string
		company      uuid.UUID
		cand         uuid.UUID
		email, phone string
		want         store.SharedContacts
	}{
		{"both", f.co.ID, a.ID, "ada@example.com", "+447400123456", store.SharedContacts{SameEmail: 1, SamePhone: 2}},
		{"e-mail in another case", f.co.ID, a.ID, " Ada@EXAMPLE.com ", "", store.SharedContacts{SameEmail: 1}},
		{"phone only", f.co.ID, a.ID, "", "+447400123456", store.SharedContacts{SamePhone: 2}},
		{"no contact", f.co.ID, none.ID, "", "", store.SharedContacts{}},
		{"another company", other.co.ID, stranger.ID, "ada@example.com", "+447400123456", store.SharedContacts{}},
	}
	for _, tt := range tests {
		got, err := st.SharedContactsOf(t.Context(), tt.company, tt.cand, tt.email, tt.phone)
		if err != nil || got != tt.want {
			t.Errorf("%s: SharedContactsOf = %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
}
