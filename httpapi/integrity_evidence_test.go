package httpapi_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/integrity"
	"github.com/recruitd/recruitd/internal/rollup"
	"github.com/recruitd/recruitd/mcpserver/interviewtools"
	"github.com/recruitd/recruitd/models"
)

// Issue 30, points 8 to 11, at the transports: the candidate page and the identity return
// address over HTTP, the tools over MCP.

// enableIdentity turns enable_identity_verification on for the company's job externalID.
func enableIdentity(t *testing.T, f *fixture, co *models.Company, externalID string) {
	t.Helper()
	if err := f.st.DB().Model(&models.Job{}).Where("company_id = ? AND external_id = ?", co.ID, externalID).
		Update("enable_identity_verification", true).Error; err != nil {
		t.Fatal(err)
	}
}

// answerDirectly posts answers to the session's open questions straight to the answer route
// (not through the screen the page shows) until the interview completes; signals is sent with
// the first answer when not empty.
func answerDirectly(t *testing.T, f *fixture, c *candidate, sessionID uuid.UUID, answer, signals string) {
	t.Helper()
	for i := 0; i < 40; i++ {
		var turns []models.InterviewTurn
		if err := f.st.DB().Where("session_id = ? AND answer IS NULL", sessionID).Find(&turns).Error; err != nil {
			t.Fatal(err)
		}
		if len(turns) == 0 {
			var s models.InterviewSession
			if err := f.st.DB().First(&s, "id = ?", sessionID).Error; err != nil {
				t.Fatal(err)
			}
			if s.Status == models.SessionStatusCompleted {
				return
			}
			c.get(t) // asks the next question
			continue
		}
		form := url.Values{"turn": {strconv.Itoa(turns[0].Seq)}, "answer": {answer}}
		if len(turns[0].Choices) > 0 {
			form.Set("answer", turns[0].Choices[0])
		}
		if signals != "" && i == 0 {
			form.Set("signals", signals)
		}
		if r := c.do(t, http.MethodPost, c.path+"/answer", "application/x-www-form-urlencoded", []byte(form.Encode())); r.status != http.StatusSeeOther {
			t.Fatalf("answer %d = %d:\n%s", turns[0].Seq, r.status, r.body)
		}
	}
	t.Fatalf("session %s did not complete", sessionID)
}

// TestIdentityStepNotSkippedSilently (point 8): for a job with identity verification, a
// candidate who posts answers past the identity screen completes the interview with the step
// recorded SKIPPED, and getCandidateVerification states it.
func TestIdentityStepNotSkippedSilently(t *testing.T) {
	f := newIDVFixture(t, time.Hour)
	f.interviews.Identity = identityBegin{f.ver}
	c, sessionID := f.invite(t, f.acmeKey, "idv-skip")
	enableIdentity(t, f.fixture, f.acme, "idv-skip")
	if r := c.post(t, "consent", nil); !strings.Contains(r.body, "Verify your identity") {
		t.Fatalf("after consent the page is not the identity screen:\n%s", r.body)
	}
	answerDirectly(t, f.fixture, c, sessionID, goodAnswer, "")

	var rows []identityRow
	if err := f.st.DB().Raw(`SELECT status, provider FROM identity_verifications WHERE company_id = ? AND session_id = ?`, f.acme.ID, sessionID).
		Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Status != "SKIPPED" || rows[0].Provider != nil {
		t.Fatalf("identity verifications of the session = %+v, want one SKIPPED", rows)
	}
	tools := f.mcpClient(t, f.acmeKey)
	ver := callTool[interviewtools.CandidateVerificationOutput](t, tools, "getCandidateVerification", map[string]any{"sessionId": sessionID.String()})
	if ver.Identity == nil || ver.Identity.Status != "SKIPPED" || !strings.Contains(ver.IdentityNote, "without the identity step") {
		t.Errorf("getCandidateVerification identity = %+v (%s), want SKIPPED", ver.Identity, ver.IdentityNote)
	}
	stats := callTool[interviewtools.IdentityStatsOutput](t, tools, "getIdentityVerificationStats", map[string]any{"metric": "verificationRate"})
	if stats.VerificationRate == nil || stats.VerificationRate.Skipped != 1 || stats.VerificationRate.Concluded != 1 {
		t.Errorf("verificationRate = %+v, want the skipped step counted", stats.VerificationRate)
	}
	if err := rollup.Check(t.Context(), f.st.SQL(), f.acme.ID); err != nil {
		t.Errorf("rollups: %v", err)
	}
}

