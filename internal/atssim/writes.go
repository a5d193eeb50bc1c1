package atssim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/recruitd/recruitd/models"
)

// Write is one write the simulator recorded: a note (Note set) or a field update (Field and
// Value) on the record of ATSType and ApplicantID (and JobID, for ATS-C).
type Write struct {
	ATSType        models.ATSType `json:"atsType"`
	ApplicantID    int64          `json:"applicantId"`
	JobID          int64          `json:"jobId,omitempty"`
	Note           string         `json:"note,omitempty"`
	Field          string         `json:"field,omitempty"`
	Value          string         `json:"value,omitempty"`
	IdempotencyKey string         `json:"idempotencyKey,omitempty"`
}

// WriteFaults make the simulated ATS behave like real ones, for tests of the write-back.
type WriteFaults struct {
	// IgnoreIdempotencyKey records every write request, repeats of a key included, as the real
	// ATS APIs do.
	IgnoreIdempotencyKey bool
	// FailFirst answers the first FailFirst requests of each distinct write (the same record and
	// note text, or the same record, field and value) 503 without recording them.
	FailFirst int
	// LoseFirst records the next LoseFirst requests of each distinct write and answers them 502,
	// as when the ATS took a write and its answer was lost on the way back.
	LoseFirst int
}

// writeState is the simulator's write side; guarded by Server.mu.
type writeState struct {
	writes []Write
	keys   map[string]bool
	faults WriteFaults
	seen   map[string]int // requests per distinct write, for faults
	// allowed: per ATS type, field -> values accepted (no entry: any field and value).
	allowed map[models.ATSType]map[string][]string
	// attempts counts every write request that reached a handler with valid credentials.
	attempts int
	after    func(Write)
}

// AllowFields makes the ATS of type t accept only the fields named in fields, each with the
// values listed: any other field or value is refused (400 for ATS-A and ATS-B, 422 for ATS-C),
// as a real ATS refuses an unknown stage.
func (s *Server) AllowFields(t models.ATSType, fields map[string][]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w.allowed == nil {
		s.w.allowed = map[models.ATSType]map[string][]string{}
	}
	s.w.allowed[t] = fields
}

// SetWriteFaults sets the write faults (the zero value: none) and forgets the requests counted
// for them.
func (s *Server) SetWriteFaults(f WriteFaults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.faults, s.w.seen = f, nil
}

// AfterWrite sets f, called with each write after it is recorded and before it is answered (a
// test stops a worker there). nil removes it.
func (s *Server) AfterWrite(f func(Write)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.after = f
}

// Writes returns the writes recorded (a repeated Idempotency-Key is recorded once), oldest first.
func (s *Server) Writes() []Write {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.w.writes)
}

// WriteAttempts counts the write requests that reached the simulator with valid credentials,
// repeats included.
func (s *Server) WriteAttempts() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.w.attempts
}

// Notes returns the notes on one record, oldest first.
func (s *Server) Notes(t models.ATSType, applicantID int64) []string {
	var out []string
	for _, w := range s.Writes() {
		if w.ATSType == t && w.ApplicantID == applicantID && w.Field == "" {
			out = append(out, w.Note)
		}
	}
	return out
}

// Field returns the value last written to field of one record, and whether any was.
func (s *Server) Field(t models.ATSType, applicantID int64, field string) (string, bool) {
	v, ok := "", false
	for _, w := range s.Writes() {
		if w.ATSType == t && w.ApplicantID == applicantID && w.Field == field {
			v, ok = w.Value, true
		}
	}
	return v, ok
}

// fieldsOf returns the fields written to one record, each with its last value.
func (s *Server) fieldsOf(t models.ATSType, job, applicantID int64) map[string]string {
	out := map[string]string{}
	for _, w := range s.Writes() {
		if w.ATSType == t && w.ApplicantID == applicantID && w.Field != "" && (t != models.ATSTypeC || w.JobID == job) {
			out[w.Field] = w.Value
		}
	}
	return out
}

// notesOf returns the notes on one record, newest first, as list items {prop: text}.
func (s *Server) notesOf(t models.ATSType, job, applicantID int64, prop string) []map[string]any {
	out := []map[string]any{}
	ws := s.Writes()
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i]
		if w.ATSType == t && w.ApplicantID == applicantID && w.Field == "" && (t != models.ATSTypeC || w.JobID == job) {
			out = append(out, map[string]any{"id": i + 1, prop: w.Note})
		}
	}
	return out
}

