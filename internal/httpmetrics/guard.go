package httpmetrics

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// Guard serves h (the /metrics of a process's private metrics listener) only to a scraper that
// sends `Authorization: Bearer <token>` when token is set (METRICS_TOKEN); anyone else gets 404,
// as if there were no such route. With no token it serves every client: the listener is private
// (loopback by default), and the public api and mcp listeners never serve metrics.
func Guard(token string, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1 {
			h.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	})
}

// SecurityHeaders sets headers every response carries: no content sniffing, and a content
// security policy that loads nothing (a handler serving HTML sets its own).
func SecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		next.ServeHTTP(w, r)
	})
}
