package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/pgtest"
)

// TestSupportTokenCommand: support token create (default and chosen expiry, one refused), list
// with states, revoke by prefix.
func TestSupportTokenCommand(t *testing.T) {
	db := pgtest.NewEmpty(t)
	env := []string{"DATABASE_URL=" + db.URL, "RECRUITD_ENCRYPTION_KEY=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="}
	runCmd(t, env, "migrate")
	runCmd(t, env, "users", "add", "ops@example.com", "--admin")
	expires := regexp.MustCompile(`support token ([0-9a-f-]{36}) for ops@example.com, expires (\S+) `)
	m := expires.FindStringSubmatch(runCmd(t, env, "support", "token", "create", "--user", "ops@example.com", "--name", "laptop"))
	if m == nil {
		t.Fatal("support token create printed no id and expiry")
	}
	if at, err := time.Parse(time.RFC3339, m[2]); err != nil || time.Until(at) < 29*24*time.Hour || time.Until(at) > 30*24*time.Hour {
		t.Errorf("default expiry %s, want 30 days from now", m[2])
	}
	week := expires.FindStringSubmatch(runCmd(t, env, "support", "token", "create", "--user", "ops@example.com", "--name", "week", "--expires-in", "7d"))
	if at, err := time.Parse(time.RFC3339, week[2]); err != nil || time.Until(at) > 7*24*time.Hour || time.Until(at) < 7*24*time.Hour-time.Hour {
		t.Errorf("--expires-in 7d expires %s", week[2])
	}
	cmd := exec.Command(binary(t), "support", "token", "create", "--user", "ops@example.com", "--expires-in", "400d")
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "at most 365 days") {
		t.Errorf("--expires-in 400d = %v %s, want refused naming the bound", err, out)
	}

	list := runCmd(t, env, "support", "token", "list")
	if line := lineOf(list, m[1]); !strings.Contains(line, "ops@example.com") || !strings.Contains(line, " active ") {
		t.Errorf("list line of the token = %q, want its user and active", line)
	}
	prefix := strings.Fields(lineOf(list, week[1]))[3]
	if out := runCmd(t, env, "support", "token", "revoke", prefix); !strings.Contains(out, "revoked support token "+week[1]) {
		t.Errorf("revoke = %q", out)
	}
	list = runCmd(t, env, "support", "token", "list", "--user", "OPS@example.com")
	if !strings.Contains(lineOf(list, week[1]), " revoked ") || !strings.Contains(lineOf(list, m[1]), " active ") {
		t.Errorf("list after revoking = %q", list)
	}
}
