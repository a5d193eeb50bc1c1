package seed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// DemoSlug is the demo tenant's slug.
const DemoSlug = "demo"

// DemoResult says what Demo did.
type DemoResult struct {
	Company        *models.Company
	CompanyCreated bool
	// APIKey is the demo key in clear when it is known: the one asked for, or one generated now.
	APIKey     string
	KeyCreated bool
}

// Demo creates the demo tenant once (company, admin user, jobs with interview guides,
// candidates, applications and sessions) and makes sure it has a usable API key: key when given
// (created if absent), otherwise a new key when the company has no live one. Running it again
// changes nothing else.
func Demo(ctx context.Context, st *store.Store, key string) (*DemoResult, error) {
	return demo(ctx, st, key, uuid.Nil)
}

// demo is Demo giving a newly created demo company the id companyID (uuid.Nil: a random one).
func demo(ctx context.Context, st *store.Store, key string, companyID uuid.UUID) (*DemoResult, error) {
	res := &DemoResult{}
	c, err := st.CompanyBySlug(ctx, DemoSlug)
	switch {
	case errors.Is(err, store.ErrNotFound):
		c, err = createDemo(ctx, st, companyID)
		if err != nil {
			return nil, err
		}
		res.CompanyCreated = true
	case err != nil:
		return nil, err
	}
	res.Company = c
	if err := ensureDefinitions(ctx, st, c.ID); err != nil {
		return nil, err
	}
	if err := ensureDemoJobs(ctx, st, c); err != nil {
		return nil, err
	}

	if err := ensureKey(ctx, st, c, key, res); err != nil {
		return nil, err
	}
	return res, nil
}

// ensureKey makes sure the company c has a usable API key: key when given (created if absent,
// refused when another company's or revoked), otherwise a new key when c has no live one. It
// records in res the key in clear when it is known and whether it was created.
func ensureKey(ctx context.Context, st *store.Store, c *models.Company, key string, res *DemoResult) error {
	if key == "" {
		keys, err := st.ListAPIKeys(ctx, c.ID)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if k.RevokedAt == nil {
				return nil
			}
		}
		if key, err = apikey.Generate(); err != nil {
			return err
		}
	}
	res.APIKey = key
	owner, _, err := st.Authenticate(ctx, key)
	switch {
	case err == nil && owner.ID == c.ID:
		return nil
	case err == nil, errors.Is(err, store.ErrRevokedKey):
		return fmt.Errorf("the %s API key belongs to another company or was revoked; choose another key", c.Slug)
	case !errors.Is(err, store.ErrUnknownKey):
		return err
	}
	if _, err := st.CreateAPIKey(ctx, c.ID, c.Slug, key); err != nil {
		return err
	}
	res.KeyCreated = true
	return nil
}

type demoJob struct {
	externalID, title, description string
	status                         models.JobStatus
	skills                         []string
	questions                      []string
	criteria                       [][2]string
}

var demoJobs = []demoJob{
	{
		externalID: "1001", title: "Backend Engineer (Go)", status: models.JobStatusActive,
		description: "We are hiring a backend engineer to build APIs in Go on Postgres. You will design services, write tests, and run them in production. 3+ years of backend experience required.",
		skills:      []string{"Go", "PostgreSQL", "API design"},
		questions: []string{
			"Tell me about a Go service you built and operated in production.",
			"How would you find and fix a slow Postgres query?",
			"How do you design an API so that clients can retry requests safely?",
		},
		criteria: [][2]string{{"Technical depth", "Explains trade-offs with concrete examples."}, {"Operational ownership", "Has run what they built and learned from incidents."}},
	},
	{
		externalID: "1002", title: "Customer Support Specialist", status: models.JobStatusActive,
		description: "Help our customers by phone, chat and e-mail. You resolve issues, document them, and escalate with care. Experience with ticketing tools is a plus.",
		skills:      []string{"Customer service", "Communication", "Ticketing"},
		questions: []string{
			"Describe a time you turned an unhappy customer around.",
			"How do you decide when to escalate an issue?",
			"How do you keep track of many open tickets at once?",
		},
		criteria: [][2]string{{"Empathy", "Listens and acknowledges the customer's situation."}, {"Clarity", "Explains next steps simply."}},
	},
	{
		externalID: "5001", title: "Registered Nurse (ICU)", status: models.JobStatusActive,
		description: "Join our ICU team as a Registered Nurse. You monitor patients, administer medication and coordinate with physicians. Active RN license and BLS certification required.",
		skills:      []string{"Patient care", "Medication administration", "BLS"},
		questions: []string{
			"Tell me about a shift in the ICU where priorities changed quickly.",
			"How do you double-check medication before administering it?",
		},
		criteria: [][2]string{{"Clinical judgement", "Prioritises safely under pressure."}, {"Licensure", "Holds an active RN license and BLS."}},
	},
	{
		externalID: "1003", title: "Warehouse Associate", status: models.JobStatusPaused,
		description: "Pick, pack and ship orders safely and accurately in a fast-paced warehouse. Forklift certification preferred; weekend shifts available.",
		skills:      []string{"Order picking", "Forklift", "Safety"},
		questions: []string{
			"Which shifts are you available for?",
			"Tell me about how you keep a work area safe.",
		},
		criteria: [][2]string{{"Reliability", "Available for the required shifts."}, {"Safety awareness", "Names concrete safety practices."}},
	},
}

