package interviewtools_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSharedContactsFirstTen compares the fraud evidence's candidates sharing an e-mail or a
// phone (the first ten by creation; migration 00052 walks the e-mail and phone indexes in that
// order) with the first ten of a join over every candidate: more than ten share each, some share
// both, some were created at the same instant, and globex's candidate with the same phone is
// never listed.
func TestSharedContactsFirstTen(t *testing.T) {
	f := setup(t)
	base := ts("2026-01-01T00:00:00Z")
	f.addCand(t, f.acme.ID, "Share00", "Ring", "Leader", "shared@ring.test", "2026-02-01T00:00:00Z")
	for i := 1; i <= 24; i++ {
		email := "other" + fmt.Sprint(i) + "@ring.test"
		if i%2 == 1 {
			email = []string{"Shared@Ring.test", "SHARED@ring.test", "shared@ring.test"}[i%3]
		}
		at := base.Add(time.Duration(i/3) * time.Hour).Format(time.RFC3339) // three at a time: ties by id
		key := fmt.Sprintf("Share%02d", i)
		f.addCand(t, f.acme.ID, key, "Ring", key, email, at)
		f.exec(t, `UPDATE candidates SET created_at = updated_at, phone = CASE WHEN $2 % 3 = 0 THEN '+15550009999' ELSE phone END WHERE id = $1`,
			f.cand[key], i)
	}
	f.exec(t, `UPDATE candidates SET phone = '+15550009999' WHERE id = $1`, f.cand["Share00"])
	f.exec(t, `UPDATE candidates SET created_at = '2025-01-01', phone = '+15550009999', email = 'shared@ring.test' WHERE id = $1`, f.cand["Z"])
	f.exec(t, `INSERT INTO fraud_verifications (company_id, candidate_id, overall_verification_score, created_at) VALUES ($1, $2, 0.5, $3)`,
		f.acme.ID, f.cand["Share00"], ts("2026-04-01T00:00:00Z"))

	rows, err := f.h.Store.SQL().QueryContext(t.Context(), `SELECT o.id, coalesce(lower(o.email) = lower(c.email), false), coalesce(o.phone = c.phone, false)
		FROM candidates c JOIN candidates o ON o.company_id = $1 AND o.id <> c.id
			AND ((c.email IS NOT NULL AND lower(o.email) = lower(c.email)) OR (c.phone IS NOT NULL AND o.phone = c.phone))
		WHERE c.company_id = $1 AND c.id = $2
		ORDER BY o.created_at, o.id LIMIT 10`, f.acme.ID, f.cand["Share00"])
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rows.Next() {
		var id string
		var email, phone bool
		if err := rows.Scan(&id, &email, &phone); err != nil {
			t.Fatal(err)
		}
		var via []string
		if email {
			via = append(via, "email")
		}
		if phone {
			via = append(via, "phone")
		}
		want = append(want, id+" "+strings.Join(via, "+"))
	}
	rows.Close()
	if len(want) != 10 || !slices.ContainsFunc(want, func(s string) bool { return strings.HasSuffix(s, "email+phone") }) {
		t.Fatalf("the fixture does not test the limit and both contacts: %v", want)
	}

	o, _ := call[fraudOut](t, f, nil, "getFraudVerificationStats", map[string]any{"metric": "flaggedDetails", "limit": 1}, nil)
	if len(o.FlaggedDetails) != 1 || o.FlaggedDetails[0].CandidateID != f.cand["Share00"].String() {
		t.Fatalf("flaggedDetails = %+v, want Share00's verification", o.FlaggedDetails)
	}
	var got []string
	for _, s := range o.FlaggedDetails[0].Evidence.SharedWith {
		got = append(got, s.CandidateID+" "+strings.Join(s.Via, "+"))
		if s.CandidateID == f.cand["Z"].String() {
			t.Errorf("globex's candidate is listed as sharing a contact")
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("sharedWith =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
