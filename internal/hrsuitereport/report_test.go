package hrsuitereport

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// cells is a row under construction: column name to a Go value json.Marshal writes (a string,
// json.RawMessage for any other JSON, nil for null). del removes a column.
type cells map[string]any

var del = struct{}{}

// rowOf is a complete, valid row of application app with the contact cell contact of type
// kind, changed by the overrides (column, value pairs; value del removes the column).
func rowOf(app, contact, kind string, overrides ...any) cells {
	r := cells{
		ColCandidateID:   "C-" + app,
		ColFirstName:     "Ada",
		ColLastName:      "Lovelace",
		ColContactMethod: contact,
		ColContactType:   kind,
		ColJobReqID:      "REQ-1",
		ColJobLocation:   "Austin, TX",
		ColJobTitle:      "Registered Nurse",
		ColAppliedAt:     "2026-11-21 14:05",
		ColApplicationID: app,
		ColDoNotHire:     "False",
	}
	for i := 0; i+1 < len(overrides); i += 2 {
		col := overrides[i].(string)
		if overrides[i+1] == del {
			delete(r, col)
			continue
		}
		r[col] = overrides[i+1]
	}
	return r
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// body is the JSON array of rows; a row that is a string is written as raw JSON.
func body(t testing.TB, rows ...any) []byte {
	t.Helper()
	parts := make([]string, len(rows))
	for i, r := range rows {
		if s, ok := r.(string); ok {
			parts[i] = s
			continue
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		parts[i] = string(b)
	}
	return []byte("[" + strings.Join(parts, ",\n") + "]")
}

// app is the Application rowOf(id, ...) rows make, changed by fn.
func app(id string, rows []int, fn func(a *Application)) Application {
	a := Application{
		ExternalID: id, CandidateID: "C-" + id, JobReqID: "REQ-1",
		FirstName: "Ada", LastName: "Lovelace", JobTitle: "Registered Nurse", JobLocation: "Austin, TX",
		AppliedAt: "2026-11-21 14:05", Rows: rows,
	}
	if fn != nil {
		fn(&a)
	}
	return a
}

func phoneOf(e164 string, valid bool) func(*Application) {
	return func(a *Application) { a.Phone, a.PhoneValid = e164, valid }
}

func TestParse(t *testing.T) {
	long := strings.Repeat("x", MaxCellBytes+1)
	tests := []struct {
		name    string
		body    []byte
		apps    []Application
		invalid []RowIssue
		notes   []RowIssue
	}{
		{
			name: "the docs' example: one application of two rows",
			body: body(t,
				rowOf("APP-90412", "(415) 555-2671", "Mobile"),
				rowOf("APP-90412", "ada@example.com", "Personal Email"),
			),
			apps: []Application{app("APP-90412", []int{0, 1}, func(a *Application) {
				a.Phone, a.PhoneValid, a.Email = "+14155552671", true, "ada@example.com"
			})},
		},
		{
			name: "multi-row applications keep the order of first appearance",
			body: body(t,
				rowOf("B", "4155552671", "Home"),
				rowOf("A", "a@example.com", "Personal Email"),
				rowOf("B", "b@example.com", "Personal Email"),
				rowOf("C", "+44 20 7946 0958", "Mobile"),
				rowOf("A", "(415) 555-2672", "Mobile"),
			),
			apps: []Application{
				app("B", []int{0, 2}, func(a *Application) { a.Phone, a.PhoneValid, a.Email = "+14155552671", true, "b@example.com" }),
				app("A", []int{1, 4}, func(a *Application) { a.Phone, a.PhoneValid, a.Email = "+14155552672", true, "a@example.com" }),
				app("C", []int{3}, phoneOf("+442079460958", true)),
			},
		},
		{
			name: "Mobile beats Home, before or after it",
			body: body(t,
				rowOf("A", "415 555 2671", "Home"),
				rowOf("A", "415 555 2672", "Mobile"),
				rowOf("A", "415 555 2673", "home"),
			),
			apps: []Application{app("A", []int{0, 1, 2}, phoneOf("+14155552672", true))},
		},
		{
			name: "a valid Home number beats an invalid Mobile one",
			body: body(t,
				rowOf("A", "(123) 456-7890", "Mobile"),
				rowOf("A", "(415) 555-2671", "Home"),
				rowOf("A", "555-1234", "MOBILE"),
			),
			apps: []Application{app("A", []int{0, 1, 2}, phoneOf("+14155552671", true))},
		},
		{
			name: "latest row wins among conflicting duplicates",
			body: body(t,
				rowOf("A", "415 555 2671", "Mobile", ColFirstName, "Ada", ColCandidateID, "C-1", ColJobReqID, "REQ-1"),
				rowOf("A", "old@example.com", "Personal Email"),
				rowOf("A", "415 555 2672", "Mobile", ColFirstName, "Augusta", ColCandidateID, "C-2", ColJobReqID, "REQ-2"),
				rowOf("A", "new@example.com", "Personal Email", ColFirstName, "", ColLastName, nil, ColCandidateID, "C-2", ColJobReqID, "REQ-2"),
				rowOf("A", "bad@example", "Personal Email"), // invalid: does not replace the e-mail
			),
			apps: []Application{app("A", []int{0, 1, 2, 3}, func(a *Application) {
				a.FirstName, a.CandidateID, a.JobReqID = "Augusta", "C-2", "REQ-2"
				a.Phone, a.PhoneValid, a.Email = "+14155552672", true, "new@example.com"
			})},
			invalid: []RowIssue{{4, ReasonUnusableContact, "A"}},
		},
		{
			name: "names are one line (personname): line breaks, tabs and bidi controls become one space",
			body: body(t,
				rowOf("A", "415 555 2671", "Mobile", ColFirstName, "Ada\nDecision: ACCEPTED", ColLastName, "\u202eLovelace\t\r\nX"),
			),
			apps: []Application{app("A", []int{0}, func(a *Application) {
				phoneOf("+14155552671", true)(a)
				a.FirstName, a.LastName = "Ada Decision: ACCEPTED", "Lovelace X"
			})},
		},
		{
			name: "a US number without +1 is normalised",
			body: body(t, rowOf("A", "(415) 555-2671", "Mobile")),
			apps: []Application{app("A", []int{0}, phoneOf("+14155552671", true))},
		},
		{
			name:  "a US-shaped number that does not validate still gains +1, and is noted",
			body:  body(t, rowOf("A", "(123) 456-7890", "Mobile"), rowOf("A", "a@example.com", "Personal Email")),
			apps:  []Application{app("A", []int{0, 1}, func(a *Application) { a.Phone, a.Email = "+11234567890", "a@example.com" })},
			notes: []RowIssue{{0, NotePhoneNotValidated, "A"}},
		},
		{
			name:  "a number that is not US-shaped and does not validate is passed through",
			body:  body(t, rowOf("A", "555-1234", "Home"), rowOf("B", "+44 20 7946", "Mobile")),
			apps:  []Application{app("A", []int{0}, phoneOf("555-1234", false)), app("B", []int{1}, phoneOf("+44207946", false))},
			notes: []RowIssue{{0, NotePhoneNotValidated, "A"}, {1, NotePhoneNotValidated, "B"}},
		},
		{
			name:  "among invalid numbers Mobile then the latest row wins",
			body:  body(t, rowOf("A", "(123) 456-7890", "Mobile"), rowOf("A", "(123) 456-7891", "Home"), rowOf("A", "(123) 456-7892", "Mobile")),
			apps:  []Application{app("A", []int{0, 1, 2}, phoneOf("+11234567892", false))},
			notes: []RowIssue{{2, NotePhoneNotValidated, "A"}},
		},
		{
			name: "a foreign +44 number",
			body: body(t, rowOf("A", "+44 7400 123456", "Mobile"), rowOf("B", "(+44) 20-7946-0958", "Home")),
			apps: []Application{app("A", []int{0}, phoneOf("+447400123456", true)), app("B", []int{1}, phoneOf("+442079460958", true))},
		},
		{
			name: "a phone extension is dropped from E.164",
			body: body(t, rowOf("A", "415-555-2671 ext. 12", "Home")),
			apps: []Application{app("A", []int{0}, phoneOf("+14155552671", true))},
		},
		{
			name: "Do Not Hire True on one of several rows excludes the application",
			body: body(t,
				rowOf("A", "4155552671", "Mobile"),
				rowOf("A", "a@example.com", "Personal Email", ColDoNotHire, " TRUE "),
				rowOf("A", "4155552672", "Home", ColDoNotHire, "false"),
				rowOf("B", "4155552673", "Mobile", ColDoNotHire, "False"),
			),
			apps: []Application{
				app("A", []int{0, 1, 2}, func(a *Application) {
					a.Phone, a.PhoneValid, a.Email, a.DoNotHire = "+14155552671", true, "a@example.com", true
				}),
				app("B", []int{3}, phoneOf("+14155552673", true)),
			},
		},
		{
			name: "Do Not Hire True on an invalid row excludes the application",
			body: body(t,
				rowOf("A", "4155552671", "Mobile"),
				rowOf("A", "", "Mobile", ColDoNotHire, "True"),
			),
			apps:    []Application{app("A", []int{0}, func(a *Application) { a.Phone, a.PhoneValid, a.DoNotHire = "+14155552671", true, true })},
			invalid: []RowIssue{{1, ReasonMissingContact, "A"}},
		},
		{
			name: "an excluded application with no valid row still appears",
			body: body(t, rowOf("A", "4155552671", "Mobile", ColDoNotHire, "True", ColCandidateID, del)),
			apps: []Application{{ExternalID: "A", DoNotHire: true}},
			invalid: []RowIssue{
				{0, ReasonMissingCandidateID, "A"},
			},
		},
		{
			name: "an unreadable Do Not Hire Status is invalid and excludes",
			body: body(t,
				rowOf("A", "4155552671", "Mobile"),
				rowOf("A", "a@example.com", "Personal Email", ColDoNotHire, "Yes"),
				rowOf("B", "4155552672", "Mobile"),
				rowOf("B", "b@example.com", "Personal Email", ColDoNotHire, raw("true")),
				rowOf("C", "4155552673", "Mobile", ColDoNotHire, raw("false")),
				rowOf("D", "4155552674", "Mobile", ColDoNotHire, raw("1")),
				rowOf("E", "4155552675", "Mobile", ColDoNotHire, long),
				rowOf("F", "4155552676", "Mobile", ColDoNotHire, "  "),
				rowOf("G", "4155552677", "Mobile", ColDoNotHire, nil),
				rowOf("H", "4155552678", "Mobile", ColDoNotHire, del),
			),
			apps: []Application{
				app("A", []int{0}, func(a *Application) { a.Phone, a.PhoneValid, a.DoNotHire = "+14155552671", true, true }),
				app("B", []int{2}, func(a *Application) { a.Phone, a.PhoneValid, a.DoNotHire = "+14155552672", true, true }),
				{ExternalID: "D", DoNotHire: true},
				{ExternalID: "E", DoNotHire: true},
				app("F", []int{7}, phoneOf("+14155552676", true)),
				app("G", []int{8}, phoneOf("+14155552677", true)),
				app("H", []int{9}, phoneOf("+14155552678", true)),
			},
			invalid: []RowIssue{
				{1, ReasonInvalidDoNotHire, "A"},
				{3, ReasonWrongType + ColDoNotHire, "B"},
				{4, ReasonWrongType + ColDoNotHire, "C"},
				{5, ReasonWrongType + ColDoNotHire, "D"},
				{6, ReasonCellTooLong + ColDoNotHire, "E"},
			},
		},
		{
			name: "every invalid reason",
			body: body(t,
				`1`, `"row"`, `[]`, `null`, `true`, // 0-4
				rowOf("A", "4155552671", "Mobile", ColFirstName, raw("true")),                      // 5
				rowOf("A", "4155552671", "Mobile", ColLastName, raw("7")),                          // 6
				rowOf("A", "4155552671", "Mobile", ColContactType, raw(`{"a":1}`)),                 // 7
				rowOf("A", "4155552671", "Mobile", ColAppliedAt, raw(`["2026"]`)),                  // 8
				rowOf("A", "4155552671", "Mobile", ColJobReqID, raw("false")),                      // 9
				rowOf("A", "4155552671", "Mobile", ColJobTitle, long),                              // 10
				rowOf("A", "4155552671", "Mobile", ColCandidateID, raw(strings.Repeat("9", 1001))), // 11
				rowOf("A", "4155552671", "Mobile", ColApplicationID, del),                          // 12
				rowOf("", "4155552671", "Mobile"),                                                  // 13
				rowOf("A", "4155552671", "Mobile", ColApplicationID, nil),                          // 14
				rowOf("A", "4155552671", "Mobile", ColCandidateID, " \t"),                          // 15
				rowOf("A", "4155552671", "Mobile", ColJobReqID, del),                               // 16
				rowOf("A", "4155552671", "Mobile", ColDoNotHire, "N"),                              // 17
				rowOf("A", "  ", "Mobile"),                                                         // 18
				rowOf("A", "4155552671", "Work"),                                                   // 19
				rowOf("A", "4155552671", "Mobile", ColContactType, del),                            // 20
				rowOf("A", "ada@example", "Personal Email"),                                        // 21
				rowOf("A", "Ada <ada@example.com>", "Personal Email"),                              // 22
				rowOf("A", "4155552671", "Personal Email"),                                         // 23
				rowOf("A", "ada@example.com", "Mobile"),                                            // 24
				rowOf("A", "call me after 5", "Home"),                                              // 25
				rowOf("A", "1-800-FLOWERS", "Home"),                                                // 26
				rowOf("A", "---", "Home"),                                                          // 27
				rowOf("A", "4155552671", "Mobile", ColFirstName, raw("true"), ColLastName, long),   // 28: first column in report order
				rowOf("A", "", "Nope", ColCandidateID, ""),                                         // 29: the first rule that applies
			),
			invalid: []RowIssue{
				{0, ReasonNotAnObject, ""}, {1, ReasonNotAnObject, ""}, {2, ReasonNotAnObject, ""},
				{3, ReasonNotAnObject, ""}, {4, ReasonNotAnObject, ""},
				{5, "wrong_type:Candidate First Name", "A"},
				{6, "wrong_type:Candidate Last Name", "A"},
				{7, "wrong_type:Contact Type Description", "A"},
				{8, "wrong_type:Application Date/Time", "A"},
				{9, "wrong_type:Job Req Id", "A"},
				{10, "cell_too_long:Job Req Title", "A"},
				{11, "cell_too_long:Candidate Id", "A"},
				{12, "missing_application_id", ""},
				{13, "missing_application_id", ""},
				{14, "missing_application_id", ""},
				{15, "missing_candidate_id", "A"},
				{16, "missing_job_req_id", "A"},
				{17, "invalid_do_not_hire", "A"},
				{18, "missing_contact", "A"},
				{19, "unknown_contact_type", "A"},
				{20, "unknown_contact_type", "A"},
				{21, "unusable_contact", "A"},
				{22, "unusable_contact", "A"},
				{23, "unusable_contact", "A"},
				{24, "unusable_contact", "A"},
				{25, "unusable_contact", "A"},
				{26, "unusable_contact", "A"},
				{27, "unusable_contact", "A"},
				{28, "wrong_type:Candidate First Name", "A"},
				{29, "missing_candidate_id", "A"},
			},
			// Row 17's unreadable Do Not Hire Status excludes A, which has no valid row.
			apps: []Application{{ExternalID: "A", DoNotHire: true}},
		},
		{
			name:    "an application with only invalid rows does not appear",
			body:    body(t, rowOf("A", "nope", "Mobile"), rowOf("A", "", "Home"), rowOf("B", "4155552671", "Mobile")),
			apps:    []Application{app("B", []int{2}, phoneOf("+14155552671", true))},
			invalid: []RowIssue{{0, ReasonUnusableContact, "A"}, {1, ReasonMissingContact, "A"}},
		},
		{
			name: "numbers as JSON numbers in the id columns and Contact Method",
			body: body(t,
				rowOf("x", "", "Mobile", ColApplicationID, raw("90412"), ColCandidateID, raw("7781"), ColJobReqID, raw("1042"), ColContactMethod, raw("4155552671")),
				rowOf("x", "", "Home", ColApplicationID, raw("9.0412e4"), ColCandidateID, raw("7781.0"), ColJobReqID, raw("1042"), ColContactMethod, raw("4.155552672E9")),
				rowOf("y", "", "Mobile", ColApplicationID, raw("-12.50"), ColCandidateID, raw("0.000"), ColContactMethod, raw("123")),
			),
			apps: []Application{
				app("90412", []int{0, 1}, func(a *Application) {
					a.CandidateID, a.JobReqID, a.Phone, a.PhoneValid = "7781", "1042", "+14155552671", true
				}),
				app("-12.5", []int{2}, func(a *Application) { a.CandidateID, a.Phone = "0", "123" }),
			},
			notes: []RowIssue{{2, NotePhoneNotValidated, "-12.5"}},
		},
		{
			name: "cells: NULs stripped, trimmed, unknown and miscapitalised columns ignored, escaped keys, duplicate key",
			body: body(t,
				rowOf("A", " 415 555 2671\u0000", "Mobile", ColApplicationID, "\u0000 A ", ColFirstName, " Ada\u0000 ", "Extra Column", raw(`{"nested":[1,2]}`), "candidate id", "ignored"),
				`{"Job Posting Application Id":"B","Candidate\u0020Id":"C-B","Job Req Id":"REQ-1","Contact Method":"4155552671",`+
					`"Contact Type Description":"Home","Contact Type Description":"Mobile","Do Not Hire Status":"True","Do Not Hire Status":"False"}`,
				rowOf("C", "4155552671", "Mobile", ColCandidateID, del, "candidate id", "C-C"),
			),
			// B names two columns twice (the escaped key is Candidate Id once): its row is
			// invalid on the first in the report's order, and True then False excludes it.
			apps: []Application{
				app("A", []int{0}, phoneOf("+14155552671", true)),
				{ExternalID: "B", DoNotHire: true},
			},
			invalid: []RowIssue{{1, ReasonDuplicateColumn + ColContactType, "B"}, {2, ReasonMissingCandidateID, "C"}},
		},
		{
			name: "e-mail: from Personal Email rows, domain lower-cased, latest valid wins",
			body: body(t,
				rowOf("A", "Ada.L@Example.COM", "personal email"),
				rowOf("A", "ada@example.com", "Home"),
				rowOf("A", "ada@[127.0.0.1]", "Personal Email"),
				rowOf("A", "ada@.example.com", "Personal Email"),
				rowOf("A", "<ada@example.com>", "Personal Email"),
				rowOf("A", "ada@example.com (Ada)", "Personal Email"),
				rowOf("A", "ada@localhost", "Personal Email"),
			),
			apps: []Application{app("A", []int{0}, func(a *Application) { a.Email = "Ada.L@example.com" })},
			invalid: []RowIssue{
				{1, ReasonUnusableContact, "A"}, {2, ReasonUnusableContact, "A"}, {3, ReasonUnusableContact, "A"},
				{4, ReasonUnusableContact, "A"}, {5, ReasonUnusableContact, "A"}, {6, ReasonUnusableContact, "A"},
			},
		},
		{
			name: "a duplicated column makes the row invalid; a duplicated Do Not Hire Status excludes, whatever the values",
			body: body(t,
				`{"Job Posting Application Id":"A","Candidate Id":"C-A","Job Req Id":"REQ-1","Contact Method":"4155552671",`+
					`"Contact Type Description":"Mobile","Do Not Hire Status":"True","Do Not Hire Status":"False"}`,
				rowOf("A", "a@example.com", "Personal Email"),
				`{"Job Posting Application Id":"B","Candidate Id":"C-B","Job Req Id":"REQ-1","Contact Method":"4155552672",`+
					`"Contact Type Description":"Mobile","Do Not Hire Status":"False","Do Not Hire \u0053tatus":"False"}`,
				`{"Job Posting Application Id":"C","Candidate Id":"C-1","Candidate Id":"C-2","Job Req Id":"REQ-1","Contact Method":"4155552673",`+
					`"Contact Type Description":"Mobile","Do Not Hire Status":"False"}`,
				rowOf("C", "4155552674", "Mobile"),
				`{"Job Posting Application Id":"D","Job Posting Application Id":"E","Candidate Id":"C-D","Job Req Id":"REQ-1",`+
					`"Contact Method":"4155552675","Contact Type Description":"Mobile","Do Not Hire Status":"True"}`,
				rowOf("E", "4155552676", "Mobile"),
			),
			apps: []Application{
				{ExternalID: "A", DoNotHire: true, CandidateID: "C-A", JobReqID: "REQ-1", FirstName: "Ada", LastName: "Lovelace",
					JobTitle: "Registered Nurse", JobLocation: "Austin, TX", AppliedAt: "2026-11-21 14:05", Email: "a@example.com", Rows: []int{1}},
				{ExternalID: "B", DoNotHire: true},
				app("C", []int{4}, phoneOf("+14155552674", true)),
				{ExternalID: "D", DoNotHire: true},
				app("E", []int{6}, func(a *Application) { a.DoNotHire, a.Phone, a.PhoneValid = true, "+14155552676", true }),
			},
			invalid: []RowIssue{
				{0, ReasonDuplicateColumn + ColDoNotHire, "A"}, {2, ReasonDuplicateColumn + ColDoNotHire, "B"},
				{3, ReasonDuplicateColumn + ColCandidateID, "C"}, {5, ReasonDuplicateColumn + ColApplicationID, "E"},
			},
		},
		{
			name: "an empty array",
			body: []byte(" [ ] \n"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Parse(tt.body)
			if err != nil {
				t.Fatal(err)
			}
			n, err := Count(tt.body)
			if err != nil || n != b.Rows {
				t.Errorf("Count = %d, %v; Parse counted %d rows", n, err, b.Rows)
			}
			if !reflect.DeepEqual(b.Applications, tt.apps) {
				t.Errorf("Applications:\n got %s\nwant %s", dump(b.Applications), dump(tt.apps))
			}
			if !reflect.DeepEqual(b.Invalid, tt.invalid) {
				t.Errorf("Invalid:\n got %+v\nwant %+v", b.Invalid, tt.invalid)
			}
			if !reflect.DeepEqual(b.Notes, tt.notes) {
				t.Errorf("Notes:\n got %+v\nwant %+v", b.Notes, tt.notes)
			}
		})
	}
}

func dump(apps []Application) string {
	var b strings.Builder
	for _, a := range apps {
		fmt.Fprintf(&b, "\n\t%+v", a)
	}
	return b.String()
}

func TestNotAnArray(t *testing.T) {
	for _, s := range []string{
		``, ` `, `{}`, `{"Candidate Id":"C-1"}`, `"[]"`, `null`, `true`, `42`,
		`[`, `[{"Candidate Id":"C-1"}`, `[{"Candidate Id":"C-1"},`, `[{"Candidate Id":"C-`, `[1,]`,
		`[] x`, `[][]`, `[1] 2`, `[]]`, `[{}]}`, "[\"\xff\"", "[1]\x00", `[1] // comment`, "\ufeff[]",
	} {
		if n, err := Count([]byte(s)); !errors.Is(err, ErrNotArray) {
			t.Errorf("Count(%q) = %d, %v, want ErrNotArray", s, n, err)
		}
		if b, err := Parse([]byte(s)); !errors.Is(err, ErrNotArray) || b != nil {
			t.Errorf("Parse(%q) = %+v, %v, want ErrNotArray", s, b, err)
		}
	}
	_, err := Count([]byte(`{"a":1}`))
	if want := "the body is not a JSON array: it is a JSON object"; err == nil || err.Error() != want {
		t.Errorf("Count(object) error = %v, want %q", err, want)
	}
}

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		body string
		want int
	}{
		{`[]`, 0},
		{" \t\r\n[ \n]\n ", 0},
		{`[{}]`, 1},
		{`[1,"a,b",[1,[2,3]],{"a":"]"},null,true,"\"]"]`, 7},
		{`[{"Candidate Id":"C-1","x":[{"y":","}]},{}]`, 2},
		{"[\"\xff\"]", 1}, // invalid UTF-8 in a string is still JSON for encoding/json
	} {
		if n, err := Count([]byte(tt.body)); err != nil || n != tt.want {
			t.Errorf("Count(%q) = %d, %v, want %d", tt.body, n, err, tt.want)
		}
	}
}

