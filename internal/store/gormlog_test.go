package store

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/models"
)

func TestRedactLiterals(t *testing.T) {
	tests := []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`WHERE email = 'ada@example.com'`, `WHERE email = '?'`},
		{`VALUES ('O''Brien', E'a\'b', '{"+14155550199","x"}')`, `VALUES ('?', '?', '?')`},
		{"WHERE a = 'multi\nline' AND b = $1", `WHERE a = '?' AND b = $1`},
	}
	for _, tt := range tests {
		if got := redactLiterals(tt.in); got != tt.want {
			t.Errorf("redactLiterals(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestLogsHoldNoBoundValues: a failed Raw(...).Scan, whose statement gorm records with its values
// interpolated, is logged without them.
func TestLogsHoldNoBoundValues(t *testing.T) {
	var buf bytes.Buffer
	st, err := FromSQL(pgtest.New(t).SQL, slog.New(slog.NewTextHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	err = st.db.WithContext(t.Context()).Raw(`SELECT count(*) FROM candidates WHERE no_such_column = ? OR phone = ANY (?::text[])`,
		"ada.secret@example.com", models.StringArray{"+14155550199"}).Scan(&n).Error
	if err == nil {
		t.Fatal("the query succeeded; want an error that gets logged")
	}
	_ = st.db.WithContext(t.Context()).Exec(`UPDATE candidates SET no_such_column = ? WHERE email = ?`, "x", "grace.secret@example.com").Error
	logs := buf.String()
	if !strings.Contains(logs, "no_such_column") {
		t.Fatalf("the failed statements were not logged: %q", logs)
	}
	for _, secret := range []string{"ada.secret@example.com", "4155550199", "grace.secret@example.com"} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds %q:\n%s", secret, logs)
		}
	}
}
