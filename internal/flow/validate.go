package flow

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/recruitd/recruitd/models"
)

// Text limits, in characters.
const (
	maxNameLen    = 200
	maxReasonLen  = 200
	maxStatusLen  = 64
	maxIDLen      = 64
	maxFieldLen   = 100
	maxStringLen  = 500
	maxPatternLen = 256 // bytes
)

// inviteChannels are the channels an invite step may use (outbox is for development only).
var inviteChannels = []models.MessageChannel{models.MessageChannelEmail, models.MessageChannelSMS, models.MessageChannelWhatsApp, models.MessageChannelPhone}

// jobStatuses are the job statuses a set_status step may set; the others belong to generation.
var jobStatuses = []models.JobStatus{models.JobStatusActive, models.JobStatusPaused}

// reservedReasons are callback reasons only the platform sends.
var reservedReasons = []string{"repeat_submission", "workflow_completed_without_callback"}

// Problem is one reason a definition is invalid.
type Problem struct {
	// Path locates the offending value, "steps[2].invite.channels[1]"; "" is the whole document.
	Path string `json:"path"`
	// StepID is the ID of the step Path is in, when that step has a well-formed ID.
	StepID  string `json:"stepId,omitempty"`
	Message string `json:"message"`
}

// String formats p as `steps[4] (id "cb"): message`.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Path)
	if p.StepID != "" {
		fmt.Fprintf(&b, " (id %q)", p.StepID)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// ValidationError lists every problem of a definition in document order. Its message can be
// shown to the tenant as is.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "invalid workflow definition: " + strings.Join(parts, "; ")
}

func problem(path, format string, args ...any) *ValidationError {
	return &ValidationError{Problems: []Problem{{Path: path, Message: fmt.Sprintf(format, args...)}}}
}

// Validate reports every problem of d as a *ValidationError; nil means Run can execute it.
//
// Beyond the shape of each step it enforces the rules of d's trigger: partner_callback steps
// appear only in partner_application definitions; new_job_from_ats definitions, which have no
// candidate, have no invite, wait_for_session or candidate/application set_status steps, read
// no candidate., application. or session. facts and end with "stop" rather than
// "not_eligible". Order matters too: wait_for_session, cancel_session, a partner_callback
// "invited" and any session. fact need an invite step before them.
func (d *Definition) Validate() error {
	if d == nil {
		return problem("", "definition is missing")
	}
	v := validator{trigger: d.Trigger}
	v.definition(d)
	if len(v.problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: v.problems}
}

type validator struct {
	problems []Problem
	trigger  models.FlowTrigger
	stepID   string // label of the step being checked
}

func (v *validator) add(path, format string, args ...any) {
	v.problems = append(v.problems, Problem{Path: path, StepID: v.stepID, Message: fmt.Sprintf(format, args...)})
}

// noCandidate reports whether d's trigger is known to have no candidate.
func (v *validator) noCandidate() bool { return v.trigger.Valid() && !hasCandidate(v.trigger) }

func (v *validator) definition(d *Definition) {
	switch {
	case d.Trigger == "":
		v.add("trigger", "required; want one of %s", strings.Join(names(models.AllFlowTriggers()), ", "))
	case !d.Trigger.Valid():
		v.add("trigger", "unknown trigger %q; want one of %s", d.Trigger, strings.Join(names(models.AllFlowTriggers()), ", "))
	}
	v.text("name", d.Name, maxNameLen)
	switch {
	case len(d.Steps) > MaxSteps:
		v.add("steps", "%d steps; the limit is %d", len(d.Steps), MaxSteps)
	case len(d.Steps) == 0 && d.Enabled:
		v.add("steps", "an enabled definition needs at least one step")
	}
	ids := map[string]int{}
	invited := false // an invite step comes before the current one
	for i, s := range d.Steps {
		v.stepID = ""
		path := fmt.Sprintf("steps[%d]", i)
		if s.ID != "" {
			if !isName(s.ID, maxIDLen, "_-") {
				v.add(path+".id", "%q is not an id: want 1 to %d letters, digits, '_' or '-'", s.ID, maxIDLen)
			} else {
				if j, dup := ids[s.ID]; dup {
					v.add(path+".id", "%q is already the id of steps[%d]", s.ID, j)
				} else {
					ids[s.ID] = i
				}
				v.stepID = s.ID
			}
		}
		v.step(path, s, invited)
		if s.Type == StepInvite {
			invited = true
		}
	}
	v.stepID = ""
}

