package ats

import (
	"errors"
	"strconv"
	"testing"
)

func TestDecodeJobSubmission(t *testing.T) {
	tests := []struct {
		name, body string
		want       error
	}{
		{"record", `{"data":{"id":1001,"candidate":{"id":7001,"firstName":" Ada ","email":"ada@example.com"},"jobOrder":{"id":5001}}}`, nil},
		{"string ids", `{"data":{"id":"1001","candidate":{"id":"7001"},"jobOrder":{"id":"5001"}}}`, nil},
		{"one-record array", `{"data":[{"id":1001,"candidate":{"id":7001},"jobOrder":{"id":5001}}]}`, nil},
		{"null data", `{"data":null}`, ErrNotFound},
		{"empty data", `{"data":{}}`, ErrNotFound},
		{"empty array", `{"data":[]}`, ErrNotFound},
		{"no data", `{}`, ErrNotFound},
		{"two records", `{"data":[{"id":1001},{"id":1002}]}`, ErrBadResponse},
		{"no candidate", `{"data":{"id":1001,"jobOrder":{"id":5001}}}`, ErrBadResponse},
		{"null candidate", `{"data":{"id":1001,"candidate":null,"jobOrder":{"id":5001}}}`, ErrBadResponse},
		{"no job order", `{"data":{"id":1001,"candidate":{"id":7001}}}`, ErrBadResponse},
		{"no id", `{"data":{"candidate":{"id":7001},"jobOrder":{"id":5001}}}`, ErrBadResponse},
		{"other record", `{"data":{"id":1002,"candidate":{"id":7001},"jobOrder":{"id":5001}}}`, ErrBadResponse},
		{"float id", `{"data":{"id":1001.5,"candidate":{"id":7001},"jobOrder":{"id":5001}}}`, ErrBadResponse},
		{"negative id", `{"data":{"id":1001,"candidate":{"id":-7001},"jobOrder":{"id":5001}}}`, ErrBadResponse},
		{"number name", `{"data":{"id":1001,"candidate":{"id":7001,"firstName":3},"jobOrder":{"id":5001}}}`, ErrBadResponse},
		{"null body", `null`, ErrBadResponse},
		{"html", `<html>Service Unavailable</html>`, ErrBadResponse},
		{"trailing garbage", `{"data":null} x`, ErrBadResponse},
	}
	for _, tt := range tests {
		a, err := decodeJobSubmission([]byte(tt.body), 1001)
		if !errors.Is(err, tt.want) || tt.want == nil && err != nil {
			t.Errorf("%s: decodeJobSubmission(%s) = %v, want %v", tt.name, tt.body, err, tt.want)
			continue
		}
		if err == nil && (a.ApplicantID != "1001" || a.CandidateID != "7001" || a.JobID != "5001") {
			t.Errorf("%s: decodeJobSubmission(%s) = %+v, want ids 1001/7001/5001", tt.name, tt.body, *a)
		}
	}
	a, _ := decodeJobSubmission([]byte(tests[0].body), 1001)
	if a.FirstName != "Ada" || a.Email != "ada@example.com" {
		t.Errorf("decodeJobSubmission(%s) = %+v, want FirstName Ada, Email ada@example.com", tests[0].body, *a)
	}
}

func TestDecodeOpportunityResource(t *testing.T) {
	tests := []struct {
		name, body string
		want       error
		phone      string
	}{
		{"mobile", `{"id":2001,"opportunityId":5001,"resource":{"id":8001,"mobile":"+14155550121","phone":"+14155550000"}}`, nil, "+14155550121"},
		{"phone only", `{"id":2001,"opportunityId":5001,"resource":{"id":8001,"phone":"+14155550000"}}`, nil, "+14155550000"},
		{"unknown fields", `{"id":2001,"opportunityId":5001,"status":"OPEN","resource":{"id":8001,"skills":[]}}`, nil, ""},
		{"no opportunity", `{"id":2001,"resource":{"id":8001}}`, ErrBadResponse, ""},
		{"no resource", `{"id":2001,"opportunityId":5001}`, ErrBadResponse, ""},
		{"other record", `{"id":2002,"opportunityId":5001,"resource":{"id":8001}}`, ErrBadResponse, ""},
		{"empty", `{}`, ErrBadResponse, ""},
		{"array", `[]`, ErrBadResponse, ""},
	}
	for _, tt := range tests {
		a, err := decodeOpportunityResource([]byte(tt.body), 2001)
		if !errors.Is(err, tt.want) || tt.want == nil && err != nil {
			t.Errorf("%s: decodeOpportunityResource(%s) = %v, want %v", tt.name, tt.body, err, tt.want)
			continue
		}
		if err == nil && (a.JobID != "5001" || a.CandidateID != "8001" || a.Phone != tt.phone) {
			t.Errorf("%s: decodeOpportunityResource(%s) = %+v, want job 5001, candidate 8001, phone %q", tt.name, tt.body, *a, tt.phone)
		}
	}
}

