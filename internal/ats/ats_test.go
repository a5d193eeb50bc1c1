package ats_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/ats"
	"github.com/recruitd/recruitd/internal/atssim"
	"github.com/recruitd/recruitd/models"
)

var simCreds = atssim.Credentials{RestToken: "rt-S3CRET-a", APIKey: "ak-S3CRET-b", Username: "ats-c-user", Password: "pw-S3CRET-c"}

// secrets are the credential values no error or printed client may contain.
var secrets = []string{simCreds.RestToken, simCreds.APIKey, simCreds.Password, "WRONG-S3CRET"}

func credentials(t models.ATSType, baseURL string, c atssim.Credentials) map[string]string {
	switch t {
	case models.ATSTypeA:
		return map[string]string{"baseUrl": baseURL, "restToken": c.RestToken}
	case models.ATSTypeB:
		return map[string]string{"baseUrl": baseURL, "apiKey": c.APIKey}
	default:
		return map[string]string{"baseUrl": baseURL, "username": c.Username, "password": c.Password}
	}
}

// shape describes one ATS type under test: its record ids live in its own range.
type shape struct {
	atsType models.ATSType
	base    int64 // applicant ids are base+n
}

var shapes = []shape{{models.ATSTypeA, 1000}, {models.ATSTypeB, 2000}, {models.ATSTypeC, 3000}}

const job = 5001

func (s shape) record(n int64) atssim.Record {
	id := s.base + n
	cand := 7000 + id
	if s.atsType == models.ATSTypeC {
		cand = id
	}
	return atssim.Record{ATSType: s.atsType, ApplicantID: id, JobID: job, CandidateID: cand,
		FirstName: "Ada", LastName: "Quinn", Email: "ada@example.com", Phone: "+14155550101"}
}

func (s shape) lookup(n int64) ats.Lookup {
	l := ats.Lookup{ApplicantID: fmt.Sprint(s.base + n)}
	if s.atsType == models.ATSTypeC {
		l.JobID = fmt.Sprint(job)
	}
	return l
}

type fixture struct {
	sim *atssim.Server
	url string
}

func newFixture(t *testing.T, s shape) *fixture {
	t.Helper()
	var recs []atssim.Record
	for n := int64(1); n <= 3; n++ {
		recs = append(recs, s.record(n))
	}
	sim := atssim.New(recs, simCreds)
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	return &fixture{sim: sim, url: srv.URL}
}

func (f *fixture) client(t *testing.T, at models.ATSType, timeout time.Duration) ats.Client {
	t.Helper()
	c, err := ats.New(at, ats.Config{Credentials: credentials(at, f.url, simCreds), Timeout: timeout})
	if err != nil {
		t.Fatalf("New(%s) = %v", at, err)
	}
	return c
}

// checkNoSecret fails when s shows a credential.
func checkNoSecret(t *testing.T, what, s string) {
	t.Helper()
	for _, sec := range secrets {
		if strings.Contains(s, sec) {
			t.Errorf("%s %q shows a credential", what, s)
		}
	}
}

func TestApplicantFound(t *testing.T) {
	t.Parallel()
	for _, s := range shapes {
		t.Run(string(s.atsType), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, s)
			r := s.record(1)
			r.FirstName, r.LastName, r.Email, r.Phone = "Chloé", "Martin", "chloe@example.com", "+14155550199"
			f.sim.Set(r)
			got, err := f.client(t, s.atsType, 0).Applicant(t.Context(), s.lookup(1))
			if err != nil {
				t.Fatalf("Applicant(%+v) = %v", s.lookup(1), err)
			}
			want := ats.Applicant{ApplicantID: fmt.Sprint(r.ApplicantID), JobID: "5001", CandidateID: fmt.Sprint(r.CandidateID),
				FirstName: "Chloé", LastName: "Martin", Email: "chloe@example.com", Phone: "+14155550199"}
			if *got != want {
				t.Errorf("Applicant(%+v) = %+v, want %+v", s.lookup(1), *got, want)
			}
		})
	}
}

