package interview

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/llm"
	"github.com/recruitd/recruitd/internal/llm/llmtest"
)

// marker stands for personal data in an answer: it must reach the model and never the log.
const marker = "MARKER-7731 jane.doe@example.com"

// fake is the model's endpoint and the engine's log.
type fake struct {
	*llmtest.Server[llm.ChatRequest]
	log bytes.Buffer
}

// newOpenAI returns an OpenAI interviewer talking to h, its fake's record, and its log.
func newOpenAI(t *testing.T, timeout time.Duration, h http.HandlerFunc) (*OpenAI, *fake) {
	t.Helper()
	f := &fake{Server: llmtest.NewServer[llm.ChatRequest](t, h)}
	iv, err := NewInterviewer(Config{
		BaseURL: f.URL, APIKey: "sk-test-key-123456", Model: "test-model", Timeout: timeout,
		Log: slog.New(slog.NewTextHandler(&f.log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	o, ok := iv.(*OpenAI)
	if !ok {
		t.Fatalf("NewInterviewer with a base URL = %T, want *OpenAI", iv)
	}
	return o, f
}

func TestOpenAIFollowUp(t *testing.T) {
	question := Step{Index: 1, Total: 3, Kind: KindQuestion, Source: SourceGuide, Text: "Tell me about a Go service you built.", Skill: "Go"}
	answer := "I built one. " + marker
	local := NewLocal().FollowUp(context.Background(), question, answer)
	if !local.Ask || local.Engine != EngineLocal {
		t.Fatalf("the test needs an answer the local rules follow up on: %+v", local)
	}
	longest := strings.Repeat("é", MaxFollowUpLen-1) + "?"
	tooLong := "é" + longest
	tests := []struct {
		name    string
		reply   http.HandlerFunc
		want    Decision
		failure string // the fallback's logged kind; "" for none
	}{
		{"asks", llmtest.Replying(`{"followUp": true, "question": "  Which part of that service\n did you design yourself?  "}`),
			Decision{Ask: true, Question: "Which part of that service did you design yourself?", Reason: ReasonModel, Engine: EngineOpenAI}, ""},
		{"asks, in a code fence", llmtest.Replying("```json\n{\"followUp\": true, \"question\": \"How did you test it?\"}\n```"),
			Decision{Ask: true, Question: "How did you test it?", Reason: ReasonModel, Engine: EngineOpenAI}, ""},
		{"does not ask", llmtest.Replying(`{"followUp": false, "question": ""}`), Decision{Engine: EngineOpenAI}, ""},
		{"does not ask, question ignored", llmtest.Replying(`{"followUp": false, "question": "` + tooLong + `"}`), Decision{Engine: EngineOpenAI}, ""},
		{"exactly the longest question", llmtest.Replying(`{"followUp": true, "question": "` + longest + `"}`),
			Decision{Ask: true, Question: longest, Reason: ReasonModel, Engine: EngineOpenAI}, ""},
		{"invalid JSON", llmtest.Replying(`Sure! {"followUp": true, "question": "` + marker + `"`), local, "invalid-output"},
		{"followUp missing", llmtest.Replying(`{"question": "Why?"}`), local, "invalid-output"},
		{"followUp not a boolean", llmtest.Replying(`{"followUp": "yes", "question": "Why?"}`), local, "invalid-output"},
		{"unknown field", llmtest.Replying(`{"followUp": true, "question": "Why?", "score": 3}`), local, "invalid-output"},
		{"two objects", llmtest.Replying(`{"followUp": false, "question": ""} {"followUp": true, "question": "Why?"}`), local, "invalid-output"},
		{"question out of bounds", llmtest.Replying(`{"followUp": true, "question": "` + tooLong + `"}`), local, "invalid-output"},
		{"question blank", llmtest.Replying(`{"followUp": true, "question": " \n "}`), local, "invalid-output"},
		{"question with a control character", llmtest.Replying(`{"followUp": true, "question": "Why\u0000 that?"}`), local, "invalid-output"},
		{"reply larger than 4 KiB", llmtest.Replying(`{"followUp": true, "question": "Why?"}` + strings.Repeat(" ", 4<<10)), local, "invalid-output"},
		{"no choices", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, `{"choices": []}`) }, local, "invalid-output"},
		{"server error echoing the answer", func(w http.ResponseWriter, r *http.Request) {
			var req llm.ChatRequest
			json.NewDecoder(r.Body).Decode(&req)
			http.Error(w, "cannot process "+req.Messages[1].Content, http.StatusInternalServerError)
		}, local, "status"},
		{"rate limited", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, local, "status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, f := newOpenAI(t, 0, tt.reply)
			got := o.FollowUp(context.Background(), question, answer)
			if got != tt.want {
				t.Errorf("FollowUp = %+v, want %+v", got, tt.want)
			}
			if f.Calls.Load() != 1 {
				t.Errorf("FollowUp made %d requests, want 1 (no retries)", f.Calls.Load())
			}
			logged := f.log.String()
			if tt.failure == "" && logged != "" {
				t.Errorf("FollowUp logged %q, want nothing", logged)
			}
			if tt.failure != "" && (!strings.Contains(logged, "failure="+tt.failure) || !strings.Contains(logged, "model=test-model") || strings.Count(logged, "\n") != 1) {
				t.Errorf("FollowUp logged %q, want one line with failure=%s", logged, tt.failure)
			}
			if strings.Contains(logged, "MARKER") || strings.Contains(logged, "jane") || strings.Contains(logged, "sk-test") {
				t.Errorf("FollowUp logged personal data or the key: %q", logged)
			}
		})
	}
}

func TestOpenAIRequest(t *testing.T) {
	o, f := newOpenAI(t, 0, llmtest.Replying(`{"followUp": false, "question": ""}`))
	question := Step{Index: 1, Total: 1, Kind: KindQuestion, Source: SourceAdditional, Text: "Why this job?"}
	o.FollowUp(context.Background(), question, marker+strings.Repeat(" word", MaxAnswerLen))
	b := f.Last()
	if b.Model != "test-model" || b.ResponseFormat.Type != "json_object" || b.MaxTokens != maxDecisionTokens || len(b.Messages) != 2 || b.Messages[0].Content != followUpPrompt {
		t.Fatalf("request = %+v", b)
	}
	user := b.Messages[1].Content
	if !strings.Contains(user, "<<<\nWhy this job?\n>>>") || !strings.Contains(user, marker) {
		t.Errorf("user prompt lacks the question or the answer:\n%.300s", user)
	}
	if n := len([]rune(user)); n > MaxAnswerLen+200 {
		t.Errorf("user prompt is %d characters, want the answer bounded to %d", n, MaxAnswerLen)
	}
}

func TestOpenAINeverForIneligible(t *testing.T) {
	o, f := newOpenAI(t, 0, llmtest.Replying(`{"followUp": true, "question": "Why?"}`))
	structured := Step{Index: 1, Total: 1, Kind: KindQuestion, Source: SourceStructured, Text: "Licence?", Choices: []string{"Yes", "No"}}
	open := Step{Index: 2, Total: 2, Kind: KindQuestion, Source: SourceGuide, Text: "Tell me more."}
	for _, s := range []Step{structured, open.FollowUp("Why?"), {Kind: KindIntro}, {Kind: KindOutro}} {
		if d := o.FollowUp(context.Background(), s, "Yes"); d != (Decision{}) {
			t.Errorf("FollowUp(%s %s) = %+v, want no decision", s.Kind, s.Source, d)
		}
	}
	if f.Calls.Load() != 0 {
		t.Errorf("FollowUp made %d requests for questions that take no follow-up", f.Calls.Load())
	}
}

func TestOpenAITimeoutFallsBack(t *testing.T) {
	o, f := newOpenAI(t, 50*time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
		select { // until the client gives up
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	question := Step{Index: 1, Total: 1, Kind: KindQuestion, Source: SourceGuide, Text: "Tell me about yourself."}
	start := time.Now()
	d := o.FollowUp(context.Background(), question, "Short.")
	if want := (Decision{Ask: true, Question: localWording(ReasonShort, ""), Reason: ReasonShort, Engine: EngineLocal}); d != want {
		t.Errorf("FollowUp(slow model) = %+v, want the local decision %+v", d, want)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("FollowUp(slow model) took %v, want about its 50ms timeout", took)
	}
	if !strings.Contains(f.log.String(), "failure=timeout") {
		t.Errorf("log = %q, want failure=timeout", f.log.String())
	}

	// A candidate who goes away cancels the request: the local rules still answer.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	o.timeout = 5 * time.Second
	f.log.Reset()
	if d := o.FollowUp(ctx, question, "Short."); d.Engine != EngineLocal || !strings.Contains(f.log.String(), "failure=canceled") {
		t.Errorf("FollowUp(canceled) = %+v, log %q", d, f.log.String())
	}
}

func TestNewInterviewer(t *testing.T) {
	iv, err := NewInterviewer(Config{Model: "m"})
	if _, ok := iv.(*Local); !ok || err != nil {
		t.Errorf("NewInterviewer(no base URL) = %T, %v; want *Local", iv, err)
	}
	for _, c := range []Config{
		{BaseURL: "ftp://example.com", Model: "m"},
		{BaseURL: "https://api.example.com/v1"},
		{BaseURL: "https://api.example.com/v1", Model: "m", Timeout: -time.Second},
	} {
		c.APIKey = "sk-test-key-123456"
		if _, err := NewInterviewer(c); err == nil || strings.Contains(err.Error(), c.APIKey) {
			t.Errorf("NewInterviewer(%q, %q, %v) = %v, want an error without the key", c.BaseURL, c.Model, c.Timeout, err)
		}
	}
	for in, want := range map[time.Duration]time.Duration{0: DefaultOpenAITimeout, time.Second: time.Second, 60 * time.Second: MaxOpenAITimeout} {
		o, err := NewOpenAI(Config{BaseURL: "https://api.example.com/v1", Model: "m", Timeout: in})
		if err != nil || o.timeout != want {
			t.Errorf("NewOpenAI(timeout %v): %v, timeout %v; want %v", in, err, o.timeout, want)
		}
	}
}
