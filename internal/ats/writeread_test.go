package ats_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/ats"
)

// TestWriterReads: for each ATS shape, a field reads unset until written and then its value; a
// note's marker is found once the note is written, and not on another record.
func TestWriterReads(t *testing.T) {
	for _, s := range shapes {
		t.Run(string(s.atsType), func(t *testing.T) {
			f := newFixture(t, s)
			w, err := ats.NewWriter(s.atsType, ats.Config{Credentials: credentials(s.atsType, f.url, simCreds), Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			rec := ats.Record{ID: fmt.Sprint(s.base + 1), JobID: fmt.Sprint(job)}
			other := ats.Record{ID: fmt.Sprint(s.base + 2), JobID: fmt.Sprint(job)}
			if v, set, err := w.FieldValue(t.Context(), rec, "status"); err != nil || set {
				t.Fatalf("FieldValue before a write = %q %v %v, want unset", v, set, err)
			}
			if err := w.SetField(t.Context(), rec, "status", "Rejected", "k1"); err != nil {
				t.Fatal(err)
			}
			if v, set, err := w.FieldValue(t.Context(), rec, "status"); err != nil || !set || v != "Rejected" {
				t.Fatalf("FieldValue = %q %v %v, want Rejected", v, set, err)
			}
			if found, err := w.HasNote(t.Context(), rec, "recruitd-write: 42"); err != nil || found {
				t.Fatalf("HasNote before the note = %v %v", found, err)
			}
			if err := w.AddNote(t.Context(), rec, "Result\nrecruitd-write: 42", "k2"); err != nil {
				t.Fatal(err)
			}
			if found, err := w.HasNote(t.Context(), rec, "recruitd-write: 42"); err != nil || !found {
				t.Fatalf("HasNote = %v %v, want found", found, err)
			}
			if found, err := w.HasNote(t.Context(), other, "recruitd-write: 42"); err != nil || found {
				t.Fatalf("HasNote on another record = %v %v, want not found", found, err)
			}
		})
	}
}