func TestApplicantErrors(t *testing.T) {
	t.Parallel()
	const timeout = 200 * time.Millisecond
	for _, s := range shapes {
		t.Run(string(s.atsType), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, s)
			for n, fault := range map[int64]func(*atssim.Record){
				10: func(r *atssim.Record) { r.Status = 500 },
				11: func(r *atssim.Record) { r.Status = 503 },
				12: func(r *atssim.Record) { r.Status = 429 },
				13: func(r *atssim.Record) { r.Status = 403 },
				14: func(r *atssim.Record) { r.Latency = 2 * time.Second },
				15: func(r *atssim.Record) { r.Hang = true },
				16: func(r *atssim.Record) { r.Latency = 20 * time.Millisecond },
			} {
				r := s.record(n)
				fault(&r)
				f.sim.Set(r)
			}
			wrong := simCreds
			wrong.RestToken, wrong.APIKey, wrong.Password = "WRONG-S3CRET", "WRONG-S3CRET", "WRONG-S3CRET"
			wrongCreds, err := ats.New(s.atsType, ats.Config{Credentials: credentials(s.atsType, f.url, wrong)})
			if err != nil {
				t.Fatal(err)
			}
			wrongPath, err := ats.New(s.atsType, ats.Config{Credentials: credentials(s.atsType, f.url+"/not-the-api", simCreds)})
			if err != nil {
				t.Fatal(err)
			}
			closed := httptest.NewServer(http.NotFoundHandler())
			closed.Close()
			down, err := ats.New(s.atsType, ats.Config{Credentials: credentials(s.atsType, closed.URL, simCreds)})
			if err != nil {
				t.Fatal(err)
			}
			c := f.client(t, s.atsType, timeout)
			type errCase struct {
				name   string
				client ats.Client
				l      ats.Lookup
				want   error
			}
			tests := []errCase{
				{"unknown id", c, s.lookup(999), ats.ErrNotFound},
				{"wrong credentials", wrongCreds, s.lookup(1), ats.ErrAuth},
				{"403", c, s.lookup(13), ats.ErrAuth},
				{"500", c, s.lookup(10), ats.ErrUnavailable},
				{"503", c, s.lookup(11), ats.ErrUnavailable},
				{"429", c, s.lookup(12), ats.ErrUnavailable},
				{"latency above timeout", c, s.lookup(14), ats.ErrUnavailable},
				{"hang", c, s.lookup(15), ats.ErrUnavailable},
				{"latency below timeout", c, s.lookup(16), nil},
				{"closed server", down, s.lookup(1), ats.ErrUnavailable},
				{"plain-text 404 from a wrong base path", wrongPath, s.lookup(1), ats.ErrUnavailable},
			}
			if s.atsType == models.ATSTypeC {
				tests = append(tests, errCase{"unknown job", c, ats.Lookup{ApplicantID: "3001", JobID: "5999"}, ats.ErrNotFound})
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					start := time.Now()
					_, err := tt.client.Applicant(t.Context(), tt.l)
					if took := time.Since(start); took > timeout+time.Second {
						t.Errorf("Applicant(%+v) took %s with a %s timeout", tt.l, took, timeout)
					}
					if tt.want == nil && err != nil || !errors.Is(err, tt.want) {
						t.Fatalf("Applicant(%+v) = %v, want %v", tt.l, err, tt.want)
					}
					if tt.want != ats.ErrNotFound && errors.Is(err, ats.ErrNotFound) {
						t.Errorf("Applicant(%+v) = %v: a failure reported as not found", tt.l, err)
					}
					if err != nil {
						checkNoSecret(t, "error", err.Error())
					}
				})
			}
		})
	}
}

func TestApplicantInvalidIDsSendNothing(t *testing.T) {
	t.Parallel()
	for _, s := range shapes {
		t.Run(string(s.atsType), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, s)
			c := f.client(t, s.atsType, 0)
			good := s.lookup(1)
			var lookups []ats.Lookup
			for _, bad := range []string{"12a", "0", "-1", "+1", "007", " 1", "1.0", "1e3", "99999999999999999999", "1/../2", "%31"} {
				lookups = append(lookups, ats.Lookup{ApplicantID: bad, JobID: good.JobID}, ats.Lookup{ApplicantID: good.ApplicantID, JobID: bad})
			}
			lookups = append(lookups, ats.Lookup{JobID: good.JobID})
			if s.atsType == models.ATSTypeC {
				lookups = append(lookups, ats.Lookup{ApplicantID: good.ApplicantID})
			}
			for _, l := range lookups {
				_, err := c.Applicant(t.Context(), l)
				if !errors.Is(err, ats.ErrInvalidID) {
					t.Errorf("Applicant(%+v) = %v, want %v", l, err, ats.ErrInvalidID)
				}
			}
			if n := f.sim.Requests(); n != 0 {
				t.Errorf("%d requests reached the ATS, want none", n)
			}
		})
	}
}

