package store_test

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// completedSession creates a job, a candidate and a COMPLETED session of company c.
func completedSession(t *testing.T, st *store.Store, c *models.Company, ext string) *models.InterviewSession {
	t.Helper()
	db := st.DB()
	job := &models.Job{CompanyID: c.ID, ExternalID: ext, InterviewerID: c.Slug + "-" + ext, Title: "Technician", ExternalTitle: "Technician", Description: "d", Status: models.JobStatusActive, IsOpen: true}
	if err := db.Create(job).Error; err != nil {
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
	return s
}

func sessionRating(t *testing.T, st *store.Store, id uuid.UUID) (*float64, *string) {
	t.Helper()
	var s models.InterviewSession
	if err := st.DB().First(&s, "id = ?", id).Error; err != nil {
		t.Fatal(err)
	}
	return s.ServiceRating, s.ServiceReview
}

func reportRow(c *models.Company, s *models.InterviewSession, rating *float64, summary string) store.SessionReport {
	r := store.SessionReport{
		SessionID: s.ID, CompanyID: c.ID, Status: "ready", Rating: rating, Summary: summary,
		RubricVersion: "sha256:0123456789abcdef", Engine: "local",
		Criteria: models.NewJSON(json.RawMessage(`[{"name":"Safety","score":4}]`)),
		Tags:     models.NewJSON(json.RawMessage(`[{"name":"licensed","value":"Yes"}]`)),
	}
	if rating == nil {
		reason := "too-few-words"
		r.Status, r.Reason = "insufficient_data", &reason
	}
	return r
}

// TestSaveReportOnce: the first report of a session is stored with the session's rating and
// review in one transaction; any later save, also a concurrent one, returns it unchanged. An
// insufficient-data report leaves the rating NULL. Another company neither saves nor reads it.
func TestSaveReportOnce(t *testing.T) {
	st := newStore(t)
	ctx := t.Context()
	acme, globex := company(t, st, "acme"), company(t, st, "globex")
	s1 := completedSession(t, st, acme, "J-1")

	first := reportRow(acme, s1, new(4.33), "Rated 4.33 of 5.")
	saved, created, err := st.SaveReport(ctx, first)
	if err != nil || !created {
		t.Fatalf("SaveReport = %v, %v", created, err)
	}
	if saved.Status != "ready" || *saved.Rating != 4.33 || saved.Summary != "Rated 4.33 of 5." || saved.CreatedAt.IsZero() ||
		string(saved.Criteria.V) != `[{"name": "Safety", "score": 4}]` || string(saved.Tags.V) != `[{"name": "licensed", "value": "Yes"}]` {
		t.Errorf("saved = %+v criteria %s tags %s", saved, saved.Criteria.V, saved.Tags.V)
	}
	if rating, review := sessionRating(t, st, s1.ID); rating == nil || *rating != 4.33 || *review != "Rated 4.33 of 5." {
		t.Errorf("session rating %v review %v, want 4.33 and the summary", rating, review)
	}

	again, created, err := st.SaveReport(ctx, reportRow(acme, s1, new(1.0), "Another evaluation."))
	if err != nil || created || *again.Rating != 4.33 || again.Summary != "Rated 4.33 of 5." || !again.CreatedAt.Equal(saved.CreatedAt) {
		t.Errorf("second SaveReport = %+v, %v, %v; want the first report", again, created, err)
	}
	if rating, review := sessionRating(t, st, s1.ID); *rating != 4.33 || *review != "Rated 4.33 of 5." {
		t.Errorf("second SaveReport changed the session: %v %v", *rating, *review)
	}
	if got, err := st.Report(ctx, acme.ID, s1.ID); err != nil || *got.Rating != 4.33 {
		t.Errorf("Report = %+v, %v", got, err)
	}

	// Another company: not found, nothing written.
	if _, err := st.Report(ctx, globex.ID, s1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Report(other company) err = %v, want ErrNotFound", err)
	}
	if _, _, err := st.SaveReport(ctx, reportRow(globex, s1, new(2.0), "x")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SaveReport(other company's session, reported) err = %v, want ErrNotFound", err)
	}
	s2 := completedSession(t, st, acme, "J-2")
	if _, _, err := st.SaveReport(ctx, reportRow(globex, s2, new(2.0), "x")); err == nil {
		t.Errorf("SaveReport(other company's session) succeeded")
	}
	if _, err := st.Report(ctx, acme.ID, s2.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Report(never reported) err = %v, want ErrNotFound", err)
	}

	// Insufficient data: the review says why, the rating stays NULL.
	thin := reportRow(acme, s2, nil, "Insufficient data: the answers hold 5 words in all.")
	if saved, created, err := st.SaveReport(ctx, thin); err != nil || !created || saved.Rating != nil || *saved.Reason != "too-few-words" {
		t.Fatalf("SaveReport(insufficient) = %+v, %v, %v", saved, created, err)
	}
	if rating, review := sessionRating(t, st, s2.ID); rating != nil || *review != thin.Summary {
		t.Errorf("session rating %v review %v, want NULL and the reason", rating, review)
	}

	// Concurrent saves: one report.
	s3 := completedSession(t, st, acme, "J-3")
	var wg sync.WaitGroup
	results := make([]*store.SessionReport, 4)
	createdN := 0
	var mu sync.Mutex
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, c, err := st.SaveReport(ctx, reportRow(acme, s3, new(float64(i+1)), "run"))
			if err != nil {
				t.Errorf("concurrent SaveReport: %v", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			results[i] = r
			if c {
				createdN++
			}
		}()
	}
	wg.Wait()
	if createdN != 1 {
		t.Errorf("%d concurrent saves created a report, want 1", createdN)
	}
	rating, _ := sessionRating(t, st, s3.ID)
	for _, r := range results {
		if r != nil && (*r.Rating != *results[0].Rating || *rating != *r.Rating) {
			t.Errorf("concurrent saves returned %v and %v, session holds %v", *r.Rating, *results[0].Rating, *rating)
		}
	}

	// The schema refuses reports that break the rules.
	s4 := completedSession(t, st, acme, "J-4")
	bad := []store.SessionReport{
		reportRow(acme, s4, new(5.5), "above the scale"),
		reportRow(acme, s4, new(0.5), "below the scale"),
		func() store.SessionReport { r := reportRow(acme, s4, nil, "x"); r.Reason = nil; return r }(),
		func() store.SessionReport {
			r := reportRow(acme, s4, new(3.0), "x")
			r.Status = "insufficient_data"
			return r
		}(),
		func() store.SessionReport { r := reportRow(acme, s4, new(3.0), "x"); r.Engine = "openai"; return r }(),
		func() store.SessionReport { r := reportRow(acme, s4, new(3.0), ""); return r }(),
		func() store.SessionReport {
			r := reportRow(acme, s4, new(3.0), "x")
			r.Criteria = models.NewJSON(json.RawMessage(`{}`))
			return r
		}(),
	}
	for i, r := range bad {
		if _, _, err := st.SaveReport(ctx, r); err == nil {
			t.Errorf("SaveReport(bad %d) succeeded", i)
		}
	}
	if _, err := st.Report(ctx, acme.ID, s4.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused report was stored: %v", err)
	}
}

// TestReportSources: the session, its turns in seq order and its job's guide; no guide when the
// job has none; nothing for another company.
func TestReportSources(t *testing.T) {
	st := newStore(t)
	ctx := t.Context()
	acme, globex := company(t, st, "acme"), company(t, st, "globex")
	s := completedSession(t, st, acme, "J-1")
	src, err := st.ReportSources(ctx, acme.ID, s.ID)
	if err != nil || src.Session.ID != s.ID || len(src.Turns) != 0 || src.Guide != nil {
		t.Fatalf("ReportSources(no guide, no turns) = %+v, %v", src, err)
	}
	guide := store.GuideContent{
		Title: "Technician", ExternalTitle: "Technician",
		Questions: []models.InterviewQuestion{{Text: "Licence?", Source: models.QuestionSourceStructured, Answers: models.StringArray{"Yes", "No"}, TagName: new("licensed")}},
		Criteria:  []models.GradingCriterion{{Name: "Safety", Description: "Follows lockout rules."}, {Name: "Troubleshooting"}},
	}
	if err := st.DB().Model(&models.Job{}).Where("id = ?", s.JobID).Update("status", models.JobStatusGenerating).Error; err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveGuide(ctx, acme.ID, s.JobID, guide, 1, models.JobStatusActive); err != nil {
		t.Fatal(err)
	}
	answer := "Yes"
	for _, turn := range []models.InterviewTurn{
		{CompanyID: acme.ID, SessionID: s.ID, Seq: 2, StepIndex: 2, Source: "structured", Question: "Licence?", Choices: models.StringArray{"Yes", "No"}, Answer: &answer, AnsweredAt: &s.InvitedAt},
		{CompanyID: acme.ID, SessionID: s.ID, Seq: 1, StepIndex: 1, Source: "guide", Question: "Tell me.", Answer: &answer, AnsweredAt: &s.InvitedAt},
		{CompanyID: acme.ID, SessionID: s.ID, Seq: 3, StepIndex: 3, Source: "guide", Question: "Unanswered?"},
	} {
		if err := st.DB().Create(&turn).Error; err != nil {
			t.Fatal(err)
		}
	}
	src, err = st.ReportSources(ctx, acme.ID, s.ID)
	if err != nil || src.Guide == nil || len(src.Guide.Criteria) != 2 || src.Guide.Criteria[0].Name != "Safety" || len(src.Guide.Questions) != 1 {
		t.Fatalf("ReportSources = %+v, %v", src, err)
	}
	if len(src.Turns) != 3 || src.Turns[0].Seq != 1 || src.Turns[1].Seq != 2 || src.Turns[2].Seq != 3 || src.Turns[2].Answer != nil {
		t.Errorf("turns = %+v, want seq 1, 2, 3", src.Turns)
	}
	if _, err := st.ReportSources(ctx, globex.ID, s.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ReportSources(other company) err = %v, want ErrNotFound", err)
	}
}
