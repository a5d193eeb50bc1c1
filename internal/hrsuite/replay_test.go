package hrsuite

import (
	"errors"
	"testing"
	"time"
)

func TestParseFilter(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	f, err := ParseFilter(FilterInput{Company: " Demo ", From: "2026-11-01", To: "2026-11-20", Outcome: "Unknown_Job"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Company != "demo" || !f.From.Equal(day("2026-11-01")) || !f.To.Equal(day("2026-11-21")) || f.Outcome != "unknown_job" {
		t.Errorf("filter = %+v; want demo, from 11-01, to the end of 11-20, unknown_job", f)
	}
	if f, err := ParseFilter(FilterInput{From: "2026-11-01T10:00:00+02:00", Outcome: "invalid:missing_contact"}); err != nil ||
		!f.From.Equal(time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)) || f.Outcome != "invalid:missing_contact" {
		t.Errorf("RFC 3339 from and an invalid:<reason> outcome = %+v, %v", f, err)
	}
	for _, in := range []FilterInput{
		{DeliveryID: "not-a-uuid"},
		{From: "yesterday"},
		{From: "2026-11-20", To: "2026-11-01"},
		{Outcome: "maybe"},
		{Company: "a-very-long-company-slug-that-goes-on-and-on-and-on-well-past-sixty-three"},
	} {
		if _, err := ParseFilter(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseFilter(%+v) = %v, want ErrInvalid", in, err)
		}
	}
	if f, err := ParseFilter(FilterInput{}); err != nil || f.DeliveryID != nil || f.From != nil || f.Company != "" {
		t.Errorf("empty filter = %+v, %v", f, err)
	}
}