func TestATSCWithoutJobID(t *testing.T) {
	t.Parallel()
	f := newFixture(t, shapes[2])
	_, err := f.client(t, models.ATSTypeC, 0).Applicant(t.Context(), ats.Lookup{ApplicantID: "3001"})
	if !errors.Is(err, ats.ErrJobIDRequired) || !errors.Is(err, ats.ErrInvalidID) {
		t.Errorf("Applicant without job id = %v, want %v (an %v)", err, ats.ErrJobIDRequired, ats.ErrInvalidID)
	}
	if n := f.sim.Requests(); n != 0 {
		t.Errorf("%d requests reached the ATS, want none", n)
	}
	if !ats.RequiresJobID(models.ATSTypeC) || ats.RequiresJobID(models.ATSTypeA) || ats.RequiresJobID(models.ATSTypeB) {
		t.Error("RequiresJobID is true only for ATS-C")
	}
}

func TestCallerContext(t *testing.T) {
	t.Parallel()
	s := shapes[0]
	f := newFixture(t, s)
	r := s.record(15)
	r.Hang = true
	f.sim.Set(r)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := f.client(t, s.atsType, 0).Applicant(ctx, s.lookup(15))
	if !errors.Is(err, ats.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Applicant with an expiring context = %v, want %v and %v", err, ats.ErrUnavailable, context.DeadlineExceeded)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("Applicant took %s after the context ended", took)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	for _, at := range []models.ATSType{models.ATSTypeD, "", "ATS-E"} {
		if _, err := ats.New(at, ats.Config{BaseURL: "https://ats.example.com", Credentials: map[string]string{"apiKey": "x"}}); !errors.Is(err, ats.ErrUnsupported) {
			t.Errorf("New(%q) = %v, want %v", at, err, ats.ErrUnsupported)
		}
		if got := ats.ExpectedCredentialFields(at); got != nil {
			t.Errorf("ExpectedCredentialFields(%q) = %q, want nil", at, got)
		}
	}
	for at, want := range map[models.ATSType]string{
		models.ATSTypeA: "baseUrl restToken",
		models.ATSTypeB: "baseUrl apiKey",
		models.ATSTypeC: "baseUrl username password",
	} {
		if got := strings.Join(ats.ExpectedCredentialFields(at), " "); got != want {
			t.Errorf("ExpectedCredentialFields(%s) = %q, want %q", at, got, want)
		}
		if _, err := ats.New(at, ats.Config{}); !errors.Is(err, ats.ErrMisconfigured) || !strings.Contains(err.Error(), strings.ReplaceAll(want, " ", ", ")) {
			t.Errorf("New(%s, no credentials) = %v, want %v naming %s", at, err, ats.ErrMisconfigured, want)
		}
	}
	for _, base := range []string{"ftp://ats.example.com", "https://", "https://u:pw-S3CRET-c@ats.example.com", "https://ats.example.com/?token=ak-S3CRET-b", "::"} {
		_, err := ats.New(models.ATSTypeB, ats.Config{BaseURL: base, Credentials: map[string]string{"apiKey": simCreds.APIKey}})
		if !errors.Is(err, ats.ErrMisconfigured) {
			t.Errorf("New(baseUrl %q) = %v, want %v", base, err, ats.ErrMisconfigured)
			continue
		}
		checkNoSecret(t, "error", err.Error())
	}
	c, err := ats.New(models.ATSTypeC, ats.Config{BaseURL: "https://ats.example.com/api/", Credentials: credentials(models.ATSTypeC, "", simCreds)})
	if err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		checkNoSecret(t, "printed client", fmt.Sprintf(verb, c))
	}
}

// TestNoRedirects checks that a redirect is not followed, so the credentials in headers never
// reach another host.
func TestNoRedirects(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the redirect was followed, with BhRestToken %q", r.Header.Get("BhRestToken"))
	}))
	defer other.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer redirect.Close()
	for _, hc := range []*http.Client{nil, redirect.Client()} {
		c, err := ats.New(models.ATSTypeA, ats.Config{Credentials: credentials(models.ATSTypeA, redirect.URL, simCreds), HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Applicant(t.Context(), ats.Lookup{ApplicantID: "1001"}); !errors.Is(err, ats.ErrBadResponse) {
			t.Errorf("Applicant behind a redirect = %v, want %v", err, ats.ErrBadResponse)
		}
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":2001,"opportunityId":5001,"resource":{"id":8001,"firstName":"%s"}}`, strings.Repeat("a", 1<<20))
	}))
	defer srv.Close()
	c, err := ats.New(models.ATSTypeB, ats.Config{Credentials: credentials(models.ATSTypeB, srv.URL, simCreds)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Applicant(t.Context(), ats.Lookup{ApplicantID: "2001"}); !errors.Is(err, ats.ErrBadResponse) {
		t.Errorf("Applicant with a body over 1 MiB = %v, want %v", err, ats.ErrBadResponse)
	}
}