// typedObjects returns the JSON names of the typed objects s has, in declaration order.
func (s Step) typedObjects() []string {
	var set []string
	for _, o := range []struct {
		name string
		set  bool
	}{
		{StepCondition, s.Condition != nil},
		{StepInvite, s.Invite != nil},
		{StepWait, s.Wait != nil},
		{StepWaitForSession, s.WaitForSession != nil},
		{StepPartnerCallback, s.PartnerCallback != nil},
		{StepSetStatus, s.SetStatus != nil},
		{StepCancelSession, s.CancelSession != nil},
	} {
		if o.set {
			set = append(set, o.name)
		}
	}
	return set
}

func (v *validator) step(path string, s Step, invited bool) {
	switch {
	case s.Type == "":
		v.add(path+".type", "required; want one of %s", strings.Join(stepTypes, ", "))
		return
	case !slices.Contains(stepTypes, s.Type):
		v.add(path+".type", "unknown type %q; want one of %s", s.Type, strings.Join(stepTypes, ", "))
		return
	}
	set := s.typedObjects()
	for _, name := range set {
		if name != s.Type {
			v.add(path, "type %q but the %q object is set", s.Type, name)
		}
	}
	if !slices.Contains(set, s.Type) {
		v.add(path, "type %q needs the %q object", s.Type, s.Type)
		return
	}
	switch s.Type {
	case StepCondition:
		v.condition(path+"."+StepCondition, s.Condition, invited)
	case StepInvite:
		if v.noCandidate() {
			v.add(path, "invite steps are not allowed in %s definitions: there is no candidate", v.trigger)
		}
		v.invite(path+"."+StepInvite, s.Invite)
	case StepWait:
		v.duration(path+".wait.duration", s.Wait.Duration)
	case StepWaitForSession:
		if v.noCandidate() {
			v.add(path, "wait_for_session steps are not allowed in %s definitions: there is no candidate", v.trigger)
		} else if !invited {
			v.add(path, "wait_for_session needs an invite step before it")
		}
		v.duration(path+".wait_for_session.timeout", s.WaitForSession.Timeout)
		v.endAction(path+".wait_for_session.onTimeout", s.WaitForSession.OnTimeout, true)
	case StepPartnerCallback:
		if v.trigger.Valid() && v.trigger != models.TriggerPartnerApplication {
			v.add(path, "partner_callback steps are only allowed in %s definitions", models.TriggerPartnerApplication)
		}
		v.partnerCallback(path, s.PartnerCallback, invited)
	case StepSetStatus:
		v.setStatus(path+"."+StepSetStatus, s.SetStatus)
	case StepCancelSession:
		if v.noCandidate() {
			v.add(path, "cancel_session steps are not allowed in %s definitions: there is no candidate", v.trigger)
		} else if !invited {
			v.add(path, "cancel_session needs an invite step before it")
		}
		v.cancelSession(path+"."+StepCancelSession, s.CancelSession)
	}
}

func (v *validator) cancelSession(path string, s *CancelSessionStep) {
	switch {
	case s.Reason == "":
		v.add(path+".reason", "required; say why the session is cancelled (at most %d characters)", maxReasonLen)
	case strings.TrimSpace(s.Reason) != s.Reason:
		v.add(path+".reason", "%q has leading or trailing space", s.Reason)
	default:
		v.text(path+".reason", s.Reason, maxReasonLen)
	}
}

func (v *validator) condition(path string, c *ConditionStep, invited bool) {
	switch n := len(c.All) + len(c.Any); {
	case n == 0:
		v.add(path, `needs at least one predicate in "all" or "any"`)
	case n > MaxPredicates:
		v.add(path, "%d predicates; the limit is %d", n, MaxPredicates)
	}
	for j, p := range c.All {
		v.predicate(fmt.Sprintf("%s.all[%d]", path, j), p, invited)
	}
	for j, p := range c.Any {
		v.predicate(fmt.Sprintf("%s.any[%d]", path, j), p, invited)
	}
	v.endAction(path+".onFalse", c.OnFalse, false)
}

