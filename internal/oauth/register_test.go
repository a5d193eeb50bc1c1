package oauth

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRegistration(t *testing.T) {
	tests := []struct {
		body, code string // code: "" when accepted
		method     string
	}{
		{`{"redirect_uris":["http://127.0.0.1/callback"]}`, "", "none"},
		{`{"redirect_uris":["http://localhost:33418/cb"],"client_name":"VS Code"}`, "", "none"},
		{`{"redirect_uris":["http://[::1]/cb"]}`, "", "none"},
		{`{"redirect_uris":["https://chatgpt.com/connector_platform_oauth_redirect"],"token_endpoint_auth_method":"client_secret_post"}`, "", "client_secret_post"},
		{`{"redirect_uris":["cursor://anysphere.cursor-retrieval/oauth/callback"]}`, "", "none"},
		{`{"redirect_uris":["https://a.example/cb"],"grant_types":["authorization_code"],"response_types":["code"]}`, "", "none"},
		{`{"redirect_uris":[]}`, "invalid_redirect_uri", ""},
		{`{}`, "invalid_redirect_uri", ""},
		{`{"redirect_uris":["javascript:alert(1)"]}`, "invalid_redirect_uri", ""},
		{`{"redirect_uris":["JavaScript:alert(1)"]}`, "invalid_redirect_uri", ""},
		{`{"redirect_uris":["data:text/html,x"]}`, "invalid_redirect_uri", ""},
		{`{"redirect_uris":["file:///etc/passwd"]}`, "invalid_redirect_uri", ""},
		{`{"redirect_uris":["http://evil.example/cb"]}`, "invalid_redirect_uri", ""},
		{`{"redirect_uris":["http://127.0.0.1.evil.example/cb"]}`, "invalid_redirect_uri", ""},
		{`{"redirect_uris":["https://a.example/cb#x"]}`, "invalid_redirect_uri", ""},
		{`{"redirect_uris":["https://user:pw@a.example/cb"]}`, "invalid_redirect_uri", ""},
		{`{"redirect_uris":["/relative"]}`, "invalid_redirect_uri", ""},
		{`{"redirect_uris":["https://a.example/cb"],"grant_types":["client_credentials"]}`, "invalid_client_metadata", ""},
		{`{"redirect_uris":["https://a.example/cb"],"grant_types":["refresh_token"]}`, "invalid_client_metadata", ""},
		{`{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}`, "invalid_client_metadata", ""},
		{`{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}`, "invalid_client_metadata", ""},
		{`{"redirect_uris":["https://a.example/cb"],"client_name":"a\u0000b"}`, "invalid_client_metadata", ""},
		{`{"redirect_uris":["https://a.example/cb"],"client_uri":"javascript:x"}`, "invalid_client_metadata", ""},
		{`{"redirect_uris":["https://a.example/cb"]} {}`, "invalid_client_metadata", ""},
		{`[1]`, "invalid_client_metadata", ""},
	}
	for _, tt := range tests {
		reg, err := ParseRegistration([]byte(tt.body))
		var re *RegistrationError
		switch {
		case tt.code == "" && err != nil:
			t.Errorf("ParseRegistration(%q) err = %v, want accepted", tt.body, err)
		case tt.code == "" && reg.AuthMethod != tt.method:
			t.Errorf("ParseRegistration(%q).AuthMethod = %q, want %q", tt.body, reg.AuthMethod, tt.method)
		case tt.code != "" && (!errors.As(err, &re) || re.Code != tt.code):
			t.Errorf("ParseRegistration(%q) err = %v, want %s", tt.body, err, tt.code)
		}
	}
}

func TestRedirectMatches(t *testing.T) {
	tests := []struct {
		registered []string
		presented  string
		want       bool
	}{
		{[]string{"https://a.example/cb"}, "https://a.example/cb", true},
		{[]string{"https://a.example/cb"}, "https://a.example/cb?x=1", false},
		{[]string{"https://a.example/cb"}, "https://a.example:8443/cb", false},
		{[]string{"https://a.example/cb"}, "https://a.example/cb/", false},
		{[]string{"http://127.0.0.1/callback"}, "http://127.0.0.1:53682/callback", true},
		{[]string{"http://127.0.0.1:3000/callback"}, "http://127.0.0.1:53682/callback", true},
		{[]string{"http://localhost/callback"}, "http://localhost:33418/callback", true},
		{[]string{"http://localhost/callback"}, "http://127.0.0.1:33418/callback", false},
		{[]string{"http://127.0.0.1/callback"}, "http://127.0.0.1:53682/other", false},
		{[]string{"http://127.0.0.1/callback"}, "https://127.0.0.1:53682/callback", false},
		{[]string{"http://127.0.0.1/callback"}, "http://127.0.0.1:53682/callback#x", false},
		{[]string{"cursor://anysphere.cursor-retrieval/oauth/callback"}, "cursor://anysphere.cursor-retrieval/oauth/callback", true},
	}
	for _, tt := range tests {
		if got := redirectMatches(tt.registered, tt.presented); got != tt.want {
			t.Errorf("redirectMatches(%q, %q) = %v, want %v", tt.registered, tt.presented, got, tt.want)
		}
	}
}

