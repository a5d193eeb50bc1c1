package store

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

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

// TestTraceBuildsOnlyLoggedStatements: a statement that is neither failed nor slow is not
// formatted (gorm's logger built every entry before looking at its level), and one that failed or
// was slow still is, redacted.
func TestTraceBuildsOnlyLoggedStatements(t *testing.T) {
	var buf bytes.Buffer
	st, err := FromSQL(pgtest.New(t).SQL, slog.New(slog.NewTextHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	r := st.db.Logger.(redacting)
	built := 0
	fc := func() (string, int64) { built++; return `SELECT 'ada@example.com'`, 1 }
	ctx := t.Context()
	r.Trace(ctx, time.Now(), fc, nil)
	r.Trace(ctx, time.Now(), fc, gorm.ErrRecordNotFound)
	if built != 0 {
		t.Fatalf("a quick statement's entry was built %d times", built)
	}
	r.Trace(ctx, time.Now().Add(-time.Second), fc, nil)
	r.Trace(ctx, time.Now(), fc, errors.New("boom"))
	if built != 2 || strings.Count(buf.String(), "SQL executed") != 2 {
		t.Fatalf("slow and failed statements: built %d, logged:\n%s", built, buf.String())
	}
	if strings.Contains(buf.String(), "ada@example.com") {
		t.Fatalf("the log holds a bound value:\n%s", buf.String())
	}
	r.LogMode(logger.Info).Trace(ctx, time.Now(), fc, nil)
	if built != 3 {
		t.Fatalf("at Info every statement is logged; built %d", built)
	}
}
