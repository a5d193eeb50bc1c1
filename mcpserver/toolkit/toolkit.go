// Package toolkit is what every MCP tool family shares, so that the tools speak one vocabulary:
// the caller and its company scope, the call's read-only snapshot (Call.DB), the job scope
// (ScopeArg, Call.Scope, Scope), argument bounds and enumerations, date windows (WindowArg,
// Window, WindowOut), ids (ParseID, ParseJobID), nullable columns (NullString, NullFloat,
// NullTime), ranked per-job tables (Call.RankJobs), readable text output, and registration with
// the go-sdk (read-only annotations, error hygiene, metrics).
//
// A tool is a handler of typed input returning its structured output and its text:
//
//	toolkit.Add(s, env, &mcp.Tool{Name: "getX", Description: "..."}, func(ctx context.Context, call *toolkit.Call, in XInput) (XOutput, *toolkit.Text, error) {...})
//
// Inputs that take a companyId embed CompanyArg; Add resolves it against the caller and loads the
// company in the call's snapshot before the handler runs, so call.Company is always a company
// the caller may see (OptionalCompanyArg: or nil, for a caller without one who named none). Outputs embed Notices so
// that clamped arguments are reported in structuredContent as well as in the text.
package toolkit

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"gorm.io/gorm"

	"github.com/recruitd/recruitd/internal/jsontext"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// JobContextMetaKey is the params._meta key of tools/call that carries the current job context
// (a job UUID), for clients embedded in a job's page. An explicit positionId wins over it.
const JobContextMetaKey = "io.recruitd/jobId"

// MaxToolDuration bounds one tool call unless Env.ToolTimeout says otherwise; the spec allows
// searches up to 60 seconds.
const MaxToolDuration = 60 * time.Second

// Env holds what tools need; one per server.
type Env struct {
	Store   *store.Store
	Links   links.Builder
	Log     *slog.Logger
	Metrics *Metrics
	// Now is the clock of default date windows; time.Now when nil.
	Now func() time.Time
	// ToolTimeout bounds one tool call, its statements included (MCP_TOOL_TIMEOUT); 0 means
	// MaxToolDuration.
	ToolTimeout time.Duration
}

func (e *Env) toolTimeout() time.Duration {
	if e.ToolTimeout > 0 {
		return e.ToolTimeout
	}
	return MaxToolDuration
}

func (e *Env) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// Metrics are the tool server's per-tool metrics.
type Metrics struct {
	duration *prometheus.HistogramVec
}

// NewMetrics registers recruitd_mcp_tool_duration_seconds{tool,outcome} with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "recruitd_mcp_tool_duration_seconds",
		Help:    "Duration of MCP tool calls by tool and outcome (ok, tool_error, internal_error).",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"tool", "outcome"})}
	reg.MustRegister(m.duration)
	return m
}

func (m *Metrics) observe(tool, outcome string, d time.Duration) {
	if m != nil {
		m.duration.WithLabelValues(tool, outcome).Observe(d.Seconds())
	}
}

// CompanyArg is the optional companyId every company-scoped tool accepts; embed it in inputs.
type CompanyArg struct {
	CompanyID string `json:"companyId,omitempty" jsonschema:"the company to query (a UUID from listCompanies); omitted means your primary company"`
}

func (a CompanyArg) companyArg() string { return a.CompanyID }

type scoped interface{ companyArg() string }

// OptionalCompanyArg is CompanyArg for a tool that also answers callers without a company of
// their own (listCompanies, for a platform admin without memberships): when such a caller omits
// companyId, the handler runs with call.Company nil instead of the call being refused.
type OptionalCompanyArg struct{ CompanyArg }

func (OptionalCompanyArg) companyOptional() {}

type companyOptional interface{ companyOptional() }

// Notices lists what the server changed or could not honour in the request (clamped values,
// ignored context); embed it in outputs.
// (The field is not named Notices: Go would hide a field named like its embedded struct, and
// schema inference with it.)
type Notices struct {
	Messages []string `json:"notices,omitempty" jsonschema:"adjustments the server made to the request, such as clamped limits"`
}

func (n *Notices) setNotices(s []string) { n.Messages = s }

type noticed interface{ setNotices([]string) }

