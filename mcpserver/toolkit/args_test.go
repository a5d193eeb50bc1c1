package toolkit

import (
	"strings"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	ptr := func(n int) *int { return &n }
	tests := []struct {
		v      *int
		want   int
		err    string
		notice bool
	}{
		{nil, 50, "", false},
		{ptr(10), 10, "", false},
		{ptr(200), 200, "", false},
		{ptr(201), 200, "", true},
		{ptr(0), 0, "limit must be at least 1", false},
	}
	for _, tt := range tests {
		c := &Call{}
		got, err := c.Limit("limit", tt.v, 50, 1, 200)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !isToolError(err) {
				t.Errorf("Limit(%v) err = %v, want tool error %q", tt.v, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want || (len(c.notices) > 0) != tt.notice {
			t.Errorf("Limit(%v) = %d, %v, notices %v; want %d notice %v", tt.v, got, err, c.notices, tt.want, tt.notice)
		}
	}
	c := &Call{}
	c.Limit("limit", ptr(500), 50, 1, 200)
	if len(c.notices) != 1 || c.notices[0] != "limit 500 is above the maximum 200; used 200" {
		t.Errorf("clamp notice = %q", c.notices)
	}
}

func TestOneOf(t *testing.T) {
	type metric string
	allowed := []metric{"byStatus", "byDecision", "funnel"}
	if m, err := OneOf("metric", "funnel", allowed); err != nil || m != "funnel" {
		t.Errorf("OneOf(funnel) = %q, %v", m, err)
	}
	_, err := OneOf("metric", "FUNNEL", allowed)
	if err == nil || err.Error() != `metric must be one of byStatus, byDecision, funnel (got "FUNNEL")` {
		t.Errorf("OneOf(FUNNEL) err = %v", err)
	}
	if m, err := OneOfFold("status", "active", []string{"ACTIVE", "PAUSED"}); err != nil || m != "ACTIVE" {
		t.Errorf("OneOfFold(active) = %q, %v", m, err)
	}
	if got, err := EachOf("decision", []string{"hired", "HIRED", "PLACED"}, []string{"HIRED", "PLACED"}); err != nil || len(got) != 2 {
		t.Errorf("EachOf = %v, %v", got, err)
	}
}

func TestWindow(t *testing.T) {
	now := time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC)
	c := &Call{Now: now}
	ny, _ := time.LoadLocation("America/New_York")

	w, err := c.Window("2026-03-01", "2026-03-31", 0, nil)
	if err != nil || !w.Since.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) || !w.Until.Equal(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("date window = %v, %v", w, err)
	}
	w, err = c.Window("", "", 30, ny)
	if err != nil || !w.Until.Equal(now) || !w.Since.Equal(now.AddDate(0, 0, -30)) {
		t.Errorf("default window = %v, %v", w, err)
	}
	// A date in a zone starts at that zone's midnight (EST is UTC-5 in March before DST).
	w, err = c.Window("2026-03-01", "", 0, ny)
	if err != nil || !w.Since.Equal(time.Date(2026, 3, 1, 5, 0, 0, 0, time.UTC)) || w.Until != nil {
		t.Errorf("zoned window = %v, %v", w, err)
	}
	w, err = c.Window("", "", 0, nil)
	if err != nil || w.Since != nil || w.Until != nil || w.String() != "all time" {
		t.Errorf("open window = %v, %v", w, err)
	}
	for _, bad := range [][2]string{{"03/01/2026", ""}, {"", "yesterday"}, {"2026-04-01", "2026-03-01"}} {
		if _, err := c.Window(bad[0], bad[1], 0, nil); err == nil || !isToolError(err) {
			t.Errorf("Window(%q) err = %v, want a tool error", bad, err)
		}
	}
}

func TestText(t *testing.T) {
	var tx Text
	tx.H1("Jobs")
	tx.KV("Total", "3", "Open jobs", "2")
	tx.H2("Page")
	tx.Table([]string{"Title", "Status"}, [][]string{{"Go engineer", "ACTIVE"}, {"PM", "PAUSED"}}, "none")
	tx.prependNotices([]string{"limit clamped"})
	want := "Note: limit clamped\n\n# Jobs\n\nTotal:     3\nOpen jobs: 2\n\n## Page\n\nTitle        Status\n-----------  ------\nGo engineer  ACTIVE\nPM           PAUSED\n"
	if got := tx.String(); got != want {
		t.Errorf("text =\n%s\nwant\n%s", got, want)
	}
	if p := Percent(1, 3); p == nil || *p != 33.3 {
		t.Errorf("Percent(1,3) = %v", p)
	}
	if Percent(1, 0) != nil || Pct(nil) != "n/a" {
		t.Error("Percent with a zero denominator must be nil")
	}
}
