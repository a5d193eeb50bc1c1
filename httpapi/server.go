// Package httpapi is the REST API: thin gin handlers that authenticate, validate, read through the
// store and start Temporal workflows. The whole surface is in routes.go.
package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/health"
	"github.com/recruitd/recruitd/internal/httpmetrics"
	"github.com/recruitd/recruitd/internal/store"
)

// Deps are the server's collaborators, wired in cmd/recruitd.
type Deps struct {
	Log      *slog.Logger
	Config   *config.Config
	Store    *store.Store
	Temporal client.Client
	Health   *health.Checker
	Metrics  *httpmetrics.Recorder
	Gatherer prometheus.Gatherer
}

type server struct {
	Deps
}

// NewServer returns the REST API handler.
func NewServer(d Deps) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.ContextWithFallback = true
	s := &server{Deps: d}
	r.Use(s.observe, s.recover, s.limitBody)
	s.routes(r)
	return r
}
