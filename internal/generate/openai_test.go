package generate

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/llm"
	"github.com/recruitd/recruitd/internal/llm/llmtest"
)

const testKey = "sk-test-0123456789-secret"

const validOutput = `{
  "title": "Senior Backend Engineer",
  "skills": ["Go", "PostgreSQL", "Kubernetes"],
  "intro": "Welcome to the interview for the Senior Backend Engineer role.",
  "outro": "Thank you for interviewing for the Senior Backend Engineer role.",
  "learningObjectives": ["Assess Go experience", "Assess database depth"],
  "questions": [
    {"text": "Tell me about a Go service you built.", "skill": "Go"},
    {"text": "How do you design a PostgreSQL schema for payments?", "skill": "PostgreSQL"},
    {"text": "How do you debug a slow query?", "skill": "PostgreSQL"},
    {"text": "How do you roll out a change safely on Kubernetes?", "skill": "Kubernetes"},
    {"text": "What motivates you?", "skill": ""}
  ],
  "criteria": [
    {"name": "Go", "description": "Writes idiomatic, tested Go."},
    {"name": "Databases", "description": "Understands PostgreSQL indexing and transactions."},
    {"name": "Communication", "description": "Explains trade-offs clearly."}
  ]
}`

// fakeLLM serves the responses in turn (the last one repeats) and counts calls.
type fakeLLM struct {
	calls atomic.Int32
	reply func(n int, w http.ResponseWriter, r *http.Request)
}

func newFake(t *testing.T, reply func(n int, w http.ResponseWriter, r *http.Request)) (*fakeLLM, *OpenAI) {
	t.Helper()
	f := &fakeLLM{reply: reply}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.reply(int(f.calls.Add(1)), w, r)
	}))
	t.Cleanup(srv.Close)
	o, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1/", APIKey: testKey, Model: "test-model", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	o.backoff = time.Millisecond
	return f, o
}

func ok(content string) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, llmtest.Reply(content))
	}
}

var backendRequest = Request{Description: backendJD}

// hang blocks until the client goes away. The body must be read first: only then does the
// server watch the connection and cancel the request's context.
func hang(r *http.Request) {
	io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
}

func TestOpenAIHappyPath(t *testing.T) {
	var got struct {
		path, auth, contentType string
		body                    llm.ChatRequest
	}
	f, o := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
		got.path, got.auth, got.contentType = r.Method+" "+r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		if err := json.NewDecoder(r.Body).Decode(&got.body); err != nil {
			t.Errorf("request body: %v", err)
		}
		ok(validOutput)(n, w, r)
	})
	r := Request{
		Description: backendJD, AdditionalContext: "Focus on payments.",
		AdditionalQuestions: []string{"Are you willing to relocate?", "Tell me about your PostgreSQL tuning experience"},
		StructuredQuestions: []StructuredQuestion{{Question: "Kubernetes certified?", Answers: []string{"Yes", "No"}, TagName: "cka"}},
		IntelligentlyOrder:  true,
	}
	g, err := o.Generate(context.Background(), r)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if got.path != "POST /v1/chat/completions" || got.auth != "Bearer "+testKey || got.contentType != "application/json" {
		t.Errorf("request = %q, auth %q, content type %q", got.path, got.auth, got.contentType)
	}
	b := got.body
	if b.Model != "test-model" || b.ResponseFormat.Type != "json_object" || b.Temperature > 0.3 || len(b.Messages) != 2 || b.Messages[0].Role != "system" {
		t.Errorf("request body = %+v", b)
	}
	user := b.Messages[1].Content
	for _, want := range []string{"Infer it", "Design and build REST APIs in Go", "Focus on payments.", "Are you willing to relocate?"} {
		if !strings.Contains(user, want) {
			t.Errorf("user prompt lacks %q:\n%s", want, user)
		}
	}
	if f.calls.Load() != 1 {
		t.Errorf("calls = %d, want 1", f.calls.Load())
	}
	if g.Title != "Senior Backend Engineer" || !slices.Equal(g.Skills, []string{"Go", "PostgreSQL", "Kubernetes"}) || len(g.Criteria) != 3 {
		t.Errorf("guide = %+v", g)
	}
	want := []string{
		"Tell me about a Go service you built.",
		"How do you design a PostgreSQL schema for payments?",
		"How do you debug a slow query?",
		"Tell me about your PostgreSQL tuning experience",
		"How do you roll out a change safely on Kubernetes?",
		"Kubernetes certified?",
		"What motivates you?",
		"Are you willing to relocate?",
	}
	if !slices.Equal(texts(g.Questions), want) {
		t.Errorf("questions =\n%q\nwant\n%q", texts(g.Questions), want)
	}
	if q := g.Questions[5]; q.Source != SourceStructured || !slices.Equal(q.Answers, []string{"Yes", "No"}) || q.TagName != "cka" {
		t.Errorf("structured question = %+v", q)
	}
}

func TestOpenAIGivenTitle(t *testing.T) {
	var user string
	_, o := newFake(t, func(n int, w http.ResponseWriter, r *http.Request) {
		var body llm.ChatRequest
		json.NewDecoder(r.Body).Decode(&body)
		user = body.Messages[1].Content
		ok(strings.Replace(validOutput, `"title": "Senior Backend Engineer",`, ``, 1))(n, w, r)
	})
	g, err := o.Generate(context.Background(), Request{Title: " Payments Engineer ", Description: backendJD})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if g.Title != "Payments Engineer" || !strings.Contains(user, "Job title: Payments Engineer") {
		t.Errorf("Generate title = %q, prompt %q", g.Title, user)
	}
}

