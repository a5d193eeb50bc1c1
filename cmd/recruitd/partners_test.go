package main

import (
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/pgtest"
)

// TestPartnersAddLocalReceiver: `partners add` takes a callback URL on loopback (http, or a
// private address) in development, the condition under which make dev allows private callbacks:
// run against dev's database (a loopback host on DEV_POSTGRES_PORT) and CALLBACK_ALLOW_PRIVATE
// unset, or CALLBACK_ALLOW_PRIVATE=true; it warns as the worker does. Anywhere else it is refused
// with a message that says how.
func TestPartnersAddLocalReceiver(t *testing.T) {
	db := pgtest.NewEmpty(t)
	u, err := url.Parse(db.URL)
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"DATABASE_URL=" + db.URL, "RECRUITD_ENCRYPTION_KEY=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", "CALLBACK_ALLOW_PRIVATE="}
	runCmd(t, base, "migrate")
	runCmd(t, base, "company", "create", "--slug", "acme", "--name", "Acme Corp")
	devDB := append([]string{"DEV_POSTGRES_PORT=" + u.Port()}, base...)
	otherDB := append([]string{"DEV_POSTGRES_PORT=1"}, base...)

	add := func(env []string, name, callback string) (string, error) {
		cmd := exec.Command(binary(t), "partners", "add", "--company", "acme", "--name", name, "--callback-url", callback)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	const warning = "partner callbacks may reach private and loopback addresses (CALLBACK_ALLOW_PRIVATE)"
	for _, tt := range []struct {
		name     string
		env      []string
		callback string
		ok       bool
	}{
		{"dev-http", devDB, "http://127.0.0.1:9999/callbacks", true},
		{"dev-localhost", devDB, "https://localhost:9443/callbacks", true},
		{"dev-refused", append(devDB, "CALLBACK_ALLOW_PRIVATE=false"), "http://127.0.0.1:9999/callbacks", false},
		{"prod-http", otherDB, "http://127.0.0.1:9999/callbacks", false},
		{"prod-private-https", otherDB, "https://10.1.2.3/callbacks", false},
		{"prod-loopback-https", otherDB, "https://[::1]:9443/callbacks", false},
		{"allowed", append(otherDB, "CALLBACK_ALLOW_PRIVATE=true"), "http://192.168.1.20:9999/callbacks", true},
		{"public", otherDB, "https://partner.example.com/callbacks", true},
	} {
		out, err := add(tt.env, tt.name, tt.callback)
		switch {
		case tt.ok && (err != nil || !strings.Contains(out, "x-service-callback-secret: ")):
			t.Errorf("%s: partners add %s = %v:\n%s\nwant it added", tt.name, tt.callback, err, out)
		case tt.ok && strings.Contains(out, warning) != (tt.name != "public"):
			t.Errorf("%s: partners add %s printed:\n%s\nwant the warning %v", tt.name, tt.callback, out, tt.name != "public")
		case !tt.ok && (err == nil || !strings.Contains(out, "want an absolute https URL") ||
			!strings.Contains(out, "make dev's database") || !strings.Contains(out, "CALLBACK_ALLOW_PRIVATE=true")):
			t.Errorf("%s: partners add %s = %v:\n%s\nwant refused, saying how to allow it", tt.name, tt.callback, err, out)
		}
	}
}
