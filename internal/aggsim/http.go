package aggsim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/recruitd/recruitd/internal/simhttp"
)

// Handler serves the API (/v1/connect/create-link, /v1/ats/jobs, /v1/ats/applications,
// /v1/ats/candidates; the write endpoints under /v1/ats/applications/{id}: notes, result-links,
// stage), the connect page (/connect/{token}) and the controls (/sim/..., GET /sim/writes).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/connect/create-link", s.createLink)
	mux.HandleFunc("GET /v1/ats/jobs", s.listJobs)
	mux.HandleFunc("GET /v1/ats/applications", s.listApplications)
	mux.HandleFunc("GET /v1/ats/candidates", s.listCandidates)
	mux.HandleFunc("POST /v1/ats/applications/{id}/notes", s.writeApplication("note"))
	mux.HandleFunc("POST /v1/ats/applications/{id}/result-links", s.writeApplication("link"))
	mux.HandleFunc("PUT /v1/ats/applications/{id}/stage", s.writeApplication("stage"))
	mux.HandleFunc("GET /sim/writes", func(w http.ResponseWriter, _ *http.Request) { answer(w, s.Writes()) })
	mux.HandleFunc("GET /connect/{token}", s.connectPage)
	mux.HandleFunc("POST /connect/{token}", s.connectSubmit)
	mux.HandleFunc("GET /sim/integrations", func(w http.ResponseWriter, _ *http.Request) { answer(w, s.Integrations()) })
	mux.HandleFunc("POST /sim/integrations/{id}/finish-sync", s.control(func(r *http.Request, id string) error { return s.FinishSync(id) }))
	mux.HandleFunc("POST /sim/integrations/{id}/fail-auth", s.control(func(r *http.Request, id string) error { return s.FailAuth(id) }))
	mux.HandleFunc("POST /sim/integrations/{id}/data-changed", s.control(func(r *http.Request, id string) error {
		times := max(1, atoi(r.URL.Query().Get("times")))
		if m := r.URL.Query().Get("models"); m != "" {
			return s.DataChangedFor(id, times, strings.Split(m, ",")...)
		}
		return s.DataChanged(id, times)
	}))
	mux.HandleFunc("POST /sim/integrations/{id}/candidates", s.control(func(r *http.Request, id string) error {
		var cands []struct{ RemoteID, FirstName, LastName, Email, Phone string }
		if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&cands); err != nil {
			return err
		}
		out := make([]Candidate, len(cands))
		for i, c := range cands {
			out[i] = Candidate{RemoteID: c.RemoteID, FirstName: c.FirstName, LastName: c.LastName, Email: c.Email, Phone: c.Phone}
		}
		return s.PutCandidates(id, out...)
	}))
	mux.HandleFunc("POST /sim/integrations/{id}/applications", s.control(func(r *http.Request, id string) error {
		q := r.URL.Query()
		if n := atoi(q.Get("generate")); n > 0 {
			return s.AddApplications(id, q.Get("prefix"), n, strings.Split(q.Get("jobs"), ",")...)
		}
		var apps []struct{ RemoteID, CandidateRemoteID, JobRemoteID, Stage, Outcome string }
		if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&apps); err != nil {
			return err
		}
		out := make([]Application, len(apps))
		for i, a := range apps {
			out[i] = Application{RemoteID: a.RemoteID, CandidateRemoteID: a.CandidateRemoteID, JobRemoteID: a.JobRemoteID,
				Stage: a.Stage, Outcome: strings.ToUpper(a.Outcome)}
		}
		return s.PutApplications(id, out...)
	}))
	mux.HandleFunc("POST /sim/integrations/{id}/applications/{remoteId}", s.control(func(r *http.Request, id string) error {
		q := r.URL.Query()
		return s.ChangeApplication(id, r.PathValue("remoteId"), q.Get("stage"), strings.ToUpper(q.Get("outcome")))
	}))
	mux.HandleFunc("DELETE /sim/integrations/{id}/applications/{remoteId}", s.control(func(r *http.Request, id string) error {
		if r.URL.Query().Get("erase") != "" {
			return s.EraseApplication(id, r.PathValue("remoteId"))
		}
		return s.DeleteApplication(id, r.PathValue("remoteId"))
	}))
	mux.HandleFunc("POST /sim/integrations/{id}/jobs", s.control(func(r *http.Request, id string) error {
		if n := atoi(r.URL.Query().Get("generate")); n > 0 {
			return s.AddJobs(id, r.URL.Query().Get("prefix"), n)
		}
		var jobs []struct{ RemoteID, Name, Status, Location, Description string }
		if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&jobs); err != nil {
			return err
		}
		out := make([]Job, len(jobs))
		for i, j := range jobs {
			out[i] = Job{RemoteID: j.RemoteID, Name: j.Name, Status: strings.ToUpper(j.Status), Location: j.Location, Description: j.Description}
		}
		return s.PutJobs(id, out...)
	}))
	mux.HandleFunc("POST /sim/integrations/{id}/jobs/{remoteId}/close", s.control(func(r *http.Request, id string) error {
		return s.CloseJob(id, r.PathValue("remoteId"))
	}))
	mux.HandleFunc("DELETE /sim/integrations/{id}/jobs/{remoteId}", s.control(func(r *http.Request, id string) error {
		return s.DeleteJob(id, r.PathValue("remoteId"))
	}))
	mux.HandleFunc("POST /sim/integrations/{id}/listing-faults", s.control(func(r *http.Request, id string) error {
		q := r.URL.Query()
		return s.FailListing(id, max(1, atoi(q.Get("count"))), atoi(q.Get("status")), q.Get("hang") != "")
	}))
	mux.HandleFunc("POST /sim/webhooks/reorder-next", func(w http.ResponseWriter, _ *http.Request) { s.ReorderNext(); w.WriteHeader(http.StatusNoContent) })
	return mux
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func (s *Server) control(f func(r *http.Request, id string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := f(r, r.PathValue("id")); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

func answer(w http.ResponseWriter, data any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": data})
}

func refuse(w http.ResponseWriter, status int, code, title string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "error", "error": map[string]string{"code": code, "title": title}})
}