type identityRow struct {
	Status   string
	Provider *string
}

// TestIdentityReturnAddressIsSingleUse (point 8): the provider receives a one-time return
// address, never the interview link; the address redirects to the page once, then opens nothing.
func TestIdentityReturnAddressIsSingleUse(t *testing.T) {
	f := newIDVFixture(t, time.Hour)
	f.interviews.Identity = identityBegin{f.ver}
	c, sessionID := f.invite(t, f.acmeKey, "idv-return")
	enableIdentity(t, f.fixture, f.acme, "idv-return")
	c.post(t, "consent", nil)
	r := c.do(t, http.MethodGet, c.path+"/verify", "", nil)
	if r.status != http.StatusSeeOther {
		t.Fatalf("GET verify = %d", r.status)
	}
	var ref uuid.UUID
	if err := f.st.DB().Raw(`SELECT id FROM identity_verifications WHERE session_id = ?`, sessionID).Row().Scan(&ref); err != nil {
		t.Fatal(err)
	}
	simV, ok := f.sim.ByReference(ref.String())
	if !ok || r.header.Get("Location") != simV.URL {
		t.Fatalf("verify redirects to %q; the provider has %+v", r.header.Get("Location"), simV)
	}
	token := strings.TrimPrefix(c.path, "/interview/")
	ret, err := url.Parse(simV.ReturnURL)
	if err != nil || strings.Contains(simV.ReturnURL, token) || !strings.HasPrefix(ret.Path, "/interview/identity-return/") {
		t.Fatalf("the provider's return URL is %q: it must be a single-use address without the link token", simV.ReturnURL)
	}
	first := c.do(t, http.MethodGet, ret.Path, "", nil)
	if first.status != http.StatusSeeOther || first.header.Get("Location") != c.path {
		t.Fatalf("first return = %d to %q, want 303 to the page", first.status, first.header.Get("Location"))
	}
	if again := c.do(t, http.MethodGet, ret.Path, "", nil); again.status != http.StatusNotFound || strings.Contains(again.body, token) {
		t.Fatalf("second return = %d, want 404 without the link", again.status)
	}
	if other := c.do(t, http.MethodGet, "/interview/identity-return/"+strings.Repeat("A", 43), "", nil); other.status != http.StatusNotFound {
		t.Fatalf("an unknown return id = %d, want 404", other.status)
	}
}

