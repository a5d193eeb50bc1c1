package oauth

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
)

// TestClientMetadataDocument: an https client_id is fetched and checked; its redirect URIs are
// enforced; a document naming another client_id is refused; the production fetcher refuses
// loopback addresses (SSRF guard).
func TestClientMetadataDocument(t *testing.T) {
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	var docURL string
	fetches := 0
	doc := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches++
		w.Header().Set("Content-Type", "application/json")
		id := docURL
		if r.URL.Path == "/liar.json" {
			id = "https://someone-else.example/client.json"
		}
		_, _ = io.WriteString(w, `{"client_id":"`+id+`","client_name":"Doc Client","redirect_uris":["http://127.0.0.1/cb"]}`)
	}))
	defer doc.Close()
	docURL = doc.URL + "/client.json"
	s := New(Options{Store: st, Log: slog.New(slog.DiscardHandler), Base: func(*http.Request) string { return "https://mcp.example.com" },
		MetadataClient: doc.Client()})
	mux := http.NewServeMux()
	s.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	authorize := func(clientID, redirect string) (*http.Response, string) {
		q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
			"code_challenge": {strings.Repeat("a", 43)}, "code_challenge_method": {"S256"}, "state": {"s"}}
		resp, err := noFollow.Get(srv.URL + "/oauth/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	// No identity provider is configured here, so an accepted request ends in
	// temporarily_unavailable at the client's redirect URI: the client and redirect passed.
	resp, _ := authorize(docURL, "http://127.0.0.1:9999/cb")
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc, "http://127.0.0.1:9999/cb?") || !strings.Contains(loc, "temporarily_unavailable") {
		t.Errorf("authorize with a metadata-document client = %d %q, want a redirect to its loopback URI", resp.StatusCode, loc)
	}
	if resp, body := authorize(docURL, "https://evil.example/cb"); resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" {
		t.Errorf("authorize with a redirect outside the document = %d %.200q, want 400 without redirect", resp.StatusCode, body)
	}
	if fetches != 1 {
		t.Errorf("document fetched %d times, want 1 (cached)", fetches)
	}
	if resp, body := authorize(doc.URL+"/liar.json", "http://127.0.0.1/cb"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "is not the URL") {
		t.Errorf("authorize with a document naming another client_id = %d %.300q, want 400", resp.StatusCode, body)
	}
	if _, err := guardedClient().Get(docURL); err == nil || !strings.Contains(err.Error(), "prohibited") {
		t.Errorf("guarded fetch of a loopback document err = %v, want the SSRF guard's refusal", err)
	}
}
