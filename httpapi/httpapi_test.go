package httpapi_test

import (
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/activities"
	"github.com/recruitd/recruitd/api"
	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/assessments"
	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/generate"
	"github.com/recruitd/recruitd/internal/health"
	"github.com/recruitd/recruitd/internal/httpmetrics"
	"github.com/recruitd/recruitd/internal/integrity"
	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/invite"
	"github.com/recruitd/recruitd/internal/jobs"
	"github.com/recruitd/recruitd/internal/openapitest"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/partners"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/report"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/internal/temporaltest"
	"github.com/recruitd/recruitd/internal/thread"
	"github.com/recruitd/recruitd/models"
	rtemporal "github.com/recruitd/recruitd/temporal"
	"github.com/recruitd/recruitd/workflows/starter"
)

// syncBuffer is an outbox destination the worker writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type fixture struct {
	h      http.Handler
	srv    *httptest.Server
	tc     client.Client
	queue  string
	outbox *syncBuffer
	box    *secretbox.Box
	// worker is the running worker; startWorker starts another on the same queue.
	worker      *rtemporal.Workers
	startWorker func() *rtemporal.Workers
	st          *store.Store
	launcher    *outbox.Launcher
	interviews  *interview.Sessions // the candidate page's feature, for tests that add an identity check
	api         *openapitest.Checker
	reg         *prometheus.Registry // the process's registry, which cmd/recruitd serves privately
	acme        *models.Company
	acmeKey     string
	other       *models.Company
	otherKy     string
}

type fixtureOpts struct {
	env      map[string]string
	msg      channels.Config
	temporal *temporaltest.Server
	dbURL    string    // a migrated database instead of a pgtest one
	pool     *sql.DB   // a pool on a migrated database (pgtest.DB.Counted) instead of a pgtest one
	log      io.Writer // the worker's log (activities and the Temporal SDK), text; none when nil
	eval     report.Evaluator
	// production: the production bounds of a request's database work (DB_REQUEST_TIMEOUT 3s)
	// and of its workflow start (2s), for the outage tests; others get longer ones.
	production bool
}

type fixtureOpt func(*fixtureOpts)

// withProductionBounds gives requests the production bounds on their database work and their
// workflow starts, for the tests of what a client sees when Postgres or Temporal is away.
func withProductionBounds() fixtureOpt {
	return func(o *fixtureOpts) { o.production, o.env["DB_REQUEST_TIMEOUT"] = true, "3s" }
}

// withEnv sets configuration variables ("NAME=value").
func withEnv(kv ...string) fixtureOpt {
	return func(o *fixtureOpts) {
		for _, s := range kv {
			k, v, _ := strings.Cut(s, "=")
			o.env[k] = v
		}
	}
}

// withTemporal uses srv instead of the test process's shared Temporal server.
func withTemporal(srv *temporaltest.Server) fixtureOpt {
	return func(o *fixtureOpts) { o.temporal = srv }
}

// withDatabase uses the migrated database at url instead of a fresh pgtest one.
func withDatabase(url string) fixtureOpt { return func(o *fixtureOpts) { o.dbURL = url } }

// withPool uses pool, on a migrated database, instead of a fresh pgtest one.
func withPool(pool *sql.DB) fixtureOpt { return func(o *fixtureOpts) { o.pool = pool } }

// withWorkerLog writes the worker's log, its activities' and the Temporal SDK's, to w.
func withWorkerLog(w io.Writer) fixtureOpt { return func(o *fixtureOpts) { o.log = w } }

// withEvaluator gives the worker's activities ev to write reports (the local one otherwise).
func withEvaluator(ev report.Evaluator) fixtureOpt { return func(o *fixtureOpts) { o.eval = ev } }

// withMessaging replaces the outbox with live channels.
func withMessaging(c channels.Config) fixtureOpt { return func(o *fixtureOpts) { o.msg = c } }