// record checks and records one write and reports the status to answer (0: 200 OK).
func (s *Server) record(wr Write, refuse int) int {
	s.mu.Lock()
	s.w.attempts++
	if wr.Field != "" {
		if allowed, ok := s.w.allowed[wr.ATSType]; ok {
			if vals, ok := allowed[wr.Field]; !ok || !slices.Contains(vals, wr.Value) {
				s.mu.Unlock()
				return refuse
			}
		}
	}
	sig := fmt.Sprintf("%s/%d/%d/%q/%q/%q", wr.ATSType, wr.JobID, wr.ApplicantID, wr.Field, wr.Value, wr.Note)
	if s.w.seen == nil {
		s.w.seen = map[string]int{}
	}
	s.w.seen[sig]++
	n := s.w.seen[sig]
	if n <= s.w.faults.FailFirst {
		s.mu.Unlock()
		return http.StatusServiceUnavailable
	}
	answer := 0
	if n <= s.w.faults.FailFirst+s.w.faults.LoseFirst {
		answer = http.StatusBadGateway
	}
	if wr.IdempotencyKey != "" && s.w.keys[wr.IdempotencyKey] && !s.w.faults.IgnoreIdempotencyKey {
		s.mu.Unlock()
		return answer
	}
	if wr.IdempotencyKey != "" {
		if s.w.keys == nil {
			s.w.keys = map[string]bool{}
		}
		s.w.keys[wr.IdempotencyKey] = true
	}
	s.w.writes = append(s.w.writes, wr)
	after := s.w.after
	s.mu.Unlock()
	if after != nil {
		after(wr)
	}
	return answer
}

// readBody decodes a small JSON object body.
func readBody(r *http.Request, v any) bool {
	b, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	return err == nil && json.Unmarshal(b, v) == nil
}

func (s *Server) authA(w http.ResponseWriter, r *http.Request) bool {
	if !equal(r.Header.Get("BhRestToken"), s.creds.RestToken) {
		writeJSON(w, http.StatusUnauthorized, bhError{ErrorMessage: "Bad 'BhRestToken' or timed-out.", ErrorCode: 401})
		return false
	}
	return true
}

func (s *Server) authB(w http.ResponseWriter, r *http.Request) bool {
	scheme, key, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || !equal(key, s.creds.APIKey) {
		writeJSON(w, http.StatusUnauthorized, obErr(http.StatusUnauthorized, "invalid API key"))
		return false
	}
	return true
}

func (s *Server) authC(w http.ResponseWriter, r *http.Request) bool {
	user, pass, _ := r.BasicAuth()
	if !equal(user, s.creds.Username) || !equal(pass, s.creds.Password) {
		writeJSON(w, http.StatusUnauthorized, pjErr(http.StatusUnauthorized, "invalid credentials"))
		return false
	}
	return true
}