// Querier runs statements: the call's read-only transaction (Call.DB).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Call is one tool invocation's resolved context.
type Call struct {
	Env    *Env
	Caller *Caller
	// DB is the call's read-only, repeatable-read transaction: every query of the call sees one
	// snapshot (a count and its detail rows agree), and Postgres refuses any write in it. Add
	// opens it before the handler runs and rolls it back after.
	DB Querier
	// Company is the company the call is scoped to, loaded in DB; nil for tools without
	// CompanyArg, and for OptionalCompanyArg when the caller has no company and named none.
	Company *models.Company
	// Now is the call's clock reading, for default windows.
	Now time.Time

	jobContext string
	notices    []string
	endSnap    func()
}

// EndSnapshot rolls back the call's snapshot early, giving its connection back to the pool, for
// a handler whose remaining work runs in a read-only transaction of its own
// (searchCandidates: internal/talent opens one on the pool). Call.DB must not be used after.
// Holding the snapshot's connection while waiting for a second one could exhaust the pool under
// concurrent calls.
func (c *Call) EndSnapshot() {
	if c.endSnap != nil {
		c.endSnap()
	}
}

// Notice records an adjustment to report with the output.
func (c *Call) Notice(format string, args ...any) {
	c.notices = append(c.notices, fmt.Sprintf(format, args...))
}

// Handler is a typed tool implementation: structured output plus its human-readable text.
type Handler[In, Out any] func(ctx context.Context, call *Call, in In) (Out, *Text, error)

// Add registers a read-only tool. The handler's errors made with Errorf (or the caller's scope
// errors) reach the client as tool errors; any other error is logged with a reference and
// answered as "internal error (ref ...)", so no internals leak.
func Add[In, Out any](s *mcp.Server, env *Env, tool *mcp.Tool, h Handler[In, Out]) {
	if tool.Annotations == nil {
		tool.Annotations = &mcp.ToolAnnotations{}
	}
	tool.Annotations.ReadOnlyHint = true
	tool.Annotations.IdempotentHint = true
	tool.Annotations.OpenWorldHint = new(false)
	freezeSchemas[In, Out](tool)
	mcp.AddTool(s, tool, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		start := time.Now()
		ctx, unbind := boundToRequest(ctx)
		defer unbind()
		ctx, cancel := context.WithTimeout(ctx, env.toolTimeout())
		defer cancel()
		out, text, err := run(ctx, env, req, in, h)
		outcome := "ok"
		if err != nil {
			var te *toolError
			switch {
			case errors.As(err, &te):
				outcome = "tool_error"
			case store.IsUnavailable(err):
				outcome = "unavailable"
				env.Log.WarnContext(ctx, "tool call: database unavailable", "tool", tool.Name, "err", err)
				err = Errorf("the database is unavailable for the moment; retry shortly")
			default:
				outcome = "internal_error"
				err = env.internal(ctx, tool.Name, err)
			}
			env.Metrics.observe(tool.Name, outcome, time.Since(start))
			return nil, out, err
		}
		env.Metrics.observe(tool.Name, outcome, time.Since(start))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text.String()}}}, out, nil
	})
}

// freezeSchemas gives tool its input and output schemas as JSON, marshalled once. The SDK
// marshals a *jsonschema.Schema anew on every tools/list (each property in order, by
// reflection): 10 ms of CPU for the 18 tools, more than most tool calls. A json.RawMessage is
// copied. The SDK reads the raw schemas back once, when the tool is added, and validates each
// call's arguments and answer against them as before; the output schema is the one it would
// infer from Out.
func freezeSchemas[In, Out any](tool *mcp.Tool) {
	if tool.InputSchema == nil {
		tool.InputSchema = InputSchema[In](nil)
	}
	out := reflect.TypeFor[Out]()
	if out.Kind() == reflect.Pointer {
		out = out.Elem()
	}
	if tool.OutputSchema == nil {
		s, err := jsonschema.ForType(out, &jsonschema.ForOptions{})
		if err != nil {
			panic(fmt.Sprintf("output schema of %s: %v", tool.Name, err))
		}
		tool.OutputSchema = s
	}
	for _, schema := range []*any{&tool.InputSchema, &tool.OutputSchema} {
		raw, err := json.Marshal(*schema)
		if err != nil {
			panic(fmt.Sprintf("schema of %s: %v", tool.Name, err))
		}
		*schema = json.RawMessage(raw)
	}
}

