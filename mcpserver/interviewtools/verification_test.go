package interviewtools_test

import (
	"strings"
	"testing"

	"github.com/recruitd/recruitd/mcpserver/interviewtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
)

type verOut = interviewtools.CandidateVerificationOutput

func TestCandidateVerification(t *testing.T) {
	f := setup(t)
	ver := func(args map[string]any) (verOut, string) {
		t.Helper()
		o, r := call[verOut](t, f, nil, "getCandidateVerification", args, nil)
		return o, r.Text
	}
	sessKey := func(o verOut) string {
		if o.Session == nil {
			return ""
		}
		return f.sessKeys(o.Session.SessionID)[0]
	}

	// sessionId: that session. S1 → cheating 85 (flagged), fraud F1 (this session's, 30, high risk), identity I1 VERIFIED.
	o, text := ver(map[string]any{"sessionId": f.sess["S1"].String()})
	if o.LookupBy != "sessionId" || o.Candidate.Name != "John Smith" || sessKey(o) != "S1" || o.Candidate.Link != f.h.Env.Links.Candidate(f.cand["C1"]) {
		t.Fatalf("S1 = %+v", o)
	}
	if c := o.Cheating; c == nil || c.Score != 85 || !c.Flagged || c.Threshold != 70 || f64(c.SubScores.EyeTracking) != 90 || f64(c.SubScores.HeadTracking) != 80 ||
		f64(c.SubScores.Voice) != 10 || f64(c.SubScores.Transcript) != 70 || f64(c.SubScores.MultiPerson) != 0 {
		t.Errorf("S1 cheating = %+v", o.Cheating)
	}
	if fr := o.Fraud; fr == nil || fr.Score != 30 || !fr.HighRisk || !fr.DisposableEmail || !fr.VpnProxyIP || fr.VoipPhone || fr.Source != "thisSession" ||
		*fr.SessionID != f.sess["S1"].String() || len(fr.Signals) != 2 {
		t.Errorf("S1 fraud = %+v", o.Fraud)
	}
	if id := o.Identity; id == nil || id.Status != "VERIFIED" || id.FailureReason != nil || id.JobTitle != "Backend Engineer" || *id.CompletedAt != "2026-03-01T10:10:00Z" {
		t.Errorf("S1 identity = %+v", o.Identity)
	}
	contains(t, "S1 text", text, "# Integrity picture: John Smith", "Cheating score: 85", "Flagged:        yes", "Verification score: 30/100",
		"VERIFIED", f.h.Env.Links.Session(f.sess["S1"]))

	// candidateId: the most recent session (S4, invited 04-09). Fraud F5 belongs to S4; identity null: J2 does not verify IDs.
	o, text = ver(map[string]any{"candidateId": f.cand["C1"].String()})
	if o.LookupBy != "candidateId" || sessKey(o) != "S4" || o.Cheating == nil || o.Cheating.Score != 88 || o.Fraud == nil || o.Fraud.Score != 20 ||
		o.Fraud.Source != "thisSession" || o.Identity != nil || !strings.Contains(o.IdentityNote, "Sales Associate") ||
		!strings.Contains(o.IdentityNote, "enable_identity_verification") {
		t.Errorf("C1 = %+v", o)
	}
	contains(t, "C1 text", text, "None: ID verification was not run")

	// email: exact, any case. Jane's most recent session is S8 (cancelled): no evaluation → cheating null (and the note says so);
	// fraud falls back to her latest check (F2, made for S2); identity null (J2).
	o, text = ver(map[string]any{"email": "JANE@example.com"})
	if o.LookupBy != "email" || o.Candidate.Name != "Jane Smithers" || sessKey(o) != "S8" || o.Cheating != nil ||
		o.CheatingNote != "no cheating evaluation exists for this session" || o.Fraud == nil || o.Fraud.Score != 80 || o.Fraud.HighRisk ||
		o.Fraud.Source != "otherSession" || !o.Fraud.ThinProfile || o.Identity != nil || len(o.OtherMatches) != 0 {
		t.Errorf("jane = %+v", o)
	}
	contains(t, "jane text", text, "None: no cheating evaluation exists for this session.")
	toolErr(t, f, nil, "getCandidateVerification", map[string]any{"email": "jane@example"}, "no candidate", "jane@example")
	toolErr(t, f, nil, "getCandidateVerification", map[string]any{"email": "zelda@globex.test"}, "no candidate")

	// name: partial, any order. Bob (S3 newer than S6): cheating 70 = threshold → flagged; fraud F3 is candidate-level.
	o, _ = ver(map[string]any{"name": "jones bob"})
	if o.Candidate.Name != "Bob Jones" || sessKey(o) != "S3" || o.Cheating == nil || !o.Cheating.Flagged || o.Cheating.Score != 70 ||
		o.Fraud == nil || o.Fraud.Score != 49.5 || o.Fraud.SessionID != nil || o.Fraud.Source != "candidate" || !o.Fraud.HighRisk || o.Identity != nil {
		t.Errorf("bob = %+v", o)
	}
	// Several matches: the one with the most recent interview (John, S4 04-09, over Jane, S8 03-20); the others listed.
	o, r := call[verOut](t, f, nil, "getCandidateVerification", map[string]any{"name": "smi"}, nil)
	if o.Candidate.Name != "John Smith" || len(o.OtherMatches) != 1 || o.OtherMatches[0].Name != "Jane Smithers" ||
		o.OtherMatches[0].CandidateID != f.cand["C2"].String() || o.MoreMatches {
		t.Errorf("smi = %+v", o)
	}
	hasNotice(t, "ambiguous name", o.Notices, r, "matches more than one candidate")
	contains(t, "smi text", r.Text, "Other matching candidates", "Jane Smithers", f.cand["C2"].String())
	// Candidates without sessions rank last; "clone" matches 11 → one chosen, 5 listed, more flagged.
	o, _ = ver(map[string]any{"name": "clone"})
	if o.Session != nil || len(o.OtherMatches) != 5 || !o.MoreMatches || o.Cheating != nil || o.CheatingNote != "the candidate has no interview session" ||
		o.Identity != nil || !strings.Contains(o.IdentityNote, "no interview session") || o.Fraud != nil || !strings.Contains(o.FraudNote, "no fraud verification") {
		t.Errorf("clone = %+v", o)
	}
	toolErr(t, f, nil, "getCandidateVerification", map[string]any{"name": "smith zelda"}, "no candidate")

	// Precedence: sessionId > candidateId > email > name; the ignored ones are named.
	o, r = call[verOut](t, f, nil, "getCandidateVerification", map[string]any{"sessionId": f.sess["S2"].String(), "candidateId": f.cand["C1"].String(),
		"email": "bob@example.com", "name": "alice"}, nil)
	if o.LookupBy != "sessionId" || o.Candidate.Name != "Jane Smithers" || sessKey(o) != "S2" {
		t.Errorf("precedence sessionId = %+v", o)
	}
	hasNotice(t, "precedence", o.Notices, r, "ignored candidateId, email, name")
	o, _ = ver(map[string]any{"candidateId": f.cand["C3"].String(), "email": "john.smith@example.com"})
	if o.LookupBy != "candidateId" || o.Candidate.Name != "Bob Jones" {
		t.Errorf("precedence candidateId = %+v", o)
	}
	o, _ = ver(map[string]any{"email": "alice@example.com", "name": "smith"})
	if o.LookupBy != "email" || o.Candidate.Name != "Alice Johnson" {
		t.Errorf("precedence email = %+v", o)
	}
	// Alice's most recent session S7 (J2, STARTED): identity null for J2 even though her J1 checks exist.
	if sessKey(o) != "S7" || o.Identity != nil || o.Cheating != nil || o.Fraud == nil || o.Fraud.Score != 50 || o.Fraud.HighRisk {
		t.Errorf("alice = %+v", o)
	}
	// S9 (J1): her FAILED check of that session.
	o, _ = ver(map[string]any{"sessionId": f.sess["S9"].String()})
	if o.Identity == nil || o.Identity.Status != "FAILED" || *o.Identity.FailureReason != "face mismatch" || o.Cheating == nil || o.Cheating.Score != 95 {
		t.Errorf("S9 = %+v", o)
	}
	// S5 (J1, invited): the PENDING check of S5.
	o, _ = ver(map[string]any{"sessionId": f.sess["S5"].String()})
	if o.Identity == nil || o.Identity.Status != "PENDING" || o.Cheating != nil {
		t.Errorf("S5 = %+v", o)
	}
	// S10: no evaluation, no fraud check (Carl has none), J2 → all three null, each with its reason.
	o, text = ver(map[string]any{"sessionId": f.sess["S10"].String()})
	if o.Cheating != nil || o.Fraud != nil || o.Identity != nil || o.FraudNote != "no fraud verification exists for this candidate" {
		t.Errorf("S10 = %+v", o)
	}
	contains(t, "S10 text", text, "no cheating evaluation", "no fraud verification", "does not have enable_identity_verification")

	// Errors.
	toolErr(t, f, nil, "getCandidateVerification", map[string]any{}, "sessionId", "candidateId", "email", "name")
	toolErr(t, f, nil, "getCandidateVerification", map[string]any{"name": "  "}, "sessionId")
	toolErr(t, f, nil, "getCandidateVerification", map[string]any{"sessionId": "S1"}, "not a UUID")
	toolErr(t, f, nil, "getCandidateVerification", map[string]any{"candidateId": "42"}, "not a UUID")
	toolErr(t, f, nil, "getCandidateVerification", map[string]any{"sessionId": f.sess["GS1"].String()}, "no interview session")
	toolErr(t, f, nil, "getCandidateVerification", map[string]any{"candidateId": f.cand["Z"].String()}, "no candidate")
}

