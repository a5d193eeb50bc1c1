package flow

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/models"
)

func TestPredicateEval(t *testing.T) {
	email, empty := "ana@example.test", ""
	years := 7
	var nilString *string
	var nilInts []int
	facts := Facts{
		"candidate.email":           email,
		"candidate.emailPtr":        &email,
		"candidate.emptyPtr":        &empty,
		"candidate.nilPtr":          nilString,
		"candidate.nil":             nil,
		"candidate.blank":           "",
		"candidate.phone":           "+15555550100",
		"candidate.years":           years,
		"candidate.yearsPtr":        &years,
		"candidate.score":           71.25,
		"candidate.small":           uint8(3),
		"candidate.skills":          models.StringArray{"welding", "forklift"},
		"candidate.noSkills":        []string{},
		"candidate.nilList":         nilInts,
		"candidate.ids":             []any{1, "two", true},
		"candidate.numbers":         []int{1, 2, 3},
		"candidate.extra":           map[string]any{"a": 1},
		"candidate.yearsString":     "7",
		"job.status":                models.JobStatusActive,
		"job.isOpen":                true,
		"job.isDeleted":             false,
		"application.doNotHire":     false,
		"application.externalCount": json.Number("12"),
	}
	tests := []struct {
		field string
		op    Op
		value any
		want  bool
	}{
		{"candidate.email", OpExists, nil, true},
		{"candidate.emailPtr", OpExists, nil, true},
		{"candidate.emptyPtr", OpExists, nil, false},
		{"candidate.nilPtr", OpExists, nil, false},
		{"candidate.nil", OpExists, nil, false},
		{"candidate.blank", OpExists, nil, false},
		{"candidate.missing", OpExists, nil, false},
		{"candidate.noSkills", OpExists, nil, false},
		{"candidate.nilList", OpExists, nil, false},
		{"candidate.skills", OpExists, nil, true},
		{"job.isDeleted", OpExists, nil, true}, // false is a value
		{"candidate.extra", OpExists, nil, true},
		{"candidate.missing", OpNotExists, nil, true},
		{"candidate.blank", OpNotExists, nil, true},
		{"candidate.email", OpNotExists, nil, false},

		{"candidate.email", OpEq, "ana@example.test", true},
		{"candidate.email", OpEq, "ANA@example.test", false},
		{"candidate.emailPtr", OpEq, "ana@example.test", true},
		{"job.status", OpEq, "ACTIVE", true}, // named string type
		{"job.isOpen", OpEq, true, true},
		{"application.doNotHire", OpEq, false, true},
		{"candidate.missing", OpEq, false, false}, // missing is not false
		{"candidate.years", OpEq, 7.0, true},      // int fact, float value
		{"candidate.yearsPtr", OpEq, 7, true},
		{"candidate.years", OpEq, "7", false}, // type mismatch
		{"candidate.yearsString", OpEq, 7.0, false},
		{"job.isOpen", OpEq, "true", false},
		{"candidate.extra", OpEq, "x", false},
		{"application.externalCount", OpEq, 12, true},

		{"job.status", OpNe, "PAUSED", true},
		{"job.status", OpNe, "ACTIVE", false},
		{"candidate.missing", OpNe, "ACTIVE", false},
		{"candidate.years", OpNe, "8", false}, // type mismatch is false, not "different"

		{"job.status", OpIn, []any{"ACTIVE", "PAUSED"}, true},
		{"job.status", OpIn, []any{"PAUSED"}, false},
		{"candidate.years", OpIn, []any{"7", 7.0}, true},
		{"candidate.missing", OpIn, []any{"ACTIVE"}, false},
		{"job.status", OpNotIn, []any{"FAILED", "GENERATING"}, true},
		{"job.status", OpNotIn, []any{"ACTIVE"}, false},
		{"candidate.missing", OpNotIn, []any{"ACTIVE"}, false},
		{"candidate.years", OpNotIn, []any{"a", "b"}, false}, // no value of the fact's type
		{"candidate.skills", OpNotIn, []any{"welding"}, false},

		{"candidate.email", OpContains, "@example", true},
		{"candidate.email", OpContains, "@other", false},
		{"candidate.skills", OpContains, "forklift", true},
		{"candidate.skills", OpContains, "fork", false}, // list elements match whole
		{"candidate.ids", OpContains, 1, true},
		{"candidate.ids", OpContains, true, true},
		{"candidate.numbers", OpContains, 3, true},
		{"candidate.years", OpContains, 7, false},
		{"candidate.missing", OpContains, "x", false},
		{"candidate.email", OpContains, 1, false},

		{"candidate.years", OpGt, 6, true},
		{"candidate.years", OpGt, 7, false},
		{"candidate.years", OpGte, 7, true},
		{"candidate.years", OpLt, 7.5, true},
		{"candidate.years", OpLte, 6, false},
		{"candidate.score", OpGte, 71.25, true},
		{"candidate.small", OpLt, 4, true},
		{"candidate.yearsString", OpGt, 1, false},
		{"candidate.missing", OpLt, 100, false},
		{"job.isOpen", OpGt, 0, false},

		{"candidate.phone", OpMatches, `^\+1[0-9]{10}$`, true},
		{"candidate.email", OpMatches, `^\+1`, false},
		{"candidate.years", OpMatches, `7`, false},
		{"candidate.missing", OpMatches, `.*`, false},
	}
	for _, tt := range tests {
		p := Predicate{Field: tt.field, Op: tt.op, Value: tt.value}
		got, err := p.eval(facts)
		if err != nil || got != tt.want {
			t.Errorf("eval(%s) = %v, %v, want %v", p, got, err, tt.want)
		}
	}
}

