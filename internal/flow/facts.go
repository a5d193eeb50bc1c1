package flow

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// Facts are what conditions read: flat dotted keys under candidate., job., application. and
// company. (the caller's) and session. (Run's, after an invite). Keys are not nested maps:
// Facts{"candidate.email": "a@b.test"}, never Facts{"candidate": map[string]any{...}}.
//
// Values are strings, booleans, numbers of any Go numeric kind, lists ([]string, []any or any
// slice), nil, or pointers to these (a nil pointer is a missing fact); named types such as
// models.JobStatus count as their underlying kind. A key that is absent, nil, "" or an empty
// list does not exist. Other values (maps, structs) exist but compare with nothing.
//
// The default definitions read the keys named by the Fact constants; others are free for
// tenants to use, e.g. candidate.firstName, candidate.status, candidate.skills,
// candidate.yearsExperience, job.id, job.title, application.source, company.slug.
type Facts map[string]any

// Fact keys the default definitions read, which the caller is expected to fill.
const (
	FactCandidateEmail       = "candidate.email"       // string
	FactCandidatePhone       = "candidate.phone"       // string, E.164 when valid
	FactJobStatus            = "job.status"            // models.JobStatus or string
	FactJobIsOpen            = "job.isOpen"            // bool
	FactApplicationDoNotHire = "application.doNotHire" // bool; false unless the source said so
)

// maxListDepth bounds how deep normalize follows lists inside lists.
const maxListDepth = 3

// normalize maps a fact or predicate value to nil, string, float64, bool or []any of those;
// other values (maps, structs) are returned as they are and compare with nothing.
func normalize(v any) any { return normalizeDepth(v, 0) }

func normalizeDepth(v any, depth int) any {
	switch x := v.(type) {
	case nil, string, bool, float64:
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case json.Number:
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return f
		}
		return string(x)
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return rv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	case reflect.Slice, reflect.Array:
		if depth >= maxListDepth {
			return rv.Interface()
		}
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = normalizeDepth(rv.Index(i).Interface(), depth+1)
		}
		return out
	}
	return rv.Interface()
}

// valueName describes a normalized value for messages.
func valueName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a value of type %T", v)
}

// isSet reports whether a normalized fact exists.
func isSet(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	}
	return true
}

// equal compares two normalized scalars; comparable is false when their types differ or either
// is not a scalar.
func equal(a, b any) (eq, comparable bool) {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y, ok
	case float64:
		y, ok := b.(float64)
		return ok && x == y, ok
	case bool:
		y, ok := b.(bool)
		return ok && x == y, ok
	}
	return false, false
}

// eval reports whether p holds for facts. The error is for predicates Validate rejects.
func (p Predicate) eval(facts Facts) (bool, error) {
	fact := normalize(facts[p.Field])
	want := normalize(p.Value)
	switch p.Op {
	case OpExists:
		return isSet(fact), nil
	case OpNotExists:
		return !isSet(fact), nil
	case OpEq:
		eq, _ := equal(fact, want)
		return eq, nil
	case OpNe:
		eq, ok := equal(fact, want)
		return ok && !eq, nil
	case OpIn, OpNotIn:
		list, ok := want.([]any)
		if !ok {
			return false, fmt.Errorf("op %s needs a list value", p.Op)
		}
		sameType := false
		for _, w := range list {
			eq, ok := equal(fact, w)
			if eq {
				return p.Op == OpIn, nil
			}
			sameType = sameType || ok
		}
		return p.Op == OpNotIn && sameType, nil
	case OpContains:
		switch x := fact.(type) {
		case string:
			sub, ok := want.(string)
			return ok && strings.Contains(x, sub), nil
		case []any:
			for _, e := range x {
				if eq, _ := equal(e, want); eq {
					return true, nil
				}
			}
		}
		return false, nil
	case OpGt, OpGte, OpLt, OpLte:
		x, ok1 := fact.(float64)
		y, ok2 := want.(float64)
		if !ok1 || !ok2 {
			return false, nil
		}
		switch p.Op {
		case OpGt:
			return x > y, nil
		case OpGte:
			return x >= y, nil
		case OpLt:
			return x < y, nil
		}
		return x <= y, nil
	case OpMatches:
		pattern, ok := want.(string)
		if !ok {
			return false, fmt.Errorf("op matches needs a string value")
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return false, err
		}
		s, ok := fact.(string)
		return ok && re.MatchString(s), nil
	}
	return false, fmt.Errorf("unknown op %q", p.Op)
}

// String formats p for logs: `job.isOpen eq true`, `candidate.email exists`.
func (p Predicate) String() string {
	if p.Value == nil {
		return p.Field + " " + string(p.Op)
	}
	b, err := json.Marshal(p.Value)
	if err != nil {
		return fmt.Sprintf("%s %s %v", p.Field, p.Op, p.Value)
	}
	return p.Field + " " + string(p.Op) + " " + string(b)
}

// eval reports whether c holds for facts and, when it does not, which predicate decided it.
func (c *ConditionStep) eval(facts Facts) (ok bool, why string, err error) {
	return c.evalWith(func(_ string, _ int, p Predicate) (bool, error) { return p.eval(facts) })
}

// evalWith is eval with each predicate's truth from truth(group, index, predicate), group being
// "all" or "any".
func (c *ConditionStep) evalWith(truth func(group string, j int, p Predicate) (bool, error)) (ok bool, why string, err error) {
	for j, p := range c.All {
		ok, err := truth(groupAll, j, p)
		if err != nil {
			return false, "", fmt.Errorf("all[%d]: %w", j, err)
		}
		if !ok {
			return false, fmt.Sprintf("all[%d] (%s) is false", j, p), nil
		}
	}
	if len(c.Any) == 0 {
		return true, "", nil
	}
	for j, p := range c.Any {
		ok, err := truth(groupAny, j, p)
		if err != nil {
			return false, "", fmt.Errorf("any[%d]: %w", j, err)
		}
		if ok {
			return true, "", nil
		}
	}
	return false, "no predicate of any is true", nil
}

const (
	groupAll = "all"
	groupAny = "any"
)

// Verdicts are the truth of a definition's predicates over the facts a run does not make
// itself (all but session.), keyed by step and predicate. Evaluate computes them where those
// facts live (an activity reading Postgres) and Run reads them, so that a workflow decides its
// conditions without ever holding a candidate's name, e-mail or phone.
type Verdicts map[string]Verdict

// Verdict is one predicate's truth, or why it could not be evaluated.
type Verdict struct {
	OK  bool   `json:"ok"`
	Err string `json:"err,omitempty"`
}

func verdictKey(step int, group string, j int) string { return fmt.Sprintf("%d.%s.%d", step, group, j) }

// isRunFact reports whether field is a fact Run sets itself (session.*).
func isRunFact(field string) bool { return strings.HasPrefix(field, "session.") }

// Evaluate computes the verdicts of d's condition predicates over facts.
func Evaluate(d *Definition, facts Facts) Verdicts {
	v := Verdicts{}
	if d == nil {
		return v
	}
	for i, s := range d.Steps {
		if s.Type != StepCondition || s.Condition == nil {
			continue
		}
		for _, g := range []struct {
			name string
			ps   []Predicate
		}{{groupAll, s.Condition.All}, {groupAny, s.Condition.Any}} {
			for j, p := range g.ps {
				if isRunFact(p.Field) {
					continue
				}
				ok, err := p.eval(facts)
				vd := Verdict{OK: ok}
				if err != nil {
					vd.Err = err.Error()
				}
				v[verdictKey(i, g.name, j)] = vd
			}
		}
	}
	return v
}
