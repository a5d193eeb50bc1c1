package store_test

import (
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// TestThreadSessionKeepsItsPlan finds a number's thread twenty times on one connection and counts
// the plans Postgres made for the lookup (pg_stat_statements): a handful (five custom plans, then
// the generic one), not one per inbound text. With "channel = $2" alone, the generic plan could
// not use messages_thread, whose predicate names the channels, and lost to a custom plan on
// every call.
func TestThreadSessionKeepsItsPlan(t *testing.T) {
	st := newStore(t)
	ctx := t.Context()
	db := st.SQL()
	db.SetMaxOpenConns(1) // one connection: one plan cache
	acme := company(t, st, "acme")
	inv := invite(t, st, technicianJob(t, st, acme, models.JobStatusActive), store.CandidateInput{FirstName: "Ada", LastName: "Quinn", Phone: "+15550100001"})
	// A thousand texted numbers and as many e-mails, so that the planner weighs the index.
	if _, err := db.ExecContext(ctx, `
		INSERT INTO messages (company_id, candidate_id, session_id, direction, channel, status, provider, to_address, body, created_at)
		SELECT $1, $2, $3, 'outbound', CASE WHEN n % 2 = 0 THEN 'sms' ELSE 'email' END, 'sent', 'sim',
		       CASE WHEN n % 2 = 0 THEN '+1555' || lpad(n::text, 7, '0') ELSE 'p' || n || '@example.com' END, 'hello', now()
		FROM generate_series(1, 2000) n`, acme.ID, inv.Candidate.ID, inv.Session.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "ANALYZE messages"); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		th, err := st.ThreadSession(ctx, "sms", "+15550000002")
		if err != nil {
			t.Fatal(err)
		}
		if th.SessionID != inv.Session.ID || th.CompanyID != acme.ID {
			t.Fatalf("thread %+v, want session %s of %s", th, inv.Session.ID, acme.ID)
		}
	}
	var lookups []pgtest.Planned
	for _, p := range pgtest.PlansOf(t, db, true, 1) {
		if strings.Contains(p.Query, "AS company_name") {
			lookups = append(lookups, p)
		}
	}
	if len(lookups) != 1 || lookups[0].Calls != 20 || lookups[0].Plans > 6 {
		t.Errorf("the thread lookup's statistics %+v, want one statement planned at most 6 times in 20 calls", lookups)
	}
}