func (s *Server) createLink(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		refuse(w, http.StatusUnauthorized, "PLATFORM.AUTHENTICATION_INVALID", "invalid API key")
		return
	}
	var req struct {
		Origin     string `json:"end_user_origin_id"`
		Name       string `json:"end_user_organization_name"`
		WebhookURL string `json:"webhook_url"`
		Secret     string `json:"webhook_secret"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&req); err != nil || req.Origin == "" {
		refuse(w, http.StatusBadRequest, "PLATFORM.INPUT_INVALID", "end_user_origin_id is required")
		return
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	token := hex.EncodeToString(b)
	s.mu.Lock()
	if s.opts.WebhookURL != "" {
		req.WebhookURL = s.opts.WebhookURL
	}
	s.links[token] = link{origin: req.Origin, name: req.Name, webhookURL: req.WebhookURL, secret: req.Secret}
	s.mu.Unlock()
	answer(w, map[string]string{"link": "http://" + r.Host + "/connect/" + token})
}

func (s *Server) connectPage(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	s.mu.Lock()
	l, ok := s.links[token]
	s.mu.Unlock()
	if !ok {
		http.Error(w, "This connect link is unknown or was already used.", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><title>Connect your HR suite</title><h1>Connect %s's HR suite</h1>
<p>The simulated aggregator will read your jobs. Nothing is written back to the HR suite.</p>
<form method="post"><button>Authorise</button></form>`, html.EscapeString(l.name))
}

