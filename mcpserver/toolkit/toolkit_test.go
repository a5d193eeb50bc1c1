package toolkit_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
)

type sleepInput struct {
	toolkit.CompanyArg
	Fail string `json:"fail,omitempty"`
}

type sleepOutput struct {
	Company          string `json:"company"`
	StatementTimeout string `json:"statementTimeout,omitempty"`
	toolkit.Notices
}

func register(done chan error) func(*mcp.Server, *toolkit.Env) {
	return func(s *mcp.Server, env *toolkit.Env) {
		toolkit.Add(s, env, &mcp.Tool{Name: "probe", Description: "test tool"}, func(ctx context.Context, call *toolkit.Call, in sleepInput) (sleepOutput, *toolkit.Text, error) {
			switch in.Fail {
			case "tool":
				return sleepOutput{}, nil, toolkit.Errorf("bad argument")
			case "internal":
				return sleepOutput{}, nil, context.DeadlineExceeded
			case "write":
				w, ok := call.DB.(interface {
					ExecContext(context.Context, string, ...any) (sql.Result, error)
				})
				if !ok {
					return sleepOutput{}, nil, toolkit.Errorf("call.DB %T cannot execute statements", call.DB)
				}
				_, err := w.ExecContext(ctx, `UPDATE companies SET name = 'Hacked' WHERE id = $1`, call.Company.ID)
				return sleepOutput{}, nil, toolkit.Errorf("write: %v", err)
			case "show":
				var v string
				err := call.DB.QueryRowContext(ctx, `SHOW statement_timeout`).Scan(&v)
				return sleepOutput{StatementTimeout: v}, nil, err
			case "slow":
				_, err := call.DB.QueryContext(ctx, `SELECT pg_sleep(30)`)
				return sleepOutput{}, nil, err
			case "sleep":
				_, err := call.Env.Store.SQL().ExecContext(ctx, `SELECT pg_sleep(30)`)
				done <- err
				return sleepOutput{}, nil, err
			}
			limit := 500
			if _, err := call.Limit("limit", &limit, 10, 1, 200); err != nil {
				return sleepOutput{}, nil, err
			}
			var t toolkit.Text
			t.H1("Company %s", call.Company.Name)
			return sleepOutput{Company: call.Company.Name}, &t, nil
		})
	}
}

func TestAddScopesReportsAndHidesInternals(t *testing.T) {
	h := tooltest.New(t, time.Time{}, register(nil))
	acme := h.Company(t, "acme", "Acme Corp", nil)
	globex := h.Company(t, "globex", "Globex", nil)

	r := h.OK(t, tooltest.KeyCaller(acme), "probe", nil)
	var out sleepOutput
	r.Decode(t, &out)
	if out.Company != "Acme Corp" || len(out.Messages) != 1 || !strings.HasPrefix(r.Text, "Note: limit 500 is above the maximum 200") || !strings.Contains(r.Text, "# Company Acme Corp") {
		t.Errorf("probe = %q %+v", r.Text, out)
	}
	h.AssertIsolated(t, acme, globex, "probe", nil)
	h.ToolError(t, tooltest.KeyCaller(acme), "probe", map[string]any{"fail": "tool"}, "bad argument")
	r = h.Call(t, tooltest.KeyCaller(acme), "probe", map[string]any{"fail": "internal"}, nil)
	if !r.IsError || !strings.HasPrefix(r.Text, "internal error (ref ") || strings.Contains(r.Text, "deadline") {
		t.Errorf("internal failure = %q; want a reference without internals", r.Text)
	}
	admin := &toolkit.Caller{Kind: toolkit.CallerUser, CompanyIDs: []uuid.UUID{acme.ID}, PlatformAdmin: true}
	r = h.OK(t, admin, "probe", map[string]any{"companyId": globex.ID.String()})
	if !strings.Contains(r.Text, "Globex") {
		t.Errorf("platform admin on another company = %q", r.Text)
	}
	h.ToolError(t, admin, "probe", map[string]any{"companyId": "0b7c2a4e-0000-4000-8000-000000000000"}, "does not exist")
}

func TestClientGoingAwayCancelsTheQuery(t *testing.T) {
	done := make(chan error, 1)
	h := tooltest.New(t, time.Time{}, register(done))
	acme := h.Company(t, "acme", "Acme Corp", nil)
	cs := h.Session(t, tooltest.KeyCaller(acme))
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "probe", Arguments: map[string]any{"fail": "sleep"}})
	if err == nil {
		t.Fatal("call with a cancelled context succeeded")
	}
	select {
	case err := <-done:
		if err == nil || time.Since(start) > 5*time.Second {
			t.Errorf("query ended with %v after %s; want cancellation soon after the client left", err, time.Since(start))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the query kept running after the client went away")
	}
	// The backend takes the cancel request asynchronously: allow it a moment on a busy machine.
	var n int
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		err = h.DB.SQL.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'SELECT pg_sleep%' AND state = 'active'`).Scan(&n)
		if err != nil || n == 0 || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || n != 0 {
		t.Errorf("pg_sleep still active in %d backends 3 s after the client left (%v)", n, err)
	}
}

// TestCallsCannotWrite: a tool's queries run in a read-only transaction, so Postgres refuses a
// write whatever the tool does.
func TestCallsCannotWrite(t *testing.T) {
	h := tooltest.New(t, time.Time{}, register(nil))
	acme := h.Company(t, "acme", "Acme Corp", nil)
	h.ToolError(t, tooltest.KeyCaller(acme), "probe", map[string]any{"fail": "write"}, "cannot execute UPDATE in a read-only transaction")
	var name string
	if err := h.DB.SQL.QueryRowContext(t.Context(), `SELECT name FROM companies WHERE id = $1`, acme.ID).Scan(&name); err != nil || name != "Acme Corp" {
		t.Errorf("company name after the write attempt = %q, %v; want Acme Corp", name, err)
	}
}

// TestToolCallBoundsItsStatements: one setting (Env.ToolTimeout, MCP_TOOL_TIMEOUT) bounds a tool
// call, and the call's statements get what remains of it as their statement_timeout, so a slow
// statement ends with the call, in Postgres too, and answers a tool error naming the bound.
func TestToolCallBoundsItsStatements(t *testing.T) {
	h := tooltest.New(t, time.Time{}, register(nil))
	h.Env.ToolTimeout = 2 * time.Second
	acme := h.Company(t, "acme", "Acme Corp", nil)
	var out sleepOutput
	h.OK(t, tooltest.KeyCaller(acme), "probe", map[string]any{"fail": "show"}).Decode(t, &out)
	if d, err := time.ParseDuration(out.StatementTimeout); err != nil || d <= 0 || d > 2*time.Second {
		t.Errorf("statement_timeout inside a tool call bounded to 2s = %q (%v), want at most 2s", out.StatementTimeout, err)
	}

	start := time.Now()
	h.ToolError(t, tooltest.KeyCaller(acme), "probe", map[string]any{"fail": "slow"}, "took longer than 2s")
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a 30 s statement in a call bounded to 2s answered after %s", took)
	}
	var n int
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		err := h.DB.SQL.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'SELECT pg_sleep(30)%' AND state = 'active'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 || time.Now().After(deadline) {
			break
		}
	}
	if n != 0 {
		t.Errorf("pg_sleep still active in %d backends after the call ended", n)
	}
}
