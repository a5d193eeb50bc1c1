package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/config"
)

// testEngine builds the middleware chain of NewServer with extra routes for failure paths.
func testEngine(t testing.TB, logs *strings.Builder, routes func(*gin.Engine, *server)) *gin.Engine {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		if k == "MAX_BODY_BYTES" {
			return "2048"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	gin.SetMode(gin.ReleaseMode)
	s := &server{Deps: Deps{Log: slog.New(slog.NewTextHandler(logs, nil)), Config: cfg, Metrics: nil}}
	r := gin.New()
	r.Use(s.recover, s.limitBody)
	routes(r, s)
	return r
}

func TestInternalErrorsAreLoggedNotLeaked(t *testing.T) {
	var logs strings.Builder
	r := testEngine(t, &logs, func(r *gin.Engine, s *server) {
		r.GET("/panic", func(*gin.Context) { panic("db password is hunter2") })
		r.GET("/fail", func(c *gin.Context) { s.fail(c, errors.New("connect postgres://u:hunter2@db")) })
	})
	for _, path := range []string{"/panic", "/fail"} {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var body ErrorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if rec.Code != 500 || body.Code != "INTERNAL_ERROR" || body.Success {
			t.Errorf("%s = %d %+v, want 500 INTERNAL_ERROR", path, rec.Code, body)
		}
		if strings.Contains(rec.Body.String(), "hunter2") {
			t.Errorf("%s leaks internals: %s", path, rec.Body)
		}
	}
	if !strings.Contains(logs.String(), "hunter2") || !strings.Contains(logs.String(), "request failed") {
		t.Errorf("internal errors were not logged: %s", logs.String())
	}
}

func TestDecodeJSON(t *testing.T) {
	type payload struct {
		Name  string   `json:"name"`
		Count int      `json:"count"`
		Tags  []string `json:"tags"`
	}
	var logs strings.Builder
	r := testEngine(t, &logs, func(r *gin.Engine, s *server) {
		r.POST("/echo", func(c *gin.Context) {
			var p payload
			if err := decodeJSON(c, &p); err != nil {
				s.fail(c, err)
				return
			}
			c.JSON(200, p)
		})
	})
	tests := []struct {
		name, ctype, body string
		status            int
		code, msgPart     string
	}{
		{"ok", "application/json", `{"name":"a","count":2}`, 200, "", ""},
		{"ok with charset", "application/json; charset=utf-8", `{"name":"a"}`, 200, "", ""},
		{"media type in capitals", "APPLICATION/JSON", `{"name":"a"}`, 200, "", ""},
		{"malformed", "application/json", `{"name":`, 400, "INVALID_JSON", "unexpected end"},
		{"syntax", "application/json", `{"name" "a"}`, 400, "INVALID_JSON", "byte"},
		{"wrong type", "application/json", `{"count":"two"}`, 400, "INVALID_JSON", "count must be an integer"},
		{"empty", "application/json", ``, 400, "INVALID_JSON", "empty"},
		{"two values", "application/json", `{} {}`, 400, "INVALID_JSON", "more than one"},
		{"NUL character", "application/json", `{"name":"a\u0000b"}`, 400, "INVALID_FIELD", "name contains a NUL character"},
		{"escaped backslash before u0000", "application/json", `{"name":"C:\\u0000"}`, 200, "", ""},
		{"invalid UTF-8", "application/json", "{\"name\":\"\xc3\x28\"}", 400, "INVALID_FIELD", "name is not valid UTF-8"},
		{"repeated name", "application/json", `{"name":"a","tags":[],"name":"b"}`, 400, "REPEATED_FIELD", "name is given twice"},
		{"nested too deep", "application/json", `{"tags":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}`, 400, "JSON_TOO_DEEP", "64"},
		{"not json", "text/plain", `{}`, 415, "UNSUPPORTED_MEDIA_TYPE", "application/json"},
		{"too large", "application/json", `{"name":"` + strings.Repeat("a", 4096) + `"}`, 413, "BODY_TOO_LARGE", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/echo", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.ctype)
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status = %d (%s), want %d", rec.Code, rec.Body, tt.status)
			}
			if tt.status == 200 {
				return
			}
			var body ErrorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if body.Code != tt.code || !strings.Contains(body.Message, tt.msgPart) {
				t.Errorf("body = %+v, want code %s and message containing %q", body, tt.code, tt.msgPart)
			}
		})
	}
}
