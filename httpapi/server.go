// Package httpapi is the REST API: thin gin handlers that authenticate, check the shape of input,
// call the feature packages (or read through the store) and map errors to the spec's shape. The
// whole surface is in routes.go.
package httpapi

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recruitd/recruitd/httpapi/interviewpage"
	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/assessments"
	"github.com/recruitd/recruitd/internal/clientip"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/health"
	"github.com/recruitd/recruitd/internal/httpmetrics"
	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/invite"
	"github.com/recruitd/recruitd/internal/jobs"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/partners"
	"github.com/recruitd/recruitd/internal/ratelimit"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/internal/thread"
)

// Deps are the server's collaborators, wired in cmd/recruitd.
type Deps struct {
	Log    *slog.Logger
	Config *config.Config
	Store  *store.Store
	// Launcher starts the workflows a request committed work for.
	Launcher *outbox.Launcher
	// Partners receives partner submissions.
	Partners *partners.Applications
	// Invitations invites candidates (inviteCandidate).
	Invitations *invite.Invitations
	// Assessments records pushed assessment links.
	Assessments *assessments.Links
	// Jobs creates jobs (createJob).
	Jobs    *jobs.Interviewers
	Health  *health.Checker
	Metrics *httpmetrics.Recorder
	// Gatherer is the process's registry (served on its private metrics listener, never here);
	// the server registers its own counters in it when it is also a Registerer.
	Gatherer prometheus.Gatherer
	// Box opens ATS credentials.
	Box *secretbox.Box
	// AggregatorMetrics counts aggregator webhooks; may be nil.
	AggregatorMetrics *aggregator.Metrics
	// Interviews is the candidate's side of the interview behind the link; Page renders it
	// (NewServer builds it when nil).
	Interviews *interview.Sessions
	// Threads is the interview in a text thread (Twilio's Messaging webhook); nil: the route
	// answers 404.
	Threads *thread.Threads
	Page    *interviewpage.Page
}

type server struct {
	Deps
	// The limits are fleet-wide: every replica on the database spends from the same buckets.
	partnerLimits *ratelimit.Limit // partner submissions per key
	keyLimits     *ratelimit.Limit // requests per key, every authenticated route
	authFailures  *ratelimit.Limit // failed authentications per client IP
	// interviewLimits and interviewAddrLimits bound the candidate page per link and per IP.
	interviewLimits, interviewAddrLimits *ratelimit.Limit
	// proxies are the peers whose X-Forwarded-For names the client (MCP_TRUSTED_PROXIES).
	proxies []netip.Prefix
}

// NewServer returns the REST API handler.
func NewServer(d Deps) http.Handler {
	if d.Page == nil {
		p, err := interviewpage.New()
		if err != nil {
			panic(err) // the embedded templates are checked by the package's tests
		}
		d.Page = p
	}
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.ContextWithFallback = true
	var counter ratelimit.Counter
	if d.Store != nil {
		counter = d.Store
	}
	limit := ratelimit.NewShared(counter, d.Log).Limit
	s := &server{Deps: d,
		partnerLimits:       limit("partner", d.Config.PartnerRateLimit, d.Config.PartnerRateBurst),
		keyLimits:           limit("api-key", d.Config.APIRateLimit, d.Config.APIRateBurst),
		authFailures:        limit("api-auth-failure", d.Config.AuthFailureLimit, d.Config.AuthFailureBurst),
		interviewLimits:     limit("page-link", d.Config.InterviewRateLimit, d.Config.InterviewRateBurst),
		interviewAddrLimits: limit("page-addr", d.Config.InterviewAddrLimit, d.Config.InterviewAddrBurst),
	}
	proxies, err := clientip.ParseTrusted(d.Config.MCPTrustedProxies)
	if err != nil {
		panic(fmt.Errorf("MCP_TRUSTED_PROXIES: %w", err)) // config.Load refuses it first
	}
	s.proxies = proxies
	r.ForwardedByClientIP = false // the client address is clientip.Of's, never gin's
	r.Use(s.observe, s.boundDatabase, s.recover, s.limitBody, s.cleanParams)
	if s.Interviews != nil && s.Interviews.Identity == nil && s.Config.IDVBaseURL != "" {
		s.Interviews.Identity = identityCheck{s.identity()}
	}
	s.routes(r)
	return engine{r}
}

// engine is the router with the candidate page's headers set before routing, so that they are
// also on the answers no handler writes (gin's trailing-slash redirect of the page).
type engine struct{ *gin.Engine }

func (e engine) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if strings.HasPrefix(req.URL.Path, "/interview/") {
		pageHeaders(w.Header())
	}
	e.Engine.ServeHTTP(w, req)
}
