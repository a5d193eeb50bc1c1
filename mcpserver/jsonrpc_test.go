package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTransportErrorsAreJSONRPC: a body that is not JSON-RPC, an unknown method and malformed
// params are answered with JSON-RPC error objects naming no Go type.
func TestTransportErrorsAreJSONRPC(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		body, want string
		status     int
	}{
		{`{not json`, `"code":-32700`, 400},
		{`{"jsonrpc":"2.0","id":7,"method":"nope"}`, `"id":7`, 400},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"x"}`, `"code":-32602`, 200},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nosuchtool","arguments":{}}}`, `unknown tool`, 200},
	}
	for _, tt := range tests {
		status, body := f.post(t, tt.body)
		if status != tt.status || !strings.Contains(body, `"jsonrpc":"2.0"`) || !strings.Contains(body, `"error"`) || !strings.Contains(body, tt.want) {
			t.Errorf("POST %s = %d %s, want %d and a JSON-RPC error with %s", tt.body, status, body, tt.status, tt.want)
		}
		for _, internal := range []string{"mcp.", "Go value", "unmarshaling", "Raw"} {
			if strings.Contains(body, internal) {
				t.Errorf("POST %s = %s, names Go internals (%q)", tt.body, body, internal)
			}
		}
	}
}

// call is one tools/call of listCompanies with id.
func call(id int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"listCompanies","arguments":{}}}`
}

func batch(ids ...int) string {
	calls := make([]string, len(ids))
	for i, id := range ids {
		calls[i] = call(id)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// TestLargeBatchRefusedAtOnce: a POST of 10,000 calls (950 KB) gets a short JSON-RPC error
// naming the limit, at once, and runs nothing; so does a batch in a protocol version without
// batches, and an empty one.
func TestLargeBatchRefusedAtOnce(t *testing.T) {
	f := newFixture(t, "MAX_BODY_BYTES", "1048576")
	ids := make([]int, 10000)
	for i := range ids {
		ids[i] = i + 1
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	start := time.Now()
	status, body := f.postContext(t, ctx, batch(ids...))
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("a batch of 10,000 calls was answered in %s, want at once", took)
	}
	if status != http.StatusBadRequest || len(body) > 1024 || !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "at most 10 messages") {
		t.Errorf("a batch of 10,000 calls = %d %.300s (%d bytes), want 400 and a short JSON-RPC error naming the limit of 10", status, body, len(body))
	}
	for _, tt := range []struct{ name, body, version, want string }{
		{"batches removed in 2025-06-18", batch(1, 2), "2025-06-18", "2025-06-18"},
		{"empty batch", `[]`, "", "empty batch"},
		{"not JSON", `[{"jsonrpc":"2.0","id":1,`, "", ""},
	} {
		var headers []string
		if tt.version != "" {
			headers = []string{"MCP-Protocol-Version", tt.version}
		}
		status, body := f.post(t, tt.body, headers...)
		if status != http.StatusBadRequest || !strings.Contains(body, `"jsonrpc":"2.0"`) || !strings.Contains(body, `"error"`) || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d %s, want 400 and a JSON-RPC error with %q", tt.name, status, body, tt.want)
		}
	}
	// The refusal comes after authentication.
	status, body = f.post(t, batch(ids[:20]...), "Authorization", "Bearer rk_unknownunknownunknownunknown")
	if status != http.StatusUnauthorized {
		t.Errorf("a large batch with an unknown key = %d %s, want 401", status, body)
	}
}

// TestBatchSpendsOneRequestPerMessage: each message of a batch spends the key's rate budget
// as a request of its own; calls beyond the budget get JSON-RPC errors saying so, and a batch
// with no budget left gets the 429 of a single request.
func TestBatchSpendsOneRequestPerMessage(t *testing.T) {
	f := newFixture(t, "API_RATE_LIMIT", "0.001", "API_RATE_BURST", "6")
	status, body := f.post(t, batch(1, 2, 3))
	var answers []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &answers); status != http.StatusOK || err != nil || len(answers) != 3 {
		t.Fatalf("a batch of 3 calls = %d %.300s, want 200 and 3 answers", status, body)
	}
	for i, a := range answers {
		if a.ID != i+1 || a.Error != nil || !strings.Contains(string(a.Result), "Acme Corp") {
			t.Errorf("answer %d = id %d, result %.100s, error %+v; want id %d and Acme Corp", i, a.ID, a.Result, a.Error, i+1)
		}
	}
	// 3 of 6 left: a batch of 5 runs 3 calls, then says why the last 2 did not run.
	status, body = f.post(t, batch(11, 12, 13, 14, 15))
	answers = answers[:0]
	if err := json.Unmarshal([]byte(body), &answers); status != http.StatusOK || err != nil || len(answers) != 5 {
		t.Fatalf("a batch of 5 calls with 3 left = %d %.300s, want 200 and 5 answers", status, body)
	}
	for i, a := range answers {
		limited := i >= 3
		if a.ID != 11+i || (a.Error != nil) != limited || limited && (a.Error.Code != -32000 || !strings.Contains(a.Error.Message, "rate")) {
			t.Errorf("answer %d = id %d, error %+v; want id %d and a rate-limit error: %v", i, a.ID, a.Error, 11+i, limited)
		}
	}
	if status, body := f.post(t, batch(21, 22)); status != http.StatusTooManyRequests {
		t.Errorf("a batch with no budget left = %d %.200s, want 429", status, body)
	}
	if status, body := f.post(t, call(31)); status != http.StatusTooManyRequests {
		t.Errorf("a single call after 6 batched ones = %d %.200s, want 429", status, body)
	}
}

// TestBatchOfNotificationsIsAccepted: a batch of notifications only is answered 202, no body.
func TestBatchOfNotificationsIsAccepted(t *testing.T) {
	f := newFixture(t)
	status, body := f.post(t, `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
	if status != http.StatusAccepted || body != "" {
		t.Errorf("a batch of notifications = %d %q, want 202 and no body", status, body)
	}
	status, body = f.post(t, `[{"jsonrpc":"2.0","method":"notifications/initialized"},`+call(7)+`]`)
	if status != http.StatusOK || !strings.HasPrefix(body, `[{"jsonrpc":"2.0","id":7,`) || !strings.HasSuffix(strings.TrimSpace(body), "]") {
		t.Errorf("a notification and a call = %d %.200s, want 200 and one answer in an array", status, body)
	}
	// A batch inside a batch is no message: it is answered as an invalid request, not run.
	status, body = f.post(t, `[`+batch(1, 2)+`,1,`+call(8)+`]`)
	var answers []map[string]any
	if err := json.Unmarshal([]byte(body), &answers); status != http.StatusOK || err != nil || len(answers) != 3 ||
		!strings.Contains(body, `"code":-32600`) || answers[2]["id"] != float64(8) || answers[2]["result"] == nil {
		t.Errorf("a nested batch, a number and a call = %d %.300s, want two invalid-request errors and the call's answer", status, body)
	}
}

// postContext is post with a valid bearer key, bounded by ctx; a request ctx ends is status 0.
func (f *fixture) postContext(t *testing.T, ctx context.Context, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+f.acmeKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