func TestOpenAIRetries(t *testing.T) {
	tests := []struct {
		name      string
		reply     func(n int, w http.ResponseWriter, r *http.Request)
		wantCalls int32
		wantErr   string // "" for success
		permanent bool
	}{
		{"malformed then valid", func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				ok(`{"skills": ["Go"], "questions": [`)(n, w, r)
				return
			}
			ok(validOutput)(n, w, r)
		}, 2, "", false},
		{"always malformed", ok("Sure! Here is your guide: {" + strings.Repeat("x", 5000)), 3, "invalid character", true},
		{"unknown field", ok(strings.Replace(validOutput, `"skills"`, `"extra": 1, "skills"`, 1)), 3, `unknown field "extra"`, true},
		{"missing required field", ok(strings.Replace(validOutput, `"intro": "Welcome to the interview for the Senior Backend Engineer role.",`, ``, 1)), 3, "intro: required", true},
		{"no choices", func(_ int, w http.ResponseWriter, _ *http.Request) { io.WriteString(w, `{"choices": []}`) }, 3, "no choices", true},
		{"429 with Retry-After 0", func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				http.Error(w, `{"error": {"message": "rate limited"}}`, http.StatusTooManyRequests)
				return
			}
			ok(validOutput)(n, w, r)
		}, 2, "", false},
		{"500 then success", func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				http.Error(w, "upstream broke", http.StatusInternalServerError)
				return
			}
			ok(validOutput)(n, w, r)
		}, 2, "", false},
		{"always 503", func(_ int, w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		}, 3, "HTTP 503", false},
		{"429 with long Retry-After", func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "3600")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, 1, "HTTP 429", false},
		{"401 is permanent", func(_ int, w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error": {"message": "Incorrect API key provided: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`, http.StatusUnauthorized)
		}, 1, "HTTP 401", true},
		{"400 is permanent", func(_ int, w http.ResponseWriter, _ *http.Request) {
			http.Error(w, `{"error": {"message": "unsupported parameter"}}`, http.StatusBadRequest)
		}, 1, "unsupported parameter", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, o := newFake(t, tt.reply)
			g, err := o.Generate(context.Background(), backendRequest)
			if calls := f.calls.Load(); calls != tt.wantCalls {
				t.Errorf("Generate made %d calls, want %d", calls, tt.wantCalls)
			}
			if tt.wantErr == "" {
				if err != nil || g == nil || len(g.Questions) == 0 {
					t.Fatalf("Generate = %+v, %v; want a guide", g, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Generate succeeded, want error %q", tt.wantErr)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantErr) {
				t.Errorf("Generate error = %q, want it to mention %q", msg, tt.wantErr)
			}
			if IsPermanent(err) != tt.permanent {
				t.Errorf("IsPermanent(%q) = %v, want %v", msg, IsPermanent(err), tt.permanent)
			}
			if strings.Contains(msg, testKey) {
				t.Errorf("Generate error leaks the API key: %q", msg)
			}
			if len(msg) > 1000 {
				t.Errorf("Generate error is %d bytes long, want the model output truncated", len(msg))
			}
		})
	}
}

func TestOpenAITimeout(t *testing.T) {
	f, o := newFake(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		hang(r)
	})
	o.timeout, o.attempts = 50*time.Millisecond, 2
	start := time.Now()
	_, err := o.Generate(context.Background(), backendRequest)
	if !errors.Is(err, context.DeadlineExceeded) || IsPermanent(err) {
		t.Errorf("Generate(slow server) error = %v, want a transient deadline error", err)
	}
	if f.calls.Load() != 2 || time.Since(start) > 2*time.Second {
		t.Errorf("Generate(slow server) made %d calls in %v, want 2 quick ones", f.calls.Load(), time.Since(start))
	}
}

func TestOpenAICanceled(t *testing.T) {
	_, o := newFake(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		hang(r)
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := o.Generate(ctx, backendRequest)
	if !errors.Is(err, context.Canceled) || IsPermanent(err) {
		t.Errorf("Generate(canceled) error = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Generate(canceled) took %v, want it to return promptly", d)
	}

	// Cancellation during the backoff between attempts.
	_, o = newFake(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	})
	o.backoff = 30 * time.Second
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start = time.Now()
	_, err = o.Generate(ctx, backendRequest)
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("Generate(canceled in backoff) = %v after %v, want context.Canceled promptly", err, time.Since(start))
	}
}

func TestOpenAIInvalidRequest(t *testing.T) {
	f, o := newFake(t, ok(validOutput))
	_, err := o.Generate(context.Background(), Request{Description: "   "})
	if !IsPermanent(err) || !errors.Is(err, ErrEmptyDescription) || f.calls.Load() != 0 {
		t.Errorf("Generate(blank description) = %v after %d calls, want a permanent error and no call", err, f.calls.Load())
	}
}

func TestNewOpenAI(t *testing.T) {
	bad := []OpenAIConfig{
		{BaseURL: "ftp://example.com", Model: "m"}, // the rest of the URL and model checks: internal/llm
		{BaseURL: "https://api.example.com/v1", Model: "m", MaxAttempts: -1},
		{BaseURL: "https://api.example.com/v1", Model: "m", Timeout: -time.Second},
	}
	for _, c := range bad {
		c.APIKey = testKey
		if _, err := NewOpenAI(c); err == nil {
			t.Errorf("NewOpenAI(%q, %q) succeeded, want an error", c.BaseURL, c.Model)
		} else if strings.Contains(err.Error(), testKey) {
			t.Errorf("NewOpenAI error leaks the API key: %v", err)
		}
	}
	o, err := NewOpenAI(OpenAIConfig{BaseURL: "https://api.example.com/v1/", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if o.attempts != 3 || o.timeout != time.Minute || o.chat.Model() != "m" {
		t.Errorf("NewOpenAI defaults: attempts %d, timeout %v, model %q", o.attempts, o.timeout, o.chat.Model())
	}
}
