package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/internal/browsertest"
	"github.com/recruitd/recruitd/internal/identity"
	"github.com/recruitd/recruitd/internal/idvsim"
	"github.com/recruitd/recruitd/internal/rollup"
	"github.com/recruitd/recruitd/models"
)

// identityBegin adapts internal/identity to the interview page's identity check, as the server
// does when IDV_BASE_URL is set.
type identityBegin struct{ v *identity.Verifications }

func (i identityBegin) Begin(ctx context.Context, companyID, sessionID uuid.UUID, returnURL string) (string, error) {
	st, err := i.v.Start(ctx, companyID, sessionID, returnURL)
	return st.URL, err
}

// Three candidates take the interview in chromium (chromedp, axe-core) for a company with all three integrity flags
// on and a job with identity verification: A answers well and passes the ID check; B pastes two
// answers, leaves the page, and uses a disposable e-mail domain; C answers in single words and
// fails the ID check with a reason. The tools then answer over the real MCP transport.
func TestIntegrityFromRealInterviews(t *testing.T) {
	f := newFixture(t, withEnv("INTERVIEW_RATE_BURST=1000", "IDV_WEBHOOK_SECRET="+idvSecret))
	sim := idvsim.New(idvsim.Options{APIKey: idvKey, WebhookURL: f.srv.URL + "/webhook/idverify", WebhookSecret: idvSecret, RetryBase: 20 * time.Millisecond})
	simSrv := httptest.NewServer(sim.Handler())
	t.Cleanup(func() { simSrv.Close(); sim.Close() })
	f.interviews.Identity = identityBegin{identity.New(f.st, identity.Settings{BaseURL: simSrv.URL, APIKey: idvKey, WebhookSecret: idvSecret, TTL: time.Hour}, nil)}
	if err := f.st.DB().Model(&models.Company{}).Where("id = ?", f.acme.ID).Updates(map[string]any{
		"fraud_detection_enabled": true, "model_cheat_detection_enabled": true}).Error; err != nil {
		t.Fatal(err)
	}
	job := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "idv-1", "jobDescription": description, "jobTitle": "Backend Engineer"})
	f.awaitGenerated(t, f.acmeKey, job.Payload)
	if err := f.st.DB().Model(&models.Job{}).Where("company_id = ? AND interviewer_id = ?", f.acme.ID, job.Payload).
		Update("enable_identity_verification", true).Error; err != nil {
		t.Fatal(err)
	}

	type who struct {
		name, email string
		session     uuid.UUID
	}
	people := []*who{{name: "Alice", email: "alice@example.com"}, {name: "Bruno", email: "bruno@mailinator.com"}, {name: "Chen", email: "chen@example.com"}}
	for _, p := range people {
		resp := f.send(t, "POST", "/v1/api/inviteCandidate", f.acmeKey, map[string]any{
			"interviewerId": job.Payload, "candidate": map[string]any{"firstName": p.name, "lastName": "Tester", "email": p.email},
		})
		inv := decode[struct {
			SessionID     string `json:"sessionId"`
			InterviewLink string `json:"interviewLink"`
		}](t, resp)
		p.session = uuid.MustParse(inv.SessionID)
		u, _ := url.Parse(inv.InterviewLink)
		link := f.srv.URL + u.Path
		ctx := browsertest.Start(t, browsertest.Options{})
		browsertest.Navigate(t, ctx, link, "#focus")
		browsertest.ClickNavigate(t, ctx, `form[action$="/consent"] button`, "#focus")
		if h := browsertest.Text(t, ctx, "h1"); h != "Verify your identity" {
			t.Fatalf("%s: after consent %q, want the identity screen", p.name, h)
		}
		browsertest.AssertAccessible(t, ctx, "identity")
		browsertest.ClickNavigate(t, ctx, "#verify", "#pass") // the provider's hosted page
		switch p.name {
		case "Alice":
			browsertest.ClickNavigate(t, ctx, "#pass", "[role=status]")
		case "Chen":
			browsertest.Eval[bool](t, ctx, `(() => { const s = document.getElementById('reason'); s.value = s.options[1].value; return true; })()`)
			browsertest.ClickNavigate(t, ctx, "#fail", "[role=status]")
		} // Bruno leaves the provider's page without deciding
		browsertest.Navigate(t, ctx, link, "#focus")

		for i := 0; i < 40; i++ {
			if strings.HasPrefix(browsertest.Eval[string](t, ctx, "document.title"), "Complete") {
				break
			}
			choice := browsertest.Eval[bool](t, ctx, `!!document.querySelector('input[type=radio]')`)
			switch {
			case choice:
				browsertest.Click(t, ctx, "#choice-0")
			case p.name == "Chen":
				browsertest.Type(t, ctx, "#answer", "Yes")
			case p.name == "Bruno" && i < 2:
				// A pasted answer; on the second question the page is also left for 6 s.
				text, _ := json.Marshal(strings.Repeat(goodAnswer+" ", 2))
				browsertest.Eval[bool](t, ctx, `(() => { const a = document.getElementById('answer'); const t = `+string(text)+`;
					const dt = new DataTransfer(); dt.setData('text', t);
					a.dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true}));
					a.value = t; return true; })()`)
				if i == 1 {
					browsertest.Eval[bool](t, ctx, `window.dispatchEvent(new Event('blur')), true`)
					time.Sleep(6 * time.Second)
					browsertest.Eval[bool](t, ctx, `window.dispatchEvent(new Event('focus')), true`)
				}
			case p.name == "Alice":
				browsertest.Type(t, ctx, "#answer", aliceAnswer)
			default:
				browsertest.Type(t, ctx, "#answer", shortGoodAnswer)
			}
			browsertest.ClickNavigate(t, ctx, `form.answer button[type=submit]`, "#focus")
		}
		if h := browsertest.Text(t, ctx, "h1"); h != "Interview complete" {
			t.Fatalf("%s: last screen %q", p.name, h)
		}
		browsertest.AssertNoConsoleErrors(t, ctx)
	}
	a, b, c := people[0], people[1], people[2]

	// Each run made its report; quotes are substrings of the stored answers.
	for _, p := range people {
		rep := f.awaitReport(t, f.acmeKey, p.session)
		iv, _ := f.st.Interview(t.Context(), f.acme.ID, p.session)
		for _, cr := range rep.Criteria {
			for _, ev := range cr.Evidence {
				if tr := turnBySeq(iv.Turns, ev.Seq); tr == nil || !strings.Contains(*tr.Answer, ev.Quote) {
					t.Errorf("%s: quote %q is not in answer %d", p.name, ev.Quote, ev.Seq)
				}
			}
		}
		want := "ready"
		if p == c {
			want = "insufficient_data"
		}
		if string(rep.Status) != want {
			t.Errorf("%s: report %s (%s), want %s", p.name, rep.Status, rep.Reason, want)
		}
	}
	awaitEvaluation(t, f, b.session)

	tools := f.mcpClient(t, f.acmeKey)
	report := func(email string) map[string]any {
		out := callTool[map[string]any](t, tools, "getCandidateReport", map[string]any{"email": email})
		cands := out["candidates"].([]any)
		return cands[0].(map[string]any)["sessions"].([]any)[0].(map[string]any)
	}
	ra, rc := report(a.email), report(c.email)
	if ra["serviceRating"] == nil || ra["serviceReview"] == nil || ra["cheatingFlagged"] != false || ra["fraudHighRisk"] != false {
		t.Errorf("A's report session = rating %v review %v flagged %v fraud %v; want rated, not flagged, not high risk",
			ra["serviceRating"], ra["serviceReview"], ra["cheatingFlagged"], ra["fraudHighRisk"])
	}
	if rc["serviceRating"] != nil || rc["serviceReview"] == nil {
		t.Errorf("C's report session = rating %v review %v; want no rating and the insufficient-data reason", rc["serviceRating"], rc["serviceReview"])
	}
	details := jsonOf(t, callTool[map[string]any](t, tools, "getCheatingDetectionStats", map[string]any{"metric": "flaggedDetails"}))
	if !strings.Contains(details, b.session.String()) || strings.Contains(details, a.session.String()) || strings.Contains(details, c.session.String()) ||
		!strings.Contains(details, `"eyeTracking":null`) || strings.Contains(details, `"transcript":null`) {
		t.Errorf("getCheatingDetectionStats flaggedDetails = %s; want B only, with its transcript sub-score and no eye tracking", details)
	}
	if n := callTool[map[string]any](t, tools, "getCheatingDetectionStats", map[string]any{"metric": "flaggedCandidates"})["flaggedCandidates"]; n != float64(1) {
		t.Errorf("flaggedCandidates = %v, want 1", n)
	}
	fraud := jsonOf(t, callTool[map[string]any](t, tools, "getFraudVerificationStats", map[string]any{"metric": "flaggedDetails"}))
	if !strings.Contains(fraud, "Bruno") || !strings.Contains(fraud, "isposable") || strings.Contains(fraud, "Alice") {
		t.Errorf("getFraudVerificationStats flaggedDetails = %s; want B, high risk for a disposable e-mail", fraud)
	}
	idv := jsonOf(t, callTool[map[string]any](t, tools, "getIdentityVerificationStats", map[string]any{"metric": "failedDetails"}))
	if !strings.Contains(idv, idvsim.Reasons[0]) || !strings.Contains(idv, "Chen") {
		t.Errorf("getIdentityVerificationStats failedDetails = %s; want C's reason %q", idv, idvsim.Reasons[0])
	}
	ver := callTool[map[string]any](t, tools, "getCandidateVerification", map[string]any{"sessionId": b.session.String()})
	for _, block := range []string{"cheating", "fraud", "identity"} {
		if ver[block] == nil {
			t.Errorf("getCandidateVerification for B: %s block is null (%s)", block, jsonOf(t, ver))
		}
	}
	res, err := tools.CallTool(t.Context(), &mcp.CallToolParams{Name: "getCheatingDetectionStats", Arguments: map[string]any{"metric": "flaggedDetails"}})
	if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "not measured") {
		t.Errorf("the flagged details' text does not say the video sub-scores are not measured (%v)", err)
	}
	// The statistics rollups stay exact after real interviews, reports and integrity checks.
	if err := rollup.Check(t.Context(), f.st.SQL(), f.acme.ID); err != nil {
		t.Errorf("rollups: %v", err)
	}
}

// aliceAnswer is Alice's own (no other candidate gives it) and shorter than the server's
// arrival rule's 100 characters: the browser types it faster than a person would.
const aliceAnswer = "For example, last year I moved our billing to Go and PostgreSQL and cut latency by 40%."

// shortGoodAnswer needs no follow-up and stays under the typing-pace rule's 200 characters
// (the browser types faster than a person).
const shortGoodAnswer = "For example, last year I led our move to Go and PostgreSQL; I designed the schema and cut latency by forty percent for customers."

func turnBySeq(turns []models.InterviewTurn, seq int) *models.InterviewTurn {
	for i := range turns {
		if turns[i].Seq == seq {
			return &turns[i]
		}
	}
	return nil
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// awaitEvaluation waits until the session's run stored its cheating evaluation.
func awaitEvaluation(t *testing.T, f *fixture, sessionID uuid.UUID) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var n int64
		if err := f.st.DB().Table("cheating_evaluations").Where("session_id = ?", sessionID).Count(&n).Error; err == nil && n == 1 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no cheating evaluation for session %s after 30s", sessionID)
}
