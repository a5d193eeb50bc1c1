package httpmetrics

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestGuard(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	tests := []struct {
		name, token, remote, auth string
		want                      int
	}{
		{"loopback, no token set", "", "127.0.0.1:5000", "", 200},
		{"another host, no token set", "", "10.0.0.7:5000", "", 200},
		{"token set, right token", "s3cret", "203.0.113.9:5000", "Bearer s3cret", 200},
		{"token set, wrong token", "s3cret", "203.0.113.9:5000", "Bearer nope", 404},
		{"token set, loopback without it", "s3cret", "127.0.0.1:5000", "", 404},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.RemoteAddr = tt.remote
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		rec := httptest.NewRecorder()
		SecurityHeaders(Guard(tt.token, ok)).ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("%s: status = %d, want %d", tt.name, rec.Code, tt.want)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff header", tt.name)
		}
	}
}
