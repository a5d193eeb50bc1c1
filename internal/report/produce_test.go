package report

import (
	"context"
	"errors"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// counting wraps an evaluator and counts its evaluations.
type counting struct {
	Evaluator
	n atomic.Int32
}

func (c *counting) Evaluate(ctx context.Context, in Input) Report {
	c.n.Add(1)
	return c.Evaluator.Evaluate(ctx, in)
}

// interviewed stores the strong transcript as a COMPLETED session of a new company, its job's
// guide holding the rubric and the two tagged structured questions.
func interviewed(t *testing.T, st *store.Store, slug string) (*models.Company, *models.InterviewSession) {
	t.Helper()
	ctx, db := t.Context(), st.DB()
	c := &models.Company{Slug: slug, Name: slug, DefaultJobStatus: models.JobStatusActive}
	if err := st.CreateCompany(ctx, c); err != nil {
		t.Fatal(err)
	}
	job := &models.Job{CompanyID: c.ID, ExternalID: "J-1", InterviewerID: slug + "-J-1", Title: "Field technician", ExternalTitle: "Field technician", Description: "d", Status: models.JobStatusGenerating, IsOpen: true}
	if err := db.Create(job).Error; err != nil {
		t.Fatal(err)
	}
	g := store.GuideContent{Title: job.Title, ExternalTitle: job.Title}
	for _, q := range []models.InterviewQuestion{
		{Text: qComms, Source: models.QuestionSourceGenerated},
		{Text: qNetwork, Source: models.QuestionSourceGenerated},
		{Text: qLicence, Source: models.QuestionSourceStructured, Answers: models.StringArray{"Yes", "No"}, TagName: ptr("licensed"), TagInstructions: ptr("Yes -> licensed; No -> not licensed")},
		{Text: qWhy, Source: models.QuestionSourceAdditional},
		{Text: qWeekends, Source: models.QuestionSourceStructured, TagName: ptr("weekends"), TagInstructions: ptr("Tag yes or no.")},
	} {
		g.Questions = append(g.Questions, q)
	}
	for _, r := range rubric {
		g.Criteria = append(g.Criteria, models.GradingCriterion{Name: r.Name, Description: r.Description})
	}
	if _, err := st.SaveGuide(ctx, c.ID, job.ID, g, 1, models.JobStatusActive); err != nil {
		t.Fatal(err)
	}
	view, err := st.Guide(ctx, c.ID, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	cand := &models.Candidate{CompanyID: c.ID, FirstName: "Ada", LastName: "Quinn", Status: "interviewing"}
	if err := db.Create(cand).Error; err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	s := &models.InterviewSession{CompanyID: c.ID, CandidateID: cand.ID, JobID: job.ID, MediumType: models.MediumTypeVideo,
		Status: models.SessionStatusCompleted, StartedAt: &now, CompletedAt: &now}
	if err := db.Create(s).Error; err != nil {
		t.Fatal(err)
	}
	questionOf := map[int]*uuid.UUID{1: &view.Questions[0].ID, 2: &view.Questions[1].ID, 3: &view.Questions[2].ID, 4: &view.Questions[3].ID, 5: &view.Questions[3].ID, 6: &view.Questions[4].ID}
	for _, tt := range strongInput().Turns {
		turn := models.InterviewTurn{CompanyID: c.ID, SessionID: s.ID, Seq: tt.Seq, StepIndex: tt.StepIndex, Source: string(tt.Source),
			QuestionID: questionOf[tt.Seq], Question: tt.Question, Choices: tt.Choices, Answer: ptr(tt.Answer), AnsweredAt: &now}
		if err := db.Create(&turn).Error; err != nil {
			t.Fatal(err)
		}
	}
	return c, s
}

// TestProduce: the report of a completed session is evaluated from its stored transcript and
// rubric, stored with the session's rating and review, and made once: a second Produce returns
// it without evaluating, and a later change of the guide leaves it as it was.
func TestProduce(t *testing.T) {
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	acme, s := interviewed(t, st, "acme")
	globex, _ := interviewed(t, st, "globex")
	ev := &counting{Evaluator: NewLocal()}

	got, err := Produce(ctx, st, ev, acme.ID, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := NewLocal().Evaluate(ctx, strongInput())
	want.SessionID, want.CreatedAt = s.ID, got.CreatedAt
	if !reflect.DeepEqual(*got, want) || got.CreatedAt.IsZero() {
		t.Errorf("Produce =\n%s\nwant the local report of the transcript\n%s", dump(got), dump(want))
	}
	var sess models.InterviewSession
	if err := st.DB().First(&sess, "id = ?", s.ID).Error; err != nil {
		t.Fatal(err)
	}
	if sess.ServiceRating == nil || *sess.ServiceRating != 4 || sess.ServiceReview == nil || *sess.ServiceReview != want.Summary {
		t.Errorf("session service_rating %v service_review %v, want 4 and the summary", sess.ServiceRating, sess.ServiceReview)
	}
	// Every quote is a substring of a stored answer.
	for _, c := range got.Criteria {
		for _, e := range c.Evidence {
			var n int64
			st.DB().Model(&models.InterviewTurn{}).Where("session_id = ? AND seq = ? AND strpos(answer, ?) > 0", s.ID, e.Seq, e.Quote).Count(&n)
			if n != 1 {
				t.Errorf("quote %q is not in the stored answer of turn %d", e.Quote, e.Seq)
			}
		}
	}

	// Made once: the guide changes, Produce runs again, nothing is evaluated or rewritten.
	if err := st.DB().Model(&models.GradingCriterion{}).Where("company_id = ? AND name = ?", acme.ID, "Safety").Update("description", "Wears PPE.").Error; err != nil {
		t.Fatal(err)
	}
	again, err := Produce(ctx, st, ev, acme.ID, s.ID)
	if err != nil || !reflect.DeepEqual(again, got) || ev.n.Load() != 1 {
		t.Errorf("second Produce = %v after %d evaluations; want the first report, evaluated once", err, ev.n.Load())
	}
	if loaded, err := Load(ctx, st, acme.ID, s.ID); err != nil || !reflect.DeepEqual(loaded, got) || !strings.Contains(dump(loaded), "Follows electrical safety") {
		t.Errorf("Load = %v, %v; want the stored report with its rubric", loaded, err)
	}

	// Another company's session is not found; a session still running is not reported.
	if _, err := Produce(ctx, st, ev, globex.ID, s.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Produce(other company) err = %v, want ErrNotFound", err)
	}
	if _, err := Load(ctx, st, globex.ID, s.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Load(other company) err = %v, want ErrNotFound", err)
	}
	_, running := interviewed(t, st, "initech")
	if err := st.DB().Model(running).Updates(map[string]any{"status": models.SessionStatusStarted, "completed_at": nil}).Error; err != nil {
		t.Fatal(err)
	}
	if _, err := Produce(ctx, st, ev, running.CompanyID, running.ID); !errors.Is(err, ErrNotCompleted) {
		t.Errorf("Produce(STARTED) err = %v, want ErrNotCompleted", err)
	}
	if ev.n.Load() != 1 {
		t.Errorf("%d evaluations, want 1", ev.n.Load())
	}
}

// TestProduceInsufficientData: a thin transcript is stored as insufficient data, the session's
// rating NULL and its review the reason.
func TestProduceInsufficientData(t *testing.T) {
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	acme, s := interviewed(t, st, "acme")
	for seq, a := range map[int]string{1: "Yes.", 2: "Reboot.", 4: "Money.", 5: "Fine.", 6: "Sometimes."} {
		if err := st.DB().Model(&models.InterviewTurn{}).Where("session_id = ? AND seq = ?", s.ID, seq).Update("answer", a).Error; err != nil {
			t.Fatal(err)
		}
	}
	got, err := Produce(ctx, st, NewLocal(), acme.ID, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	summary := "Insufficient data: the answers hold 5 words in all, fewer than the 60 needed to judge."
	if got.Status != StatusInsufficientData || got.Reason != ReasonTooFewWords || got.Rating != nil || got.Summary != summary ||
		!reflect.DeepEqual(got.Tags, []Tag{{Name: "licensed", Value: ptr("licensed"), Seq: 3, Rule: TagRuleMapping}, {Name: "weekends", Seq: 6, Rule: TagRuleUndecided}}) {
		t.Errorf("Produce(thin) = %s", dump(got))
	}
	var sess models.InterviewSession
	if err := st.DB().First(&sess, "id = ?", s.ID).Error; err != nil {
		t.Fatal(err)
	}
	if sess.ServiceRating != nil || sess.ServiceReview == nil || *sess.ServiceReview != summary {
		t.Errorf("session service_rating %v service_review %v, want NULL and the reason", sess.ServiceRating, sess.ServiceReview)
	}
}

// TestMigrationEnums: the patterns of interview_reports' status, reason and engine columns
// (migration 00034) allow exactly the package's enumerations.
func TestMigrationEnums(t *testing.T) {
	b, err := os.ReadFile("../../migrations/00034_interview_reports.sql")
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(column string) []string {
		m := regexp.MustCompile(`\n\s+` + column + `\s+text[^\n]*CHECK \(` + column + ` ~ '\^\(([a-z_|-]+)\)\$'\)`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("no CHECK (%s ~ '^(...)$') in the migration", column)
		}
		out := strings.Split(string(m[1]), "|")
		slices.Sort(out)
		return out
	}
	strs := func(vs ...string) []string { slices.Sort(vs); return vs }
	var statuses, reasons, engines []string
	for _, s := range AllStatuses() {
		statuses = append(statuses, string(s))
	}
	for _, r := range AllReasons() {
		reasons = append(reasons, string(r))
	}
	for _, e := range AllEngines() {
		engines = append(engines, string(e))
	}
	for column, want := range map[string][]string{"status": strs(statuses...), "reason": strs(reasons...), "engine": strs(engines...)} {
		if got := allowed(column); !slices.Equal(got, want) {
			t.Errorf("%s: the migration allows %q, the package has %q", column, got, want)
		}
	}
}
