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
