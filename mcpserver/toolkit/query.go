package toolkit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/google/uuid"
)

// InputSchema is the JSON schema inferred from In with fixed enumerations set on the named
// string properties, so that clients see the allowed values in tools/list. Handlers still
// validate them (with OneOf), since the schema is advisory for clients that skip validation.
func InputSchema[In any](enums map[string][]string) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %T: %v", *new(In), err))
	}
	for name, values := range enums {
		p := s.Properties[name]
		if p == nil {
			panic(fmt.Sprintf("%T has no input property %q", *new(In), name))
		}
		p.Enum = make([]any, len(values))
		for i, v := range values {
			p.Enum[i] = v
		}
	}
	return s
}

// Strings converts enumeration values to strings; nil when there are none.
func Strings[T ~string](vs []T) []string {
	if len(vs) == 0 {
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// LikeContains is the (I)LIKE pattern matching s anywhere, its metacharacters escaped.
func LikeContains(s string) string { return "%" + likeEscaper.Replace(s) + "%" }

// Query accumulates the arguments and predicates of one statement; $1 is always the company.
// Windows become plain range predicates, added only for bounded ends: a cached generic plan of
// "$n IS NULL OR col >= $n" cannot use a range index.
type Query struct {
	Args  []any
	conds []string
}

// NewQuery starts a statement scoped to companyID ($1).
func NewQuery(companyID uuid.UUID) *Query { return &Query{Args: []any{companyID}} }

// Arg adds an argument and returns its placeholder.
func (q *Query) Arg(v any) string {
	q.Args = append(q.Args, v)
	return "$" + strconv.Itoa(len(q.Args))
}

// Where adds a predicate to And.
func (q *Query) Where(format string, args ...any) {
	q.conds = append(q.conds, fmt.Sprintf(format, args...))
}

// Window adds the bounded ends of w on column col to And.
func (q *Query) Window(col string, w Window) {
	if w.Since != nil {
		q.Where("%s >= %s", col, q.Arg(*w.Since))
	}
	if w.Until != nil {
		q.Where("%s < %s", col, q.Arg(*w.Until))
	}
}

// And is the accumulated predicates joined by AND, prefixed with AND ("" when none).
func (q *Query) And() string {
	if len(q.conds) == 0 {
		return ""
	}
	return " AND " + strings.Join(q.conds, " AND ")
}

// Range returns " AND col >= $n AND col < $m" for the bounded ends of w, for statements that
// place their window predicates themselves.
func (q *Query) Range(col string, w Window) string {
	var b strings.Builder
	if w.Since != nil {
		b.WriteString(" AND " + col + " >= " + q.Arg(*w.Since))
	}
	if w.Until != nil {
		b.WriteString(" AND " + col + " < " + q.Arg(*w.Until))
	}
	return b.String()
}
