package flow

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/recruitd/recruitd/models"
)

// hasCandidate reports whether runs of t concern a candidate (every trigger but the job import).
func hasCandidate(t models.FlowTrigger) bool { return t != models.TriggerNewJobFromATS }

// ParseTrigger parses s exactly (definitions store the canonical spelling). The error is a
// *models.EnumError naming the allowed values.
func ParseTrigger(s string) (models.FlowTrigger, error) {
	if t := models.FlowTrigger(s); t.Valid() {
		return t, nil
	}
	return "", &models.EnumError{Kind: "trigger", Value: s, Allowed: names(models.AllFlowTriggers())}
}

// Step types: the value of Step.Type and the JSON key of the object it names.
const (
	StepCondition       = "condition"
	StepInvite          = "invite"
	StepWait            = "wait"
	StepWaitForSession  = "wait_for_session"
	StepPartnerCallback = "partner_callback"
	StepSetStatus       = "set_status"
	StepCancelSession   = "cancel_session"
)

var stepTypes = []string{StepCondition, StepInvite, StepWait, StepWaitForSession, StepPartnerCallback, StepSetStatus, StepCancelSession}

// Limits of a definition. Parse rejects larger documents before decoding them.
const (
	MaxDefinitionBytes = 64 << 10
	MaxSteps           = 50
	MaxPredicates      = 20 // per condition step, all and any together
	MaxListValues      = 100
	MinDuration        = time.Second
	MaxDuration        = 30 * 24 * time.Hour
)

// Definition is one version of a company's workflow for one trigger. The zero value is not
// valid; build one with Parse or check it with Validate.
type Definition struct {
	Trigger models.FlowTrigger `json:"trigger"`
	// Enabled false keeps the definition stored but makes Run stop at once.
	Enabled bool   `json:"enabled"`
	Name    string `json:"name,omitempty"`
	Steps   []Step `json:"steps"`
}

// Step is one step of a definition. Type names the step kind and exactly the typed field of
// that name is set; the JSON key of that object is the type name too:
//
//	{"id": "invite", "type": "invite", "invite": {"channels": ["email"], "mediumType": "VIDEO"}}
type Step struct {
	// ID is an optional label, unique within the definition, shown in messages and histories.
	ID   string `json:"id,omitempty"`
	Type string `json:"type"`

	Condition       *ConditionStep       `json:"condition,omitempty"`
	Invite          *InviteStep          `json:"invite,omitempty"`
	Wait            *WaitStep            `json:"wait,omitempty"`
	WaitForSession  *WaitForSessionStep  `json:"wait_for_session,omitempty"`
	PartnerCallback *PartnerCallbackStep `json:"partner_callback,omitempty"`
	SetStatus       *SetStatusStep       `json:"set_status,omitempty"`
	CancelSession   *CancelSessionStep   `json:"cancel_session,omitempty"`
}

// ConditionStep checks the run's Facts. It holds when every predicate of All holds and, if Any
// is not empty, at least one of Any holds; a false condition ends the run as OnFalse says.
//
//	{"all": [{"field": "job.isOpen", "op": "eq", "value": true},
//	         {"field": "job.status", "op": "in", "value": ["ACTIVE"]}],
//	 "any": [{"field": "candidate.email", "op": "exists"}, {"field": "candidate.phone", "op": "exists"}],
//	 "onFalse": {"outcome": "not_eligible", "reason": "no_contact_details"}}
type ConditionStep struct {
	All     []Predicate `json:"all,omitempty"`
	Any     []Predicate `json:"any,omitempty"`
	OnFalse *EndAction  `json:"onFalse"`
}

// Op is a predicate operator.
type Op string

// Operators. A comparison is false when the fact is missing or of another type than the value
// (a string fact never equals a number value); only not_exists holds for a missing fact.
const (
	OpEq        Op = "eq"         // value: string, number or boolean
	OpNe        Op = "ne"         // value: string, number or boolean; the fact has its type
	OpIn        Op = "in"         // value: non-empty array of strings, numbers, booleans
	OpNotIn     Op = "not_in"     // as in; the fact is present and equals none of them
	OpExists    Op = "exists"     // no value; the fact is set and not "" or an empty list
	OpNotExists Op = "not_exists" // no value; the negation of exists
	OpContains  Op = "contains"   // value: a substring of a string fact, or an element of a list fact
	OpGt        Op = "gt"         // value: number; the fact is a number
	OpGte       Op = "gte"
	OpLt        Op = "lt"
	OpLte       Op = "lte"
	OpMatches   Op = "matches" // value: RE2 regular expression (at most 256 bytes) a string fact matches
)

var allOps = []Op{OpEq, OpNe, OpIn, OpNotIn, OpExists, OpNotExists, OpContains, OpGt, OpGte, OpLt, OpLte, OpMatches}

// Predicate compares the fact at Field, a dotted key of Facts such as "candidate.email", with
// Value. Field starts with candidate., job., application., company. or session. (the last only
// after an invite step).
type Predicate struct {
	Field string `json:"field"`
	Op    Op     `json:"op"`
	Value any    `json:"value,omitempty"`
}

// Outcomes a step may end the run with.
const (
	// OutcomeNotEligible ends the run with ResultNotEligible. In partner_application runs that
	// have not sent a callback yet, Run sends "not_eligible" with the action's reason.
	OutcomeNotEligible = "not_eligible"
	// OutcomeStop ends the run with ResultStopped and sends nothing. A partner_application run
	// without a callback is then answered by the platform fallback.
	OutcomeStop = "stop"
	// OutcomeContinue goes on with the next step (wait_for_session only).
	OutcomeContinue = "continue"
)

