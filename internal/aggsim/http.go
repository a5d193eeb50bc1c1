package aggsim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Handler serves the API (/v1/connect/create-link, /v1/ats/jobs), the connect page
// (/connect/{token}) and the controls (/sim/...).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/connect/create-link", s.createLink)
	mux.HandleFunc("GET /v1/ats/jobs", s.listJobs)
	mux.HandleFunc("GET /connect/{token}", s.connectPage)
	mux.HandleFunc("POST /connect/{token}", s.connectSubmit)
	mux.HandleFunc("GET /sim/integrations", func(w http.ResponseWriter, _ *http.Request) { answer(w, s.Integrations()) })
	mux.HandleFunc("POST /sim/integrations/{id}/finish-sync", s.control(func(r *http.Request, id string) error { return s.FinishSync(id) }))
	mux.HandleFunc("POST /sim/integrations/{id}/fail-auth", s.control(func(r *http.Request, id string) error { return s.FailAuth(id) }))
	mux.HandleFunc("POST /sim/integrations/{id}/data-changed", s.control(func(r *http.Request, id string) error {
		return s.DataChanged(id, max(1, atoi(r.URL.Query().Get("times"))))
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

// listJobs pages by (changed_at, id), so a job changed while a client pages moves behind the
// cursor and is listed again rather than skipped.
func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		refuse(w, http.StatusUnauthorized, "PLATFORM.AUTHENTICATION_INVALID", "invalid API key")
		return
	}
	q := r.URL.Query()
	var after, curAt time.Time
	var curID string
	if v := q.Get("updated_after"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			refuse(w, http.StatusBadRequest, "PLATFORM.INPUT_INVALID", "updated_after is not RFC 3339")
			return
		}
		after = t
	}
	if v := q.Get("cursor"); v != "" {
		at, id, ok := strings.Cut(v, "_")
		t, err := time.Parse(time.RFC3339Nano, at)
		if !ok || err != nil {
			refuse(w, http.StatusBadRequest, "PLATFORM.INPUT_INVALID", "invalid cursor")
			return
		}
		curAt, curID = t, id
	}
	size := atoi(q.Get("page_size"))
	if size <= 0 || size > 250 {
		size = 100
	}
	withDeleted := q.Get("include_deleted") == "true"

	s.mu.Lock()
	in, ok := s.integrations[r.Header.Get("X-Integration-Id")]
	var f fault
	if ok && len(in.listingFaults) > 0 {
		f, in.listingFaults = in.listingFaults[0], in.listingFaults[1:]
	}
	var page []wireJob
	next := ""
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
	jobs := make([]*Job, 0, len(in.jobs))
	for _, j := range in.jobs {
		if j.changedAt.After(after) && (withDeleted || j.deletedAt == nil) &&
			(curID == "" || j.changedAt.After(curAt) || (j.changedAt.Equal(curAt) && j.RemoteID > curID)) {
			jobs = append(jobs, j)
		}
	}
	sort.Slice(jobs, func(a, b int) bool {
		if !jobs[a].changedAt.Equal(jobs[b].changedAt) {
			return jobs[a].changedAt.Before(jobs[b].changedAt)
		}
		return jobs[a].RemoteID < jobs[b].RemoteID
	})
	if len(jobs) > size {
		last := jobs[size-1]
		next = last.changedAt.Format(time.RFC3339Nano) + "_" + last.RemoteID
		jobs = jobs[:size]
	}
	for _, j := range jobs {
		page = append(page, wireJob{ID: "kmb_" + j.RemoteID, RemoteID: j.RemoteID, Name: j.Name, Description: j.Description,
			Status: j.Status, Location: wireLoc{Raw: j.Location}, RemoteCreatedAt: j.RemoteCreatedAt, ChangedAt: j.changedAt, RemoteDeletedAt: j.deletedAt})
	}
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
	if page == nil {
		page = []wireJob{}
	}
	answer(w, map[string]any{"next": nextPtr, "results": page})
}

// ListenAndServe serves s on addr until ctx ends.
func ListenAndServe(ctx context.Context, addr string, s *Server) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("aggregator simulator: %w", err)
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		s.Close()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