func TestCandidateVerificationFlags(t *testing.T) {
	f := setup(t)
	peter := func() verOut {
		t.Helper()
		o, _ := call[verOut](t, f, f.initech, "getCandidateVerification", map[string]any{"email": "peter@initech.test"}, nil)
		return o
	}
	// Flags off: the evaluation (90) and the fraud check (10) exist but are not shown; ID verification is on for K1 but never ran.
	o := peter()
	if o.Cheating != nil || !strings.Contains(o.CheatingNote, "cheating detection is off") || o.Fraud != nil ||
		!strings.Contains(o.FraudNote, "fraud detection is off") || o.Identity != nil || !strings.Contains(o.IdentityNote, "no verification has been recorded") {
		t.Errorf("flags off = %+v", o)
	}
	r := f.h.Call(t, tooltest.KeyCaller(f.initech), "getCandidateVerification", map[string]any{"email": "peter@initech.test"}, nil)
	contains(t, "flags off text", r.Text, "None: cheating detection is off", "None: fraud detection is off", "Support Agent")
	// Cheating follows either flag (as getCheatingDetectionStats); fraud needs fraud_detection_enabled.
	f.setFlags(t, f.initech, false, true)
	if o := peter(); o.Cheating == nil || o.Cheating.Score != 90 || !o.Cheating.Flagged || o.Fraud != nil {
		t.Errorf("cheat on = %+v", o)
	}
	f.setFlags(t, f.initech, true, false)
	if o := peter(); o.Cheating == nil || o.Fraud == nil || o.Fraud.Score != 10 || !o.Fraud.HighRisk {
		t.Errorf("fraud on = %+v", o)
	}
}
