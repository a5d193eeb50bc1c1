package toolkit_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
)

// TestSchemasAreTheInferredOnes lists the probe tool, whose schemas toolkit.Add marshals once,
// beside the same tool added to a bare server with the schemas the SDK infers: both list the same
// input and output schemas, and the frozen input schema still refuses an argument of the wrong
// type before the handler runs.
func TestSchemasAreTheInferredOnes(t *testing.T) {
	h := tooltest.New(t, time.Time{}, register(nil))
	co := h.Company(t, "acme", "Acme", nil)
	caller := tooltest.KeyCaller(co)
	frozen := h.Tools(t, caller)

	bare := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "0"}, nil)
	mcp.AddTool(bare, &mcp.Tool{Name: "probe", Description: "test tool"}, func(context.Context, *mcp.CallToolRequest, sleepInput) (*mcp.CallToolResult, sleepOutput, error) {
		return nil, sleepOutput{}, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := bare.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	inferred, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(frozen) != 1 || len(inferred.Tools) != 1 {
		t.Fatalf("tools: %d frozen, %d inferred; want 1 each", len(frozen), len(inferred.Tools))
	}
	asJSON := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range []struct {
		name          string
		got, inferred any
	}{{"input", frozen[0].InputSchema, inferred.Tools[0].InputSchema}, {"output", frozen[0].OutputSchema, inferred.Tools[0].OutputSchema}} {
		if g, w := asJSON(c.got), asJSON(c.inferred); g != w || len(g) < 50 {
			t.Errorf("%s schema =\n%s\nthe SDK infers\n%s", c.name, g, w)
		}
	}

	r := h.Call(t, caller, "probe", map[string]any{"fail": 42}, nil)
	if !r.IsError || !strings.Contains(r.Text, "fail") {
		t.Errorf("probe with a number for the string fail = %q (error %v); want the schema's refusal", r.Text, r.IsError)
	}
}
