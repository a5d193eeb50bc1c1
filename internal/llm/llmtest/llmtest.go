// Package llmtest helps tests fake an OpenAI-compatible chat-completions endpoint; no test
// ever calls a real model.
package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// Reply is a chat-completions response whose one choice holds content, with the extra fields
// real servers send.
func Reply(content string) string {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop", "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": content},
		}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30},
	})
	return string(b)
}

// Replying is a handler that answers every request with Reply(content).
func Replying(content string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, Reply(content))
	}
}

// Server is a fake endpoint that counts its requests and keeps the last one's body, decoded as
// a Req, before it hands each to its handler.
type Server[Req any] struct {
	URL   string // the base URL an engine is configured with, ending in /v1
	Calls atomic.Int32
	mu    sync.Mutex
	last  Req
}

// Last is the body of the last request, decoded as a Req.
func (s *Server[Req]) Last() Req {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// NewServer starts a Server that passes its requests to h, and stops it when t ends.
func NewServer[Req any](t testing.TB, h http.HandlerFunc) *Server[Req] {
	t.Helper()
	s := &Server[Req]{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		var last Req
		_ = json.Unmarshal(body, &last)
		s.mu.Lock()
		s.last = last
		s.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}
