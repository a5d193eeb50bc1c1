package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/browsertest"
)

// inviteTwice creates a generated job and invites two candidates to it; it returns their links
// and sessions.
func (f *fixture) inviteTwice(t *testing.T, key, ext string) ([2]*candidate, [2]uuid.UUID) {
	t.Helper()
	job := f.createJob(t, key, map[string]any{"externalJobId": ext, "jobDescription": description, "jobTitle": "Backend Engineer"})
	f.awaitGenerated(t, key, job.Payload)
	var cs [2]*candidate
	var ids [2]uuid.UUID
	for i, who := range []string{"ada", "bob"} {
		resp := f.send(t, http.MethodPost, "/v1/api/inviteCandidate", key, map[string]any{
			"interviewerId": job.Payload,
			"candidate":     map[string]any{"firstName": who, "lastName": "Quinn", "email": who + "+" + ext + "@example.com"},
		})
		if resp.StatusCode != 200 {
			t.Fatalf("inviteCandidate = %d", resp.StatusCode)
		}
		inv := decode[httpapi.InviteCandidateResponse](t, resp)
		u, err := url.Parse(inv.InterviewLink)
		if err != nil {
			t.Fatal(err)
		}
		cs[i], ids[i] = &candidate{f: f, path: u.Path}, uuid.MustParse(inv.SessionID)
	}
	return cs, ids
}

// draftKeys is the number of drafts the page keeps in the browser.
const draftKeys = `Object.keys(localStorage).filter(k => k.startsWith('recruitd.draft.')).length`

// A draft being typed survives a reload (restored, and said so), is the answer sent, and is
// forgotten once its question is answered; it belongs to its link only: another interview's
// page in the same browser starts empty. The deadline reads in the browser's zone (Tokyo here),
// and without the script in UTC, naming the zone. axe-core finds nothing on these screens.
func TestInterviewPageDraftAndDeadlineInTheBrowser(t *testing.T) {
	f := newFixture(t, withEnv("INTERVIEW_RATE_BURST=1000"))
	cs, ids := f.inviteTwice(t, f.acmeKey, "drafts")
	a, b := f.srv.URL+cs[0].path, f.srv.URL+cs[1].path
	deadline := time.Date(2030, 12, 4, 17, 0, 0, 0, time.UTC)
	if err := f.st.DB().Exec(`UPDATE interview_sessions SET expires_at = ? WHERE id = ?`, deadline, ids[0]).Error; err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Start(t, browsertest.Options{})
	browsertest.EmulateTimezone(t, ctx, "Asia/Tokyo")

	// The deadline: without the script, in UTC and named; with it, in the browser's zone.
	browsertest.DisableScripts(t, ctx, true)
	browsertest.Navigate(t, ctx, a, "#focus")
	if got := browsertest.Text(t, ctx, "time.deadline"); got != "Wednesday 4 December 2030, 17:00 UTC" {
		t.Errorf("deadline without the script = %q, want it in UTC, named", got)
	}
	browsertest.DisableScripts(t, ctx, false)
	browsertest.Navigate(t, ctx, a, "#focus")
	if got := browsertest.WaitText(t, ctx, "time.deadline", "GMT"); got != "Thursday 5 December 2030, 02:00 GMT+9" {
		t.Errorf("deadline in Tokyo = %q, want Thursday 5 December 2030, 02:00 GMT+9", got)
	}
	browsertest.AssertAccessible(t, ctx, "start, deadline in the browser's zone")

	// A draft survives a reload.
	browsertest.ClickNavigate(t, ctx, `form[action$="/consent"] button`, "#answer")
	const draft = "Half an answer about Go"
	browsertest.Type(t, ctx, "#answer", draft)
	browsertest.Reload(t, ctx, "#answer")
	if got := browsertest.Value(t, ctx, "#answer"); got != draft {
		t.Fatalf("after a reload the answer field holds %q, want the draft %q", got, draft)
	}
	if got := browsertest.Text(t, ctx, "#draft-restored"); !strings.Contains(got, "restored") {
		t.Errorf("the restored draft is announced as %q", got)
	}
	browsertest.AssertAccessible(t, ctx, "question with a restored draft")

	// Another link in the same browser does not see it.
	browsertest.Navigate(t, ctx, b, "#focus")
	browsertest.ClickNavigate(t, ctx, `form[action$="/consent"] button`, "#answer")
	if got := browsertest.Value(t, ctx, "#answer"); got != "" {
		t.Errorf("another interview's answer field holds %q, want it empty", got)
	}
	if got := browsertest.Eval[string](t, ctx, `document.getElementById('draft-restored').textContent`); got != "" {
		t.Errorf("another interview's page announces %q", got)
	}

	// Back on its link, the draft is there; sent, it is the answer, and it is forgotten.
	browsertest.Navigate(t, ctx, a, "#answer")
	if got := browsertest.Value(t, ctx, "#answer"); got != draft {
		t.Fatalf("back on the first link the answer field holds %q, want the draft", got)
	}
	browsertest.ClickNavigate(t, ctx, `form.answer button[type=submit]`, "#answer")
	if got := browsertest.Value(t, ctx, "#answer"); got != "" {
		t.Errorf("the next question's field holds %q, want it empty", got)
	}
	if n := browsertest.Eval[int](t, ctx, draftKeys); n != 0 {
		t.Errorf("%d drafts kept after the answer was sent, want none", n)
	}
	browsertest.Reload(t, ctx, "#answer")
	if got := browsertest.Value(t, ctx, "#answer"); got != "" {
		t.Errorf("after sending and a reload the field holds %q, want it empty", got)
	}
	iv, err := f.st.Interview(t.Context(), f.acme.ID, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(iv.Turns) < 2 || iv.Turns[0].Answer == nil || *iv.Turns[0].Answer != draft {
		t.Errorf("first answer = %v, want the restored draft", iv.Turns[0].Answer)
	}

	// A draft of a question left open is forgotten when the interview ends on that link.
	browsertest.Type(t, ctx, "#answer", "typed, never sent")
	if n := browsertest.Eval[int](t, ctx, draftKeys); n != 1 {
		t.Fatalf("%d drafts kept while typing, want 1", n)
	}
	if err := f.st.DB().Exec(`UPDATE interview_sessions SET expires_at = now() - interval '1 second' WHERE id = ?`, ids[0]).Error; err != nil {
		t.Fatal(err)
	}
	browsertest.Reload(t, ctx, "#focus")
	if h := browsertest.Text(t, ctx, "h1"); !strings.Contains(h, "not finished in time") {
		t.Fatalf("after the deadline the page shows %q", h)
	}
	if n := browsertest.Eval[int](t, ctx, draftKeys); n != 0 {
		t.Errorf("%d drafts kept after the interview ended, want none", n)
	}
	browsertest.AssertNoConsoleErrors(t, ctx)
}
