package hrsuitereport

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var e164 = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)

// FuzzParse checks that Count and Parse never panic and agree with encoding/json about the
// body, the elements and each row's members, and that a Batch always holds together: every
// row is either valid in one application or invalid, indexes are in order, texts are bounded
// UTF-8 without NULs, reasons come from the list. The seed corpus is testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`[{"Candidate Id":"C-7781","Candidate First Name":"Ada","Candidate Last Name":"Lovelace",` +
		`"Contact Method":"(415) 555-2671","Contact Type Description":"Mobile","Job Req Id":"REQ-1042",` +
		`"Job Req Location":"Austin, TX","Job Req Title":"Registered Nurse","Application Date/Time":"2026-11-21 14:05",` +
		`"Job Posting Application Id":"APP-90412","Do Not Hire Status":"False"},` +
		`{"Candidate Id":"C-7781","Contact Method":"ada@example.com","Contact Type Description":"Personal Email",` +
		`"Job Req Id":"REQ-1042","Job Posting Application Id":"APP-90412","Do Not Hire Status":"True"}]`))
	f.Add([]byte(`[{"Job Posting Application Id":90412,"Candidate Id":7781,"Job Req Id":1.042e3,"Contact Method":4.155552671E9,"Contact Type Description":"Home"}]`))
	f.Add([]byte(`[1,"x",null,[],{"Job Posting Application Id":"A","Do Not Hire Status":true}]`))
	f.Add([]byte(`[{"Job Posting Application Id":"A\u0000","Candidate\u0020Id":"\ud800","Job Req Id":"R","Contact Method":"+44 20 7946 0958 ext. 9","Contact Type Description":" mobile "}]`))
	f.Add([]byte("[{\"Job Posting Application Id\":\"\xff\xfe\",\"Contact Method\":\"a@B.example\"}]"))
	f.Add([]byte(`{"Job Posting Application Id":"A"}`))
	f.Add([]byte(`[{"a":[{"b":"]}"}]}] x`))
	f.Add([]byte(`[{"Job Posting Application Id":"A"`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"Job Posting Application Id":"A","Candidate Id":"C","Job Req Id":"R","Contact Method":"4155552671","Contact Type Description":"Mobile","Do Not Hire Status":"True","Do Not Hire Status":"False"}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		n, cerr := Count(body)
		b, perr := Parse(body)
		if (cerr == nil) != (perr == nil) {
			t.Fatalf("Count error %v, Parse error %v", cerr, perr)
		}
		var want []json.RawMessage
		jerr := json.Unmarshal(body, &want)
		isArray := jerr == nil && bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("["))
		if perr != nil {
			if !errors.Is(perr, ErrNotArray) || !errors.Is(cerr, ErrNotArray) || b != nil {
				t.Fatalf("errors %v, %v, batch %v", cerr, perr, b)
			}
			if isArray {
				t.Fatalf("encoding/json reads an array of %d, Parse says %v", len(want), perr)
			}
			return
		}
		if !isArray {
			t.Fatalf("encoding/json says %v, Parse reads an array", jerr)
		}
		if n != b.Rows || n != len(want) {
			t.Fatalf("Count %d, Parse %d rows, encoding/json %d", n, b.Rows, len(want))
		}

		// The walk agrees with encoding/json on each element and each object's members.
		i := 0
		_, _ = elements(body, func(_ int, elem []byte) {
			if !bytes.Equal(elem, want[i]) {
				t.Fatalf("element %d is %q, encoding/json %q", i, elem, want[i])
			}
			i++
			if elem[0] != '{' {
				return
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(elem, &m); err != nil {
				t.Fatal(err)
			}
			got := make(map[string]json.RawMessage)
			members(elem, func(key, val []byte) { got[decodeString(key)] = json.RawMessage(val) })
			if !reflect.DeepEqual(got, m) {
				t.Fatalf("members %q, encoding/json %q", got, m)
			}
			for _, v := range m {
				if v[0] == '"' {
					var s string
					if err := json.Unmarshal(v, &s); err != nil {
						t.Fatal(err)
					}
					if d := decodeString(v); d != s {
						t.Fatalf("decodeString(%q) = %q, encoding/json %q", v, d, s)
					}
				}
			}
		})

		checkBatch(t, b)
	})
}

