package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/links"
)

// TestEveryLinkResolves builds every kind of link recruitd writes (internal/links is the only
// builder) with the configuration the server runs with, and GETs each: the interview link opens
// the page, the recruiter links open recruitd's page saying how to read the record (APP_URL
// unset), the documentation link opens the page's Markdown. Nothing answers 404.
func TestEveryLinkResolves(t *testing.T) {
	f := newFixture(t)
	c, sessionID := f.invite(t, f.acmeKey, "links")
	cfg, err := config.Load(func(k string) string {
		if k == "PUBLIC_BASE_URL" {
			return f.srv.URL
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	b := cfg.Links()
	var candidateID, jobID uuid.UUID
	if err := f.st.DB().Raw(`SELECT candidate_id, job_id FROM interview_sessions WHERE company_id = ? AND id = ?`, f.acme.ID, sessionID).
		Row().Scan(&candidateID, &jobID); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{
		links.KindInterview: strings.TrimPrefix(c.path, "/interview/"),
		links.KindCandidate: candidateID.String(),
		links.KindJob:       jobID.String(),
		links.KindSession:   sessionID.String(),
		links.KindDoc:       "interviews",
	}
	want := map[string]string{
		links.KindInterview: "Backend Engineer",
		links.KindCandidate: "getCandidateVerification",
		links.KindJob:       "getJobDetails",
		links.KindSession:   "/v1/api/sessions/" + sessionID.String() + "/report",
		links.KindDoc:       "# ",
	}
	for _, kind := range links.Kinds() {
		id, ok := ids[kind]
		if !ok {
			t.Errorf("link kind %q has no case here: add it", kind)
			continue
		}
		link := b.Of(kind, id)
		if !strings.HasPrefix(link, f.srv.URL+"/") {
			t.Errorf("%s link %q is not under the server's base %s", kind, link, f.srv.URL)
		}
		code, body := follow(t, link)
		if code != http.StatusOK || !strings.Contains(body, want[kind]) {
			t.Errorf("GET %s link %s = %d, want 200 with %q:\n%.300s", kind, link, code, want[kind], body)
		}
	}
	// A recruiter page tells nothing: an id that exists and one that does not read the same.
	other := uuid.New()
	_, known := follow(t, b.Session(sessionID))
	_, unknown := follow(t, b.Session(other))
	if strings.ReplaceAll(known, sessionID.String(), "ID") != strings.ReplaceAll(unknown, other.String(), "ID") {
		t.Error("the recruiter page of a real session differs from an unknown one's")
	}
	if code, _ := follow(t, f.srv.URL+"/app/sessions/not-a-uuid"); code != http.StatusNotFound {
		t.Errorf("a malformed id = %d, want 404", code)
	}
	// With a web app configured, recruiter links go there and interview links stay on recruitd.
	withApp := links.New(f.srv.URL, "https://app.example.com/")
	if got := withApp.Session(sessionID); got != "https://app.example.com/sessions/"+sessionID.String() {
		t.Errorf("Session with APP_URL = %q", got)
	}
	if got := withApp.Interview("tok"); got != f.srv.URL+"/interview/tok" {
		t.Errorf("Interview with APP_URL = %q", got)
	}
}
