// Package httpmetrics records Prometheus metrics for HTTP requests on every listener.
package httpmetrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Recorder holds the request metrics of one process; api and mcp listeners share it.
type Recorder struct {
	duration *prometheus.HistogramVec
	inFlight *prometheus.GaugeVec
}

// New registers the metrics on reg.
func New(reg prometheus.Registerer) *Recorder {
	r := &Recorder{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "recruitd_http_request_duration_seconds",
			Help:    "HTTP request latency by listener, method, route pattern and status code.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"server", "method", "route", "code"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "recruitd_http_requests_in_flight",
			Help: "HTTP requests being served, by listener.",
		}, []string{"server"}),
	}
	reg.MustRegister(r.duration, r.inFlight)
	return r
}

// Start marks a request as in flight and returns the function that records its end.
// route must be a pattern (never a raw path, whose cardinality is unbounded); "" means unmatched.
func (r *Recorder) Start(server, method string) func(route string, status int) {
	begin := time.Now()
	g := r.inFlight.WithLabelValues(server)
	g.Inc()
	return func(route string, status int) {
		g.Dec()
		if route == "" {
			route = "unmatched"
		}
		r.duration.WithLabelValues(server, method, route, strconv.Itoa(status)).Observe(time.Since(begin).Seconds())
	}
}

// Wrap instruments a net/http handler whose routes come from an http.ServeMux (r.Pattern).
func (r *Recorder) Wrap(server string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		done := r.Start(server, req.Method)
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, req)
		done(req.Pattern, sw.status)
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and deadlines of the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
