package partners_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/internal/atssim"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/partners"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/internal/temporaltest"
	"github.com/recruitd/recruitd/models"
	"github.com/recruitd/recruitd/workflows/starter"
)

// fixture is a company on ATS-A (the simulator's records below), with a partner, the active
// open job 5001 and the default partner_application flow. Its Launcher starts runs on a task
// queue no worker polls: these tests see what a submission records and starts, not the run.
type fixture struct {
	st        *store.Store
	box       *secretbox.Box
	sim       *atssim.Server
	apps      *partners.Applications
	co        *models.Company
	partnerID uuid.UUID
}

func newFixture(t *testing.T, atsTimeout time.Duration) *fixture {
	t.Helper()
	ctx := t.Context()
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	box, err := secretbox.New(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	sim := atssim.New([]atssim.Record{
		{ATSType: models.ATSTypeA, ApplicantID: 1001, JobID: 5001, CandidateID: 7001, FirstName: "Ada", LastName: "Quinn", Email: "ada@example.com", Phone: "+14155550101"},
		{ATSType: models.ATSTypeA, ApplicantID: 1002, JobID: 5001, CandidateID: 7002, FirstName: "Ben", Email: "ben@example.com"},
		{ATSType: models.ATSTypeA, ApplicantID: 1003, JobID: 5002, CandidateID: 7003, FirstName: "Cy", Email: "cy@example.com"},
	}, atssim.Credentials{RestToken: "sim-token"})
	simSrv := httptest.NewServer(sim.Handler())
	t.Cleanup(simSrv.Close)
	// Workflow ids hold the slug, and the package's tests share one Temporal server.
	ats := models.ATSTypeA
	co := &models.Company{Slug: fmt.Sprintf("acme-%d", time.Now().UnixNano()), Name: "Acme", DefaultJobStatus: models.JobStatusActive, ATSType: &ats}
	if err := st.CreateCompany(ctx, co); err != nil {
		t.Fatal(err)
	}
	if err := st.SetATSCredentials(ctx, co.ID, box, map[string]string{"baseUrl": simSrv.URL, "restToken": "sim-token"}); err != nil {
		t.Fatal(err)
	}
	if co, err = st.Company(ctx, co.ID); err != nil {
		t.Fatal(err)
	}
	p := &models.Partner{CompanyID: co.ID, Name: "jobboard", CallbackURL: "https://jobboard.example.com/callbacks"}
	if err := st.CreatePartner(ctx, box, p, store.PartnerSecrets{CallbackSecret: "cbs_test", SigningSecret: "whsec_test"}); err != nil {
		t.Fatal(err)
	}
	tc := temporaltest.New(t).Client(t)
	launcher := &outbox.Launcher{Store: st, Starter: starter.Starter{Client: tc, QueuePrefix: temporaltest.TaskQueue(t)}, Log: slog.New(slog.DiscardHandler)}
	f := &fixture{st: st, box: box, sim: sim, co: co, partnerID: p.ID,
		apps: &partners.Applications{Store: st, Launcher: launcher, Box: box, ATSTimeout: atsTimeout}}
	f.job(t, "5001", models.JobStatusActive, true)
	f.definition(t, flow.Defaults()[models.TriggerPartnerApplication])
	return f
}

func (f *fixture) job(t *testing.T, ext string, status models.JobStatus, open bool) {
	t.Helper()
	j := &models.Job{CompanyID: f.co.ID, ExternalID: ext, InterviewerID: "acme-" + ext, Title: "Nurse", ExternalTitle: "Nurse", Description: "d", Status: status, IsOpen: open}
	if err := f.st.DB().Create(j).Error; err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) definition(t *testing.T, d *flow.Definition) {
	t.Helper()
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.SaveFlowDefinition(t.Context(), f.co.ID, models.TriggerPartnerApplication, raw, d.Enabled, flow.Hash(d)); err != nil {
		t.Fatal(err)
	}
}

// submit submits the ids as the partner (applicant, then job and candidate when given).
func (f *fixture) submit(t *testing.T, ids ...string) (*partners.Accepted, error) {
	t.Helper()
	sub := partners.Submission{Company: f.co, PartnerID: &f.partnerID}
	for i, p := range []*string{&sub.ApplicantID, &sub.JobID, &sub.CandidateID}[:len(ids)] {
		*p = ids[i]
	}
	return f.apps.Submit(t.Context(), sub)
}

// count counts the company's rows of model, narrowed by the optional where clause.
func (f *fixture) count(t *testing.T, model any, where ...any) int64 {
	t.Helper()
	var n int64
	q := f.st.DB().Model(model).Where("company_id = ?", f.co.ID)
	if len(where) > 0 {
		q = q.Where(where[0], where[1:]...)
	}
	if err := q.Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// settle decides the application's terminal callback as its run would: invited with link.
func (f *fixture) settle(t *testing.T, id uuid.UUID, link string) {
	t.Helper()
	if _, err := f.st.SettlePartnerApplication(t.Context(), f.co.ID, id, models.PartnerStatusInvited, "", link); err != nil {
		t.Fatal(err)
	}
}

// TestSubmitChecksInOrder: each refusal of a first submission, in the order Submit checks them;
// only the cases that reach the ATS lookup call the ATS, and nothing refused is recorded or
// started.
func TestSubmitChecksInOrder(t *testing.T) {
	f := newFixture(t, 300*time.Millisecond)
	f.job(t, "5009", models.JobStatusActive, false)
	f.sim.Set(atssim.Record{ATSType: models.ATSTypeA, ApplicantID: 1500, JobID: 5001, CandidateID: 7500, Email: "x@example.com", Status: 503})
	f.sim.Set(atssim.Record{ATSType: models.ATSTypeA, ApplicantID: 1501, JobID: 5001, CandidateID: 7501, Email: "y@example.com", Hang: true})
	noPartner := partners.Submission{Company: f.co, ApplicantID: "1001"}
	tests := []struct {
		name string
		sub  *partners.Submission // nil: the partner submits ids
		ids  []string
		want error
	}{
		{"no applicant id", nil, []string{"", "5001"}, partners.ErrMissingFields},
		{"non-integer id", nil, []string{"12a"}, partners.ErrInvalidField},
		{"key without partner", &noPartner, nil, partners.ErrNoCallbackEndpoint},
		{"unknown job", nil, []string{"1001", "9999"}, partners.ErrJobNotFound},
		{"closed job", nil, []string{"1001", "5009"}, partners.ErrJobClosed},
		{"unknown applicant", nil, []string{"424242"}, partners.ErrApplicantNotFound},
		{"ATS 503", nil, []string{"1500"}, partners.ErrATSUnavailable},
		{"ATS timeout", nil, []string{"1501"}, partners.ErrATSUnavailable},
		{"candidate mismatch", nil, []string{"1002", "5001", "7999"}, partners.ErrCandidateMismatch},
		{"derived job unknown", nil, []string{"1003"}, partners.ErrJobNotFound},
	}
	requests := f.sim.Requests()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.sub != nil {
				_, err = f.apps.Submit(t.Context(), *tt.sub)
			} else {
				_, err = f.submit(t, tt.ids...)
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("Submit = %v, want %v", err, tt.want)
			}
		})
	}
	if f.sim.Requests()-requests != 5 {
		t.Errorf("the ATS was called %d times; only the 5 cases that reach the ATS lookup may call it", f.sim.Requests()-requests)
	}
	// The fields' refusals name them for the caller.
	var fe *partners.FieldError
	if _, err := f.submit(t, "", "5001"); !errors.As(err, &fe) || fe.Detail() != "missing required fields: atsApplicantId" {
		t.Errorf("no applicant id = %v, want a FieldError naming atsApplicantId", err)
	}
	if _, err := f.submit(t, "1001", "0"); !errors.As(err, &fe) || fe.Detail() != "atsJobId must be a positive integer id, as a string" {
		t.Errorf("atsJobId 0 = %v, want a FieldError naming atsJobId", err)
	}
	// The job named differs from the ATS record's.
	if _, err := f.submit(t, "1003", "5001"); !errors.Is(err, partners.ErrJobMismatch) {
		t.Errorf("job mismatch = %v, want ErrJobMismatch", err)
	}
	// A job without a partner_application trigger.
	f.definition(t, &flow.Definition{Trigger: models.TriggerPartnerApplication, Enabled: false, Steps: flow.Defaults()[models.TriggerPartnerApplication].Steps})
	if _, err := f.submit(t, "1002", "5001"); !errors.Is(err, partners.ErrNoPartnerTrigger) {
		t.Errorf("disabled trigger = %v, want ErrNoPartnerTrigger", err)
	}
	// An ATS type partner applications do not support.
	atsD := models.ATSTypeD
	f.co.ATSType = &atsD
	if _, err := f.submit(t, "1002"); !errors.Is(err, partners.ErrUnsupportedATS) {
		t.Errorf("ATS-D = %v, want ErrUnsupportedATS", err)
	}
	if apps, starts := f.count(t, &models.PartnerApplication{}), f.count(t, &models.WorkflowStart{}); apps != 0 || starts != 0 {
		t.Errorf("%d applications and %d starts recorded after refusals, want none", apps, starts)
	}
}