// newFixture serves the API on a fresh database, with a worker on the test's own task queue.
// Messages go to an outbox unless withMessaging configures live channels; callbacks may reach
// loopback receivers.
func newFixture(t *testing.T, opts ...fixtureOpt) *fixture {
	t.Helper()
	o := fixtureOpts{env: map[string]string{}, msg: channels.Config{Mode: channels.ModeOutbox}}
	for _, opt := range opts {
		opt(&o)
	}
	var st *store.Store
	var err error
	switch {
	case o.pool != nil:
		st, err = store.FromSQL(o.pool, nil)
	case o.dbURL != "":
		st, err = store.Open(t.Context(), o.dbURL, 10, nil)
		if err == nil {
			t.Cleanup(func() { st.Close() })
		}
	default:
		st, err = store.FromSQL(pgtest.New(t).SQL, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The API listens before the configuration is loaded, so every link recruitd writes (the
	// interview links, the recruiter pages) points at this test's own server.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if o.env["PUBLIC_BASE_URL"] == "" {
		o.env["PUBLIC_BASE_URL"] = "http://" + ln.Addr().String()
	}
	// The whole suite shares two cores: a request's database work may wait longer than the
	// production bound without anything being wrong. The outage tests set the real one
	// (withProductionBounds).
	if o.env["DB_REQUEST_TIMEOUT"] == "" {
		o.env["DB_REQUEST_TIMEOUT"] = "15s"
	}
	cfg, err := config.Load(func(k string) string { return o.env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if o.temporal == nil {
		o.temporal = temporaltest.New(t)
	}
	tc := o.temporal.Client(t)
	cfg.TemporalTaskQueue = temporaltest.TaskQueue(t)
	reg := prometheus.NewRegistry()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	sealed, _ := secretbox.New(key)
	f := &fixture{st: st, api: openapitest.New(t), tc: tc, queue: cfg.TemporalTaskQueue, outbox: &syncBuffer{}, box: sealed, reg: reg}
	if o.msg.Twilio.BaseURL != "" && o.msg.Twilio.StatusCallback == "" { // as cmd/recruitd wires it
		o.msg.Twilio.StatusCallback = cfg.PublicBaseURL + "/webhook/twilio/status"
	}
	router, err := channels.NewRouter(o.msg, f.outbox)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	if os.Getenv("TEST_WORKER_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	wc := tc // the worker's client, whose logger the SDK's worker logs with
	if o.log != nil {
		log = slog.New(slog.NewTextHandler(o.log, nil))
		if wc, err = client.NewClientFromExisting(tc, client.Options{Namespace: o.temporal.Namespace, Logger: rtemporal.NewLogger(log)}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(wc.Close)
	}
	f.startWorker = func() *rtemporal.Workers {
		w := rtemporal.NewWorker(wc, cfg.TemporalTaskQueue, &activities.Activities{
			Store: st, Log: log, Generator: generate.NewLocal(), Channels: router, Links: cfg.Links(),
			Box: sealed, Sender: callbacks.NewSender(callbacks.Options{AllowedNets: callbacks.PrivateNets(), AllowHTTP: true}),
			Launcher: f.launcher, Evaluator: o.eval, FullPassEvery: cfg.AggregatorFullPass,
		}, time.Second)
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		return w
	}
	f.launcher = &outbox.Launcher{Store: st, Starter: starter.Starter{Client: tc, QueuePrefix: cfg.TemporalTaskQueue}, Log: log}
	if !o.production {
		// The whole suite shares two cores: Temporal may take longer than the production bound
		// to take a start without being away.
		f.launcher.Timeout = 10 * time.Second
	}
	f.worker = f.startWorker()
	f.interviews = &interview.Sessions{Store: st, Interviewer: interview.NewLocal(), Launcher: f.launcher, Signals: &integrity.Service{Store: st}}
	f.h = httpapi.NewServer(httpapi.Deps{
		Log: slog.New(slog.DiscardHandler), Config: cfg, Store: st, Launcher: f.launcher,
		Health:  health.New(3*time.Second, map[string]health.Check{"postgres": st.Ping, "temporal": rtemporal.HealthCheck(tc)}),
		Metrics: httpmetrics.New(reg), Gatherer: reg, Box: sealed,
		Partners:    &partners.Applications{Store: st, Launcher: f.launcher, Box: sealed, ATSTimeout: cfg.ATSTimeout},
		Invitations: &invite.Invitations{Store: st, Launcher: f.launcher, Log: slog.New(slog.DiscardHandler)},
		Assessments: &assessments.Links{Store: st, Launcher: f.launcher, Log: slog.New(slog.DiscardHandler), Metrics: assessments.NewMetrics(reg)},
		Jobs:        &jobs.Interviewers{Store: st, Launcher: f.launcher},
		Interviews:  f.interviews,
		Threads:     &thread.Threads{Store: st, Interviews: f.interviews, Timings: &integrity.Service{Store: st}},
	})
	f.srv = httptest.NewUnstartedServer(f.h)
	f.srv.Listener.Close()
	f.srv.Listener = ln
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	f.acme, f.acmeKey = f.company(t, "acme", "Acme Corp")
	f.other, f.otherKy = f.company(t, "globex", "Globex")
	return f
}

func (f *fixture) company(t *testing.T, slug, name string) (*models.Company, string) {
	t.Helper()
	c := &models.Company{Slug: slug, Name: name, DefaultJobStatus: models.JobStatusActive}
	if err := f.st.CreateCompany(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	key, err := apikey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.CreateAPIKey(t.Context(), c.ID, "test", key); err != nil {
		t.Fatal(err)
	}
	return c, key
}

// get sends a request over a real connection, so header names reach the server spelled as the
// test wrote them, and checks the response against the contract.
func (f *fixture) get(t *testing.T, path string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, f.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs // raw assignment keeps the test's spelling of the header name
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	f.api.Check(t, req, resp)
	return resp
}

// metrics is the Prometheus text of the server's registry, as the process's private metrics
// listener serves it.
func (f *fixture) metrics(t *testing.T) string {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(f.reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	return rec.Body.String()
}

func decode[T any](t *testing.T, resp *http.Response) T {
	t.Helper()
	var v T
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

func TestAPIKeyMiddleware(t *testing.T) {
	f := newFixture(t)
	revokedKey, _ := apikey.Generate()
	k, err := f.st.CreateAPIKey(t.Context(), f.acme.ID, "old", revokedKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.RevokeAPIKey(t.Context(), f.acme.ID, k.ID.String()); err != nil {
		t.Fatal(err)
	}
	unknown, _ := apikey.Generate()

	tests := []struct {
		name     string
		header   http.Header
		status   int
		code     string
		wantSlug string
	}{
		{"missing", nil, 401, "MISSING_API_KEY", ""},
		{"empty", http.Header{"X-Api-Key": {""}}, 401, "MISSING_API_KEY", ""},
		{"unknown", http.Header{"X-Api-Key": {unknown}}, 401, "INVALID_API_KEY", ""},
		{"too short", http.Header{"X-Api-Key": {"abc"}}, 401, "INVALID_API_KEY", ""},
		{"known prefix, wrong secret", http.Header{"X-Api-Key": {f.acmeKey[:20] + strings.Repeat("x", 23)}}, 401, "INVALID_API_KEY", ""},
		{"revoked", http.Header{"X-Api-Key": {revokedKey}}, 401, "INVALID_API_KEY", ""},
		{"valid", http.Header{"X-Api-Key": {f.acmeKey}}, 200, "", "acme"},
		{"lower-case header", http.Header{"x-api-key": {f.acmeKey}}, 200, "", "acme"},
		{"upper-case header", http.Header{"X-API-KEY": {f.acmeKey}}, 200, "", "acme"},
		{"other company's key", http.Header{"X-Api-Key": {f.otherKy}}, 200, "", "globex"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := f.get(t, "/v1/api/company", tt.header)
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tt.status)
			}
			if tt.status != 200 {
				body := decode[httpapi.ErrorBody](t, resp)
				if body.Success || body.Code != tt.code || body.Message == "" {
					t.Errorf("body = %+v, want success false, code %s and a message", body, tt.code)
				}
				return
			}
			body := decode[httpapi.CompanyResponse](t, resp)
			if !body.Success || body.Company.Slug != tt.wantSlug {
				t.Errorf("company = %+v, want %s", body, tt.wantSlug)
			}
		})
	}
	t.Run("revoked message", func(t *testing.T) {
		body := decode[httpapi.ErrorBody](t, f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {revokedKey}}))
		if !strings.Contains(body.Message, "revoked") {
			t.Errorf("message = %q, want it to say the key is revoked", body.Message)
		}
	})
}

func TestCompanyReturnsCallerCompanyAndRecordsUse(t *testing.T) {
	f := newFixture(t)
	body := decode[httpapi.CompanyResponse](t, f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {f.acmeKey}}))
	want := httpapi.CompanyInfo{ID: f.acme.ID.String(), Slug: "acme", Name: "Acme Corp"}
	if body.Company != want {
		t.Errorf("company = %+v, want %+v", body.Company, want)
	}
	keys, err := f.st.ListAPIKeys(t.Context(), f.acme.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0].LastUsedAt == nil {
		t.Errorf("keys = %+v, want last_used_at recorded", keys)
	}
}

func TestErrorsUseSpecBody(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		method, path string
		status       int
		code         string
	}{
		{http.MethodGet, "/v1/api/nope", 404, "NOT_FOUND"},
		{http.MethodPost, "/v1/api/company", 405, "METHOD_NOT_ALLOWED"},
	} {
		req := httptest.NewRequestWithContext(t.Context(), tt.method, tt.path, strings.NewReader("{}"))
		req.Header.Set("X-API-Key", f.acmeKey)
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, req)
		var body httpapi.ErrorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != tt.status || body.Code != tt.code || body.Success {
			t.Errorf("%s %s = %d %s, want %d with code %s", tt.method, tt.path, rec.Code, rec.Body, tt.status, tt.code)
		}
		if rec.Header().Get("X-Request-ID") == "" {
			t.Errorf("%s %s: no X-Request-ID header", tt.method, tt.path)
		}
	}
}

func TestProbesMetricsAndContract(t *testing.T) {
	f := newFixture(t)
	if resp := f.get(t, "/healthz", nil); resp.StatusCode != 200 {
		t.Errorf("/healthz = %d", resp.StatusCode)
	}
	ready := decode[health.Report](t, f.get(t, "/readyz", nil))
	if ready.Status != "ok" || ready.Checks["postgres"] != "ok" || ready.Checks["temporal"] != "ok" {
		t.Errorf("/readyz = %+v, want postgres and temporal ok", ready)
	}
	f.get(t, "/v1/api/company", http.Header{"X-Api-Key": {f.acmeKey}})
	// Metrics never go on the api listener, not even to a loopback client.
	resp, err := f.srv.Client().Get(f.srv.URL + "/metrics") // no longer in the contract
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics on the api listener = %d, want 404", resp.StatusCode)
	}
	metrics := f.metrics(t)
	for _, want := range []string{
		`recruitd_http_request_duration_seconds_count{code="200",method="GET",route="/v1/api/company",server="api"} 1`,
		`recruitd_http_requests_in_flight{server="api"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	spec, _ := io.ReadAll(f.get(t, "/openapi.yaml", nil).Body)
	if string(spec) != string(api.OpenAPI) {
		t.Error("/openapi.yaml does not serve api/openapi.yaml")
	}
}

// TestRoutesMatchContract: every route is documented in api/openapi.yaml and every documented
// operation is routed.
func TestRoutesMatchContract(t *testing.T) {
	f := newFixture(t)
	var routed []string
	for _, r := range f.h.(interface{ Routes() gin.RoutesInfo }).Routes() {
		routed = append(routed, r.Method+" "+ginToOpenAPI(r.Path))
	}
	sort.Strings(routed)
	documented, err := openapitest.Operations()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(routed, "\n") != strings.Join(documented, "\n") {
		t.Errorf("routes and api/openapi.yaml differ\nrouted:\n  %s\ndocumented:\n  %s", strings.Join(routed, "\n  "), strings.Join(documented, "\n  "))
	}
}

func ginToOpenAPI(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			parts[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}