func TestDecodeJobCandidate(t *testing.T) {
	tests := []struct {
		name, body   string
		want         error
		email, phone string
	}{
		{"primary and mobile", `{"id":3001,"jobId":5001,"person":{"id":3001,"emails":[{"value":"old@example.com"},{"value":"new@example.com","primary":true}],"phones":[{"value":"+1000","type":"home"},{"value":"+1415","type":"Mobile"}]}}`, nil, "new@example.com", "+1415"},
		{"first ones", `{"id":3001,"jobId":5001,"person":{"id":3001,"emails":[{"value":" "},{"value":"a@example.com"}],"phones":[{"value":"+1000","type":"home"}]}}`, nil, "a@example.com", "+1000"},
		{"no contacts", `{"id":3001,"jobId":5001,"person":{"id":3001,"emails":null}}`, nil, "", ""},
		{"other job", `{"id":3001,"jobId":5002,"person":{"id":3001}}`, ErrBadResponse, "", ""},
		{"no job", `{"id":3001,"person":{"id":3001}}`, ErrBadResponse, "", ""},
		{"no person", `{"id":3001,"jobId":5001}`, ErrBadResponse, "", ""},
		{"emails not a list", `{"id":3001,"jobId":5001,"person":{"id":3001,"emails":"a@example.com"}}`, ErrBadResponse, "", ""},
	}
	for _, tt := range tests {
		a, err := decodeJobCandidate([]byte(tt.body), 3001, 5001)
		if !errors.Is(err, tt.want) || tt.want == nil && err != nil {
			t.Errorf("%s: decodeJobCandidate(%s) = %v, want %v", tt.name, tt.body, err, tt.want)
			continue
		}
		if err == nil && (a.JobID != "5001" || a.CandidateID != "3001" || a.Email != tt.email || a.Phone != tt.phone) {
			t.Errorf("%s: decodeJobCandidate(%s) = %+v, want email %q, phone %q", tt.name, tt.body, *a, tt.email, tt.phone)
		}
	}
}

// checkDecoded checks the contract of every decoder on any input: a record with the asked-for
// ids, or an error wrapping one of the allowed sentinels with a short message (no body echo).
func checkDecoded(t *testing.T, a *Applicant, err error, want, wantJob atsID, allowed ...error) {
	t.Helper()
	if err != nil {
		ok := false
		for _, s := range allowed {
			ok = ok || errors.Is(err, s)
		}
		if !ok || a != nil {
			t.Fatalf("decode = %v, %v; want an error wrapping one of %v", a, err, allowed)
		}
		if len(err.Error()) > 200 {
			t.Fatalf("decode error is %d bytes long: %.300s", len(err.Error()), err)
		}
		return
	}
	if a.ApplicantID != want.String() {
		t.Fatalf("decode ApplicantID = %q, want %q", a.ApplicantID, want)
	}
	if wantJob != 0 && a.JobID != wantJob.String() {
		t.Fatalf("decode JobID = %q, want %q", a.JobID, wantJob)
	}
	for _, id := range []string{a.JobID, a.CandidateID} {
		if n, err := strconv.ParseInt(id, 10, 64); err != nil || n <= 0 || strconv.FormatInt(n, 10) != id {
			t.Fatalf("decode = %+v: id %q is not a positive integer", *a, id)
		}
	}
}

func FuzzDecodeJobSubmission(f *testing.F) {
	for _, s := range []string{
		`{"data":{"id":1001,"candidate":{"id":7001,"firstName":"Ada","lastName":"Quinn","email":"ada@example.com","phone":"+14155550101"},"jobOrder":{"id":5001}}}`,
		`{"data":[{"id":"1001","candidate":{"id":"7001"},"jobOrder":{"id":"5001"}}]}`,
		`{"data":null}`, `{"data":{}}`, `{"data":[]}`, `{"data":[null]}`, `{}`, `null`, `[]`, ``,
		`{"data":{"id":1001,"candidate":null,"jobOrder":{"id":5001}}}`,
		`{"data":{"id":1e3,"candidate":{"id":-1},"jobOrder":{"id":"007"}}}`,
		`{"errorMessage":"Cannot find entity","errorCode":404}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		a, err := decodeJobSubmission(body, 1001)
		checkDecoded(t, a, err, 1001, 0, ErrNotFound, ErrBadResponse)
	})
}

func FuzzDecodeOpportunityResource(f *testing.F) {
	for _, s := range []string{
		`{"id":2001,"opportunityId":5001,"resource":{"id":8001,"firstName":"Hana","lastName":"Sato","email":"hana@example.com","mobile":"+14155550121"}}`,
		`{"id":"2001","opportunityId":"5001","resource":{"id":"8001","phone":"+1"}}`,
		`{"id":2001,"opportunityId":0,"resource":{"id":8001}}`,
		`{"id":2001,"opportunityId":5001,"resource":null}`,
		`{"error":{"code":"not_found","message":"x"}}`, `{}`, `null`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		a, err := decodeOpportunityResource(body, 2001)
		checkDecoded(t, a, err, 2001, 0, ErrBadResponse)
	})
}

func FuzzDecodeJobCandidate(f *testing.F) {
	for _, s := range []string{
		`{"id":3001,"jobId":5001,"person":{"id":3001,"firstName":"Kofi","lastName":"Mensah","emails":[{"value":"kofi@example.com","primary":true}],"phones":[{"value":"+14155550131","type":"mobile"}]}}`,
		`{"id":3001,"jobId":5001,"person":{"id":3001,"emails":[{"value":""},{"value":"b@example.com"}],"phones":[{"type":"mobile"}]}}`,
		`{"id":3001,"jobId":5002,"person":{"id":3001}}`,
		`{"id":3001,"jobId":5001,"person":{"id":3001,"emails":{}}}`,
		`{"errors":[{"status":"404","detail":"job 5001 not found"}]}`, `{}`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		a, err := decodeJobCandidate(body, 3001, 5001)
		checkDecoded(t, a, err, 3001, 5001, ErrBadResponse)
	})
}