func TestParseMetadataDocument(t *testing.T) {
	const id = "https://client.example/oauth/metadata.json"
	tests := []struct{ body, want string }{
		{`{"client_id":"` + id + `","client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback"]}`, ""},
		{`{"client_id":"https://other.example/m.json","redirect_uris":["https://claude.ai/cb"]}`, "is not the URL"},
		{`{"client_id":"` + id + `","redirect_uris":["https://c.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}`, "public client"},
		{`{"client_id":"` + id + `","redirect_uris":["https://c.example/cb"],"client_secret":"s"}`, "must not carry"},
		{`{"client_id":"` + id + `","redirect_uris":["javascript:x"]}`, "not allowed"},
		{`{"client_id":"` + id + `"}`, "redirect_uris is required"},
		{strings.Repeat(" ", maxRegistrationBytes+1), "exceeds"},
	}
	for _, tt := range tests {
		_, err := ParseMetadataDocument(id, []byte(tt.body))
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("ParseMetadataDocument(%.80q) err = %v, want %q", tt.body, err, tt.want)
		}
	}
	for id, want := range map[string]bool{id: true, "https://client.example/": false, "https://client.example": false, "http://client.example/m.json": false, "rmcp_c_abc": false} {
		if got := IsMetadataDocumentID(id); got != want {
			t.Errorf("IsMetadataDocumentID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestSealSuccessor(t *testing.T) {
	v := successor{"rmcp_at_a", "rmcp_rt_b", 1234}
	sealed, err := seal("rmcp_rt_old", v)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := unseal("rmcp_rt_old", sealed); err != nil || got != v {
		t.Errorf("unseal(seal(v)) = %+v, %v; want %+v", got, err, v)
	}
	if _, err := unseal("rmcp_rt_other", sealed); err == nil {
		t.Error("unseal with another token succeeded")
	}
	if strings.Contains(string(sealed), "rmcp_at_a") {
		t.Error("sealed successor contains the clear token")
	}
}

// FuzzParseRegistration: any body is either refused with an RFC 7591 error or yields redirect
// URIs that pass the redirect rules and a supported method.
func FuzzParseRegistration(f *testing.F) {
	for _, s := range []string{`{"redirect_uris":["http://127.0.0.1/cb"]}`, `{"redirect_uris":["javascript:x"]}`,
		`{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_basic","grant_types":["authorization_code","refresh_token"]}`,
		`{"redirect_uris":["cursor://x/cb"],"client_name":"é"}`, `null`, `{"redirect_uris":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		reg, err := ParseRegistration(body)
		if err != nil {
			var re *RegistrationError
			if !errors.As(err, &re) {
				t.Fatalf("ParseRegistration(%q) err = %v, want a RegistrationError", body, err)
			}
			return
		}
		for _, u := range reg.RedirectURIs {
			if checkRedirectURI(u) != nil || !redirectMatches(reg.RedirectURIs, u) {
				t.Fatalf("ParseRegistration(%q) accepted redirect %q", body, u)
			}
		}
		if reg.AuthMethod != "none" && reg.AuthMethod != "client_secret_post" && reg.AuthMethod != "client_secret_basic" {
			t.Fatalf("ParseRegistration(%q).AuthMethod = %q", body, reg.AuthMethod)
		}
	})
}

// FuzzParseMetadataDocument: a fetched document is accepted only when it names its own URL and
// describes a public client with acceptable redirect URIs.
func FuzzParseMetadataDocument(f *testing.F) {
	const id = "https://client.example/m.json"
	for _, s := range []string{`{"client_id":"` + id + `","redirect_uris":["https://c.example/cb"]}`,
		`{"client_id":"` + id + `","redirect_uris":["http://localhost/cb"],"token_endpoint_auth_method":"none"}`,
		`{"client_id":"x","redirect_uris":["https://c.example/cb"]}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		reg, err := ParseMetadataDocument(id, body)
		if err != nil {
			return
		}
		if reg.AuthMethod != "none" || len(reg.RedirectURIs) == 0 {
			t.Fatalf("ParseMetadataDocument(%q) = %+v", body, reg)
		}
		for _, u := range reg.RedirectURIs {
			if checkRedirectURI(u) != nil {
				t.Fatalf("ParseMetadataDocument(%q) accepted redirect %q", body, u)
			}
		}
	})
}
