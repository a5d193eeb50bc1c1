// Package atssim simulates the three ATS REST APIs that internal/ats reads (ATS-A job
// submissions, ATS-B opportunity resources, ATS-C person-on-job records), serving seeded
// records with per-record latency, error-status and hang injection. Tests run it with
// httptest; `recruitd dev` runs it in-process and `recruitd atssim` on its own.
//
// It is written independently of internal/ats, from the same wire shapes, so tests of the
// clients against it check the wire contract rather than shared code.
package atssim

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recruitd/recruitd/models"
)

// Record is one applicant record of one ATS type. ApplicantID is the job-submission id
// (ATS-A), the opportunity-resource id (ATS-B) or the person-on-job candidate id (ATS-C); an
// ATS-C record is found only under its JobID. Records of other ATS types are never served.
type Record struct {
	ATSType                           models.ATSType
	ApplicantID, JobID, CandidateID   int64
	FirstName, LastName, Email, Phone string

	// Latency delays the answer.
	Latency time.Duration
	// Status, when set and not 200, is answered instead of the record (for example 500, 503),
	// with the ATS's JSON error body.
	Status int
	// Hang never answers: the request is held until the client gives up, the server's base
	// context ends, or Close is called, and then the connection is dropped.
	Hang bool
}

// Credentials are the credentials the simulator accepts, one per ATS shape. A request with
// other credentials, or for a shape whose credential is empty, is answered 401.
type Credentials struct {
	RestToken string // ATS-A: header BhRestToken (or query parameter BhRestToken)
	APIKey    string // ATS-B: Authorization: Bearer
	Username  string // ATS-C: HTTP basic auth
	Password  string // ATS-C: HTTP basic auth
}

type recordKey struct {
	atsType models.ATSType
	job     int64 // ATS-C only: its records live under their job
	id      int64
}

func keyOf(r Record) recordKey {
	k := recordKey{atsType: r.ATSType, id: r.ApplicantID}
	if r.ATSType == models.ATSTypeC {
		k.job = r.JobID
	}
	return k
}

// Server is the simulator. It is safe for concurrent use.
type Server struct {
	creds    Credentials
	requests atomic.Int64
	closed   chan struct{}
	close    sync.Once

	mu      sync.RWMutex
	records map[recordKey]Record
	w       writeState
}

// New returns a simulator serving records and accepting creds.
func New(records []Record, creds Credentials) *Server {
	s := &Server{creds: creds, closed: make(chan struct{}), records: make(map[recordKey]Record, len(records))}
	for _, r := range records {
		s.Set(r)
	}
	return s
}

// Set adds r, or replaces the record with the same ATS type and ApplicantID (and JobID, for ATS-C).
func (s *Server) Set(r Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records[keyOf(r)] = r
}

// Requests returns how many requests reached the handler, whatever their answer.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// Close releases the requests held by Hang or Latency, dropping their connections, and makes
// later ones drop at once. Records are still served.
func (s *Server) Close() { s.close.Do(func() { close(s.closed) }) }

