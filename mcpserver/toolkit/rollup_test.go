package toolkit

import (
	"testing"
	"time"
)

func TestSplitWindow(t *testing.T) {
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	str := func(w *Window) string {
		if w == nil {
			return "none"
		}
		f := func(p *time.Time) string {
			if p == nil {
				return "open"
			}
			return p.UTC().Format(time.RFC3339)
		}
		return f(w.Since) + ".." + f(w.Until)
	}
	cases := []struct {
		name  string
		w     Window
		grain time.Duration
		inner string
		edges []string
	}{
		{"all time", Window{}, Day, "open..open", nil},
		{"aligned days", Window{at("2026-01-01T00:00:00Z"), at("2026-02-01T00:00:00Z")}, Day, "2026-01-01T00:00:00Z..2026-02-01T00:00:00Z", nil},
		{"ragged both ends", Window{at("2026-01-01T10:00:00Z"), at("2026-01-05T06:00:00Z")}, Day, "2026-01-02T00:00:00Z..2026-01-05T00:00:00Z",
			[]string{"2026-01-01T10:00:00Z..2026-01-02T00:00:00Z", "2026-01-05T00:00:00Z..2026-01-05T06:00:00Z"}},
		{"zone offset start, open end", Window{Since: at("2026-01-01T00:00:00-05:00")}, Day, "2026-01-02T00:00:00Z..open",
			[]string{"2026-01-01T05:00:00Z..2026-01-02T00:00:00Z"}},
		{"open start, ragged end", Window{Until: at("2026-03-01T12:07:00Z")}, Slot, "open..2026-03-01T12:00:00Z",
			[]string{"2026-03-01T12:00:00Z..2026-03-01T12:07:00Z"}},
		{"inside one day", Window{at("2026-01-01T10:00:00Z"), at("2026-01-01T11:00:00Z")}, Day, "none",
			[]string{"2026-01-01T10:00:00Z..2026-01-01T11:00:00Z"}},
		{"empty", Window{at("2026-01-01T10:00:00Z"), at("2026-01-01T10:00:00Z")}, Day, "none", nil},
		{"half-hour zone in slots", Window{at("2026-01-01T00:00:00+05:30"), at("2026-01-02T00:00:00+05:30")}, Slot, "2025-12-31T18:30:00Z..2026-01-01T18:30:00Z", nil},
	}
	for _, c := range cases {
		s := SplitWindow(c.w, c.grain)
		if got := str(s.Inner); got != c.inner {
			t.Errorf("%s: inner %s, want %s", c.name, got, c.inner)
		}
		var edges []string
		for _, e := range s.Edges {
			edges = append(edges, str(&e))
		}
		if len(edges) != len(c.edges) {
			t.Errorf("%s: edges %v, want %v", c.name, edges, c.edges)
			continue
		}
		for i := range edges {
			if edges[i] != c.edges[i] {
				t.Errorf("%s: edges %v, want %v", c.name, edges, c.edges)
			}
		}
	}
}
