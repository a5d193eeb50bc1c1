package atssim

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/models"
)

var testCreds = Credentials{RestToken: "rt", APIKey: "ak", Username: "u", Password: "pw"}

func get(t *testing.T, url string, auth func(*http.Request)) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != nil {
		auth(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), strings.TrimSpace(string(b))
}

func header(k, v string) func(*http.Request) { return func(r *http.Request) { r.Header.Set(k, v) } }

func basic(u, p string) func(*http.Request) { return func(r *http.Request) { r.SetBasicAuth(u, p) } }

func TestShapes(t *testing.T) {
	s := New([]Record{
		{ATSType: models.ATSTypeA, ApplicantID: 1001, JobID: 5001, CandidateID: 7001, FirstName: "Ada", LastName: "Quinn", Email: "ada@example.com", Phone: "+14155550101"},
		{ATSType: models.ATSTypeB, ApplicantID: 2001, JobID: 5001, CandidateID: 8001, FirstName: "Hana", LastName: "Sato", Email: "hana@example.com", Phone: "+14155550121"},
		{ATSType: models.ATSTypeC, ApplicantID: 3001, JobID: 5001, CandidateID: 3001, FirstName: "Kofi", LastName: "Mensah", Email: "kofi@example.com", Phone: "+14155550131"},
		{ATSType: models.ATSTypeC, ApplicantID: 3002, JobID: 5001, CandidateID: 3002, FirstName: "Lena"},
	}, testCreds)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	tests := []struct {
		name   string
		path   string
		auth   func(*http.Request)
		status int
		body   string
	}{
		{"ATS-A", "/entity/JobSubmission/1001?fields=id,candidate,jobOrder", header("BhRestToken", "rt"), 200,
			`{"data":{"id":1001,"candidate":{"id":7001,"firstName":"Ada","lastName":"Quinn","email":"ada@example.com","phone":"+14155550101"},"jobOrder":{"id":5001}}}`},
		{"ATS-A token in query", "/entity/JobSubmission/1001?BhRestToken=rt", nil, 200, ""},
		{"ATS-A wrong token", "/entity/JobSubmission/1001", header("BhRestToken", "x"), 401,
			`{"errorMessage":"Bad 'BhRestToken' or timed-out.","errorMessageKey":"errors.authentication.invalidRestToken","errorCode":401}`},
		{"ATS-A unknown", "/entity/JobSubmission/1999", header("BhRestToken", "rt"), 404,
			`{"errorMessage":"Cannot find entity of type JobSubmission with id 1999","errorMessageKey":"errors.cannotFindEntity","errorCode":404}`},
		{"ATS-A bad id", "/entity/JobSubmission/abc", header("BhRestToken", "rt"), 400, ""},
		{"ATS-A record of ATS-B", "/entity/JobSubmission/2001", header("BhRestToken", "rt"), 404, ""},
		{"ATS-B", "/api/v1/opportunity-resources/2001", header("Authorization", "Bearer ak"), 200,
			`{"id":2001,"opportunityId":5001,"resource":{"id":8001,"firstName":"Hana","lastName":"Sato","email":"hana@example.com","mobile":"+14155550121"}}`},
		{"ATS-B wrong key", "/api/v1/opportunity-resources/2001", header("Authorization", "Bearer rt"), 401,
			`{"error":{"code":"unauthorized","message":"invalid or missing API key"}}`},
		{"ATS-B basic auth", "/api/v1/opportunity-resources/2001", basic("u", "pw"), 401, ""},
		{"ATS-B unknown", "/api/v1/opportunity-resources/2999", header("Authorization", "Bearer ak"), 404,
			`{"error":{"code":"not_found","message":"opportunity resource 2999 not found"}}`},
		{"ATS-C", "/v2/jobs/5001/candidates/3001", basic("u", "pw"), 200,
			`{"id":3001,"jobId":5001,"person":{"id":3001,"firstName":"Kofi","lastName":"Mensah","emails":[{"value":"kofi@example.com","primary":true}],"phones":[{"value":"+14155550131","type":"mobile"}]}}`},
		{"ATS-C without contacts", "/v2/jobs/5001/candidates/3002", basic("u", "pw"), 200,
			`{"id":3002,"jobId":5001,"person":{"id":3002,"firstName":"Lena","lastName":"","emails":[],"phones":[]}}`},
		{"ATS-C wrong password", "/v2/jobs/5001/candidates/3001", basic("u", "x"), 401, ""},
		{"ATS-C no auth", "/v2/jobs/5001/candidates/3001", nil, 401, ""},
		{"ATS-C unknown job", "/v2/jobs/5999/candidates/3001", basic("u", "pw"), 404, `{"errors":[{"status":"404","detail":"job 5999 not found"}]}`},
		{"ATS-C unknown candidate", "/v2/jobs/5001/candidates/3999", basic("u", "pw"), 404, `{"errors":[{"status":"404","detail":"candidate 3999 not found on job 5001"}]}`},
	}
	for _, tt := range tests {
		status, ct, body := get(t, srv.URL+tt.path, tt.auth)
		if status != tt.status || ct != "application/json" || tt.body != "" && body != tt.body {
			t.Errorf("%s: GET %s = %d %s %s, want %d application/json %s", tt.name, tt.path, status, ct, body, tt.status, tt.body)
		}
	}
	if status, ct, _ := get(t, srv.URL+"/nope/1001", header("BhRestToken", "rt")); status != 404 || strings.HasPrefix(ct, "application/json") {
		t.Errorf("GET /nope/1001 = %d %s, want a plain-text 404", status, ct)
	}
	if got, want := s.Requests(), len(tests)+1; got != want {
		t.Errorf("Requests() = %d, want %d", got, want)
	}
}