// TestRepeatIsCrossChecked: a repeat naming another atsCandidateId or atsJobId than the stored
// application's is refused with a mismatch and replays nothing, in flight and settled; the right
// ids are accepted, with a replay of the settled callback and its link.
func TestRepeatIsCrossChecked(t *testing.T) {
	f := newFixture(t, time.Second)
	f.job(t, "5002", models.JobStatusActive, true)
	first, err := f.submit(t, "1001", "5001")
	if err != nil || !first.Created {
		t.Fatalf("submit = %+v, %v", first, err)
	}
	wrong := []struct {
		ids  []string
		want error
	}{
		{[]string{"1001", "5001", "7002"}, partners.ErrCandidateMismatch},
		{[]string{"1001", "", "7002"}, partners.ErrCandidateMismatch},
		{[]string{"1001", "5002"}, partners.ErrJobMismatch},
		{[]string{"1001", "5002", "7001"}, partners.ErrJobMismatch},
	}
	check := func(when string) {
		for _, w := range wrong {
			if res, err := f.submit(t, w.ids...); !errors.Is(err, w.want) || res != nil {
				t.Errorf("repeat %v (%s) = %+v, %v, want %v", w.ids, when, res, err, w.want)
			}
		}
	}
	check("in flight")
	const link = "http://localhost:3000/interview/tok"
	f.settle(t, first.Application.ID, link)
	check("settled")
	if n := f.count(t, &models.Callback{}); n != 1 {
		t.Fatalf("%d callbacks after the mismatched repeats, want the terminal one only", n)
	}
	res, err := f.submit(t, "1001", "5001", "7001")
	if err != nil || res.Created || res.Application.ID != first.Application.ID {
		t.Fatalf("repeat with the right ids = %+v, %v", res, err)
	}
	if r := res.Replay; r == nil || r.Reason == nil || *r.Reason != "repeat_submission" || r.InterviewLink == nil || *r.InterviewLink != link {
		t.Errorf("replay = %+v, want repeat_submission with the original link", r)
	}
}