func TestDecimalText(t *testing.T) {
	for _, tt := range []struct {
		lit, want string
		ok        bool
	}{
		{"0", "0", true},
		{"-0", "0", true},
		{"-0.0e5", "0", true},
		{"7781", "7781", true},
		{"-12", "-12", true},
		{"12.50", "12.5", true},
		{"0.05", "0.05", true},
		{"4.155552671E9", "4155552671", true},
		{"4155552671e+0", "4155552671", true},
		{"1e3", "1000", true},
		{"1.5e-3", "0.0015", true},
		{"123456789012345678901234567890", "123456789012345678901234567890", true},
		{"1e1000", "", false}, // 1,001 bytes
		{"1e-999", "", false},
		{"1e99999999999999999999999", "", false},
		{"1e-99999999999999999999999", "", false},
		{"1e999", "1" + strings.Repeat("0", 999), true}, // 1,000 bytes
		{"-1e999", "", false},
		{"1e-997", "0." + strings.Repeat("0", 996) + "1", true},
	} {
		got, ok := decimalText([]byte(tt.lit), MaxCellBytes)
		if got != tt.want || ok != tt.ok {
			t.Errorf("decimalText(%q) = %q, %v, want %q, %v", tt.lit, got, ok, tt.want, tt.ok)
		}
	}
}

func TestInvalidOutcome(t *testing.T) {
	if got := Invalid(ReasonWrongType + ColJobReqID); got != "invalid:wrong_type:Job Req Id" {
		t.Errorf("Invalid = %q", got)
	}
}