func (s *Server) connectSubmit(w http.ResponseWriter, r *http.Request) {
	id, err := s.Authorize(r.PathValue("token"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><title>Connected</title><h1>Authorised</h1><p>Integration %s is syncing; you can close this page.</p>`, html.EscapeString(id))
}

type wireJob struct {
	ID              string     `json:"id"`
	RemoteID        string     `json:"remote_id"`
	Name            string     `json:"name"`
	Description     string     `json:"description"`
	Status          string     `json:"status"`
	Location        wireLoc    `json:"location"`
	RemoteCreatedAt time.Time  `json:"remote_created_at"`
	ChangedAt       time.Time  `json:"changed_at"`
	RemoteDeletedAt *time.Time `json:"remote_deleted_at"`
}

type wireLoc struct {
	Raw string `json:"raw"`
}

// listQuery is a listing's parameters: updated_after, the cursor ((changed_at, id) of the last
// record of the previous page), the page size and include_deleted.
type listQuery struct {
	after, curAt time.Time
	curID        string
	size         int
	withDeleted  bool
	ids          []string // the aggregator ids asked for (none: all)
}

// includes reports whether a record changed at t with id and deleted or not belongs on the page
// after the cursor.
func (q listQuery) includes(t time.Time, id string, deleted bool) bool {
	return t.After(q.after) && (q.withDeleted || !deleted) &&
		(q.curID == "" || t.After(q.curAt) || (t.Equal(q.curAt) && id > q.curID))
}

// record is one listed record with the time and id it pages by.
type record struct {
	at   time.Time
	id   string
	wire any
}

// page sorts records by (time, id), keeps the first q.size and returns them with the next
// page's cursor ("" on the last page).
func (q listQuery) page(recs []record) ([]any, string) {
	sort.Slice(recs, func(a, b int) bool {
		if !recs[a].at.Equal(recs[b].at) {
			return recs[a].at.Before(recs[b].at)
		}
		return recs[a].id < recs[b].id
	})
	next := ""
	if len(recs) > q.size {
		last := recs[q.size-1]
		next = last.at.Format(time.RFC3339Nano) + "_" + last.id
		recs = recs[:q.size]
	}
	out := make([]any, len(recs))
	for i, r := range recs {
		out[i] = r.wire
	}
	return out, next
}

// listJobs pages by (changed_at, id), so a job changed while a client pages moves behind the
// cursor and is listed again rather than skipped.
func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	s.serveListing(w, r, func(in *integration, q listQuery) ([]any, string) {
		var recs []record
		for _, j := range in.jobs {
			if q.includes(j.changedAt, j.RemoteID, j.deletedAt != nil) {
				recs = append(recs, record{at: j.changedAt, id: j.RemoteID, wire: wireJob{ID: "kmb_" + j.RemoteID, RemoteID: j.RemoteID,
					Name: j.Name, Description: j.Description, Status: j.Status, Location: wireLoc{Raw: j.Location},
					RemoteCreatedAt: j.RemoteCreatedAt, ChangedAt: j.changedAt, RemoteDeletedAt: j.deletedAt}})
			}
		}
		return q.page(recs)
	})
}

// listApplications pages applications with their candidate, stage and job expanded by the
// later of their own and their candidate's change (what updated_after covers), reporting
// changed_at as the application's own.
func (s *Server) listApplications(w http.ResponseWriter, r *http.Request) {
	s.serveListing(w, r, func(in *integration, q listQuery) ([]any, string) {
		if q.curID == "" && q.ids == nil {
			in.appReads[!q.after.IsZero()]++
		}
		var recs []record
		for _, a := range in.applications {
			if q.ids != nil && !slices.Contains(q.ids, "kmb_app_"+a.RemoteID) {
				continue
			}
			if at := in.effective(a); q.includes(at, a.RemoteID, a.deletedAt != nil) {
				recs = append(recs, record{at: at, id: a.RemoteID, wire: in.applicationWire(a)})
			}
		}
		return q.page(recs)
	})
}

// listCandidates pages candidates with their applications (not deleted ones).
func (s *Server) listCandidates(w http.ResponseWriter, r *http.Request) {
	s.serveListing(w, r, func(in *integration, q listQuery) ([]any, string) {
		byCand := map[string][]wireAppOfCand{}
		for _, a := range in.applications {
			if a.deletedAt == nil {
				byCand[a.CandidateRemoteID] = append(byCand[a.CandidateRemoteID], wireAppOfCand{ID: "kmb_app_" + a.RemoteID,
					RemoteID: a.RemoteID, Outcome: a.Outcome, CurrentStage: stageWire(a.Stage), Job: in.jobRef(a.JobRemoteID)})
			}
		}
		var recs []record
		for _, c := range in.candidates {
			if q.includes(c.changedAt, c.RemoteID, false) {
				w := candidateWire(c)
				w.Applications = byCand[c.RemoteID]
				if w.Applications == nil {
					w.Applications = []wireAppOfCand{}
				}
				recs = append(recs, record{at: c.changedAt, id: c.RemoteID, wire: struct {
					wireCandidate
					ChangedAt time.Time `json:"changed_at"`
				}{w, c.changedAt}})
			}
		}
		return q.page(recs)
	})
}

// serveListing answers a listing: the API key, updated_after, cursor, page_size and
// include_deleted, the integration's state and setup (refusals as the aggregator's), its
// injected faults and latency, then the page that build makes (with s.mu held).
func (s *Server) serveListing(w http.ResponseWriter, r *http.Request, build func(in *integration, q listQuery) ([]any, string)) {
	if !s.authorized(r) {
		refuse(w, http.StatusUnauthorized, "PLATFORM.AUTHENTICATION_INVALID", "invalid API key")
		return
	}
	params := r.URL.Query()
	var q listQuery
	if v := params.Get("updated_after"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			refuse(w, http.StatusBadRequest, "PLATFORM.INPUT_INVALID", "updated_after is not RFC 3339")
			return
		}
		q.after = t
	}
	if v := params.Get("cursor"); v != "" {
		at, id, ok := strings.Cut(v, "_")
		t, err := time.Parse(time.RFC3339Nano, at)
		if !ok || err != nil {
			refuse(w, http.StatusBadRequest, "PLATFORM.INPUT_INVALID", "invalid cursor")
			return
		}
		q.curAt, q.curID = t, id
	}
	q.size = atoi(params.Get("page_size"))
	if q.size <= 0 || q.size > 250 {
		q.size = 100
	}
	q.withDeleted = params.Get("include_deleted") == "true"
	if v := params.Get("ids"); v != "" {
		q.ids = strings.Split(v, ",")
	}

	s.mu.Lock()
	in, ok := s.integrations[r.Header.Get("X-Integration-Id")]
	var f fault
	if ok && len(in.listingFaults) > 0 {
		f, in.listingFaults = in.listingFaults[0], in.listingFaults[1:]
	}
	switch {
	case !ok:
		s.mu.Unlock()
		refuse(w, http.StatusNotFound, "INTEGRATION.NOT_FOUND", "unknown integration")
		return
	case in.state != "ACTIVE":
		s.mu.Unlock()
		refuse(w, http.StatusForbidden, "INTEGRATION.AUTHENTICATION_INVALID", "the integration needs to be reconnected")
		return
	case in.setup != "COMPLETED":
		s.mu.Unlock()
		refuse(w, http.StatusServiceUnavailable, "INTEGRATION.SETUP_SYNC_PENDING", "The integration's setup sync is still running.")
		return
	}
	page, next := build(in, q)
	latency := s.latency
	s.mu.Unlock()

	if latency > 0 {
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case f.hang:
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
		return
	case f.status != 0:
		refuse(w, f.status, "PLATFORM.UNKNOWN_ERROR", "simulated failure")
		return
	}
	var nextPtr *string
	if next != "" {
		nextPtr = &next
	}
	answer(w, map[string]any{"next": nextPtr, "results": page})
}

// ListenAndServe serves s on addr until ctx ends.
func ListenAndServe(ctx context.Context, addr string, s *Server) error {
	return simhttp.ListenAndServe(ctx, "aggregator simulator", addr, s.Handler(), s.Close)
}