// Handler serves the three ATS shapes:
//
//	GET /entity/JobSubmission/{id}            ATS-A, header BhRestToken
//	GET /api/v1/opportunity-resources/{id}    ATS-B, Authorization: Bearer
//	GET /v2/jobs/{jobId}/candidates/{id}      ATS-C, HTTP basic auth
//
// and their writes back (each recorded once per Idempotency-Key unless SetWriteFaults says to
// ignore it; AllowFields refuses unknown fields and values), read back with Writes or
// GET /sim/writes, and through the ATS's reads: the record's GET carries the fields written
// (ATS-A in data, ATS-B at the top level, ATS-C in "fields"), and the notes are listed by
//
//	GET   /query/Note?where=jobSubmission.id={id}         ATS-A {"data": [{id, comments}]}
//	GET   /api/v1/opportunity-resources/{id}/notes        ATS-B {"data": [{id, text}]}
//	GET   /v2/jobs/{jobId}/candidates/{id}/comments       ATS-C {"data": [{id, body}]}
//
// The writes:
//
//	PUT   /entity/Note                                   ATS-A note {comments, jobSubmission.id}
//	POST  /entity/JobSubmission/{id}                     ATS-A update {field: value}
//	POST  /api/v1/opportunity-resources/{id}/notes       ATS-B note {text}
//	PATCH /api/v1/opportunity-resources/{id}             ATS-B update {field: value}
//	POST  /v2/jobs/{jobId}/candidates/{id}/comments      ATS-C comment {body}
//	PATCH /v2/jobs/{jobId}/candidates/{id}               ATS-C update {fields: {field: value}}
//
// Unknown records get 404 with a JSON error body; unknown paths get a plain-text 404.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /entity/JobSubmission/{id}", s.jobSubmission)
	mux.HandleFunc("GET /api/v1/opportunity-resources/{id}", s.opportunityResource)
	mux.HandleFunc("GET /v2/jobs/{job}/candidates/{id}", s.jobCandidate)
	mux.HandleFunc("PUT /entity/Note", s.noteA)
	mux.HandleFunc("POST /entity/JobSubmission/{id}", s.updateA)
	mux.HandleFunc("POST /api/v1/opportunity-resources/{id}/notes", s.noteB)
	mux.HandleFunc("PATCH /api/v1/opportunity-resources/{id}", s.updateB)
	mux.HandleFunc("POST /v2/jobs/{job}/candidates/{id}/comments", s.noteC)
	mux.HandleFunc("PATCH /v2/jobs/{job}/candidates/{id}", s.updateC)
	mux.HandleFunc("GET /query/Note", s.noteListA)
	mux.HandleFunc("GET /api/v1/opportunity-resources/{id}/notes", s.noteListB)
	mux.HandleFunc("GET /v2/jobs/{job}/candidates/{id}/comments", s.commentListC)
	mux.HandleFunc("GET /sim/writes", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.Writes()) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		mux.ServeHTTP(w, r)
	})
}

func (s *Server) lookup(k recordKey) (Record, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.records[k]
	return r, ok
}

func (s *Server) hasJob(t models.ATSType, job int64) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for k, r := range s.records {
		if k.atsType == t && r.JobID == job {
			return true
		}
	}
	return false
}

// inject applies the faults of rec and reports whether it has answered (or dropped) the
// request. errBody builds the ATS's error body for an injected status.
func (s *Server) inject(w http.ResponseWriter, r *http.Request, rec Record, errBody func(status int, msg string) any) bool {
	if rec.Hang {
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
		panic(http.ErrAbortHandler)
	}
	if rec.Latency > 0 {
		t := time.NewTimer(rec.Latency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			panic(http.ErrAbortHandler)
		case <-s.closed:
			panic(http.ErrAbortHandler)
		}
	}
	if rec.Status != 0 && rec.Status != http.StatusOK {
		if rec.Status == http.StatusTooManyRequests || rec.Status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		writeJSON(w, rec.Status, errBody(rec.Status, http.StatusText(rec.Status)))
		return true
	}
	return false
}

// withFields returns v as a JSON object with the fields written to its record: at the top level,
// or in the object named under; v itself when none was written.
func withFields(v any, fields map[string]string, under string) any {
	if len(fields) == 0 {
		return v
	}
	b, _ := json.Marshal(v)
	out := map[string]any{}
	_ = json.Unmarshal(b, &out)
	if under != "" {
		out[under] = fields
		return out
	}
	for k, val := range fields {
		if _, taken := out[k]; !taken {
			out[k] = val
		}
	}
	return out
}