var reasonPattern = regexp.MustCompile(`^(not_an_object|missing_application_id|missing_candidate_id|missing_job_req_id|invalid_do_not_hire|missing_contact|unknown_contact_type|unusable_contact|(duplicate_column|wrong_type|cell_too_long):(` +
	strings.Join(columnNames[:], "|") + `))$`)

// checkBatch checks what holds for every Batch.
func checkBatch(t *testing.T, b *Batch) {
	t.Helper()
	seen := make([]bool, b.Rows)
	mark := func(i int, what string) {
		if i < 0 || i >= b.Rows || seen[i] {
			t.Fatalf("%s: row %d out of range or seen twice (%d rows)", what, i, b.Rows)
		}
		seen[i] = true
	}
	last := -1
	for _, r := range b.Invalid {
		mark(r.Index, "invalid")
		if r.Index <= last {
			t.Fatalf("Invalid not sorted: %+v", b.Invalid)
		}
		last = r.Index
		if !reasonPattern.MatchString(r.Reason) {
			t.Fatalf("unknown reason %q", r.Reason)
		}
		text(t, r.ApplicationID)
	}
	ids := make(map[string]*Application)
	for i := range b.Applications {
		a := &b.Applications[i]
		if a.ExternalID == "" || ids[a.ExternalID] != nil {
			t.Fatalf("application id %q empty or repeated", a.ExternalID)
		}
		ids[a.ExternalID] = a
		if len(a.Rows) == 0 && !a.DoNotHire {
			t.Fatalf("application %q has no valid row and is not excluded", a.ExternalID)
		}
		if len(a.Rows) > 0 && (a.CandidateID == "" || a.JobReqID == "") {
			t.Fatalf("application %q lacks a candidate or job id: %+v", a.ExternalID, a)
		}
		for j, r := range a.Rows {
			mark(r, "application "+a.ExternalID)
			if j > 0 && r <= a.Rows[j-1] {
				t.Fatalf("rows of %q not sorted: %v", a.ExternalID, a.Rows)
			}
		}
		for _, s := range []string{a.ExternalID, a.CandidateID, a.JobReqID, a.FirstName, a.LastName, a.JobTitle, a.JobLocation, a.AppliedAt, a.Email, a.Phone} {
			text(t, s)
		}
		if a.PhoneValid && !e164.MatchString(a.Phone) {
			t.Fatalf("valid phone %q is not E.164", a.Phone)
		}
		if a.Email != "" {
			if _, ok := checkEmail(a.Email); !ok {
				t.Fatalf("e-mail %q fails the check", a.Email)
			}
		}
	}
	for i, s := range seen {
		if !s {
			t.Fatalf("row %d is neither valid nor invalid", i)
		}
	}
	// Do-not-hire fails closed: a row naming the column twice excludes its application.
	for _, r := range b.Invalid {
		if r.Reason == ReasonDuplicateColumn+ColDoNotHire && r.ApplicationID != "" && (ids[r.ApplicationID] == nil || !ids[r.ApplicationID].DoNotHire) {
			t.Fatalf("row %d names Do Not Hire Status twice, its application %q is not excluded", r.Index, r.ApplicationID)
		}
	}
	last = -1
	noted := make(map[string]bool)
	for _, r := range b.Notes {
		a := ids[r.ApplicationID]
		if r.Reason != NotePhoneNotValidated || a == nil || noted[r.ApplicationID] || a.PhoneValid || r.Index <= last {
			t.Fatalf("bad note %+v", r)
		}
		noted[r.ApplicationID], last = true, r.Index
	}
}

func text(t *testing.T, s string) {
	t.Helper()
	if len(s) > MaxCellBytes || !utf8.ValidString(s) || strings.ContainsRune(s, 0) || s != strings.TrimSpace(s) {
		t.Fatalf("text %q: too long, not UTF-8, NUL or untrimmed", s)
	}
}
