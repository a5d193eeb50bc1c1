package interviewtools_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/mcpserver/interviewtools"
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

	want := sharingJoin(t, f, "Share00")
	if len(want) != 10 || !slices.ContainsFunc(want, func(s string) bool { return strings.HasSuffix(s, "email+phone") }) {
		t.Fatalf("the fixture does not test the limit and both contacts: %v", want)
	}

	o, _ := call[fraudOut](t, f, nil, "getFraudVerificationStats", map[string]any{"metric": "flaggedDetails", "limit": 1}, nil)
	if len(o.FlaggedDetails) != 1 || o.FlaggedDetails[0].CandidateID != f.cand["Share00"].String() {
		t.Fatalf("flaggedDetails = %+v, want Share00's verification", o.FlaggedDetails)
	}
	got := sharingListed(o.FlaggedDetails[0].Evidence)
	if slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, f.cand["Z"].String()) }) {
		t.Errorf("globex's candidate is listed as sharing a contact")
	}
	if !slices.Equal(got, want) {
		t.Errorf("sharedWith =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestFlaggedDetailsReadSharedContactsAtOnce lists several flagged candidates with
// getFraudVerificationStats' flaggedDetails: each row's sharedWith is that candidate's own (the
// join's first ten), a candidate listed twice has the same list on both rows, and the call
// sends as many statements for four rows as for one: the shared contacts of every listed
// candidate are one statement, not one per row.
func TestFlaggedDetailsReadSharedContactsAtOnce(t *testing.T) {
	f := setup(t)
	for i := range 14 {
		key := fmt.Sprintf("Pair%02d", i)
		email := fmt.Sprintf("pair%d@ring.test", i%2) // two groups of seven sharing an e-mail
		f.addCand(t, f.acme.ID, key, "Pair", key, email, fmt.Sprintf("2026-01-%02dT00:00:00Z", i+1))
		f.exec(t, `UPDATE candidates SET created_at = updated_at, phone = NULL WHERE id = $1`, f.cand[key])
	}
	f.exec(t, `UPDATE candidates SET phone = '+15550007777' WHERE id IN ($1, $2)`, f.cand["Pair00"], f.cand["Pair01"])
	for i, v := range []struct {
		key   string
		score float64
	}{{"Pair00", 0.5}, {"Pair01", 0.6}, {"Pair00", 0.7}, {"Pair02", 0.8}} {
		f.exec(t, `INSERT INTO fraud_verifications (company_id, candidate_id, overall_verification_score, created_at) VALUES ($1, $2, $3, $4)`,
			f.acme.ID, f.cand[v.key], v.score, ts("2026-04-01T00:00:00Z").Add(time.Duration(i)*time.Minute))
	}
	statements := func(limit int) (fraudOut, int) {
		f.h.DB.Statements.Start()
		o, _ := call[fraudOut](t, f, nil, "getFraudVerificationStats", map[string]any{"metric": "flaggedDetails", "limit": limit, "sinceDate": "2026-04-01"}, nil)
		return o, len(f.h.DB.Statements.Stop())
	}
	_, one := statements(1)
	o, four := statements(4)
	if len(o.FlaggedDetails) != 4 {
		t.Fatalf("flaggedDetails lists %d rows, want the 4 verifications", len(o.FlaggedDetails))
	}
	for i, key := range []string{"Pair00", "Pair01", "Pair00", "Pair02"} {
		r := o.FlaggedDetails[i]
		if r.CandidateID != f.cand[key].String() {
			t.Fatalf("row %d is candidate %s, want %s", i, r.CandidateID, key)
		}
		if got, w := sharingListed(r.Evidence), sharingJoin(t, f, key); !slices.Equal(got, w) || len(w) == 0 {
			t.Errorf("row %d (%s) sharedWith =\n%s\nwant\n%s", i, key, strings.Join(got, "\n"), strings.Join(w, "\n"))
		}
	}
	if four != one {
		t.Errorf("flaggedDetails sent %d statements for 4 rows and %d for 1: the evidence is read per row", four, one)
	}
}

// sharingJoin is the first ten of acme's other candidates sharing the e-mail or the phone of
// the candidate key, by a join over every candidate: "id via" lines, via being email, phone or
// email+phone.
func sharingJoin(t *testing.T, f *fixture, key string) []string {
	t.Helper()
	rows, err := f.h.Store.SQL().QueryContext(t.Context(), `SELECT o.id, coalesce(lower(o.email) = lower(c.email), false), coalesce(o.phone = c.phone, false)
		FROM candidates c JOIN candidates o ON o.company_id = $1 AND o.id <> c.id
			AND ((c.email IS NOT NULL AND lower(o.email) = lower(c.email)) OR (c.phone IS NOT NULL AND o.phone = c.phone))
		WHERE c.company_id = $1 AND c.id = $2
		ORDER BY o.created_at, o.id LIMIT 10`, f.acme.ID, f.cand[key])
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
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
		out = append(out, id+" "+strings.Join(via, "+"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sharingListed is the evidence's sharedWith as sharingJoin's lines.
func sharingListed(ev *interviewtools.FraudEvidence) []string {
	var out []string
	for _, s := range ev.SharedWith {
		out = append(out, s.CandidateID+" "+strings.Join(s.Via, "+"))
	}
	return out
}
