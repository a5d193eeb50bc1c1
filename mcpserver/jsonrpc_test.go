package mcpserver

import (
	"strings"
	"testing"
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
