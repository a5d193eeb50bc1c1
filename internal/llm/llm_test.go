package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/llm/llmtest"
)

const testKey = "sk-test-0123456789-secret"

func serve(t *testing.T, h http.HandlerFunc) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := New(Config{BaseURL: srv.URL + "/v1/", APIKey: testKey, Model: " test-model "})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNew(t *testing.T) {
	tests := []struct{ base, model, endpoint string }{ // endpoint "": an error
		{"https://api.example.com/v1/", "m", "https://api.example.com/v1/chat/completions"},
		{" http://127.0.0.1:8000 ", " m ", "http://127.0.0.1:8000/chat/completions"},
		{"", "m", ""},
		{"ftp://example.com", "m", ""},
		{"not a url", "m", ""},
		{"https://api.example.com/v1", " ", ""},
	}
	for _, tt := range tests {
		c, err := New(Config{BaseURL: tt.base, Model: tt.model, APIKey: testKey})
		switch {
		case tt.endpoint == "" && (err == nil || strings.Contains(err.Error(), testKey)):
			t.Errorf("New(%q, %q) = %v, want an error without the key", tt.base, tt.model, err)
		case tt.endpoint != "" && (err != nil || c.endpoint != tt.endpoint || c.Model() != "m"):
			t.Errorf("New(%q, %q) = %+v, %v; want endpoint %q", tt.base, tt.model, c, err, tt.endpoint)
		}
	}
}

func TestComplete(t *testing.T) {
	var got ChatRequest
	var path, auth string
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		path, auth = r.Method+" "+r.URL.Path, r.Header.Get("Authorization")
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			t.Errorf("request body: %v", err)
		}
		io.WriteString(w, llmtest.Reply(`{"ok":true}`))
	})
	content, err := c.Complete(context.Background(), Prompt{System: "sys", User: "usr", Temperature: 0.1, MaxTokens: 50})
	if err != nil || content != `{"ok":true}` {
		t.Fatalf("Complete = %q, %v", content, err)
	}
	if path != "POST /v1/chat/completions" || auth != "Bearer "+testKey {
		t.Errorf("request %q with Authorization %q", path, auth)
	}
	if got.Model != "test-model" || got.ResponseFormat.Type != "json_object" || got.MaxTokens != 50 || got.Temperature != 0.1 ||
		len(got.Messages) != 2 || got.Messages[0] != (Message{"system", "sys"}) || got.Messages[1] != (Message{"user", "usr"}) {
		t.Errorf("request body = %+v", got)
	}
}

func TestCompleteErrors(t *testing.T) {
	tests := []struct {
		name   string
		reply  http.HandlerFunc
		output bool   // an *OutputError
		status int    // a *StatusError with this code
		want   string // in the message
	}{
		{"401 echoing the key", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			http.Error(w, "bad key "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), http.StatusUnauthorized)
		}, false, 401, "[redacted]"},
		{"not JSON", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "<html>"+testKey) }, true, 0, "invalid chat completions response"},
		{"no choices", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, `{"choices":[]}`) }, true, 0, "no choices"},
		{"refusal", func(w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, `{"choices":[{"message":{"refusal":"I cannot help"}}]}`)
		}, true, 0, "model refused"},
		{"blank content", func(w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, `{"choices":[{"finish_reason":"length","message":{"content":"  "}}]}`)
		}, true, 0, `finish reason "length"`},
		{"too large", func(w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, `{"choices":[{"message":{"content":"`+strings.Repeat("x", maxResponseBytes)+`"}}]}`)
		}, true, 0, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := serve(t, tt.reply)
			_, err := c.Complete(context.Background(), Prompt{System: "s", User: "u"})
			var oe *OutputError
			var se *StatusError
			switch {
			case err == nil:
				t.Fatal("Complete succeeded")
			case tt.output != errors.As(err, &oe):
				t.Errorf("Complete error %v: output error %v, want %v", err, !tt.output, tt.output)
			case tt.status != 0 && (!errors.As(err, &se) || se.Code != tt.status || se.RetryAfter != 7*time.Second):
				t.Errorf("Complete error %#v, want HTTP %d with Retry-After 7s", err, tt.status)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, testKey) || len(msg) > 600 {
				t.Errorf("Complete error = %q, want it to mention %q, bounded, without the key", msg, tt.want)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	tests := map[string]time.Duration{"": -1, "0": 0, "7": 7 * time.Second, "soon": -1, "-3": -1}
	for h, want := range tests {
		if got := retryAfter(h); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", h, got, want)
		}
	}
	if got := retryAfter(time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)); got < 59*time.Minute || got > time.Hour {
		t.Errorf("retryAfter(date in an hour) = %v", got)
	}
}

func TestDecodeStrict(t *testing.T) {
	type reply struct {
		A bool   `json:"a"`
		B string `json:"b"`
	}
	tests := []struct {
		in, wantErr string
	}{
		{`{"a": true, "b": "x"}`, ""},
		{"```json\n{\"a\": true, \"b\": \"x\"}\n```", ""},
		{"```{\"a\": true, \"b\": \"x\"}```", ""},
		{`{"a": true, "b": "x", "c": 1}`, `unknown field "c"`},
		{`{"a": true, "b": "x"} {"a": false}`, "data after the object"},
		{`Sure: {"a": true}`, "not the expected JSON object"},
		{`{"a": "yes"}`, "cannot unmarshal"},
	}
	for _, tt := range tests {
		var r reply
		err := DecodeStrict([]byte(tt.in), &r)
		if tt.wantErr == "" && (err != nil || r != reply{true, "x"}) {
			t.Errorf("DecodeStrict(%q) = %+v, %v", tt.in, r, err)
		}
		if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("DecodeStrict(%q) error = %v, want %q", tt.in, err, tt.wantErr)
		}
	}
}
