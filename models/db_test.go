package models_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/models"
)

// migratedSchema returns the URL of a fresh, migrated database on the test cluster.
func migratedSchema(t *testing.T) string {
	t.Helper()
	return pgtest.New(t).URL
}

func ptr[T any](v T) *T { return &v }

// normalize makes a model comparable after a database round trip: times in UTC, empty slices
// and maps nil (the database does not tell them apart).
func normalize(v any) { normalizeValue(reflect.ValueOf(v).Elem()) }

func normalizeValue(v reflect.Value) {
	switch x := v.Addr().Interface().(type) {
	case *time.Time:
		*x = x.UTC()
		return
	case **time.Time:
		if *x != nil {
			*x = ptr((*x).UTC())
		}
		return
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		if v.Len() == 0 {
			v.SetZero()
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				normalizeValue(v.Field(i))
			}
		}
	}
}

// roundTrip inserts m with GORM, reads the row back by id into a new value of the same type and
// compares the two.
func roundTrip[T any](t *testing.T, db *gorm.DB, m *T, where string, args ...any) {
	t.Helper()
	if err := db.Create(m).Error; err != nil {
		t.Fatalf("create %T: %v", m, err)
	}
	got := new(T)
	if err := db.Where(where, args...).Take(got).Error; err != nil {
		t.Fatalf("select %T: %v", m, err)
	}
	normalize(m)
	normalize(got)
	if !reflect.DeepEqual(got, m) {
		t.Errorf("%T round trip:\n got %+v\nwant %+v", m, *got, *m)
	}
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func TestRoundTrip(t *testing.T) {
	dsn := migratedSchema(t)
	for _, simple := range []bool{false, true} {
		t.Run(fmt.Sprintf("simpleProtocol=%v", simple), func(t *testing.T) {
			db, err := gorm.Open(postgres.New(postgres.Config{DSN: dsn, PreferSimpleProtocol: simple}),
				&gorm.Config{Logger: logger.Discard, NowFunc: clock})
			if err != nil {
				t.Fatal(err)
			}
			testRoundTrip(t, db, fmt.Sprintf("acme-%v", simple))
		})
	}
}

// clock is GORM's clock in these tests: microsecond precision, as stored by Postgres.
func clock() time.Time { return time.Now().Truncate(time.Microsecond) }

func testRoundTrip(t *testing.T, db *gorm.DB, slug string) {
	now := clock()
	ats := models.ATSTypeC
	co := &models.Company{
		Slug: slug, Name: "Acme, Inc.", ATSType: &ats,
		ATSCredentials:      []byte{0, 1, 2, 0xff},
		ATSCredentialFields: models.StringArray{"baseUrl", "api key", `odd"name\`},
		HRSuiteAccount:      true, DefaultJobStatus: models.JobStatusPaused,
		FraudDetectionEnabled: true, ModelCheatDetectionEnabled: true, CheatThreshold: 62.5,
		AutoJobImportEnabled: true,
		DecisionSyncFields:   models.NewJSON([]models.SyncField{{Field: "stage", Value: "Hired"}}),
		KomboIntegrationID:   ptr("kombo-1"), KomboStatus: ptr("Connected"),
		Features:        models.NewJSON(map[string]bool{models.FeatureResumeFit: true, models.FeatureCustomLogo: false}),
		OperationsEmail: ptr("ops@acme.test"),
	}
	roundTrip(t, db, co, "id = ?", &co.ID)

	bare := &models.Company{Slug: slug + "-bare", Name: "Bare"}
	roundTrip(t, db, bare, "id = ?", &bare.ID)
	var stored struct {
		CheatThreshold     float64
		DefaultJobStatus   string
		DecisionSyncFields string
		Features           string
		Fields             string
	}
	db.Raw(`SELECT cheat_threshold, default_job_status, decision_sync_fields::text, features::text,
		ats_credential_fields::text AS fields FROM companies WHERE id = ?`, bare.ID).Scan(&stored)
	if stored.CheatThreshold != models.DefaultCheatThreshold || stored.DefaultJobStatus != "ACTIVE" ||
		stored.DecisionSyncFields != "[]" || stored.Features != "{}" || stored.Fields != "{}" {
		t.Errorf("zero Company stored as %+v, want the column defaults", stored)
	}

	u := &models.User{Email: slug + "@Example.test", Name: "Rita Recruiter", IsPlatformAdmin: true}
	roundTrip(t, db, u, "id = ?", &u.ID)
	roundTrip(t, db, &models.CompanyMembership{CompanyID: co.ID, UserID: u.ID, Role: models.MembershipRoleRecruiter},
		"company_id = ? AND user_id = ?", co.ID, u.ID)
	h := sha256.Sum256([]byte(slug + "-key"))
	roundTrip(t, db, &models.APIKey{CompanyID: co.ID, Name: "partner", Prefix: "rk_live_abcd", KeyHash: h[:],
		LastUsedAt: &now}, "key_hash = ?", h[:])

	tpl := &models.Template{CompanyID: co.ID, Type: models.TemplateTypeResumeFit, Name: "Default fit",
		Content: models.NewJSON(map[string]any{"criteria": []any{"a", "b"}, "weight": 0.5})}
	roundTrip(t, db, tpl, "id = ?", &tpl.ID)

	job := &models.Job{
		CompanyID: co.ID, ExternalID: "J-1", InterviewerID: slug + "-J-1", Title: "Welder",
		ExternalTitle: "Welder II", Description: "Welds.", Status: models.JobStatusActive,
		FailureReason: ptr("none"), IsOpen: false, EnableIdentityVerification: true,
		ResumeFitTemplateID: &tpl.ID, CreatedByUserID: &u.ID,
		GenerationOptions: models.NewJSON(models.GenerationOptions{
			AdditionalQuestions:           []string{"Night shifts?"},
			StructuredAdditionalQuestions: []models.StructuredQuestion{{Question: "License?", Answers: []string{"Yes", "No"}, TagName: "licensed", TagInstructions: "Yes sets it"}},
			IntelligentlyOrderQuestions:   true, AdditionalGenerationContext: "Be brief", Active: ptr(false),
		}),
		GeneratedAt: &now,
	}
	roundTrip(t, db, job, "id = ?", &job.ID)
	generating := &models.Job{CompanyID: co.ID, ExternalID: "J-2", InterviewerID: slug + "-J-2", IsOpen: true}
	roundTrip(t, db, generating, "id = ?", &generating.ID)
	if generating.Status != models.JobStatusGenerating {
		t.Errorf("new job status = %q, want GENERATING", generating.Status)
	}

	guide := &models.InterviewGuide{CompanyID: co.ID, JobID: job.ID, Intro: "Hi", Outro: "Bye",
		LearningObjectives: models.StringArray{"safety", "NULL", ""}, Skills: models.StringArray{"MIG, TIG", "{arc}"}}
	roundTrip(t, db, guide, "id = ?", &guide.ID)
	roundTrip(t, db, &models.InterviewQuestion{CompanyID: co.ID, GuideID: guide.ID, Position: 0, Text: "License?",
		Source: models.QuestionSourceStructured, Skill: ptr("compliance"), Answers: models.StringArray{"Yes", "No"},
		TagName: ptr("licensed"), TagInstructions: ptr("Yes sets it"), TemplateID: &tpl.ID},
		"guide_id = ? AND position = 0", guide.ID)
	roundTrip(t, db, &models.GradingCriterion{CompanyID: co.ID, GuideID: guide.ID, Position: 0, Name: "Safety",
		Description: "Knows PPE", TemplateID: &tpl.ID}, "guide_id = ? AND position = 0", guide.ID)

	cand := &models.Candidate{
		CompanyID: co.ID, ExternalID: ptr("C-9"), FirstName: "Ana", LastName: "Lima",
		Email: ptr("ana@example.test"), Phone: ptr("+15555550100"), Title: "Welder",
		Location: "Austin, TX", City: "Austin", State: "TX", PostalCode: "78701", Country: "US",
		Latitude: ptr(30.2672), Longitude: ptr(-97.7431),
		Skills: models.StringArray{"welding", `quote " and \ slash`}, Employers: models.StringArray{"Foo, LLC"},
		Education: "Trade school", YearsExperience: ptr(7), Status: "screening",
	}
	roundTrip(t, db, cand, "id = ?", &cand.ID)

	app := &models.Application{CompanyID: co.ID, CandidateID: cand.ID, JobID: job.ID, ExternalID: ptr("A-1"),
		Source: models.ApplicationSourcePartner}
	roundTrip(t, db, app, "id = ?", &app.ID)
	if app.Status != "new" {
		t.Errorf("new application status = %q, want new", app.Status)
	}

	sess := &models.InterviewSession{CompanyID: co.ID, ApplicationID: &app.ID, CandidateID: cand.ID, JobID: job.ID,
		MediumType: models.MediumTypePhoneSMS}
	roundTrip(t, db, sess, "id = ?", &sess.ID)
	if len(sess.LinkToken) != 32 || sess.InvitedAt.IsZero() || sess.Status != models.SessionStatusInvited || sess.Decision != models.DecisionNone {
		t.Errorf("session defaults: token %q invitedAt %v status %q decision %q", sess.LinkToken, sess.InvitedAt, sess.Status, sess.Decision)
	}
	done := &models.InterviewSession{CompanyID: co.ID, CandidateID: cand.ID, JobID: job.ID, MediumType: models.MediumTypeVideo,
		Status: models.SessionStatusCompleted, LinkToken: slug + "-token", InvitedAt: now.Add(-time.Hour),
		StartedAt: ptr(now.Add(-30 * time.Minute)), CompletedAt: &now, DurationSeconds: ptr(1800),
		Decision: models.DecisionHired, RecruiterRating: ptr(4.5), ServiceRating: ptr(9.25),
		RecruiterReview: ptr("Solid"), ServiceReview: ptr("Smooth")}
	roundTrip(t, db, done, "id = ?", &done.ID)

	roundTrip(t, db, &models.RecruiterNote{CompanyID: co.ID, CandidateID: cand.ID, SessionID: &done.ID,
		AuthorUserID: &u.ID, Body: "Call back"}, "candidate_id = ?", cand.ID)
	roundTrip(t, db, &models.CheatingEvaluation{CompanyID: co.ID, SessionID: done.ID, CheatingScore: 71.25,
		EyeTrackingScore: ptr(80.0), VoiceScore: ptr(12.5)}, "session_id = ?", done.ID)
	roundTrip(t, db, &models.FraudVerification{CompanyID: co.ID, CandidateID: cand.ID, SessionID: &done.ID,
		OverallVerificationScore: 42, DisposableEmail: true, VoIPPhone: true, VPNProxyIP: true,
		ThinProfile: true, FootprintAnomaly: true, Signals: models.NewJSON(map[string]any{"ip": "10.0.0.1"})},
		"candidate_id = ?", cand.ID)
	roundTrip(t, db, &models.IdentityVerification{CompanyID: co.ID, CandidateID: cand.ID, SessionID: &done.ID,
		JobID: job.ID, Status: models.IdentityStatusFailed, FailureReason: ptr("document_expired"), CompletedAt: &now},
		"candidate_id = ?", cand.ID)
	roundTrip(t, db, &models.Message{CompanyID: co.ID, CandidateID: cand.ID, ApplicationID: &app.ID, SessionID: &sess.ID,
		Direction: models.MessageDirectionOutbound, Channel: models.MessageChannelSMS, Provider: ptr("sim"),
		ProviderMessageID: ptr("m-1"), ToAddress: "+15555550100", Subject: ptr("Interview"),
		Body: "Your link", Error: ptr("none"), SentAt: &now}, "candidate_id = ?", cand.ID)

	t.Run("tenant isolation", func(t *testing.T) {
		err := db.Create(&models.Application{CompanyID: bare.ID, CandidateID: cand.ID, JobID: job.ID,
			Source: models.ApplicationSourceManual}).Error
		if pgCode(err) != "23503" {
			t.Errorf("application of another company's candidate: err = %v, want foreign key violation", err)
		}
	})
	t.Run("duplicate external job id, also when deleted", func(t *testing.T) {
		if err := db.Model(job).Update("is_deleted", true).Error; err != nil {
			t.Fatal(err)
		}
		err := db.Create(&models.Job{CompanyID: co.ID, ExternalID: "J-1", InterviewerID: slug + "-J-1-again"}).Error
		if pgCode(err) != "23505" {
			t.Errorf("duplicate externalJobId: err = %v, want unique violation", err)
		}
	})
	t.Run("completed session needs completed_at", func(t *testing.T) {
		err := db.Create(&models.InterviewSession{CompanyID: co.ID, CandidateID: cand.ID, JobID: job.ID,
			MediumType: models.MediumTypeVideo, Status: models.SessionStatusCompleted}).Error
		if pgCode(err) != "23514" {
			t.Errorf("COMPLETED without completed_at: err = %v, want check violation", err)
		}
	})
	t.Run("updated_at trigger", func(t *testing.T) {
		var before, after time.Time
		db.Raw("SELECT updated_at FROM candidates WHERE id = ?", cand.ID).Scan(&before)
		if err := db.Exec("UPDATE candidates SET status = 'interviewing' WHERE id = ?", cand.ID).Error; err != nil {
			t.Fatal(err)
		}
		db.Raw("SELECT updated_at FROM candidates WHERE id = ?", cand.ID).Scan(&after)
		if !after.After(before) {
			t.Errorf("updated_at after raw UPDATE = %v, want after %v", after, before)
		}
		old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		db.Exec("UPDATE candidates SET updated_at = ? WHERE id = ?", old, cand.ID)
		db.Raw("SELECT updated_at FROM candidates WHERE id = ?", cand.ID).Scan(&after)
		if !after.Equal(old) {
			t.Errorf("explicit updated_at = %v, want %v", after, old)
		}
	})
	t.Run("soft-deleted user frees the e-mail", func(t *testing.T) {
		if err := db.Delete(u).Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Take(&models.User{}, "id = ?", &u.ID).Error; !errors.Is(err, gorm.ErrRecordNotFound) {
			t.Errorf("select soft-deleted user: err = %v, want ErrRecordNotFound", err)
		}
		if err := db.Create(&models.User{Email: strings.ToUpper(u.Email)}).Error; err != nil {
			t.Errorf("re-create user after soft delete: %v", err)
		}
	})
	t.Run("deleting a template keeps the rows", func(t *testing.T) {
		if err := db.Delete(tpl).Error; err != nil {
			t.Fatal(err)
		}
		var got models.Job
		if err := db.Take(&got, "id = ?", &job.ID).Error; err != nil || got.ResumeFitTemplateID != nil || got.CompanyID != co.ID {
			t.Errorf("job after template delete = %+v, %v", got, err)
		}
	})
	t.Run("deleting a company removes its rows", func(t *testing.T) {
		if err := db.Delete(co).Error; err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"company_memberships", "api_keys", "templates", "jobs", "interview_guides",
			"interview_questions", "grading_criteria", "candidates", "applications", "interview_sessions",
			"recruiter_notes", "cheating_evaluations", "fraud_verifications", "identity_verifications", "messages"} {
			var n int64
			if err := db.Table(table).Where("company_id = ?", co.ID).Count(&n).Error; err != nil || n != 0 {
				t.Errorf("%s rows of deleted company = %d, %v", table, n, err)
			}
		}
	})
}
