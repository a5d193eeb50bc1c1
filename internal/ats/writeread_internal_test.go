package ats

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzWriteReads: the ATS's answers to a write's reads (a record's fields, a list of notes)
// never panic, and anything but the expected object is ErrBadResponse, never a match.
func FuzzWriteReads(f *testing.F) {
	for _, s := range []string{
		`{"data":{"id":1001,"status":"Rejected"}}`, `{"data":[{"id":1,"comments":"x recruitd-write: 42"}]}`,
		`{"id":2001,"status":null}`, `{"fields":{"status":7}}`, `{"data":[{"text":{"a":1}},null,{"body":"recruitd-write: 42"}]}`,
		`{"data":null}`, `{}`, `null`, `[]`, `"x"`, ``, `{"data":{"status":"a\u0000b"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var obj map[string]json.RawMessage
		if err := decodeObject(body, &obj); err == nil {
			if v, set, err := fieldOf("read", obj, "status"); err != nil && !errors.Is(err, ErrBadResponse) || !set && v != "" {
				t.Fatalf("fieldOf = %q %v %v", v, set, err)
			}
		}
		found, err := listHas("notes", body, "comments", "recruitd-write: 42")
		if err != nil && (found || !errors.Is(err, ErrBadResponse)) {
			t.Fatalf("listHas = %v %v", found, err)
		}
	})
}