func TestEmptyCredentialRejectsAll(t *testing.T) {
	s := New([]Record{{ATSType: models.ATSTypeB, ApplicantID: 2001, JobID: 5001, CandidateID: 8001}}, Credentials{RestToken: "rt"})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for _, auth := range []func(*http.Request){nil, header("Authorization", "Bearer "), header("Authorization", "Bearer rt")} {
		if status, _, _ := get(t, srv.URL+"/api/v1/opportunity-resources/2001", auth); status != 401 {
			t.Errorf("GET without an ATS-B key configured = %d, want 401", status)
		}
	}
}

func TestFaults(t *testing.T) {
	s := New(nil, testCreds)
	s.Set(Record{ATSType: models.ATSTypeA, ApplicantID: 1, JobID: 5001, CandidateID: 7, Status: 503})
	s.Set(Record{ATSType: models.ATSTypeA, ApplicantID: 2, JobID: 5001, CandidateID: 7, Latency: 50 * time.Millisecond})
	s.Set(Record{ATSType: models.ATSTypeA, ApplicantID: 3, JobID: 5001, CandidateID: 7, Hang: true})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	auth := header("BhRestToken", "rt")
	if status, _, body := get(t, srv.URL+"/entity/JobSubmission/1", auth); status != 503 || !strings.Contains(body, `"errorCode":503`) {
		t.Errorf("GET of a 503 record = %d %s, want 503 with an ATS-A error body", status, body)
	}
	start := time.Now()
	if status, _, _ := get(t, srv.URL+"/entity/JobSubmission/2", auth); status != 200 || time.Since(start) < 50*time.Millisecond {
		t.Errorf("GET of a slow record = %d after %s, want 200 after 50ms", status, time.Since(start))
	}
	s.Set(Record{ATSType: models.ATSTypeA, ApplicantID: 1, JobID: 5001, CandidateID: 7})
	if status, _, _ := get(t, srv.URL+"/entity/JobSubmission/1", auth); status != 200 {
		t.Errorf("GET after Set cleared the fault = %d, want 200", status)
	}

	// A hang ends when the client gives up, and at once for everyone after Close.
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/entity/JobSubmission/3", nil)
	auth(req)
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("GET of a hanging record = %v, want the client's deadline", err)
	}
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/entity/JobSubmission/3", nil)
		auth(req)
		_, err := http.DefaultClient.Do(req)
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	s.Close()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("a hanging request answered after Close, want a dropped connection")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not release a hanging request")
	}
}

func TestDemoRecords(t *testing.T) {
	recs := DemoRecords()
	seen := map[recordKey]bool{}
	faults := map[models.ATSType]int{}
	for _, r := range recs {
		if r.ApplicantID <= 0 || r.JobID <= 0 || r.CandidateID <= 0 || !r.ATSType.Valid() {
			t.Errorf("demo record %+v: want positive ids and a valid ATS type", r)
		}
		if seen[keyOf(r)] {
			t.Errorf("demo record %+v repeats an id", r)
		}
		seen[keyOf(r)] = true
		if r.Status >= 500 || r.Hang {
			faults[r.ATSType]++
		}
	}
	for id := int64(1001); id <= 1005; id++ {
		if !seen[recordKey{atsType: models.ATSTypeA, id: id}] {
			t.Errorf("no ATS-A demo submission %d", id)
		}
	}
	for _, at := range []models.ATSType{models.ATSTypeA, models.ATSTypeB, models.ATSTypeC} {
		if faults[at] != 2 {
			t.Errorf("%s has %d faulty demo records, want a 503 one and a hanging one", at, faults[at])
		}
	}
}

func TestListenAndServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := New(DemoRecords(), testCreds)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- ListenAndServe(ctx, addr, s) }()
	url := "http://" + addr + "/entity/JobSubmission/"
	var status int
	for range 50 {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"1001", nil)
		req.Header.Set("BhRestToken", "rt")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			status = resp.StatusCode
			resp.Body.Close()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if status != 200 {
		t.Fatalf("GET demo submission 1001 = %d, want 200", status)
	}
	hung := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"1099", nil)
		req.Header.Set("BhRestToken", "rt")
		_, err := http.DefaultClient.Do(req)
		hung <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ListenAndServe = %v after its context ended, want nil", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("ListenAndServe did not return after its context ended")
	}
	if err := <-hung; err == nil {
		t.Error("the hanging request answered, want a dropped connection")
	}
	if err := ListenAndServe(t.Context(), "256.0.0.1:1", s); err == nil {
		t.Error("ListenAndServe on a bad address = nil, want an error")
	}
}

// TestWriteReadsAndFaults: the record's GET carries the fields written, the notes are listed
// newest first, and the write faults fail, lose and repeat writes as they say.
func TestWriteReadsAndFaults(t *testing.T) {
	s := New([]Record{
		{ATSType: models.ATSTypeA, ApplicantID: 1001, JobID: 5001},
		{ATSType: models.ATSTypeB, ApplicantID: 2001, JobID: 5001},
		{ATSType: models.ATSTypeC, ApplicantID: 3001, JobID: 5001},
	}, testCreds)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	send := func(method, path string, auth func(*http.Request), key, body string) int {
		req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		auth(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	a, b, c := header("BhRestToken", "rt"), header("Authorization", "Bearer ak"), basic("u", "pw")

	s.SetWriteFaults(WriteFaults{FailFirst: 1, LoseFirst: 1})
	for i, want := range []int{503, 502, 200, 200} {
		if got := send(http.MethodPatch, "/api/v1/opportunity-resources/2001", b, "k1", `{"status":"Rejected"}`); got != want {
			t.Fatalf("update %d = %d, want %d", i, got, want)
		}
	}
	if n := len(s.Writes()); n != 1 {
		t.Fatalf("writes with one Idempotency-Key = %d, want 1", n)
	}
	s.SetWriteFaults(WriteFaults{IgnoreIdempotencyKey: true})
	send(http.MethodPatch, "/api/v1/opportunity-resources/2001", b, "k1", `{"status":"Hired"}`)
	send(http.MethodPost, "/entity/JobSubmission/1001", a, "k2", `{"status":"Hired"}`)
	send(http.MethodPatch, "/v2/jobs/5001/candidates/3001", c, "k3", `{"fields":{"status":"Hired"}}`)
	for range 2 {
		send(http.MethodPut, "/entity/Note", a, "n1", `{"comments":"first","jobSubmission":{"id":1001}}`)
	}
	send(http.MethodPost, "/api/v1/opportunity-resources/2001/notes", b, "n2", `{"text":"second"}`)
	send(http.MethodPost, "/v2/jobs/5001/candidates/3001/comments", c, "n3", `{"body":"third"}`)
	if n := len(s.Notes(models.ATSTypeA, 1001)); n != 2 {
		t.Fatalf("notes with a repeated key, keys ignored = %d, want 2", n)
	}
	for _, tt := range []struct {
		path string
		auth func(*http.Request)
		want string
	}{
		{"/entity/JobSubmission/1001?fields=id,status", a, `"status":"Hired"`},
		{"/api/v1/opportunity-resources/2001", b, `"status":"Hired"`},
		{"/v2/jobs/5001/candidates/3001", c, `"fields":{"status":"Hired"}`},
		{"/query/Note?where=jobSubmission.id=1001", a, `"comments":"first"`},
		{"/api/v1/opportunity-resources/2001/notes", b, `{"data":[{"id":`},
		{"/v2/jobs/5001/candidates/3001/comments", c, `"body":"third"`},
	} {
		if status, _, body := get(t, srv.URL+tt.path, tt.auth); status != 200 || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s = %d %s, want it to hold %s", tt.path, status, body, tt.want)
		}
	}
}