// TestIntegrityEvidenceInTheTools (points 9 to 11): two candidates answer the same text, posted
// as fast as a script does, without any page signals (which the browser composes): the server's
// own rules flag them, and the tools show why (identical answers with the other candidate's id
// and link, the server's timing, the page's figures where reported). A third candidate with a
// disposable address and a North American number is invited again by phone with another e-mail
// while another candidate shares the phone: the fraud check at invitation raises the changed
// contact (production's sources), lists VoIP as not checked, and the tools name the sharer.
func TestIntegrityEvidenceInTheTools(t *testing.T) {
	f := newFixture(t, withEnv("INTERVIEW_RATE_BURST=1000"))
	if err := f.st.DB().Model(&models.Company{}).Where("id IN ?", []uuid.UUID{f.acme.ID, f.other.ID}).Updates(map[string]any{
		"fraud_detection_enabled": true, "model_cheat_detection_enabled": true, "cheat_threshold": 70}).Error; err != nil {
		t.Fatal(err)
	}
	ca, sa := f.invite(t, f.acmeKey, "ev-a")
	cb, sb := f.invite(t, f.acmeKey, "ev-b")
	ca.post(t, "consent", nil)
	answerDirectly(t, f, ca, sa, goodAnswer, "")
	cb.post(t, "consent", nil)
	sig := `{"pastedChars":180,"pasteEvents":1,"hiddenMs":7000,"hiddenCount":1,"blurMs":0,"blurCount":0,"keystrokes":3,"typingMs":400,"answerChars":190}`
	answerDirectly(t, f, cb, sb, goodAnswer, sig)
	awaitEvaluation(t, f, sa)
	awaitEvaluation(t, f, sb)
	var candA, candB uuid.UUID
	for _, x := range []struct {
		s uuid.UUID
		c *uuid.UUID
	}{{sa, &candA}, {sb, &candB}} {
		if err := f.st.DB().Raw(`SELECT candidate_id FROM interview_sessions WHERE id = ?`, x.s).Row().Scan(x.c); err != nil {
			t.Fatal(err)
		}
	}

	tools := f.mcpClient(t, f.acmeKey)
	cheat := callTool[interviewtools.CheatingStatsOutput](t, tools, "getCheatingDetectionStats", map[string]any{"metric": "flaggedDetails", "companyWide": true})
	var rowB *interviewtools.FlaggedSession
	for i := range cheat.FlaggedDetails {
		if cheat.FlaggedDetails[i].SessionID == sb.String() {
			rowB = &cheat.FlaggedDetails[i]
		}
	}
	if rowB == nil || rowB.Evidence == nil || len(rowB.Evidence.Answers) == 0 {
		t.Fatalf("getCheatingDetectionStats flaggedDetails = %+v; want B flagged with its evidence", cheat.FlaggedDetails)
	}
	ev := rowB.Evidence
	first := ev.Answers[0]
	if !first.PageReported || first.PastedChars == nil || *first.PastedChars != 180 || first.AwayMs == nil || *first.AwayMs != 7000 ||
		first.TypingCharsPerSecond == nil || first.ServerCharsPerSecond == nil || first.AnswerChars != len(goodAnswer) {
		t.Errorf("B's first answer evidence = %+v; want the page's figures and the server's timing", first)
	}
	identical, fast := 0, 0
	for _, a := range ev.Answers[1:] {
		if a.PageReported || a.PastedChars != nil {
			t.Errorf("answer %d: page figures %+v without a report", a.Seq, a)
		}
		if slices.Contains(a.Reasons, "identicalAnswer") && len(a.IdenticalTo) == 1 && a.IdenticalTo[0].CandidateID == candA.String() &&
			strings.HasSuffix(a.IdenticalTo[0].Link, "/candidates/"+candA.String()) {
			identical++
		}
		if slices.Contains(a.Reasons, "fastArrival") {
			fast++
		}
	}
	if identical == 0 || fast == 0 {
		t.Errorf("B's evidence = %+v; want answers identical to A's (with A's id and link) and arriving faster than typing", ev.Answers)
	}
	if !strings.Contains(strings.Join(ev.NotChecked, "|"), "eye tracking") || !strings.Contains(strings.Join(ev.NotChecked, "|"), "the page reported nothing") {
		t.Errorf("B's notChecked = %q", ev.NotChecked)
	}
	verA := callTool[interviewtools.CandidateVerificationOutput](t, tools, "getCandidateVerification", map[string]any{"sessionId": sa.String()})
	if verA.Cheating == nil || !verA.Cheating.Flagged || verA.Cheating.Evidence == nil || verA.Cheating.Evidence.Rules != integrity.CheatingRules {
		t.Errorf("A's cheating block = %+v; want flagged by the server's rules alone, with evidence", verA.Cheating)
	}

	// Fraud: C is invited with a disposable address and a US number; E (another source) has the
	// same number; C is invited again by the number with another address.
	job := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "ev-c", "jobDescription": description, "jobTitle": "Backend Engineer"})
	f.awaitGenerated(t, f.acmeKey, job.Payload)
	inviteC := func(email string) uuid.UUID {
		resp := f.send(t, "POST", "/v1/api/inviteCandidate", f.acmeKey, map[string]any{"interviewerId": job.Payload,
			"candidate": map[string]any{"firstName": "Cleo", "lastName": "Tester", "email": email, "phone": "+1 201 555 0123"}})
		return uuid.MustParse(decode[struct {
			SessionID string `json:"sessionId"`
		}](t, resp).SessionID)
	}
	inviteC("cleo@mailinator.com")
	var candE, candC uuid.UUID
	if err := f.st.DB().Raw(`INSERT INTO candidates (company_id, first_name, last_name, phone) VALUES (?, 'Eve', 'Other', '+12015550123') RETURNING id`,
		f.acme.ID).Row().Scan(&candE); err != nil {
		t.Fatal(err)
	}
	sc := inviteC("cleo.new@example.com")
	if err := f.st.DB().Raw(`SELECT candidate_id FROM interview_sessions WHERE id = ?`, sc).Row().Scan(&candC); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int64
		f.st.DB().Table("fraud_verifications").Where("session_id = ?", sc).Count(&n)
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no fraud check at the second invitation")
		}
		time.Sleep(100 * time.Millisecond)
	}
	fraud := callTool[interviewtools.FraudStatsOutput](t, tools, "getFraudVerificationStats", map[string]any{"metric": "flaggedDetails"})
	var rowC *interviewtools.FraudDetail
	for i := range fraud.FlaggedDetails {
		if d := fraud.FlaggedDetails[i]; d.SessionID != nil && *d.SessionID == sc.String() {
			rowC = &fraud.FlaggedDetails[i]
		}
	}
	if rowC == nil || rowC.Evidence == nil {
		t.Fatalf("getFraudVerificationStats flaggedDetails = %+v; want C's second check with evidence", fraud.FlaggedDetails)
	}
	checkFraudEvidence(t, "flaggedDetails", rowC.Evidence, candE)
	verC := callTool[interviewtools.CandidateVerificationOutput](t, tools, "getCandidateVerification", map[string]any{"sessionId": sc.String()})
	if verC.Fraud == nil {
		t.Fatalf("C's fraud block is null (%s)", verC.FraudNote)
	}
	checkFraudEvidence(t, "getCandidateVerification", verC.Fraud.Evidence, candE)

	// Another company's key sees none of it.
	other := f.mcpClient(t, f.otherKy)
	oc := callTool[interviewtools.CheatingStatsOutput](t, other, "getCheatingDetectionStats", map[string]any{"metric": "flaggedDetails", "companyWide": true})
	of := callTool[interviewtools.FraudStatsOutput](t, other, "getFraudVerificationStats", map[string]any{"metric": "flaggedDetails"})
	if len(oc.FlaggedDetails) != 0 || len(of.FlaggedDetails) != 0 {
		t.Errorf("the other company sees cheating %+v, fraud %+v", oc.FlaggedDetails, of.FlaggedDetails)
	}
}

