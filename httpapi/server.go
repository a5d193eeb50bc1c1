// Package httpapi is the REST API: thin gin handlers that authenticate, validate, read through the
// store and start Temporal workflows. The whole surface is in routes.go.
package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/health"
	"github.com/recruitd/recruitd/internal/httpmetrics"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
)

// Deps are the server's collaborators, wired in cmd/recruitd.
type Deps struct {
	Log    *slog.Logger
	Config *config.Config
	Store  *store.Store
	// Launcher starts the workflows a request committed work for.
	Launcher *outbox.Launcher
	Health   *health.Checker
	Metrics  *httpmetrics.Recorder
	Gatherer prometheus.Gatherer
	// Box opens ATS credentials.
	Box *secretbox.Box
}

type server struct {
	Deps
	limits *limiters
}

// NewServer returns the REST API handler.
func NewServer(d Deps) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.ContextWithFallback = true
	s := &server{Deps: d, limits: &limiters{every: rate.Limit(d.Config.PartnerRateLimit), burst: d.Config.PartnerRateBurst, m: map[uuid.UUID]*rate.Limiter{}}}
	r.Use(s.observe, s.recover, s.limitBody)
	s.routes(r)
	return r
}
