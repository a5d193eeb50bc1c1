package seed_test

import (
	"testing"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/seed"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

func TestDemoIsIdempotent(t *testing.T) {
	db := pgtest.New(t)
	st, err := store.FromSQL(db.SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	first, err := seed.Demo(t.Context(), st, "")
	if err != nil {
		t.Fatal(err)
	}
	if !first.CompanyCreated || !first.KeyCreated || first.APIKey == "" {
		t.Fatalf("first run = %+v, want company and key created", first)
	}
	// The README's HR-suite walkthrough invites Ada: that needs a saved, enabled workflow.
	for _, trigger := range []models.FlowTrigger{models.TriggerNewApplicationWebhook, models.TriggerPartnerApplication} {
		if ok, err := st.EnabledTrigger(t.Context(), first.Company.ID, trigger); err != nil || !ok {
			t.Errorf("demo tenant's %s workflow saved and enabled = %v, %v; want true", trigger, ok, err)
		}
	}
	counts := func() map[string]int {
		out := map[string]int{}
		for _, table := range []string{"companies", "users", "jobs", "interview_questions", "candidates", "interview_sessions", "api_keys"} {
			var n int
			if err := db.SQL.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
				t.Fatal(err)
			}
			out[table] = n
		}
		return out
	}
	before := counts()
	if before["jobs"] == 0 || before["candidates"] == 0 || before["interview_sessions"] == 0 {
		t.Errorf("demo tenant is empty: %v", before)
	}
	again, err := seed.Demo(t.Context(), st, "")
	if err != nil {
		t.Fatal(err)
	}
	if again.CompanyCreated || again.KeyCreated || again.APIKey != "" {
		t.Errorf("second run = %+v, want nothing created", again)
	}
	fixed := "demo-key-chosen-by-the-developer"
	withKey, err := seed.Demo(t.Context(), st, fixed)
	if err != nil || !withKey.KeyCreated {
		t.Fatalf("fixed key: %+v, %v", withKey, err)
	}
	if c, _, err := st.Authenticate(t.Context(), fixed); err != nil || c.Slug != "demo" {
		t.Errorf("fixed key authenticates as %v, %v", c, err)
	}
	if again, err := seed.Demo(t.Context(), st, fixed); err != nil || again.KeyCreated {
		t.Errorf("fixed key again: %+v, %v; want it reused", again, err)
	}
	after := counts()
	after["api_keys"]--
	for table, n := range before {
		if after[table] != n {
			t.Errorf("%s: %d rows after re-seeding, want %d", table, after[table], n)
		}
	}
}

// TestDemoATS: the demo ATS company is an ATS-D company, not an HR suite (so its applications
// sync), with its decision pairs and an enabled 'New Application from ATS' before anything is
// connected, no jobs of its own, and a key; a second run creates nothing, and a key of another
// company is refused.
func TestDemoATS(t *testing.T) {
	db := pgtest.New(t)
	st, err := store.FromSQL(db.SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	demo, err := seed.Demo(t.Context(), st, "")
	if err != nil {
		t.Fatal(err)
	}
	const key = "demo-ats-key-chosen-for-the-test"
	first, err := seed.DemoATS(t.Context(), st, key)
	if err != nil {
		t.Fatal(err)
	}
	co := first.Company
	if !first.CompanyCreated || !first.KeyCreated || co.Slug != seed.DemoATSSlug || co.HRSuiteAccount || co.ATSType == nil || *co.ATSType != models.ATSTypeD || !co.AutoJobImportEnabled {
		t.Fatalf("first run = %+v, company %+v; want an ATS-D company that is not an HR suite, created with its key", first, co)
	}
	if p, ok := models.SyncFieldFor(co.DecisionSyncFields.V, models.DecisionRejected); !ok || p.Field != "stage" || p.Value != "kmb_stage_Rejected" {
		t.Errorf("REJECTED pair = %+v, %v", p, ok)
	}
	for _, trigger := range models.AllFlowTriggers() {
		if ok, err := st.EnabledTrigger(t.Context(), co.ID, trigger); err != nil || !ok {
			t.Errorf("demo-ats %s workflow saved and enabled = %v, %v; want true", trigger, ok, err)
		}
	}
	if c, _, err := st.Authenticate(t.Context(), key); err != nil || c.ID != co.ID {
		t.Errorf("the key authenticates as %v, %v; want demo-ats", c, err)
	}
	var jobs int
	if err := db.SQL.QueryRow("SELECT count(*) FROM jobs WHERE company_id = $1", co.ID).Scan(&jobs); err != nil || jobs != 0 {
		t.Errorf("demo-ats jobs = %d, %v; want none before the import", jobs, err)
	}
	again, err := seed.DemoATS(t.Context(), st, key)
	if err != nil || again.CompanyCreated || again.KeyCreated || again.Company.ID != co.ID {
		t.Errorf("second run = %+v, %v; want nothing created", again, err)
	}
	if _, err := seed.DemoATS(t.Context(), st, demo.APIKey); err == nil {
		t.Error("DemoATS with the demo tenant's key succeeded; want it refused")
	}
}
