package main

import (
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/pgtest"
)

// TestUsersCommand: users add (two companies, admin), list, remove from one company, remove.
func TestUsersCommand(t *testing.T) {
	db := pgtest.NewEmpty(t)
	env := []string{"DATABASE_URL=" + db.URL, "RECRUITD_ENCRYPTION_KEY=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", "RECRUITD_DEMO_API_KEY="}
	runCmd(t, env, "migrate")
	runCmd(t, env, "seed", "demo", "--companies", "2", "--candidates", "0")
	runCmd(t, env, "users", "add", "Pat@Example.com", "--name", "Pat", "--company", "demo", "--company", "trailhead-outfitters")
	runCmd(t, env, "users", "add", "boss@example.com", "--admin")
	out := runCmd(t, env, "users", "list")
	if !strings.Contains(out, "pat@example.com") || !strings.Contains(out, "demo,trailhead-outfitters") || !strings.Contains(out, "boss@example.com") {
		t.Errorf("users list = %q, want pat in both companies and boss", out)
	}
	runCmd(t, env, "users", "remove", "pat@example.com", "--company", "trailhead-outfitters")
	if line := lineOf(runCmd(t, env, "users", "list"), "pat@example.com"); !strings.HasSuffix(line, " demo") {
		t.Errorf("users list line of pat after removing a membership = %q, want demo only", line)
	}
	runCmd(t, env, "users", "remove", "PAT@example.com")
	if out := runCmd(t, env, "users", "list"); strings.Contains(out, "pat@example.com") {
		t.Errorf("users list after removing the user = %q", out)
	}
}

func lineOf(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