type demoCandidate struct {
	first, last, email, phone, title, city, state string
	job                                           int
	status                                        models.SessionStatus
	decision                                      models.Decision
}

var demoCandidates = []demoCandidate{
	{"Ada", "Quinn", "ada.quinn@example.com", "+14155550101", "Senior Software Engineer", "San Francisco", "CA", 0, models.SessionStatusCompleted, models.DecisionAccepted},
	{"Ben", "Okafor", "ben.okafor@example.com", "+13125550102", "Support Lead", "Chicago", "IL", 1, models.SessionStatusCompleted, models.DecisionNone},
	{"Carla", "Mendes", "carla.mendes@example.com", "+12125550103", "Backend Developer", "New York", "NY", 0, models.SessionStatusInvited, models.DecisionNone},
}

func createDemo(ctx context.Context, st *store.Store, id uuid.UUID) (*models.Company, error) {
	ats := models.ATSTypeA
	ops := "ops@demo.example.com"
	c := &models.Company{
		ID: id, Slug: DemoSlug, Name: "Demo Staffing Co", ATSType: &ats, HRSuiteAccount: true,
		DefaultJobStatus: models.JobStatusActive, FraudDetectionEnabled: true, ModelCheatDetectionEnabled: true,
		CheatThreshold: models.DefaultCheatThreshold, AutoJobImportEnabled: true, OperationsEmail: &ops,
		DecisionSyncFields: models.NewJSON([]models.SyncField{{Field: "status", Value: "Interview Passed"}}),
		Features: models.NewJSON(map[string]bool{
			models.FeatureResumeFit: true, models.FeatureTalentMatch: false, models.FeatureCoordinator: true,
			models.FeatureWhatsAppChannel: true, models.FeatureCustomLogo: false,
		}),
	}
	err := st.DB().WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(c).Error; err != nil {
			return fmt.Errorf("create demo company: %w", err)
		}
		u := &models.User{Email: "dana@demo.example.com", Name: "Dana Demo"}
		if err := tx.Create(u).Error; err != nil {
			return fmt.Errorf("create demo user: %w", err)
		}
		if err := tx.Create(&models.CompanyMembership{CompanyID: c.ID, UserID: u.ID, Role: models.MembershipRoleAdmin}).Error; err != nil {
			return fmt.Errorf("create demo membership: %w", err)
		}
		jobIDs := make([]uuid.UUID, len(demoJobs))
		for i, dj := range demoJobs {
			id, err := createDemoJob(tx, c, &u.ID, dj)
			if err != nil {
				return err
			}
			jobIDs[i] = id
		}
		for i, dc := range demoCandidates {
			if err := createDemoCandidate(tx, c.ID, u.ID, jobIDs[dc.job], i, dc); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func createDemoJob(tx *gorm.DB, c *models.Company, userID *uuid.UUID, dj demoJob) (uuid.UUID, error) {
	now := time.Now().UTC()
	j := &models.Job{
		CompanyID: c.ID, ExternalID: dj.externalID, InterviewerID: c.Slug + "-" + dj.externalID,
		Title: dj.title, ExternalTitle: dj.title, Description: dj.description, Status: dj.status,
		IsOpen: true, CreatedByUserID: userID, GeneratedAt: &now,
	}
	if err := tx.Create(j).Error; err != nil {
		return uuid.Nil, fmt.Errorf("create demo job %s: %w", dj.externalID, err)
	}
	g := &models.InterviewGuide{
		CompanyID: c.ID, JobID: j.ID, Skills: dj.skills,
		Intro:              "Hi, thanks for taking the time to interview for the " + dj.title + " role at " + c.Name + ".",
		Outro:              "Thank you! The hiring team will review your answers and get back to you soon.",
		LearningObjectives: []string{"Assess " + dj.skills[0], "Assess " + dj.skills[1]},
	}
	if err := tx.Create(g).Error; err != nil {
		return uuid.Nil, fmt.Errorf("create demo guide %s: %w", dj.externalID, err)
	}
	for i, q := range dj.questions {
		skill := dj.skills[i%len(dj.skills)]
		iq := &models.InterviewQuestion{CompanyID: c.ID, GuideID: g.ID, Position: i + 1, Text: q, Source: models.QuestionSourceGenerated, Skill: &skill}
		if err := tx.Create(iq).Error; err != nil {
			return uuid.Nil, fmt.Errorf("create demo question: %w", err)
		}
	}
	for i, cr := range dj.criteria {
		gc := &models.GradingCriterion{CompanyID: c.ID, GuideID: g.ID, Position: i + 1, Name: cr[0], Description: cr[1]}
		if err := tx.Create(gc).Error; err != nil {
			return uuid.Nil, fmt.Errorf("create demo criterion: %w", err)
		}
	}
	return j.ID, nil
}

func createDemoCandidate(tx *gorm.DB, companyID, userID, jobID uuid.UUID, i int, dc demoCandidate) error {
	email, phone := dc.email, dc.phone
	cand := &models.Candidate{
		CompanyID: companyID, FirstName: dc.first, LastName: dc.last, Email: &email, Phone: &phone,
		Title: dc.title, City: dc.city, State: dc.state, Country: "US", Location: dc.city + ", " + dc.state,
		Status: "interviewing",
	}
	if err := tx.Create(cand).Error; err != nil {
		return fmt.Errorf("create demo candidate: %w", err)
	}
	extID := fmt.Sprintf("demo-app-%d", i+1)
	app := &models.Application{CompanyID: companyID, CandidateID: cand.ID, JobID: jobID, ExternalID: &extID, Source: models.ApplicationSourceManual}
	if err := tx.Create(app).Error; err != nil {
		return fmt.Errorf("create demo application: %w", err)
	}
	invited := time.Now().UTC().Add(-time.Duration(48-i*12) * time.Hour).Truncate(time.Second)
	s := &models.InterviewSession{
		CompanyID: companyID, ApplicationID: &app.ID, CandidateID: cand.ID, JobID: jobID,
		Status: dc.status, MediumType: models.MediumTypeVideo, InvitedAt: invited, Decision: dc.decision,
	}
	if dc.status == models.SessionStatusCompleted {
		started, completed := invited.Add(3*time.Hour), invited.Add(3*time.Hour+18*time.Minute)
		dur, rating, review := 18*60, 4.5, "Clear, structured answers with concrete examples."
		s.StartedAt, s.CompletedAt, s.DurationSeconds = &started, &completed, &dur
		s.ServiceRating, s.ServiceReview = &rating, &review
	}
	if err := tx.Create(s).Error; err != nil {
		return fmt.Errorf("create demo session: %w", err)
	}
	if dc.status == models.SessionStatusCompleted {
		note := &models.RecruiterNote{CompanyID: companyID, CandidateID: cand.ID, SessionID: &s.ID, AuthorUserID: &userID, Body: "Strong interview; move to the hiring manager."}
		if err := tx.Create(note).Error; err != nil {
			return fmt.Errorf("create demo note: %w", err)
		}
	}
	return nil
}

// ensureDemoJobs adds the demo jobs a tenant seeded by an older release lacks.
func ensureDemoJobs(ctx context.Context, st *store.Store, c *models.Company) error {
	for _, dj := range demoJobs {
		_, err := st.JobByExternalID(ctx, c.ID, dj.externalID)
		if err == nil {
			continue
		}
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err := st.DB().WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			_, err := createDemoJob(tx, c, nil, dj)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// ensureDefinitions gives the company the platform's default workflow for every trigger it has
// none for; definitions it already has, edited or not, are kept.
func ensureDefinitions(ctx context.Context, st *store.Store, companyID uuid.UUID) error {
	for trigger, def := range flow.Defaults() {
		_, err := st.FlowDefinition(ctx, companyID, trigger)
		if err == nil {
			continue
		}
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		raw, err := json.Marshal(def)
		if err != nil {
			return fmt.Errorf("encode default %s workflow: %w", trigger, err)
		}
		if _, err := st.SaveFlowDefinition(ctx, companyID, trigger, raw, def.Enabled, flow.Hash(def)); err != nil {
			return err
		}
	}
	return nil
}

// DemoPartner is the demo tenant's partner in `recruitd dev`.
const DemoPartner = "demo-partner"

// DemoIntegrations points the demo tenant at the dev stack's ATS simulator (ATS-A, credentials
// creds) and registers its partner with callbackURL, binding the demo key to it so the key can
// submit partner applications. Run at every dev start: the simulator's address changes.
func DemoIntegrations(ctx context.Context, st *store.Store, box *secretbox.Box, c *models.Company, demoKey string, creds map[string]string, callbackURL string) error {
	if err := st.SetATSCredentials(ctx, c.ID, box, creds); err != nil {
		return err
	}
	p, err := st.PartnerByName(ctx, c.ID, DemoPartner)
	switch {
	case errors.Is(err, store.ErrNotFound):
		p = &models.Partner{CompanyID: c.ID, Name: DemoPartner, CallbackURL: callbackURL}
		if err := st.CreatePartner(ctx, box, p, store.PartnerSecrets{CallbackSecret: "demo-callback-secret", SigningSecret: "whsec_ZGVtby1zaWduaW5nLXNlY3JldC1kZW1vLXNpZ25pbmc="}); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		if err := st.DB().WithContext(ctx).Model(p).Where("company_id = ?", c.ID).Update("callback_url", callbackURL).Error; err != nil {
			return fmt.Errorf("update demo partner: %w", err)
		}
	}
	_, k, err := st.Authenticate(ctx, demoKey)
	if err != nil {
		return err
	}
	if err := st.BindAPIKey(ctx, c.ID, k.ID, p.ID); err != nil {
		return err
	}
	// Bound to the demo partner, the demo key still does everything (README's curls).
	return st.SetAPIKeyScopes(ctx, c.ID, k.ID, models.AllScopes())
}