func run[In, Out any](ctx context.Context, e *Env, req *mcp.CallToolRequest, in In, h Handler[In, Out]) (Out, *Text, error) {
	var zero Out
	caller := CallerFrom(ctx)
	if caller == nil {
		return zero, nil, errors.New("no caller in the request context")
	}
	// Text Postgres cannot store is a tool error naming the argument, never a database error.
	if req != nil && req.Params != nil {
		var bad *jsontext.Problem
		if err := jsontext.Check(req.Params.Arguments); errors.As(err, &bad) {
			return zero, nil, Errorf("argument %s: text may not hold NUL characters or bytes that are not UTF-8", bad.Error())
		}
	}
	call := &Call{Env: e, Caller: caller, Now: e.now()}
	var companyID uuid.UUID
	sc, scoped := any(in).(scoped)
	if scoped {
		id, err := caller.Company(sc.companyArg())
		_, optional := any(in).(companyOptional)
		switch {
		case optional && errors.Is(err, ErrNoDefaultCompany):
			scoped = false // no company: the handler answers without one
		case err != nil:
			return zero, nil, &toolError{err.Error()}
		}
		companyID = id
	}
	tx := e.Store.DB().WithContext(ctx).Begin(&sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
	if tx.Error != nil {
		return zero, nil, fmt.Errorf("begin the call's snapshot: %w", tx.Error)
	}
	var once sync.Once
	call.endSnap = func() { once.Do(func() { tx.Rollback() }) }
	defer call.EndSnapshot()
	db, ok := store.SQLTx(tx)
	if !ok {
		return zero, nil, fmt.Errorf("begin the call's snapshot: connection pool %T is not a *sql.Tx", tx.Statement.ConnPool)
	}
	// The snapshot's statements end with the call, whatever the connection's own timeout.
	if ms, ok := statementTimeout(ctx); ok {
		if _, err := db.ExecContext(ctx, `SELECT set_config('statement_timeout', $1, true)`, ms); err != nil {
			return zero, nil, fmt.Errorf("bound the call's statements: %w", err)
		}
	}
	call.DB = db
	if scoped {
		var c models.Company
		err := tx.Take(&c, "id = ?", companyID).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return zero, nil, Errorf("company %s does not exist; run listCompanies", companyID)
		}
		if err != nil {
			return zero, nil, fmt.Errorf("load company %s: %w", companyID, err)
		}
		call.Company = &c
	}
	if req != nil && req.Params != nil {
		if v, ok := req.Params.Meta[JobContextMetaKey].(string); ok {
			call.jobContext = v
		}
	}
	out, text, err := h(ctx, call, in)
	if err != nil {
		if (ctx.Err() != nil || isQueryCanceled(err)) && !isToolError(err) {
			return zero, nil, Errorf("the request was cancelled or took longer than %s", e.toolTimeout())
		}
		return zero, nil, err
	}
	if text == nil {
		text = &Text{}
	}
	if len(call.notices) > 0 {
		if n, ok := any(&out).(noticed); ok {
			n.setNotices(call.notices)
		}
		text.prependNotices(call.notices)
	}
	return out, text, nil
}

// statementTimeout is the statement_timeout (milliseconds, for set_config) that ends a statement
// when ctx does: what remains until its deadline, at least 1 ms; false without a deadline. A
// statement then stops in Postgres too, not only in the client that gave up on it.
func statementTimeout(ctx context.Context) (string, bool) {
	dl, ok := ctx.Deadline()
	if !ok {
		return "", false
	}
	return strconv.FormatInt(max(1, time.Until(dl).Milliseconds()), 10), true
}

// isQueryCanceled reports a statement Postgres cancelled (statement_timeout, or a cancel request
// sent when the call's context ended).
func isQueryCanceled(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "57014"
}

// toolError is an error meant for the client (bad arguments, feature off, not found).
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

// Errorf returns a tool error, its string arguments escaped (Escape): its message is shown to
// the client as is, so it must name the problem and how to fix it, and carry no internals.
func Errorf(format string, args ...any) error {
	return &toolError{fmt.Sprintf(format, escapeArgs(args)...)}
}

func isToolError(err error) bool {
	var te *toolError
	return errors.As(err, &te)
}

func (e *Env) internal(ctx context.Context, tool string, err error) error {
	ref := uuid.NewString()[:8]
	e.Log.ErrorContext(ctx, "tool failed", "tool", tool, "ref", ref, "err", err)
	return fmt.Errorf("internal error (ref %s); please retry, and report the ref if it persists", ref)
}