func (v *validator) predicate(path string, p Predicate, invited bool) {
	v.field(path+".field", p.Field, invited)
	val := normalize(p.Value)
	vpath := path + ".value"
	switch p.Op {
	case "":
		v.add(path+".op", "required; want one of %s", strings.Join(names(allOps), ", "))
	case OpEq, OpNe, OpContains:
		v.scalar(vpath, val)
	case OpIn, OpNotIn:
		list, isList := val.([]any)
		switch {
		case val == nil:
			v.add(vpath, "required; want an array of strings, numbers or booleans")
		case !isList:
			v.add(vpath, "got %s; want an array of strings, numbers or booleans", valueName(val))
		case len(list) == 0:
			v.add(vpath, "an empty list; want 1 to %d values", MaxListValues)
		case len(list) > MaxListValues:
			v.add(vpath, "%d values; the limit is %d", len(list), MaxListValues)
		default:
			for k, e := range list {
				v.scalar(fmt.Sprintf("%s[%d]", vpath, k), e)
			}
		}
	case OpExists, OpNotExists:
		if p.Value != nil {
			v.add(vpath, "not allowed with op %q", p.Op)
		}
	case OpGt, OpGte, OpLt, OpLte:
		n, isNum := val.(float64)
		switch {
		case val == nil:
			v.add(vpath, "required; want a number")
		case !isNum:
			v.add(vpath, "got %s; want a number", valueName(val))
		case math.IsNaN(n) || math.IsInf(n, 0):
			v.add(vpath, "want a finite number")
		}
	case OpMatches:
		s, isString := val.(string)
		switch {
		case val == nil:
			v.add(vpath, "required; want a regular expression")
		case !isString:
			v.add(vpath, "got %s; want a regular expression string", valueName(val))
		case len(s) > maxPatternLen:
			v.add(vpath, "pattern is %d bytes; the limit is %d", len(s), maxPatternLen)
		default:
			if _, err := regexp.Compile(s); err != nil {
				v.add(vpath, "invalid regular expression: %v", err)
			}
		}
	default:
		v.add(path+".op", "unknown op %q; want one of %s", p.Op, strings.Join(names(allOps), ", "))
	}
}

// scalar checks a value normalized by normalize: a string, a finite number or a boolean.
func (v *validator) scalar(path string, val any) {
	switch x := val.(type) {
	case nil:
		v.add(path, "required; want a string, number or boolean")
	case string:
		if n := utf8.RuneCountInString(x); n > maxStringLen {
			v.add(path, "is %d characters long; the limit is %d", n, maxStringLen)
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			v.add(path, "want a finite number")
		}
	case bool:
	default:
		v.add(path, "got %s; want a string, number or boolean", valueName(val))
	}
}

// Fact paths Run sets after an invite step and after a wait_for_session step.
const (
	FactSessionID            = "session.id"
	FactSessionInterviewLink = "session.interviewLink"
	FactSessionChannel       = "session.channel"
	FactSessionCompleted     = "session.completed"
)

var sessionFacts = []string{FactSessionID, FactSessionInterviewLink, FactSessionChannel, FactSessionCompleted}

func (v *validator) field(path, f string, invited bool) {
	ns, rest, _ := strings.Cut(f, ".")
	switch {
	case f == "":
		v.add(path, `required; want a fact such as "candidate.email"`)
		return
	case len(f) > maxFieldLen:
		v.add(path, "is %d bytes long; the limit is %d", len(f), maxFieldLen)
		return
	case !isFactPath(rest):
		v.add(path, `%q is not a fact path such as "candidate.email"`, f)
		return
	}
	switch ns {
	case "job", "company":
	case "candidate", "application":
		if v.noCandidate() {
			v.add(path, "%q: %s runs have no candidate or application facts", f, v.trigger)
		}
	case "session":
		switch {
		case v.noCandidate():
			v.add(path, "%q: %s runs have no session facts", f, v.trigger)
		case !invited:
			v.add(path, "%q is only set after an invite step", f)
		case !slices.Contains(sessionFacts, f):
			v.add(path, "unknown session fact %q; want one of %s", f, strings.Join(sessionFacts, ", "))
		}
	default:
		v.add(path, "%q: want a fact under candidate., job., application., company. or session.", f)
	}
}

