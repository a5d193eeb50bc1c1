// Package aggsim simulates an integration aggregator in Kombo's shape for tests, `recruitd dev`
// and `recruitd aggsim`: connect links and a connect page that "authorises", integrations with
// their state and setup status, the paged job listing (updated_after and cursor, refused with
// INTEGRATION.SETUP_SYNC_PENDING until the first sync finishes), and Standard Webhooks deliveries
// (integration-created, integration-state-changed, data-changed) to the URL given with the link.
// For an ATS it also lists applications with their candidates (GET /v1/ats/applications) and
// candidates with their applications (GET /v1/ats/candidates), paged the same way, deleted ones
// with remote_deleted_at.
//
// Controls, from Go or over HTTP under /sim/: finish the first sync, add, change, close and delete
// jobs, add and change candidates, add, change, delete and erase applications, fail
// authentication, send data-changed (also twice, and for given models), reorder the next two
// deliveries, and answer the listings with an error status or not at all. An origin's
// integration may start with an ATS of its own (SeedOrigin) instead of the common jobs.
//
// It is written from the wire shapes, independently of internal/aggregator, so the adapter's
// tests check the contract rather than shared code.
package aggsim

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Job is a job of the simulated HR suite.
type Job struct {
	RemoteID, Name, Description, Status, Location string
	RemoteCreatedAt                               time.Time
	changedAt                                     time.Time
	deletedAt                                     *time.Time
}

// Options configure a Server.
type Options struct {
	// APIKey is the bearer key the API accepts.
	APIKey string
	// InitialJobs are the jobs of every new integration (a zero Status is OPEN).
	InitialJobs []Job
	// AutoFinish, when positive, finishes an integration's first sync that long after it is
	// authorised; zero leaves it to FinishSync.
	AutoFinish time.Duration
	// Client sends the webhooks (default: 5 s timeout).
	Client *http.Client
	// WebhookURL, when set, replaces the webhook URL given with every link (tests whose
	// receiver's public URL is not known when the link is made).
	WebhookURL string
}

type integration struct {
	id, origin          string
	webhookURL, secret  string
	state, setup        string
	everCompleted       bool
	jobs                map[string]*Job
	candidates          map[string]*Candidate
	applications        map[string]*Application
	appReads            map[bool]int // first pages of application listings, by whether updated_after was given
	listingFaults       []fault
	dataChangedRequests int
}

type fault struct {
	status int
	hang   bool
}

type link struct{ origin, name, webhookURL, secret string }

// Server is the simulator; safe for concurrent use.
type Server struct {
	opts Options
	hc   *http.Client

	mu           sync.Mutex
	links        map[string]link
	integrations map[string]*integration // by integration id
	byOrigin     map[string]string
	clock        time.Time // last changed_at handed out: strictly increasing
	seq          int
	epoch        int64 // makes event ids unique across simulator processes
	reorder      bool
	latency      time.Duration
	queue        chan delivery
	held         *delivery
	closed       chan struct{}
	closeOnce    sync.Once
	sent         atomic.Int64
	done         sync.WaitGroup
	w            writeState
	seeds        map[string]Seed // by origin
}

// Seed is what the integration an origin's authorisation creates starts with instead of
// Options.InitialJobs: an ATS with jobs, candidates and applications.
type Seed struct {
	Jobs         []Job
	Candidates   []Candidate
	Applications []Application
}

// SeedOrigin makes the integration the origin's next authorisation creates start with seed (an
// existing integration keeps what it has).
func (s *Server) SeedOrigin(origin string, seed Seed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seeds == nil {
		s.seeds = map[string]Seed{}
	}
	s.seeds[origin] = seed
}

// New starts a simulator; Close stops its webhook sender.
func New(o Options) *Server {
	s := &Server{opts: o, hc: o.Client, epoch: time.Now().UnixNano(), links: map[string]link{}, integrations: map[string]*integration{}, byOrigin: map[string]string{},
		queue: make(chan delivery, 1024), closed: make(chan struct{})}
	if s.hc == nil {
		s.hc = &http.Client{Timeout: 5 * time.Second}
	}
	s.done.Add(1)
	go s.send()
	return s
}

// Close stops sending webhooks and releases hung requests.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closed) })
	s.done.Wait()
}

