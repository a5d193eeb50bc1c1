package httpmetrics

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// Guard serves h (a /metrics handler on a public listener) only to a scraper that sends
// `Authorization: Bearer <token>`, or, when token is empty, only to loopback clients; anyone
// else gets 404, as if there were no such route.
func Guard(token string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if allowed(token, r) {
			h.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	})
}

func allowed(token string, r *http.Request) bool {
	if token != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	ip := net.ParseIP(host)
	return err == nil && ip != nil && ip.IsLoopback()
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
