package store_test

import (
	"sync/atomic"
	"testing"

	"gorm.io/gorm"

	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// TestInterviewStatements counts the statements the interview core sends for one candidate:
// per answer (the answer's request and the next screen's) and per consent and completion
// (issue 32: every round trip counts when 200 candidates answer at once). The bounds are the
// counts since the session and its transcript load in one statement and no transition locks
// the job's rollup row; before, an answer took 6 and the last answer with the completion 11.
func TestInterviewStatements(t *testing.T) {
	st := newStore(t)
	ctx := t.Context()
	acme := company(t, st, "acme")
	job := technicianJob(t, st, acme, models.JobStatusGenerating)
	guide := store.GuideContent{Title: "Technician", ExternalTitle: "Technician", Questions: []models.InterviewQuestion{
		{Text: "Tell us about a repair you led.", Source: models.QuestionSourceStructured},
		{Text: "Licence?", Source: models.QuestionSourceStructured, Answers: models.StringArray{"Yes", "No"}},
		{Text: "What did you learn last year?", Source: models.QuestionSourceStructured},
	}}
	if _, err := st.SaveGuide(ctx, acme.ID, job.ID, guide, 1, models.JobStatusActive); err != nil {
		t.Fatal(err)
	}
	inv := invite(t, st, job, store.CandidateInput{FirstName: "Ada", LastName: "Quinn", Email: "ada@example.com"})

	var n atomic.Int64
	// The company's and job's rows are not counted: the page caches them for 2 s, which a test
	// on a loaded machine may outlive between two screens.
	cb := func(db *gorm.DB) {
		if t := db.Statement.Table; t != "companies" && t != "jobs" {
			n.Add(1)
		}
	}
	c := st.DB().Callback()
	for name, err := range map[string]error{
		"query": c.Query().After("gorm:query").Register("test:count", cb), "create": c.Create().After("gorm:create").Register("test:count", cb),
		"update": c.Update().After("gorm:update").Register("test:count", cb), "delete": c.Delete().After("gorm:delete").Register("test:count", cb),
		"row": c.Row().After("gorm:row").Register("test:count", cb), "raw": c.Raw().After("gorm:raw").Register("test:count", cb),
	} {
		if err != nil {
			t.Fatalf("count %s statements: %v", name, err)
		}
	}
	core := &interview.Sessions{Store: st, Interviewer: interview.NewLocal()}
	ref := interview.BySession(acme.ID, inv.Session.ID)
	since := func() int64 { return n.Swap(0) }

	if _, err := core.Open(ctx, ref); err != nil {
		t.Fatal(err)
	}
	since()
	if err := core.Consent(ctx, ref); err != nil {
		t.Fatal(err)
	}
	p, err := core.Open(ctx, ref)
	if err != nil || p.Stage != interview.StageQuestion {
		t.Fatalf("after consent: %+v, %v", p, err)
	}
	consent := since()
	var answers []int64
	var last int64
	for i := 0; i < 10 && p.Stage == interview.StageQuestion; i++ {
		answer := "For example, last year I replaced the main pump of our line, planned the stop and trained two colleagues on it."
		if len(p.Question.Choices) > 0 {
			answer = p.Question.Choices[0]
		}
		if err := core.Answer(ctx, ref, p.Question.Seq, answer, nil); err != nil {
			t.Fatal(err)
		}
		if p, err = core.Open(ctx, ref); err != nil {
			t.Fatal(err)
		}
		if p.Stage == interview.StageQuestion {
			answers = append(answers, since())
		} else {
			last = since()
		}
	}
	if p.Stage != interview.StageCompleted {
		t.Fatalf("interview not completed: %s", p.Stage)
	}
	t.Logf("statements: consent and its screen %d, each answer and its screen %v, the last answer, completion and its screen %d", consent, answers, last)
	for i, a := range answers {
		if a > 4 {
			t.Errorf("answer %d took %d statements, want at most 4 (load, answer, next question, load)", i+1, a)
		}
	}
	// load, answer, the completion's transaction (lock, event, start, status, identity step), load
	if last > 8 {
		t.Errorf("the last answer and the completion took %d statements, want at most 8", last)
	}
}
