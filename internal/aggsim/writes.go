package aggsim

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
)

// Write is one write back to the simulated ATS, as the aggregator's write endpoints take it:
// Kind note (Text), link (Label, URL) or stage (Stage, the stage's name), on the application
// with RemoteID in integration Integration.
type Write struct {
	Integration, RemoteID string
	Kind                  string
	Text, Label, URL      string
	Stage                 string
	IdempotencyKey        string
}

// WriteFaults make the simulated ATS behind the aggregator behave like real ones.
type WriteFaults struct {
	// IgnoreIdempotencyKey records every write request, repeats of a key included.
	IgnoreIdempotencyKey bool
	// LoseFirst records the first LoseFirst requests of each distinct write (the same
	// application, kind and content) and answers them 502, as when the answer was lost.
	LoseFirst int
}

// writeState is the write side; guarded by Server.mu.
type writeState struct {
	writes   []Write
	keys     map[string]bool
	faults   WriteFaults
	seen     map[string]int
	stages   map[string][]string // integration -> stage names a move may name (none: any)
	attempts int
	after    func(Write)
}

// SetStages makes the integration's ATS accept stage moves only to the named stages (stage id
// "kmb_stage_<name>"); a move to another is refused 400 ATS.STAGE_NOT_FOUND.
func (s *Server) SetStages(id string, names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w.stages == nil {
		s.w.stages = map[string][]string{}
	}
	s.w.stages[id] = names
}

// SetWriteFaults sets the write faults (the zero value: none) and forgets the requests counted
// for them.
func (s *Server) SetWriteFaults(f WriteFaults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.faults, s.w.seen = f, nil
}

// AfterWrite sets f, called with each write after it is recorded and before it is answered.
func (s *Server) AfterWrite(f func(Write)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.after = f
}

// Writes returns the writes recorded (once per Idempotency-Key), oldest first.
func (s *Server) Writes() []Write {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.w.writes)
}

// WriteAttempts counts the write requests that reached an active integration, repeats included.
func (s *Server) WriteAttempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.attempts
}

// Stage returns the application's current stage name.
func (s *Server) Stage(id, remoteID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in, ok := s.integrations[id]; ok {
		if a, ok := in.applications[remoteID]; ok {
			return a.Stage
		}
	}
	return ""
}

// writeApplication answers the write endpoints: POST /v1/ats/applications/{id}/notes,
// POST /v1/ats/applications/{id}/result-links and PUT /v1/ats/applications/{id}/stage.
func (s *Server) writeApplication(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			refuse(w, http.StatusUnauthorized, "PLATFORM.AUTHENTICATION_INVALID", "invalid API key")
			return
		}
		var body struct {
			Content string `json:"content"`
			Label   string `json:"label"`
			URL     string `json:"url"`
			StageID string `json:"stage_id"`
		}
		raw, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err != nil || json.Unmarshal(raw, &body) != nil {
			refuse(w, http.StatusBadRequest, "PLATFORM.INPUT_INVALID", "the body is not JSON")
			return
		}
		remoteID, ok := strings.CutPrefix(r.PathValue("id"), "kmb_app_")
		wr := Write{Integration: r.Header.Get("X-Integration-Id"), RemoteID: remoteID, Kind: kind, Text: body.Content, Label: body.Label, URL: body.URL,
			IdempotencyKey: r.Header.Get("Idempotency-Key")}
		s.mu.Lock()
		in, known := s.integrations[wr.Integration]
		switch {
		case !known:
			s.mu.Unlock()
			refuse(w, http.StatusNotFound, "INTEGRATION.NOT_FOUND", "unknown integration")
			return
		case in.state != "ACTIVE":
			s.mu.Unlock()
			refuse(w, http.StatusForbidden, "INTEGRATION.AUTHENTICATION_INVALID", "the integration needs to be reconnected")
			return
		}
		s.w.attempts++
		app := in.applications[remoteID]
		if !ok || app == nil || app.deletedAt != nil {
			s.mu.Unlock()
			refuse(w, http.StatusNotFound, "ATS.APPLICATION_NOT_FOUND", "unknown application")
			return
		}
		switch kind {
		case "note":
			if body.Content == "" {
				s.mu.Unlock()
				refuse(w, http.StatusBadRequest, "PLATFORM.INPUT_INVALID", "content is required")
				return
			}
		case "link":
			if body.URL == "" || body.Label == "" {
				s.mu.Unlock()
				refuse(w, http.StatusBadRequest, "PLATFORM.INPUT_INVALID", "label and url are required")
				return
			}
		case "stage":
			name, okStage := strings.CutPrefix(body.StageID, "kmb_stage_")
			if allowed, set := s.w.stages[wr.Integration]; !okStage || name == "" || set && !slices.Contains(allowed, name) {
				s.mu.Unlock()
				refuse(w, http.StatusBadRequest, "ATS.STAGE_NOT_FOUND", "unknown stage")
				return
			}
			wr.Stage = name
		}
		if s.w.seen == nil {
			s.w.seen = map[string]int{}
		}
		sig := wr.Integration + "/" + wr.RemoteID + "/" + kind + "/" + wr.Text + "/" + wr.URL + "/" + wr.Stage
		s.w.seen[sig]++
		lose := s.w.seen[sig] <= s.w.faults.LoseFirst
		if wr.IdempotencyKey != "" && s.w.keys[wr.IdempotencyKey] && !s.w.faults.IgnoreIdempotencyKey {
			s.mu.Unlock()
			answer(w, map[string]any{})
			return
		}
		if wr.IdempotencyKey != "" {
			if s.w.keys == nil {
				s.w.keys = map[string]bool{}
			}
			s.w.keys[wr.IdempotencyKey] = true
		}
		if kind == "stage" {
			app.Stage = wr.Stage
			app.changedAt = s.tick()
		}
		s.w.writes = append(s.w.writes, wr)
		after := s.w.after
		s.mu.Unlock()
		if after != nil {
			after(wr)
		}
		if lose {
			refuse(w, http.StatusBadGateway, "PLATFORM.UNKNOWN_ERROR", "simulated lost answer")
			return
		}
		answer(w, map[string]any{})
	}
}