// answer records wr if its record exists and answers: 404 for an unknown record, the refusal
// status for an unknown field or value, else 200 (or 201 for a note).
func (s *Server) answerWrite(w http.ResponseWriter, r *http.Request, wr Write, k recordKey, refuse int, errBody func(int, string) any) {
	rec, ok := s.lookup(k)
	if !ok {
		writeJSON(w, http.StatusNotFound, errBody(http.StatusNotFound, "record not found"))
		return
	}
	if s.inject(w, r, rec, errBody) {
		return
	}
	wr.IdempotencyKey = r.Header.Get("Idempotency-Key")
	if st := s.record(wr, refuse); st != 0 {
		msg := "unknown field or value"
		if st >= 500 {
			msg = http.StatusText(st)
		}
		writeJSON(w, st, errBody(st, msg))
		return
	}
	if wr.Field == "" {
		writeJSON(w, http.StatusCreated, map[string]any{"changedEntityType": "Note", "changeType": "INSERT"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"changeType": "UPDATE"})
}

// single returns the one field of an update body.
func single(m map[string]string) (string, string, bool) {
	if len(m) != 1 {
		return "", "", false
	}
	for k, v := range m {
		return k, v, true
	}
	return "", "", false
}

func (s *Server) noteA(w http.ResponseWriter, r *http.Request) {
	if !s.authA(w, r) {
		return
	}
	var body struct {
		Comments      string `json:"comments"`
		JobSubmission struct {
			ID int64 `json:"id"`
		} `json:"jobSubmission"`
	}
	if !readBody(r, &body) || body.JobSubmission.ID <= 0 || body.Comments == "" {
		writeJSON(w, http.StatusBadRequest, bhErr(http.StatusBadRequest, "a note needs comments and jobSubmission.id"))
		return
	}
	id := body.JobSubmission.ID
	s.answerWrite(w, r, Write{ATSType: models.ATSTypeA, ApplicantID: id, Note: body.Comments}, recordKey{atsType: models.ATSTypeA, id: id}, http.StatusBadRequest, bhErr)
}

func (s *Server) updateA(w http.ResponseWriter, r *http.Request) {
	if s.authA(w, r) {
		s.updateOneField(w, r, models.ATSTypeA, bhErr)
	}
}

// updateOneField takes the ATS-A and ATS-B update shape: the record's id in the path and a JSON
// object that sets exactly one field.
func (s *Server) updateOneField(w http.ResponseWriter, r *http.Request, t models.ATSType, errBody func(int, string) any) {
	id, ok := parseID(r.PathValue("id"))
	var body map[string]string
	f, v, one := "", "", false
	if ok && readBody(r, &body) {
		f, v, one = single(body)
	}
	if !ok || !one {
		writeJSON(w, http.StatusBadRequest, errBody(http.StatusBadRequest, "an update sets one field"))
		return
	}
	s.answerWrite(w, r, Write{ATSType: t, ApplicantID: id, Field: f, Value: v}, recordKey{atsType: t, id: id}, http.StatusBadRequest, errBody)
}

func (s *Server) noteB(w http.ResponseWriter, r *http.Request) {
	if !s.authB(w, r) {
		return
	}
	id, ok := parseID(r.PathValue("id"))
	var body struct {
		Text string `json:"text"`
	}
	if !ok || !readBody(r, &body) || body.Text == "" {
		writeJSON(w, http.StatusBadRequest, obErr(http.StatusBadRequest, "a note needs text"))
		return
	}
	s.answerWrite(w, r, Write{ATSType: models.ATSTypeB, ApplicantID: id, Note: body.Text}, recordKey{atsType: models.ATSTypeB, id: id}, http.StatusBadRequest, obErr)
}

func (s *Server) updateB(w http.ResponseWriter, r *http.Request) {
	if s.authB(w, r) {
		s.updateOneField(w, r, models.ATSTypeB, obErr)
	}
}

func (s *Server) noteC(w http.ResponseWriter, r *http.Request) {
	if !s.authC(w, r) {
		return
	}
	job, okJ := parseID(r.PathValue("job"))
	id, ok := parseID(r.PathValue("id"))
	var body struct {
		Body string `json:"body"`
	}
	if !ok || !okJ || !readBody(r, &body) || body.Body == "" {
		writeJSON(w, http.StatusUnprocessableEntity, pjErr(http.StatusUnprocessableEntity, "a comment needs a body"))
		return
	}
	s.answerWrite(w, r, Write{ATSType: models.ATSTypeC, ApplicantID: id, JobID: job, Note: body.Body},
		recordKey{atsType: models.ATSTypeC, job: job, id: id}, http.StatusUnprocessableEntity, pjErr)
}

func (s *Server) updateC(w http.ResponseWriter, r *http.Request) {
	if !s.authC(w, r) {
		return
	}
	job, okJ := parseID(r.PathValue("job"))
	id, ok := parseID(r.PathValue("id"))
	var body struct {
		Fields map[string]string `json:"fields"`
	}
	f, v, one := "", "", false
	if ok && okJ && readBody(r, &body) {
		f, v, one = single(body.Fields)
	}
	if !one {
		writeJSON(w, http.StatusUnprocessableEntity, pjErr(http.StatusUnprocessableEntity, "an update sets one field"))
		return
	}
	s.answerWrite(w, r, Write{ATSType: models.ATSTypeC, ApplicantID: id, JobID: job, Field: f, Value: v},
		recordKey{atsType: models.ATSTypeC, job: job, id: id}, http.StatusUnprocessableEntity, pjErr)
}

// noteListA answers ATS-A's note query: GET /query/Note?where=jobSubmission.id={id}.
func (s *Server) noteListA(w http.ResponseWriter, r *http.Request) {
	if !s.authA(w, r) {
		return
	}
	id, ok := parseID(strings.TrimPrefix(r.URL.Query().Get("where"), "jobSubmission.id="))
	if !ok {
		writeJSON(w, http.StatusBadRequest, bhErr(http.StatusBadRequest, "where must be jobSubmission.id={id}"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": s.notesOf(models.ATSTypeA, 0, id, "comments")})
}

// noteListB answers GET /api/v1/opportunity-resources/{id}/notes.
func (s *Server) noteListB(w http.ResponseWriter, r *http.Request) {
	if !s.authB(w, r) {
		return
	}
	id, ok := parseID(r.PathValue("id"))
	if _, found := s.lookup(recordKey{atsType: models.ATSTypeB, id: id}); !ok || !found {
		writeJSON(w, http.StatusNotFound, obErr(http.StatusNotFound, "record not found"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": s.notesOf(models.ATSTypeB, 0, id, "text")})
}

// commentListC answers GET /v2/jobs/{job}/candidates/{id}/comments.
func (s *Server) commentListC(w http.ResponseWriter, r *http.Request) {
	if !s.authC(w, r) {
		return
	}
	job, okJ := parseID(r.PathValue("job"))
	id, ok := parseID(r.PathValue("id"))
	if _, found := s.lookup(recordKey{atsType: models.ATSTypeC, job: job, id: id}); !ok || !okJ || !found {
		writeJSON(w, http.StatusNotFound, pjErr(http.StatusNotFound, "record not found"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": s.notesOf(models.ATSTypeC, job, id, "body")})
}
