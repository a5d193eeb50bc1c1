package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/llm"
	"github.com/recruitd/recruitd/internal/llm/llmtest"
	"github.com/recruitd/recruitd/models"
)

// marker stands for personal data in an answer: it must reach the model and never the log.
const marker = "MARKER-7731 jane.doe@example.com"

// markedInput is the strong transcript with the marker in one answer.
func markedInput() Input {
	in := strongInput()
	in.Turns[3].Answer = aWhy + " " + marker
	return in
}

// fake is the model's endpoint and the engine's log.
type fake struct {
	*llmtest.Server[llm.ChatRequest]
	log bytes.Buffer
}

// newOpenAI returns an OpenAI evaluator talking to h, its fake's record, and its log.
func newOpenAI(t *testing.T, timeout time.Duration, h http.HandlerFunc) (*OpenAI, *fake) {
	t.Helper()
	f := &fake{Server: llmtest.NewServer[llm.ChatRequest](t, h)}
	ev, err := NewEvaluator(Config{
		BaseURL: f.URL, APIKey: "sk-test-key-123456", Model: "test-model", Timeout: timeout,
		Log: slog.New(slog.NewTextHandler(&f.log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	o, ok := ev.(*OpenAI)
	if !ok {
		t.Fatalf("NewEvaluator with a base URL = %T, want *OpenAI", ev)
	}
	return o, f
}

// modelReply is a valid reply for markedInput, changed by edit.
func modelReply(edit func(m map[string]any)) string {
	m := map[string]any{
		"status": "ready", "reason": "",
		"summary": "Clear, specific answers on communication and troubleshooting;\n safety was not discussed.",
		"criteria": []any{
			map[string]any{"name": "Customer communication", "score": 4, "rationale": "Kept a hospital customer informed during an outage.",
				"evidence": []any{map[string]any{"seq": 1, "quote": "I kept them informed every 30 minutes by phone"}}},
			map[string]any{"name": "Troubleshooting", "score": 5, "rationale": "Methodical diagnosis with a measurable result.",
				"evidence": []any{
					map[string]any{"seq": 2, "quote": "found a failing switch, replaced it and resolved the drops within 2 hours"},
					map[string]any{"seq": 2, "quote": "  I start with the physical layer "},
				}},
			map[string]any{"name": "Safety", "score": nil, "rationale": "Not discussed.", "evidence": []any{}},
		},
		"tags": []any{map[string]any{"seq": 3, "value": "licensed"}, map[string]any{"seq": 6, "value": nil}},
	}
	if edit != nil {
		edit(m)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func criterion(m map[string]any, i int) map[string]any {
	return m["criteria"].([]any)[i].(map[string]any)
}

func TestOpenAIEvaluate(t *testing.T) {
	in := markedInput()
	local := NewLocal().Evaluate(context.Background(), in)
	if local.Status != StatusReady {
		t.Fatalf("the test needs a transcript the local rules rate: %s", dump(local))
	}
	valid := Report{
		Status: StatusReady, Rating: ptr(4.5), Engine: EngineOpenAI, Model: "test-model", RubricVersion: RubricVersion(rubric),
		Summary: "Clear, specific answers on communication and troubleshooting; safety was not discussed.",
		Criteria: []CriterionScore{
			{Name: rubric[0].Name, Description: rubric[0].Description, Score: ptr(4), Rationale: "Kept a hospital customer informed during an outage.",
				Evidence: []Evidence{{Seq: 1, Question: qComms, Quote: "I kept them informed every 30 minutes by phone"}}},
			{Name: rubric[1].Name, Description: rubric[1].Description, Score: ptr(5), Rationale: "Methodical diagnosis with a measurable result.",
				Evidence: []Evidence{
					{Seq: 2, Question: qNetwork, Quote: "found a failing switch, replaced it and resolved the drops within 2 hours"},
					{Seq: 2, Question: qNetwork, Quote: "I start with the physical layer"},
				}},
			{Name: rubric[2].Name, Description: rubric[2].Description, Rationale: "Not discussed.", Evidence: []Evidence{}},
		},
		Tags: []Tag{{Name: "licensed", Value: ptr("licensed"), Seq: 3, Rule: TagRuleModel}, {Name: "weekends", Seq: 6, Rule: TagRuleModel}},
	}
	judgedThin := insufficient(Report{RubricVersion: RubricVersion(rubric), Engine: EngineOpenAI, Model: "test-model", Tags: valid.Tags},
		in, ReasonModel, "The answers do not describe any work in detail")
	noneAddressed := insufficient(Report{RubricVersion: RubricVersion(rubric), Engine: EngineOpenAI, Model: "test-model", Tags: valid.Tags},
		in, ReasonNotAddressed, "no answer addresses any of the 3 grading criteria")
	tests := []struct {
		name    string
		reply   http.HandlerFunc
		want    Report
		failure string // the fallback's logged kind; "" for none
		check   string // the failed check of an invalid reply
	}{
		{"valid", llmtest.Replying(modelReply(nil)), valid, "", ""},
		{"valid, in a code fence", llmtest.Replying("```json\n" + modelReply(nil) + "\n```"), valid, "", ""},
		{"insufficient data", llmtest.Replying(modelReply(func(m map[string]any) {
			m["status"], m["reason"], m["summary"], m["criteria"] = "insufficient_data", "The answers do not describe any work in detail.", "", []any{}
		})), judgedThin, "", ""},
		{"every score null", llmtest.Replying(modelReply(func(m map[string]any) {
			for i := range 3 {
				criterion(m, i)["score"], criterion(m, i)["evidence"] = nil, []any{}
			}
		})), noneAddressed, "", ""},
		{"fabricated quote", llmtest.Replying(modelReply(func(m map[string]any) {
			criterion(m, 0)["evidence"] = []any{map[string]any{"seq": 1, "quote": "I led a team of 40 engineers at Google."}}
		})), local, "invalid-output", "quote"},
		{"quote from another answer", llmtest.Replying(modelReply(func(m map[string]any) {
			criterion(m, 0)["evidence"] = []any{map[string]any{"seq": 2, "quote": "I kept them informed every 30 minutes by phone"}}
		})), local, "invalid-output", "quote"},
		{"quote of the question", llmtest.Replying(modelReply(func(m map[string]any) {
			criterion(m, 0)["evidence"] = []any{map[string]any{"seq": 1, "quote": "explained a technical problem to a customer"}}
		})), local, "invalid-output", "quote"},
		{"quote changes a character", llmtest.Replying(modelReply(func(m map[string]any) {
			criterion(m, 0)["evidence"] = []any{map[string]any{"seq": 1, "quote": "I kept them informed every 30 minutes by phone."}}
		})), local, "invalid-output", "quote"},
		{"quote of an unknown turn", llmtest.Replying(modelReply(func(m map[string]any) {
			criterion(m, 0)["evidence"] = []any{map[string]any{"seq": 99, "quote": "I kept them"}}
		})), local, "invalid-output", "evidence-seq"},
		{"score above the scale", llmtest.Replying(modelReply(func(m map[string]any) { criterion(m, 1)["score"] = 6 })), local, "invalid-output", "score"},
		{"score below the scale", llmtest.Replying(modelReply(func(m map[string]any) { criterion(m, 1)["score"] = 0 })), local, "invalid-output", "score"},
		{"score not an integer", llmtest.Replying(modelReply(func(m map[string]any) { criterion(m, 1)["score"] = 4.5 })), local, "invalid-output", "json"},
		{"score as text", llmtest.Replying(modelReply(func(m map[string]any) { criterion(m, 1)["score"] = "5" })), local, "invalid-output", "json"},
		{"score without a quote", llmtest.Replying(modelReply(func(m map[string]any) { criterion(m, 1)["evidence"] = []any{} })), local, "invalid-output", "evidence"},
		{"quotes without a score", llmtest.Replying(modelReply(func(m map[string]any) { criterion(m, 2)["evidence"] = criterion(m, 1)["evidence"] })), local, "invalid-output", "evidence"},
		{"a criterion missing", llmtest.Replying(modelReply(func(m map[string]any) { m["criteria"] = m["criteria"].([]any)[:2] })), local, "invalid-output", "criteria"},
		{"a criterion renamed", llmtest.Replying(modelReply(func(m map[string]any) { criterion(m, 2)["name"] = "Safety first" })), local, "invalid-output", "criterion-name"},
		{"rationale blank", llmtest.Replying(modelReply(func(m map[string]any) { criterion(m, 0)["rationale"] = " " })), local, "invalid-output", "rationale"},
		{"summary with a control character", llmtest.Replying(modelReply(func(m map[string]any) { m["summary"] = "Good\u0000" })), local, "invalid-output", "summary"},
		{"unknown status", llmtest.Replying(modelReply(func(m map[string]any) { m["status"] = "hire" })), local, "invalid-output", "status"},
		{"unknown field", llmtest.Replying(modelReply(func(m map[string]any) { m["rating"] = 4.5 })), local, "invalid-output", "json"},
		{"a tag missing", llmtest.Replying(modelReply(func(m map[string]any) { m["tags"] = m["tags"].([]any)[:1] })), local, "invalid-output", "tags"},
		{"a tag of an untagged turn", llmtest.Replying(modelReply(func(m map[string]any) {
			m["tags"] = append(m["tags"].([]any), map[string]any{"seq": 1, "value": "x"})
		})), local, "invalid-output", "tags"},
		{"a tag value too long", llmtest.Replying(modelReply(func(m map[string]any) {
			m["tags"] = []any{map[string]any{"seq": 3, "value": strings.Repeat("x", MaxTagValueLen+1)}, map[string]any{"seq": 6, "value": nil}}
		})), local, "invalid-output", "tags"},
		{"reply larger than 64 KiB", llmtest.Replying(modelReply(nil) + strings.Repeat(" ", 64<<10)), local, "invalid-output", "size"},
		{"not JSON, quoting the answer", llmtest.Replying("Sure! The candidate wrote " + marker), local, "invalid-output", "json"},
		{"server error echoing the prompt", func(w http.ResponseWriter, r *http.Request) {
			var req llm.ChatRequest
			json.NewDecoder(r.Body).Decode(&req)
			http.Error(w, "cannot process "+req.Messages[1].Content, http.StatusInternalServerError)
		}, local, "status", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, f := newOpenAI(t, 0, tt.reply)
			got := o.Evaluate(context.Background(), in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Evaluate =\n%s\nwant\n%s", dump(got), dump(tt.want))
			}
			if f.Calls.Load() != 1 {
				t.Errorf("Evaluate made %d requests, want 1 (no retries)", f.Calls.Load())
			}
			logged := f.log.String()
			if tt.failure == "" && logged != "" {
				t.Errorf("Evaluate logged %q, want nothing", logged)
			}
			if tt.failure != "" && (!strings.Contains(logged, "failure="+tt.failure) || !strings.Contains(logged, "model=test-model") || strings.Count(logged, "\n") != 1) {
				t.Errorf("Evaluate logged %q, want one line with failure=%s", logged, tt.failure)
			}
			if tt.check != "" && !strings.Contains(logged, "check="+tt.check+"\n") {
				t.Errorf("Evaluate logged %q, want check=%s", logged, tt.check)
			}
			for _, secret := range []string{"MARKER", "jane", "sk-test", "Comcast", "informed"} {
				if strings.Contains(logged, secret) {
					t.Errorf("Evaluate logged an answer, the reply or the key (%s): %q", secret, logged)
				}
			}
		})
	}
}

// TestOpenAIRequest: one JSON-mode request holding the rubric, every answer (bounded) between
// markers, and the tag questions.
func TestOpenAIRequest(t *testing.T) {
	o, f := newOpenAI(t, 0, llmtest.Replying(modelReply(nil)))
	in := markedInput()
	in.Turns[1].Answer = aNetwork + strings.Repeat(" word", 2*maxPromptAnswer)
	o.Evaluate(context.Background(), in)
	b := f.Last()
	if b.Model != "test-model" || b.ResponseFormat.Type != "json_object" || b.MaxTokens != maxReportTokens || b.Temperature != 0 ||
		len(b.Messages) != 2 || b.Messages[0].Content != evaluatePrompt {
		t.Fatalf("request = %+v", b)
	}
	user := b.Messages[1].Content
	for _, want := range []string{
		"1. Customer communication: Explains technical issues", "3. Safety: Follows",
		"[seq 1] Question (guide): " + qComms + "\nAnswer:\n<<<\n" + aComms + "\n>>>",
		"[seq 3] Question (structured): " + qLicence + "\nChoices: Yes | No\nAnswer:\n<<<\nYes\n>>>",
		"[seq 5] Question (follow-up): " + qMore, marker,
		"Tag questions:\n- seq 3: tag \"licensed\"; instructions: Yes -> licensed; No -> not licensed\n- seq 6: tag \"weekends\"; instructions: Tag yes or no.",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("user prompt lacks %q:\n%.2000s", want, user)
		}
	}
	if n := len([]rune(user)); n > 6000 {
		t.Errorf("user prompt is %d characters, want each answer bounded to %d", n, maxPromptAnswer)
	}
}

// TestOpenAINeverRatesThinAnswers: when the local rules find the answers too thin, the model
// is not asked; the report is the local one.
func TestOpenAINeverRatesThinAnswers(t *testing.T) {
	o, f := newOpenAI(t, 0, llmtest.Replying(modelReply(nil)))
	in := Input{Criteria: rubric, Turns: []Turn{
		{Seq: 1, StepIndex: 1, Source: models.TurnSourceGuide, Question: qComms, Answer: "Yes."},
		{Seq: 2, StepIndex: 2, Source: models.TurnSourceGuide, Question: qNetwork, Answer: "Reboot it."},
	}}
	got := o.Evaluate(context.Background(), in)
	if got.Reason != ReasonTooFewWords || got.Engine != EngineLocal || got.Rating != nil {
		t.Errorf("Evaluate(thin) = %s, want the local insufficient data", dump(got))
	}
	if f.Calls.Load() != 0 || f.log.Len() != 0 {
		t.Errorf("Evaluate(thin) made %d requests and logged %q", f.Calls.Load(), f.log.String())
	}

	// Answers that name no criterion's terms are not thin: the model may still judge them.
	in = Input{Criteria: []Criterion{rubric[2]}, Turns: strongInput().Turns}
	if got := o.Evaluate(context.Background(), in); f.Calls.Load() != 1 || got.Engine != EngineLocal || got.Reason != ReasonNotAddressed {
		t.Errorf("Evaluate(no criterion addressed locally) = %s after %d requests; want the model asked (its reply names other criteria: local fallback)", dump(got), f.Calls.Load())
	}
}

// TestParseModelReportQuoteBounds: a quote of at most MaxQuoteLen characters of its answer is
// taken; a longer one is refused even when it is in the answer.
func TestParseModelReportQuoteBounds(t *testing.T) {
	in := markedInput()
	in.Turns[1].Answer = aNetwork + strings.Repeat(" and then more détails", 20)
	longest := string([]rune(in.Turns[1].Answer)[:MaxQuoteLen])
	for q, wantErr := range map[string]bool{longest: false, in.Turns[1].Answer: true} {
		_, err := parseModelReport(modelReply(func(m map[string]any) {
			criterion(m, 1)["evidence"] = []any{map[string]any{"seq": 2, "quote": q}}
		}), in)
		var ie *invalidError
		if wantErr != (err != nil) || wantErr && (!errors.As(err, &ie) || ie.check != "quote") {
			t.Errorf("parseModelReport(quote of %d characters) = %v", len([]rune(q)), err)
		}
	}
}

func TestOpenAITooLongFallsBack(t *testing.T) {
	o, f := newOpenAI(t, 0, llmtest.Replying(modelReply(nil)))
	in := strongInput()
	for i := len(in.Turns); i <= maxPromptTurns; i++ {
		in.Turns = append(in.Turns, Turn{Seq: i + 1, StepIndex: i + 1, Source: models.TurnSourceGuide, Question: "Q?", Answer: aNetwork})
	}
	got := o.Evaluate(context.Background(), in)
	if want := NewLocal().Evaluate(context.Background(), in); !reflect.DeepEqual(got, want) || f.Calls.Load() != 0 || !strings.Contains(f.log.String(), "failure=too-large") {
		t.Errorf("Evaluate(%d turns) = %s after %d requests, log %q; want the local report", len(in.Turns), dump(got), f.Calls.Load(), f.log.String())
	}
}

func TestOpenAITimeoutFallsBack(t *testing.T) {
	o, f := newOpenAI(t, 50*time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
		select { // until the client gives up
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	in := markedInput()
	start := time.Now()
	got := o.Evaluate(context.Background(), in)
	if want := NewLocal().Evaluate(context.Background(), in); !reflect.DeepEqual(got, want) {
		t.Errorf("Evaluate(slow model) = %s, want the local report", dump(got))
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Evaluate(slow model) took %v, want about its 50ms timeout", took)
	}
	if !strings.Contains(f.log.String(), "failure=timeout") {
		t.Errorf("log = %q, want failure=timeout", f.log.String())
	}

	// A workflow that gives up cancels the request: the local rules still answer.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	o.timeout = 5 * time.Second
	f.log.Reset()
	if got := o.Evaluate(ctx, in); got.Engine != EngineLocal || !strings.Contains(f.log.String(), "failure=canceled") {
		t.Errorf("Evaluate(canceled) = %s, log %q", dump(got), f.log.String())
	}
}

func TestNewEvaluator(t *testing.T) {
	ev, err := NewEvaluator(Config{Model: "m"})
	if _, ok := ev.(*Local); !ok || err != nil {
		t.Errorf("NewEvaluator(no base URL) = %T, %v; want *Local", ev, err)
	}
	for _, c := range []Config{
		{BaseURL: "ftp://example.com", Model: "m"},
		{BaseURL: "https://api.example.com/v1"},
		{BaseURL: "https://api.example.com/v1", Model: "m", Timeout: -time.Second},
	} {
		c.APIKey = "sk-test-key-123456"
		if _, err := NewEvaluator(c); err == nil || strings.Contains(err.Error(), c.APIKey) {
			t.Errorf("NewEvaluator(%q, %q, %v) = %v, want an error without the key", c.BaseURL, c.Model, c.Timeout, err)
		}
	}
	for in, want := range map[time.Duration]time.Duration{0: DefaultOpenAITimeout, time.Second: time.Second, 10 * time.Minute: MaxOpenAITimeout} {
		o, err := NewOpenAI(Config{BaseURL: "https://api.example.com/v1", Model: "m", Timeout: in})
		if err != nil || o.timeout != want {
			t.Errorf("NewOpenAI(timeout %v): %v, timeout %v; want %v", in, err, o.timeout, want)
		}
	}
}

// FuzzParseModelReport: the model's reply is untrusted. Whatever it holds, parsing never panics,
// and a reply it accepts gives a report whose every quote is in its answer, whose scores and
// rating are on the scale, and whose criteria are the rubric's.
func FuzzParseModelReport(f *testing.F) {
	f.Add(modelReply(nil))
	f.Add("```json\n" + modelReply(nil) + "\n```")
	f.Add(`{"status":"insufficient_data","reason":"Too thin.","summary":"","criteria":[],"tags":[{"seq":3,"value":"x"},{"seq":6,"value":null}]}`)
	in := markedInput()
	f.Fuzz(func(t *testing.T, content string) {
		r, err := parseModelReport(content, in)
		if err != nil {
			var ie *invalidError
			if !errors.As(err, &ie) || strings.Contains(err.Error(), "MARKER") {
				t.Fatalf("error %v is not an invalidError or quotes an answer", err)
			}
			return
		}
		answers := map[int]string{}
		for _, tt := range in.Turns {
			answers[tt.Seq] = tt.Answer
		}
		switch r.Status {
		case StatusReady:
			if r.Rating == nil || *r.Rating < MinScore || *r.Rating > MaxScore || r.Reason != ReasonNone || r.Summary == "" {
				t.Fatalf("ready report %s", dump(r))
			}
		case StatusInsufficientData:
			if r.Rating != nil || r.Reason == ReasonNone {
				t.Fatalf("insufficient report %s", dump(r))
			}
		default:
			t.Fatalf("status %q", r.Status)
		}
		if len(r.Criteria) != len(in.Criteria) || len(r.Tags) != 2 || r.Engine != EngineOpenAI {
			t.Fatalf("report %s", dump(r))
		}
		for i, c := range r.Criteria {
			if c.Name != in.Criteria[i].Name || c.Score != nil && (*c.Score < MinScore || *c.Score > MaxScore) || hasControl(c.Rationale) {
				t.Fatalf("criterion %d: %s", i, dump(c))
			}
			for _, e := range c.Evidence {
				if e.Quote == "" || !strings.Contains(answers[e.Seq], e.Quote) || len([]rune(e.Quote)) > MaxQuoteLen {
					t.Fatalf("quote %q is not in the answer of turn %d", e.Quote, e.Seq)
				}
			}
		}
		for _, tag := range r.Tags {
			if tag.Value != nil && (*tag.Value == "" || len([]rune(*tag.Value)) > MaxTagValueLen || hasControl(*tag.Value)) {
				t.Fatalf("tag %s", dump(tag))
			}
		}
	})
}