// TestRepeatReplaysWhateverBecameOfTheJob: after an invited callback the job is paused, then
// closed, its trigger disabled, the job deleted and the company's ATS made unsupported; a repeat
// of the applicant, with atsJobId as ATS-C partners always send it, is accepted with the same id
// and a replay of the invited status with the original link every time, without asking the ATS
// and without another run of the application.
func TestRepeatReplaysWhateverBecameOfTheJob(t *testing.T) {
	f := newFixture(t, time.Second)
	first, err := f.submit(t, "1001", "5001", "7001")
	if err != nil || !first.Created {
		t.Fatalf("submit = %+v, %v", first, err)
	}
	const link = "http://localhost:3000/interview/tok"
	f.settle(t, first.Application.ID, link)
	db := f.st.DB().Model(&models.Job{}).Where("company_id = ? AND external_id = ?", f.co.ID, "5001")
	changes := []struct {
		name   string
		change func() error
	}{
		{"job paused", func() error { return db.Session(&gorm.Session{}).Update("status", models.JobStatusPaused).Error }},
		{"job closed", func() error { return db.Session(&gorm.Session{}).Update("is_open", false).Error }},
		{"trigger disabled", func() error {
			f.definition(t, &flow.Definition{Trigger: models.TriggerPartnerApplication, Enabled: false, Steps: flow.Defaults()[models.TriggerPartnerApplication].Steps})
			return nil
		}},
		{"job deleted", func() error { return db.Session(&gorm.Session{}).Update("is_deleted", true).Error }},
		{"ATS unsupported", func() error {
			atsD := models.ATSTypeD
			f.co.ATSType = &atsD
			return f.st.DB().Model(f.co).Update("ats_type", atsD).Error
		}},
	}
	requests := f.sim.Requests()
	for _, ch := range changes {
		if err := ch.change(); err != nil {
			t.Fatal(err)
		}
		res, err := f.submit(t, "1001", "5001", "7001")
		if err != nil || res.Created || res.Application.ID != first.Application.ID {
			t.Fatalf("repeat after %s = %+v, %v, want accepted, not created, with the same id", ch.name, res, err)
		}
		if r := res.Replay; r == nil || r.Status != models.PartnerStatusInvited || r.Reason == nil || *r.Reason != "repeat_submission" ||
			r.InterviewLink == nil || *r.InterviewLink != link || r.PartnerApplicationID != first.Application.ID {
			t.Errorf("replay after %s = %+v, want invited/repeat_submission with the original link", ch.name, r)
		}
	}
	if n := f.sim.Requests() - requests; n != 0 {
		t.Errorf("repeats called the ATS %d times", n)
	}
	if n := f.count(t, &models.WorkflowStart{}, "kind = ?", kinds.PartnerApplication.Name); n != 1 {
		t.Errorf("%d runs of the application started, want the first submission's only", n)
	}
	if n := f.count(t, &models.WorkflowStart{}, "kind = ?", kinds.Callback.Name); n != int64(len(changes)) {
		t.Errorf("%d replay deliveries started, want %d", n, len(changes))
	}
	if n := f.count(t, &models.Callback{}); n != int64(1+len(changes)) {
		t.Errorf("%d callbacks, want the terminal one and %d replays", n, len(changes))
	}
}