// parseID parses a path id the way the ATS APIs do: a positive decimal integer.
func parseID(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

func equal(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// ATS-A: job submissions.

type bhError struct {
	ErrorMessage    string `json:"errorMessage"`
	ErrorMessageKey string `json:"errorMessageKey,omitempty"`
	ErrorCode       int    `json:"errorCode"`
}

func bhErr(status int, msg string) any { return bhError{ErrorMessage: msg, ErrorCode: status} }

type bhCandidate struct {
	ID        int64  `json:"id"`
	FirstName string `json:"firstName"`
	LastName  string `json:"lastName"`
	Email     string `json:"email"`
	Phone     string `json:"phone"`
}

type bhJobSubmission struct {
	ID        int64       `json:"id"`
	Candidate bhCandidate `json:"candidate"`
	JobOrder  struct {
		ID int64 `json:"id"`
	} `json:"jobOrder"`
}

func (s *Server) jobSubmission(w http.ResponseWriter, r *http.Request) {
	token := r.Header.Get("BhRestToken")
	if token == "" {
		token = r.URL.Query().Get("BhRestToken")
	}
	if !equal(token, s.creds.RestToken) {
		writeJSON(w, http.StatusUnauthorized, bhError{ErrorMessage: "Bad 'BhRestToken' or timed-out.", ErrorMessageKey: "errors.authentication.invalidRestToken", ErrorCode: 401})
		return
	}
	id, ok := parseID(r.PathValue("id"))
	if !ok {
		writeJSON(w, http.StatusBadRequest, bhError{ErrorMessage: "Invalid entity id", ErrorMessageKey: "errors.invalidEntityId", ErrorCode: 400})
		return
	}
	rec, ok := s.lookup(recordKey{atsType: models.ATSTypeA, id: id})
	if !ok {
		writeJSON(w, http.StatusNotFound, bhError{ErrorMessage: fmt.Sprintf("Cannot find entity of type JobSubmission with id %d", id), ErrorMessageKey: "errors.cannotFindEntity", ErrorCode: 404})
		return
	}
	if s.inject(w, r, rec, bhErr) {
		return
	}
	var js bhJobSubmission
	js.ID = rec.ApplicantID
	js.Candidate = bhCandidate{ID: rec.CandidateID, FirstName: rec.FirstName, LastName: rec.LastName, Email: rec.Email, Phone: rec.Phone}
	js.JobOrder.ID = rec.JobID
	writeJSON(w, http.StatusOK, map[string]any{"data": withFields(js, s.fieldsOf(models.ATSTypeA, 0, rec.ApplicantID), "")})
}

// ATS-B: opportunity resources.

type obError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func obErr(status int, msg string) any {
	var e obError
	e.Error.Code = strings.ToLower(strings.ReplaceAll(http.StatusText(status), " ", "_"))
	e.Error.Message = msg
	return e
}

type obResource struct {
	ID            int64 `json:"id"`
	OpportunityID int64 `json:"opportunityId"`
	Resource      struct {
		ID        int64  `json:"id"`
		FirstName string `json:"firstName"`
		LastName  string `json:"lastName"`
		Email     string `json:"email"`
		Mobile    string `json:"mobile"`
	} `json:"resource"`
}

func (s *Server) opportunityResource(w http.ResponseWriter, r *http.Request) {
	scheme, key, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || !equal(key, s.creds.APIKey) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="ATS-B"`)
		writeJSON(w, http.StatusUnauthorized, obErr(http.StatusUnauthorized, "invalid or missing API key"))
		return
	}
	id, ok := parseID(r.PathValue("id"))
	if !ok {
		writeJSON(w, http.StatusBadRequest, obErr(http.StatusBadRequest, "id must be a positive integer"))
		return
	}
	rec, ok := s.lookup(recordKey{atsType: models.ATSTypeB, id: id})
	if !ok {
		writeJSON(w, http.StatusNotFound, obErr(http.StatusNotFound, fmt.Sprintf("opportunity resource %d not found", id)))
		return
	}
	if s.inject(w, r, rec, obErr) {
		return
	}
	var o obResource
	o.ID, o.OpportunityID = rec.ApplicantID, rec.JobID
	o.Resource.ID, o.Resource.FirstName, o.Resource.LastName = rec.CandidateID, rec.FirstName, rec.LastName
	o.Resource.Email, o.Resource.Mobile = rec.Email, rec.Phone
	writeJSON(w, http.StatusOK, withFields(o, s.fieldsOf(models.ATSTypeB, 0, rec.ApplicantID), ""))
}

// ATS-C: person-on-job records.

type pjErrors struct {
	Errors []pjError `json:"errors"`
}

type pjError struct {
	Status string `json:"status"`
	Detail string `json:"detail"`
}

func pjErr(status int, msg string) any {
	return pjErrors{Errors: []pjError{{Status: strconv.Itoa(status), Detail: msg}}}
}

type pjValue struct {
	Value   string `json:"value"`
	Type    string `json:"type,omitempty"`
	Primary bool   `json:"primary,omitempty"`
}

type pjCandidate struct {
	ID     int64 `json:"id"`
	JobID  int64 `json:"jobId"`
	Person struct {
		ID        int64     `json:"id"`
		FirstName string    `json:"firstName"`
		LastName  string    `json:"lastName"`
		Emails    []pjValue `json:"emails"`
		Phones    []pjValue `json:"phones"`
	} `json:"person"`
}

func (s *Server) jobCandidate(w http.ResponseWriter, r *http.Request) {
	user, pass, _ := r.BasicAuth()
	// Both comparisons always run, so the time taken does not tell which one failed.
	userOK, passOK := equal(user, s.creds.Username), equal(pass, s.creds.Password)
	if !userOK || !passOK {
		w.Header().Set("WWW-Authenticate", `Basic realm="ATS-C"`)
		writeJSON(w, http.StatusUnauthorized, pjErr(http.StatusUnauthorized, "invalid credentials"))
		return
	}
	job, okJob := parseID(r.PathValue("job"))
	id, okID := parseID(r.PathValue("id"))
	if !okJob || !okID {
		writeJSON(w, http.StatusBadRequest, pjErr(http.StatusBadRequest, "ids must be positive integers"))
		return
	}
	if !s.hasJob(models.ATSTypeC, job) {
		writeJSON(w, http.StatusNotFound, pjErr(http.StatusNotFound, fmt.Sprintf("job %d not found", job)))
		return
	}
	rec, ok := s.lookup(recordKey{atsType: models.ATSTypeC, job: job, id: id})
	if !ok {
		writeJSON(w, http.StatusNotFound, pjErr(http.StatusNotFound, fmt.Sprintf("candidate %d not found on job %d", id, job)))
		return
	}
	if s.inject(w, r, rec, pjErr) {
		return
	}
	var c pjCandidate
	c.ID, c.JobID = rec.ApplicantID, rec.JobID
	c.Person.ID, c.Person.FirstName, c.Person.LastName = rec.CandidateID, rec.FirstName, rec.LastName
	c.Person.Emails, c.Person.Phones = []pjValue{}, []pjValue{}
	if rec.Email != "" {
		c.Person.Emails = append(c.Person.Emails, pjValue{Value: rec.Email, Primary: true})
	}
	if rec.Phone != "" {
		c.Person.Phones = append(c.Person.Phones, pjValue{Value: rec.Phone, Type: "mobile"})
	}
	writeJSON(w, http.StatusOK, withFields(c, s.fieldsOf(models.ATSTypeC, rec.JobID, rec.ApplicantID), "fields"))
}

// ListenAndServe serves s on addr until ctx ends, then shuts down: requests held by Hang or
// Latency are released (their contexts derive from ctx) and the others get up to 5 s to finish.
// It returns nil after a shutdown caused by ctx.
func ListenAndServe(ctx context.Context, addr string, s *Server) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("ats simulator: %w", err)
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("ats simulator on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
		return fmt.Errorf("ats simulator shutdown: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("ats simulator on %s: %w", ln.Addr(), err)
	}
	return nil
}