// tick returns a changed_at later than every earlier one.
func (s *Server) tick() time.Time {
	now := time.Now().UTC().Truncate(time.Microsecond)
	if !now.After(s.clock) {
		now = s.clock.Add(time.Microsecond)
	}
	s.clock = now
	return now
}

// Integrations returns the ids of the integrations, sorted.
func (s *Server) Integrations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.integrations))
	for id := range s.integrations {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// IntegrationOf returns the integration id of a company (origin id), "" before authorisation.
func (s *Server) IntegrationOf(origin string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byOrigin[origin]
}

// Authorize completes the connect link with token, as the customer does on the connect page:
// a new integration (or the origin's existing one, re-authorised) becomes ACTIVE and its events
// are sent. It returns the integration id, "sim:" and the origin id, so a restarted simulator
// gives a company the integration id it had.
func (s *Server) Authorize(token string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.links[token]
	if !ok {
		return "", fmt.Errorf("unknown connect link")
	}
	delete(s.links, token)
	in := s.integrations[s.byOrigin[l.origin]]
	created := in == nil
	if created {
		s.seq++
		in = &integration{id: "sim:" + l.origin, origin: l.origin, setup: "FINAL_SYNC_PENDING", jobs: map[string]*Job{},
			candidates: map[string]*Candidate{}, applications: map[string]*Application{}, appReads: map[bool]int{}}
		seed, seeded := s.seeds[l.origin]
		if !seeded {
			seed.Jobs = s.opts.InitialJobs
		}
		for _, j := range seed.Jobs {
			if j.Status == "" {
				j.Status = "OPEN"
			}
			j.changedAt = s.tick()
			if j.RemoteCreatedAt.IsZero() {
				j.RemoteCreatedAt = j.changedAt
			}
			in.jobs[j.RemoteID] = &j
		}
		for _, c := range seed.Candidates {
			c.changedAt = s.tick()
			in.candidates[c.RemoteID] = &c
		}
		for _, a := range seed.Applications {
			s.putApplication(in, a)
		}
		s.integrations[in.id], s.byOrigin[l.origin] = in, in.id
	}
	in.webhookURL, in.secret, in.state = l.webhookURL, l.secret, "ACTIVE"
	if created {
		s.enqueue(in, "integration-created", map[string]any{"id": in.id, "tool": "simsuite", "category": "ATS",
			"end_user": map[string]any{"origin_id": in.origin, "organization_name": l.name}})
	}
	s.stateChanged(in)
	if in.everCompleted {
		s.dataChanged(in)
	} else if s.opts.AutoFinish > 0 {
		id := in.id
		time.AfterFunc(s.opts.AutoFinish, func() { _ = s.FinishSync(id) })
	}
	return in.id, nil
}

// FinishSync completes the integration's first sync: setup COMPLETED, then data-changed (jobs,
// candidates and applications).
func (s *Server) FinishSync(id string) error {
	return s.with(id, func(in *integration) {
		in.setup, in.everCompleted = "COMPLETED", true
		s.stateChanged(in)
		s.dataChanged(in, "ats_jobs", "ats_candidates", "ats_applications")
	})
}

// FailAuth makes the integration INVALID: listings are refused and the state change is sent.
func (s *Server) FailAuth(id string) error {
	return s.with(id, func(in *integration) {
		in.state = "INVALID"
		s.stateChanged(in)
	})
}

// PutJobs adds or changes jobs (by RemoteID; a zero Status is OPEN). Call DataChanged to tell.
func (s *Server) PutJobs(id string, jobs ...Job) error {
	return s.with(id, func(in *integration) {
		for _, j := range jobs {
			if j.Status == "" {
				j.Status = "OPEN"
			}
			j.changedAt = s.tick()
			if old, ok := in.jobs[j.RemoteID]; ok && j.RemoteCreatedAt.IsZero() {
				j.RemoteCreatedAt = old.RemoteCreatedAt
			}
			if j.RemoteCreatedAt.IsZero() {
				j.RemoteCreatedAt = j.changedAt
			}
			in.jobs[j.RemoteID] = &j
		}
	})
}

// AddJobs adds n generated open jobs, remote ids prefix000001 onwards.
func (s *Server) AddJobs(id, prefix string, n int) error {
	jobs := make([]Job, n)
	for i := range jobs {
		jobs[i] = Job{RemoteID: fmt.Sprintf("%s%06d", prefix, i+1), Name: fmt.Sprintf("Job %s%06d", prefix, i+1),
			Description: "Generated job for the import benchmark.", Location: "Berlin, DE"}
	}
	return s.PutJobs(id, jobs...)
}

// CloseJob sets the job's status to CLOSED.
func (s *Server) CloseJob(id, remoteID string) error {
	return s.changeJob(id, remoteID, func(j *Job) { j.Status = "CLOSED" })
}

// DeleteJob marks the job deleted (listed with remote_deleted_at when deleted jobs are asked for).
func (s *Server) DeleteJob(id, remoteID string) error {
	return s.changeJob(id, remoteID, func(j *Job) { t := time.Now().UTC(); j.deletedAt = &t })
}

func (s *Server) changeJob(id, remoteID string, f func(*Job)) error {
	var missing bool
	err := s.with(id, func(in *integration) {
		j, ok := in.jobs[remoteID]
		if !ok {
			missing = true
			return
		}
		f(j)
		j.changedAt = s.tick()
	})
	if err == nil && missing {
		err = fmt.Errorf("no job %s", remoteID)
	}
	return err
}

// DataChanged sends data-changed (ats_jobs) times times with one event id: a duplicate delivery.
func (s *Server) DataChanged(id string, times int) error {
	return s.with(id, func(in *integration) {
		d := s.dataChanged(in)
		for i := 1; i < times; i++ {
			s.queue <- d
		}
	})
}

// FailListing makes the next n listing calls of the integration answer status (hang: never).
func (s *Server) FailListing(id string, n, status int, hang bool) error {
	return s.with(id, func(in *integration) {
		for range n {
			in.listingFaults = append(in.listingFaults, fault{status: status, hang: hang})
		}
	})
}

// SetWebhookURL sends every later delivery to u (see Options.WebhookURL).
func (s *Server) SetWebhookURL(u string) {
	s.mu.Lock()
	s.opts.WebhookURL = u
	for _, in := range s.integrations {
		in.webhookURL = u
	}
	s.mu.Unlock()
}

// SetListingLatency delays every listing answer by d.
func (s *Server) SetListingLatency(d time.Duration) {
	s.mu.Lock()
	s.latency = d
	s.mu.Unlock()
}

// ReorderNext holds the next delivery back until the one after it has been sent.
func (s *Server) ReorderNext() {
	s.mu.Lock()
	s.reorder = true
	s.mu.Unlock()
}

// Sent is the number of webhook deliveries answered 2xx.
func (s *Server) Sent() int {
	return int(s.sent.Load())
}

func (s *Server) with(id string, f func(*integration)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.integrations[id]
	if !ok {
		return fmt.Errorf("no integration %s", id)
	}
	f(in)
	return nil
}

func (s *Server) stateChanged(in *integration) {
	s.enqueue(in, "integration-state-changed", map[string]any{"integration_id": in.id, "integration_tool": "simsuite",
		"integration_category": "ATS", "state": in.state, "setup_status": in.setup,
		"end_user": map[string]any{"origin_id": in.origin}})
}

// dataChanged sends data-changed for models (ats_jobs when none); the caller holds s.mu.
func (s *Server) dataChanged(in *integration, models ...string) delivery {
	in.dataChangedRequests++
	if len(models) == 0 {
		models = []string{"ats_jobs"}
	}
	changed := make([]map[string]string, len(models))
	for i, m := range models {
		changed[i] = map[string]string{"name": m}
	}
	return s.enqueue(in, "data-changed", map[string]any{"integration_id": in.id, "integration_tool": "simsuite",
		"integration_category": "ATS", "changed_models": changed})
}

// sign is the Standard Webhooks v1 signature of body.
func sign(secret, id string, ts int64, body []byte) string {
	key := []byte(secret)
	if enc, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if k, err := base64.StdEncoding.DecodeString(enc); err == nil {
			key = k
		}
	}
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s.%d.", id, ts)
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func (s *Server) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && s.opts.APIKey != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.APIKey)) == 1
}