// TestPredicateEvalErrors covers predicates Validate rejects but Run may still meet.
func TestPredicateEvalErrors(t *testing.T) {
	for _, p := range []Predicate{
		{Field: "job.status", Op: "like", Value: "x"},
		{Field: "job.status", Op: OpIn, Value: "ACTIVE"},
		{Field: "job.status", Op: OpMatches, Value: "("},
		{Field: "job.status", Op: OpMatches, Value: 1},
	} {
		if _, err := p.eval(Facts{"job.status": "ACTIVE"}); err == nil {
			t.Errorf("eval(%s) = nil error, want one", p)
		}
	}
}

func TestConditionEval(t *testing.T) {
	exists := func(f string) Predicate { return Predicate{Field: f, Op: OpExists} }
	tests := []struct {
		c       ConditionStep
		facts   Facts
		want    bool
		wantWhy string
	}{
		{ConditionStep{All: []Predicate{exists("job.id")}}, Facts{"job.id": "j"}, true, ""},
		{ConditionStep{All: []Predicate{exists("job.id"), exists("job.title")}}, Facts{"job.id": "j"}, false, "all[1] (job.title exists) is false"},
		{ConditionStep{Any: []Predicate{exists("candidate.email"), exists("candidate.phone")}}, Facts{"candidate.phone": "+1"}, true, ""},
		{ConditionStep{Any: []Predicate{exists("candidate.email"), exists("candidate.phone")}}, Facts{}, false, "no predicate of any is true"},
		{ConditionStep{All: []Predicate{exists("job.id")}, Any: []Predicate{exists("candidate.email")}}, Facts{"candidate.email": "e"}, false, "all[0] (job.id exists) is false"},
		{ConditionStep{All: []Predicate{{Field: "job.isOpen", Op: OpEq, Value: true}}, Any: []Predicate{exists("candidate.email")}},
			Facts{"candidate.email": "e", "job.isOpen": true}, true, ""},
	}
	for i, tt := range tests {
		got, why, err := tt.c.eval(tt.facts)
		if err != nil || got != tt.want || why != tt.wantWhy {
			t.Errorf("case %d: eval(%v) = %v, %q, %v, want %v, %q", i, tt.facts, got, why, err, tt.want, tt.wantWhy)
		}
	}
}

func TestPredicateString(t *testing.T) {
	for _, tt := range []struct {
		p    Predicate
		want string
	}{
		{Predicate{Field: "job.isOpen", Op: OpEq, Value: true}, "job.isOpen eq true"},
		{Predicate{Field: "candidate.email", Op: OpExists}, "candidate.email exists"},
		{Predicate{Field: "job.status", Op: OpIn, Value: []any{"A", 1.5}}, `job.status in ["A",1.5]`},
		{Predicate{Field: "job.status", Op: OpEq, Value: make(chan int)}, "job.status eq 0x"},
	} {
		if got := tt.p.String(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