// EndAction says how a run ends when a condition is false or a session is not completed in
// time. Reason (at most 200 characters) becomes Outcome.Reason and the partner callback's
// reason.
//
//	{"outcome": "not_eligible", "reason": "job_closed"}
type EndAction struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
}

// InviteStep invites the candidate to an interview of MediumType. Channels are tried in order
// of preference by the executor, each falling back to the next; Template names the message
// template ("" is the company's default). The resulting session is available to later steps
// as the facts session.id, session.interviewLink and session.channel.
//
//	{"channels": ["email", "sms"], "mediumType": "VIDEO", "template": "default"}
type InviteStep struct {
	Channels   []models.MessageChannel `json:"channels"`
	MediumType models.MediumType       `json:"mediumType"`
	Template   string                  `json:"template,omitempty"`
}

// WaitStep pauses the run.
//
//	{"duration": "10m"}
type WaitStep struct {
	Duration Duration `json:"duration"`
}

// WaitForSessionStep waits until the session of the latest invite is completed, at most
// Timeout; when it is not, OnTimeout decides (outcome not_eligible, stop or continue). The fact
// session.completed records the answer for later steps.
//
//	{"timeout": "72h", "onTimeout": {"outcome": "stop"}}
type WaitForSessionStep struct {
	Timeout   Duration   `json:"timeout"`
	OnTimeout *EndAction `json:"onTimeout"`
}

// Partner callback statuses a definition may send ("error" is the platform's).
const (
	CallbackInvited     = "invited"
	CallbackNotEligible = "not_eligible"
)

// PartnerCallbackStep sends the partner callback of a partner_application run. "invited"
// carries the interview link of the latest invite. Only the first callback of a run is sent.
//
//	{"status": "invited"}
//	{"status": "not_eligible", "reason": "outside_service_area"}
type PartnerCallbackStep struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// Set-status targets.
const (
	TargetApplication = "application"
	TargetCandidate   = "candidate"
	TargetJob         = "job"
)

// SetStatusStep sets the status of the run's application, candidate or job. Application and
// candidate statuses are free text (1 to 64 characters); a job status is ACTIVE or PAUSED.
//
//	{"target": "application", "status": "invited"}
//	{"target": "job", "status": "ACTIVE"}
type SetStatusStep struct {
	Target string `json:"target"`
	Status string `json:"status"`
}

// CancelSessionStep withdraws the session of the latest invite (POST
// /v1/api/sessions/{sessionId}/cancel does the same): an INVITED or STARTED session is
// CANCELLED with Reason (1 to 200 characters, kept for the company, never shown to the
// candidate), its reminders stop and its page says the interview was withdrawn. A session that
// ended meanwhile (completed, declined, expired) is left as it is and the run goes on.
//
//	{"reason": "not taken within 3 days"}
type CancelSessionStep struct {
	Reason string `json:"reason"`
}

// Duration is a Go duration string such as "10m" or "72h", whole seconds between MinDuration
// and MaxDuration. It is kept as written so that a stored definition reads back unchanged.
type Duration string

// Std returns d as a time.Duration.
func (d Duration) Std() (time.Duration, error) { return time.ParseDuration(string(d)) }

// Parse decodes a definition strictly and validates it: at most MaxDefinitionBytes, one JSON
// object, exact field names, no unknown or repeated fields, no null where a value is needed.
// Every rejection is a *ValidationError, so callers map one error type to a client error.
func Parse(b []byte) (*Definition, error) { return parse(b, "") }

// ParseFor is Parse for a definition submitted for trigger t (from the URL, say): a document
// without a trigger gets t, one with another trigger is rejected; t "" means any. canonical is
// the JSON encoding of the definition that Hash digests, the form to store.
func ParseFor(b []byte, t models.FlowTrigger) (d *Definition, canonical []byte, err error) {
	if d, err = parse(b, t); err != nil {
		return nil, nil, err
	}
	if canonical, err = json.Marshal(d); err != nil {
		return nil, nil, problem("", "encode: %v", err)
	}
	return d, canonical, nil
}

func parse(b []byte, t models.FlowTrigger) (*Definition, error) {
	if len(b) > MaxDefinitionBytes {
		return nil, problem("", "definition is %d bytes; the limit is %d", len(b), MaxDefinitionBytes)
	}
	if err := checkShape(b); err != nil {
		return nil, err
	}
	var d Definition
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, problem("", "decode: %v", err)
	}
	switch {
	case t == "":
	case d.Trigger == "":
		d.Trigger = t
	case d.Trigger != t:
		return nil, problem("trigger", "%q does not match %q, the trigger the definition is for", d.Trigger, t)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return &d, nil
}

// Decode reads a stored definition without Parse's strictness and without Validate. It is for
// workflow code: its result depends on b alone, so a workflow replayed after a release that
// tightened the rules decodes the definition it ran with. Check definitions when they are
// stored, with ParseFor.
func Decode(b []byte) (*Definition, error) {
	var d Definition
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("decode workflow definition: %w", err)
	}
	return &d, nil
}

// Hash identifies a version of d: the hex SHA-256 of its JSON encoding, which is canonical for
// a parsed definition (fields in declaration order, no insignificant space, numbers in shortest
// form). Every field counts, Enabled and Name included. Hash is "" only when d holds a Value
// JSON cannot encode, which Validate rejects.
func Hash(d *Definition) string {
	b, err := json.Marshal(d)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