// isFactPath reports whether s is dot-separated identifiers ([A-Za-z_][A-Za-z0-9_]*).
func isFactPath(s string) bool {
	for seg := range strings.SplitSeq(s, ".") {
		if seg == "" {
			return false
		}
		for i, r := range seg {
			if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}

// endAction checks onFalse (allowContinue false) or onTimeout (true).
func (v *validator) endAction(path string, a *EndAction, allowContinue bool) {
	allowed := []string{OutcomeNotEligible, OutcomeStop}
	if allowContinue {
		allowed = append(allowed, OutcomeContinue)
	}
	if a == nil {
		v.add(path, `required; want {"outcome": "%s"}`, strings.Join(allowed, `"|"`))
		return
	}
	switch {
	case a.Outcome == "":
		v.add(path+".outcome", "required; want one of %s", strings.Join(allowed, ", "))
	case !slices.Contains(allowed, a.Outcome):
		v.add(path+".outcome", "unknown outcome %q; want one of %s", a.Outcome, strings.Join(allowed, ", "))
	case a.Outcome == OutcomeNotEligible && v.noCandidate():
		v.add(path+".outcome", `"not_eligible" needs a candidate; use "stop" in %s definitions`, v.trigger)
	}
	v.reason(path+".reason", a.Reason)
}

func (v *validator) reason(path, r string) {
	v.text(path, r, maxReasonLen)
	if slices.Contains(reservedReasons, r) {
		v.add(path, "%q is reserved for the platform", r)
	}
}

func (v *validator) invite(path string, s *InviteStep) {
	allowed := strings.Join(names(inviteChannels), ", ")
	if len(s.Channels) == 0 {
		v.add(path+".channels", "needs at least one channel; want some of %s", allowed)
	}
	for j, c := range s.Channels {
		p := fmt.Sprintf("%s.channels[%d]", path, j)
		switch {
		case !slices.Contains(inviteChannels, c):
			v.add(p, "unknown channel %q; want one of %s", c, allowed)
		case slices.Index(s.Channels, c) < j:
			v.add(p, "%q is listed twice", c)
		}
	}
	media := slices.DeleteFunc(models.AllMediumTypes(), func(m models.MediumType) bool { return m == models.MediumTypeNone })
	switch {
	case s.MediumType == "":
		v.add(path+".mediumType", "required; want one of %s", strings.Join(names(media), ", "))
	case s.MediumType == models.MediumTypeNone:
		v.add(path+".mediumType", "%q is no interview medium to invite to; want one of %s", s.MediumType, strings.Join(names(media), ", "))
	case !s.MediumType.Valid():
		v.add(path+".mediumType", "unknown mediumType %q; want one of %s", s.MediumType, strings.Join(names(media), ", "))
	}
	if s.Template != "" && !isName(s.Template, maxIDLen, "._-") {
		v.add(path+".template", "%q is not a template name: want 1 to %d letters, digits, '.', '_' or '-'", s.Template, maxIDLen)
	}
}

func (v *validator) duration(path string, d Duration) {
	if d == "" {
		v.add(path, `required; want a duration such as "10m" or "72h"`)
		return
	}
	std, err := d.Std()
	switch {
	case err != nil:
		v.add(path, `%q is not a duration such as "10m" or "72h"`, d)
	case std%time.Second != 0:
		v.add(path, "%q is not a whole number of seconds", d)
	case std < MinDuration:
		v.add(path, "%q is shorter than %s", d, MinDuration)
	case std > MaxDuration:
		v.add(path, "%q is longer than %s (30 days)", d, strings.TrimSuffix(MaxDuration.String(), "0m0s"))
	}
}

func (v *validator) partnerCallback(path string, s *PartnerCallbackStep, invited bool) {
	switch s.Status {
	case CallbackInvited:
		if !invited {
			v.add(path, "partner_callback %q needs an invite step before it", s.Status)
		}
	case CallbackNotEligible:
	case "":
		v.add(path+".partner_callback.status", "required; want %s or %s", CallbackInvited, CallbackNotEligible)
	default:
		v.add(path+".partner_callback.status", "unknown status %q; want %s or %s", s.Status, CallbackInvited, CallbackNotEligible)
	}
	v.reason(path+".partner_callback.reason", s.Reason)
}

func (v *validator) setStatus(path string, s *SetStatusStep) {
	switch s.Target {
	case TargetJob:
		if !slices.Contains(jobStatuses, models.JobStatus(s.Status)) {
			v.add(path+".status", "job status %q; want one of %s", s.Status, strings.Join(names(jobStatuses), ", "))
		}
		return
	case TargetApplication, TargetCandidate:
		if v.noCandidate() {
			v.add(path+".target", "%q: %s runs have no candidate or application", s.Target, v.trigger)
		}
	case "":
		v.add(path+".target", "required; want one of application, candidate, job")
	default:
		v.add(path+".target", "unknown target %q; want one of application, candidate, job", s.Target)
	}
	switch {
	case s.Status == "":
		v.add(path+".status", "required")
	case strings.TrimSpace(s.Status) != s.Status:
		v.add(path+".status", "%q has leading or trailing space", s.Status)
	default:
		v.text(path+".status", s.Status, maxStatusLen)
	}
}

// text checks free text: valid UTF-8, no control characters, at most max characters.
func (v *validator) text(path, s string, max int) {
	switch {
	case !utf8.ValidString(s):
		v.add(path, "is not valid UTF-8")
	case strings.ContainsFunc(s, unicode.IsControl):
		v.add(path, "contains a control character")
	case utf8.RuneCountInString(s) > max:
		v.add(path, "is %d characters long; the limit is %d", utf8.RuneCountInString(s), max)
	}
}

// isName reports whether s is 1 to max ASCII letters, digits or characters of extra.
func isName(s string, max int, extra string) bool {
	if s == "" || len(s) > max {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(extra, r)) {
			return false
		}
	}
	return true
}