func checkFraudEvidence(t *testing.T, where string, ev *interviewtools.FraudEvidence, sharer uuid.UUID) {
	t.Helper()
	if ev == nil {
		t.Fatalf("%s: no fraud evidence", where)
	}
	if ev.DisposableDomain == nil || *ev.DisposableDomain != "mailinator.com" {
		t.Errorf("%s: disposable domain %v", where, ev.DisposableDomain)
	}
	if len(ev.SharedWith) != 1 || ev.SharedWith[0].CandidateID != sharer.String() || !slices.Equal(ev.SharedWith[0].Via, []string{"phone"}) ||
		!strings.HasSuffix(ev.SharedWith[0].Link, "/candidates/"+sharer.String()) {
		t.Errorf("%s: sharedWith %+v, want E by phone with its link", where, ev.SharedWith)
	}
	changed := false
	for _, c := range ev.Changed {
		changed = changed || (c.Contact == "email" && slices.Contains(c.ChangedIn, "invitation"))
	}
	if !changed || !slices.Contains(ev.Raised, "emailChanged") || !slices.Contains(ev.Raised, "sharedPhone") {
		t.Errorf("%s: changed %+v raised %v, want the e-mail changed by the invitation and the shared phone", where, ev.Changed, ev.Raised)
	}
	voip := false
	for _, n := range ev.NotChecked {
		voip = voip || (n.Signal == "voipPhone" && strings.Contains(n.Reason, "North American"))
	}
	if !voip || ev.PhoneType == nil || *ev.PhoneType != "fixed_line_or_mobile" {
		t.Errorf("%s: notChecked %+v phone type %v, want VoIP not checked for a North American number", where, ev.NotChecked, ev.PhoneType)
	}
}
