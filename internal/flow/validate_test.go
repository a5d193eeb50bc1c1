package flow

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/models"
)

// Steps of every type, valid in a partner_application definition after sInvite.
const (
	sCond        = `{"type":"condition","condition":{"all":[{"field":"job.isOpen","op":"eq","value":true}],"onFalse":{"outcome":"stop"}}}`
	sInvite      = `{"type":"invite","invite":{"channels":["email","sms"],"mediumType":"VIDEO"}}`
	sWait        = `{"type":"wait","wait":{"duration":"10m"}}`
	sWaitSession = `{"type":"wait_for_session","wait_for_session":{"timeout":"72h","onTimeout":{"outcome":"continue"}}}`
	sCallback    = `{"type":"partner_callback","partner_callback":{"status":"invited"}}`
	sSetStatus   = `{"type":"set_status","set_status":{"target":"application","status":"invited"}}`
	sCancel      = `{"type":"cancel_session","cancel_session":{"reason":"not taken within 3 days"}}`
)

// doc is an enabled definition of trigger with steps.
func doc(trigger string, steps ...string) string {
	return `{"trigger":"` + trigger + `","enabled":true,"steps":[` + strings.Join(steps, ",") + `]}`
}

// cond is a condition step over one "all" predicate, ending with stop.
func cond(predicate string) string {
	return `{"type":"condition","condition":{"all":[` + predicate + `],"onFalse":{"outcome":"stop"}}}`
}

// decode reads a definition without validating it.
func decode(t *testing.T, s string) *Definition {
	t.Helper()
	var d Definition
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return &d
}

func TestValidateValid(t *testing.T) {
	tests := []struct{ name, doc string }{
		{"partner every step", doc("partner_application", sCond, sInvite, sWait, sCallback, sWaitSession, sSetStatus)},
		{"partner callback not_eligible with reason", doc("partner_application",
			`{"id":"nope","type":"partner_callback","partner_callback":{"status":"not_eligible","reason":"outside_area"}}`)},
		{"condition all and any, every op", doc("partner_application", `{"id":"c-1","type":"condition","condition":{
			"all":[{"field":"job.status","op":"in","value":["ACTIVE","PAUSED"]},
			       {"field":"job.status","op":"not_in","value":["FAILED"]},
			       {"field":"job.status","op":"ne","value":"GENERATING"},
			       {"field":"candidate.yearsExperience","op":"gte","value":2},
			       {"field":"candidate.yearsExperience","op":"lt","value":40.5},
			       {"field":"candidate.age","op":"gt","value":-1},
			       {"field":"candidate.age","op":"lte","value":120},
			       {"field":"candidate.skills","op":"contains","value":"welding"},
			       {"field":"candidate.phone","op":"matches","value":"^\\+1[0-9]{10}$"},
			       {"field":"application.doNotHire","op":"not_exists"},
			       {"field":"company.features.whatsapp_channel","op":"eq","value":true}],
			"any":[{"field":"candidate.email","op":"exists"},{"field":"candidate.phone","op":"exists"}],
			"onFalse":{"outcome":"not_eligible","reason":"screened out"}}}`)},
		{"session facts after invite", doc("manual_invite", sInvite, sWaitSession,
			cond(`{"field":"session.completed","op":"eq","value":false}`),
			cond(`{"field":"session.channel","op":"in","value":["sms","email"]}`),
			`{"type":"invite","invite":{"channels":["whatsapp","phone"],"mediumType":"WHATSAPP","template":"reminder.v2"}}`)},
		{"webhook", doc("new_application_webhook", sCond, sInvite,
			`{"type":"set_status","set_status":{"target":"candidate","status":"Interview Invited"}}`)},
		{"job from ats", doc("new_job_from_ats", cond(`{"field":"company.slug","op":"eq","value":"acme"}`), sWait,
			`{"type":"set_status","set_status":{"target":"job","status":"PAUSED"}}`)},
		{"wait_for_session not_eligible", doc("manual_invite", sInvite,
			`{"type":"wait_for_session","wait_for_session":{"timeout":"1s","onTimeout":{"outcome":"not_eligible","reason":"no_show"}}}`)},
		{"duration bounds", doc("manual_invite", `{"type":"wait","wait":{"duration":"720h"}}`, `{"type":"wait","wait":{"duration":"1h30m5s"}}`)},
		{"cancel_session after an unanswered invite", doc("new_application_ats", sInvite, sWaitSession,
			cond(`{"field":"session.completed","op":"eq","value":false}`), sCancel, sSetStatus)},
		{"cancel_session in a partner run", doc("partner_application", sInvite, sCallback, sCancel)},
		{"disabled without steps", `{"trigger":"manual_invite","enabled":false,"steps":[]}`},
		{"fifty steps", doc("manual_invite", strings.Repeat(sWait+",", MaxSteps-1)+sWait)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := decode(t, tt.doc).Validate(); err != nil {
				t.Errorf("Validate(%s) = %q, want nil", tt.name, err)
			}
			if _, err := Parse([]byte(tt.doc)); err != nil {
				t.Errorf("Parse(%s) = %q, want nil", tt.name, err)
			}
		})
	}
}

func TestValidateInvalid(t *testing.T) {
	pa := "partner_application"
	tests := []struct{ name, doc, want string }{
		{"missing trigger", `{"enabled":true,"steps":[` + sWait + `]}`,
			`trigger: required; want one of partner_application, new_application_webhook, new_job_from_ats, manual_invite`},
		{"unknown trigger", doc("new_hire", sWait),
			`trigger: unknown trigger "new_hire"; want one of partner_application,`},
		{"name control character", `{"trigger":"manual_invite","enabled":true,"name":"a\u0007b","steps":[` + sWait + `]}`,
			`name: contains a control character`},
		{"name too long", `{"trigger":"manual_invite","enabled":true,"name":"` + strings.Repeat("é", 201) + `","steps":[` + sWait + `]}`,
			`name: is 201 characters long; the limit is 200`},
		{"enabled without steps", doc("manual_invite"), `steps: an enabled definition needs at least one step`},
		{"too many steps", doc("manual_invite", strings.Repeat(sWait+",", MaxSteps)+sWait), `steps: 51 steps; the limit is 50`},
		{"missing type", doc(pa, `{"wait":{"duration":"1m"}}`), `steps[0].type: required; want one of condition, invite,`},
		{"unknown type", doc(pa, `{"type":"email"}`),
			`steps[0].type: unknown type "email"; want one of condition, invite, wait, wait_for_session, partner_callback, set_status`},
		{"type and object differ", doc(pa, `{"type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"},"condition":{}}`),
			`steps[0]: type "invite" but the "condition" object is set`},
		{"object missing", doc(pa, sWait, `{"type":"wait","set_status":{"target":"job","status":"ACTIVE"}}`),
			`steps[1]: type "wait" needs the "wait" object`},
		{"bad id", doc(pa, `{"id":"has space","type":"wait","wait":{"duration":"1m"}}`),
			`steps[0].id: "has space" is not an id: want 1 to 64 letters, digits, '_' or '-'`},
		{"duplicate id", doc(pa, `{"id":"w","type":"wait","wait":{"duration":"1m"}}`, `{"id":"w","type":"wait","wait":{"duration":"1m"}}`),
			`steps[1].id: "w" is already the id of steps[0]`},
		{"unknown channel", doc(pa, sCond, sWait, `{"type":"invite","invite":{"channels":["email","fax"],"mediumType":"VIDEO"}}`),
			`steps[2].invite.channels[1]: unknown channel "fax"; want one of email, sms, whatsapp, phone`},
		{"outbox channel", doc(pa, `{"type":"invite","invite":{"channels":["outbox"],"mediumType":"VIDEO"}}`),
			`steps[0].invite.channels[0]: unknown channel "outbox"`},
		{"channel in other case", doc(pa, `{"type":"invite","invite":{"channels":["EMAIL"],"mediumType":"VIDEO"}}`),
			`steps[0].invite.channels[0]: unknown channel "EMAIL"`},
		{"repeated channel", doc(pa, `{"type":"invite","invite":{"channels":["sms","email","sms"],"mediumType":"VIDEO"}}`),
			`steps[0].invite.channels[2]: "sms" is listed twice`},
		{"no channels", doc(pa, `{"type":"invite","invite":{"channels":[],"mediumType":"VIDEO"}}`),
			`steps[0].invite.channels: needs at least one channel; want some of email, sms, whatsapp, phone`},
		{"missing mediumType", doc(pa, `{"type":"invite","invite":{"channels":["sms"]}}`),
			`steps[0].invite.mediumType: required; want one of VIDEO, PHONE, EXTERNAL, BOTH, WHATSAPP, PHONE_SMS, SMS`},
		{"unknown mediumType", doc(pa, `{"type":"invite","invite":{"channels":["sms"],"mediumType":"HOLOGRAM"}}`),
			`steps[0].invite.mediumType: unknown mediumType "HOLOGRAM"; want one of VIDEO,`},
		{"mediumType NONE", doc(pa, `{"type":"invite","invite":{"channels":["sms"],"mediumType":"NONE"}}`),
			`steps[0].invite.mediumType: "NONE" is no interview medium to invite to`},
		{"bad template", doc(pa, `{"type":"invite","invite":{"channels":["sms"],"mediumType":"SMS","template":"../x y"}}`),
			`steps[0].invite.template: "../x y" is not a template name`},
		{"cancel_session before an invite", doc("manual_invite", sCancel, sInvite),
			`steps[0]: cancel_session needs an invite step before it`},
		{"cancel_session in job definition", doc("new_job_from_ats", sCancel),
			`steps[0]: cancel_session steps are not allowed in new_job_from_ats definitions: there is no candidate`},
		{"cancel_session without reason", doc("manual_invite", sInvite, `{"type":"cancel_session","cancel_session":{}}`),
			`steps[1].cancel_session.reason: required; say why the session is cancelled (at most 200 characters)`},
		{"cancel_session reason control character", doc("manual_invite", sInvite, `{"type":"cancel_session","cancel_session":{"reason":"a\u0007b"}}`),
			`steps[1].cancel_session.reason: contains a control character`},
		{"cancel_session reason too long", doc("manual_invite", sInvite, `{"type":"cancel_session","cancel_session":{"reason":"`+strings.Repeat("é", 201)+`"}}`),
			`steps[1].cancel_session.reason: is 201 characters long; the limit is 200`},
		{"cancel_session reason padded", doc("manual_invite", sInvite, `{"type":"cancel_session","cancel_session":{"reason":" late "}}`),
			`steps[1].cancel_session.reason: " late " has leading or trailing space`},
		{"invite in job definition", doc("new_job_from_ats", sInvite),
			`steps[0]: invite steps are not allowed in new_job_from_ats definitions: there is no candidate`},
		{"missing duration", doc(pa, `{"type":"wait","wait":{}}`), `steps[0].wait.duration: required; want a duration such as "10m" or "72h"`},
		{"unreadable duration", doc(pa, `{"type":"wait","wait":{"duration":"ten minutes"}}`),
			`steps[0].wait.duration: "ten minutes" is not a duration such as "10m" or "72h"`},
		{"fractional duration", doc(pa, `{"type":"wait","wait":{"duration":"1500ms"}}`),
			`steps[0].wait.duration: "1500ms" is not a whole number of seconds`},
		{"zero duration", doc(pa, `{"type":"wait","wait":{"duration":"0s"}}`), `steps[0].wait.duration: "0s" is shorter than 1s`},
		{"negative duration", doc(pa, `{"type":"wait","wait":{"duration":"-5m"}}`), `steps[0].wait.duration: "-5m" is shorter than 1s`},
		{"duration too long", doc(pa, `{"type":"wait","wait":{"duration":"721h"}}`),
			`steps[0].wait.duration: "721h" is longer than 720h (30 days)`},
		{"wait_for_session without invite", doc(pa, sWaitSession), `steps[0]: wait_for_session needs an invite step before it`},
		{"wait_for_session in job definition", doc("new_job_from_ats", sWaitSession),
			`steps[0]: wait_for_session steps are not allowed in new_job_from_ats definitions`},
		{"timeout too long", doc(pa, sInvite, `{"type":"wait_for_session","wait_for_session":{"timeout":"800h","onTimeout":{"outcome":"stop"}}}`),
			`steps[1].wait_for_session.timeout: "800h" is longer than 720h`},
		{"missing onTimeout", doc(pa, sInvite, `{"type":"wait_for_session","wait_for_session":{"timeout":"1h"}}`),
			`steps[1].wait_for_session.onTimeout: required; want {"outcome": "not_eligible"|"stop"|"continue"}`},
		{"unknown onTimeout outcome", doc(pa, sInvite, `{"type":"wait_for_session","wait_for_session":{"timeout":"1h","onTimeout":{"outcome":"retry"}}}`),
			`steps[1].wait_for_session.onTimeout.outcome: unknown outcome "retry"; want one of not_eligible, stop, continue`},
		{"onFalse continue", doc(pa, `{"type":"condition","condition":{"all":[{"field":"job.isOpen","op":"exists"}],"onFalse":{"outcome":"continue"}}}`),
			`steps[0].condition.onFalse.outcome: unknown outcome "continue"; want one of not_eligible, stop`},
		{"missing onFalse", doc(pa, `{"type":"condition","condition":{"all":[{"field":"job.isOpen","op":"exists"}]}}`),
			`steps[0].condition.onFalse: required; want {"outcome": "not_eligible"|"stop"}`},
		{"missing onFalse outcome", doc(pa, `{"type":"condition","condition":{"all":[{"field":"job.isOpen","op":"exists"}],"onFalse":{}}}`),
			`steps[0].condition.onFalse.outcome: required; want one of not_eligible, stop`},
		{"not_eligible without candidate", doc("new_job_from_ats", `{"type":"condition","condition":{"all":[{"field":"job.isOpen","op":"exists"}],"onFalse":{"outcome":"not_eligible"}}}`),
			`steps[0].condition.onFalse.outcome: "not_eligible" needs a candidate; use "stop" in new_job_from_ats definitions`},
		{"reason too long", doc(pa, `{"type":"condition","condition":{"all":[{"field":"job.isOpen","op":"exists"}],"onFalse":{"outcome":"stop","reason":"`+strings.Repeat("x", 201)+`"}}}`),
			`steps[0].condition.onFalse.reason: is 201 characters long; the limit is 200`},
		{"no predicates", doc(pa, `{"type":"condition","condition":{"all":[],"onFalse":{"outcome":"stop"}}}`),
			`steps[0].condition: needs at least one predicate in "all" or "any"`},
		{"too many predicates", doc(pa, `{"type":"condition","condition":{"any":[`+strings.Repeat(`{"field":"job.id","op":"exists"},`, MaxPredicates)+`{"field":"job.id","op":"exists"}],"onFalse":{"outcome":"stop"}}}`),
			`steps[0].condition: 21 predicates; the limit is 20`},
		{"missing op", doc(pa, cond(`{"field":"job.isOpen"}`)), `steps[0].condition.all[0].op: required; want one of eq, ne, in,`},
		{"unknown op", doc(pa, cond(`{"field":"job.title","op":"like","value":"x"}`)),
			`steps[0].condition.all[0].op: unknown op "like"; want one of eq, ne, in, not_in, exists, not_exists, contains, gt, gte, lt, lte, matches`},
		{"missing field", doc(pa, cond(`{"op":"exists"}`)), `steps[0].condition.all[0].field: required; want a fact such as "candidate.email"`},
		{"unknown namespace", doc(pa, cond(`{"field":"user.email","op":"exists"}`)),
			`steps[0].condition.all[0].field: "user.email": want a fact under candidate., job., application., company. or session.`},
		{"malformed field", doc(pa, cond(`{"field":"candidate..email","op":"exists"}`)),
			`steps[0].condition.all[0].field: "candidate..email" is not a fact path such as "candidate.email"`},
		{"bare namespace", doc(pa, cond(`{"field":"candidate","op":"exists"}`)),
			`steps[0].condition.all[0].field: "candidate" is not a fact path`},
		{"field too long", doc(pa, cond(`{"field":"job.`+strings.Repeat("a", 100)+`","op":"exists"}`)),
			`steps[0].condition.all[0].field: is 104 bytes long; the limit is 100`},
		{"session fact before invite", doc(pa, cond(`{"field":"session.id","op":"exists"}`), sInvite),
			`steps[0].condition.all[0].field: "session.id" is only set after an invite step`},
		{"unknown session fact", doc(pa, sInvite, cond(`{"field":"session.status","op":"exists"}`)),
			`steps[1].condition.all[0].field: unknown session fact "session.status"; want one of session.id, session.interviewLink, session.channel, session.completed`},
		{"candidate fact in job definition", doc("new_job_from_ats", cond(`{"field":"candidate.email","op":"exists"}`)),
			`steps[0].condition.all[0].field: "candidate.email": new_job_from_ats runs have no candidate or application facts`},
		{"eq without value", doc(pa, cond(`{"field":"job.status","op":"eq"}`)),
			`steps[0].condition.all[0].value: required; want a string, number or boolean`},
		{"eq with list", doc(pa, cond(`{"field":"job.status","op":"eq","value":["ACTIVE"]}`)),
			`steps[0].condition.all[0].value: got an array; want a string, number or boolean`},
		{"ne with object", doc(pa, cond(`{"field":"job.status","op":"ne","value":{"a":1}}`)),
			`steps[0].condition.all[0].value: got an object; want a string, number or boolean`},
		{"value too long", doc(pa, cond(`{"field":"job.title","op":"contains","value":"`+strings.Repeat("x", 501)+`"}`)),
			`steps[0].condition.all[0].value: is 501 characters long; the limit is 500`},
		{"gt with string", doc(pa, cond(`{"field":"candidate.yearsExperience","op":"gt","value":"5"}`)),
			`steps[0].condition.all[0].value: got a string; want a number`},
		{"lte without value", doc(pa, cond(`{"field":"candidate.yearsExperience","op":"lte"}`)),
			`steps[0].condition.all[0].value: required; want a number`},
		{"in with scalar", doc(pa, cond(`{"field":"job.status","op":"in","value":"ACTIVE"}`)),
			`steps[0].condition.all[0].value: got a string; want an array of strings, numbers or booleans`},
		{"in with empty list", doc(pa, cond(`{"field":"job.status","op":"in","value":[]}`)),
			`steps[0].condition.all[0].value: an empty list; want 1 to 100 values`},
		{"not_in with nested list", doc(pa, cond(`{"field":"job.status","op":"not_in","value":["A",["B"]]}`)),
			`steps[0].condition.all[0].value[1]: got an array; want a string, number or boolean`},
		{"in with too many values", doc(pa, cond(`{"field":"job.status","op":"in","value":[`+strings.Repeat(`1,`, MaxListValues)+`1]}`)),
			`steps[0].condition.all[0].value: 101 values; the limit is 100`},
		{"exists with value", doc(pa, cond(`{"field":"candidate.email","op":"exists","value":true}`)),
			`steps[0].condition.all[0].value: not allowed with op "exists"`},
		{"bad regular expression", doc(pa, cond(`{"field":"candidate.phone","op":"matches","value":"(+1"}`)),
			`steps[0].condition.all[0].value: invalid regular expression: error parsing regexp`},
		{"regular expression too long", doc(pa, cond(`{"field":"candidate.phone","op":"matches","value":"`+strings.Repeat("a", 257)+`"}`)),
			`steps[0].condition.all[0].value: pattern is 257 bytes; the limit is 256`},
		{"predicate in any", doc(pa, `{"type":"condition","condition":{"all":[{"field":"job.id","op":"exists"}],"any":[{"field":"job.id","op":"exists"},{"field":"job.id","op":"bogus"}],"onFalse":{"outcome":"stop"}}}`),
			`steps[0].condition.any[1].op: unknown op "bogus"`},
		{"callback outside partner definitions", doc("new_application_webhook", sInvite, sCallback),
			`steps[1]: partner_callback steps are only allowed in partner_application definitions`},
		{"invited callback before invite", doc(pa, sCond, sWait, sWait, sWait, `{"id":"cb","type":"partner_callback","partner_callback":{"status":"invited"}}`, sInvite),
			`steps[4] (id "cb"): partner_callback "invited" needs an invite step before it`},
		{"callback status error", doc(pa, `{"type":"partner_callback","partner_callback":{"status":"error"}}`),
			`steps[0].partner_callback.status: unknown status "error"; want invited or not_eligible`},
		{"callback status missing", doc(pa, `{"type":"partner_callback","partner_callback":{}}`),
			`steps[0].partner_callback.status: required; want invited or not_eligible`},
		{"reserved callback reason", doc(pa, `{"type":"partner_callback","partner_callback":{"status":"not_eligible","reason":"repeat_submission"}}`),
			`steps[0].partner_callback.reason: "repeat_submission" is reserved for the platform`},
		{"unknown set_status target", doc(pa, `{"type":"set_status","set_status":{"target":"user","status":"x"}}`),
			`steps[0].set_status.target: unknown target "user"; want one of application, candidate, job`},
		{"missing set_status target", doc(pa, `{"type":"set_status","set_status":{"status":"x"}}`),
			`steps[0].set_status.target: required; want one of application, candidate, job`},
		{"generation job status", doc("new_job_from_ats", `{"type":"set_status","set_status":{"target":"job","status":"GENERATING"}}`),
			`steps[0].set_status.status: job status "GENERATING"; want one of ACTIVE, PAUSED`},
		{"application status in job definition", doc("new_job_from_ats", sSetStatus),
			`steps[0].set_status.target: "application": new_job_from_ats runs have no candidate or application`},
		{"missing status", doc(pa, `{"type":"set_status","set_status":{"target":"candidate"}}`),
			`steps[0].set_status.status: required`},
		{"padded status", doc(pa, `{"type":"set_status","set_status":{"target":"candidate","status":" hired"}}`),
			`steps[0].set_status.status: " hired" has leading or trailing space`},
		{"status too long", doc(pa, `{"type":"set_status","set_status":{"target":"candidate","status":"`+strings.Repeat("s", 65)+`"}}`),
			`steps[0].set_status.status: is 65 characters long; the limit is 64`},
		{"labelled nested problem", doc(pa, sWait, `{"id":"inv","type":"invite","invite":{"channels":["pigeon"],"mediumType":"VIDEO"}}`),
			`steps[1].invite.channels[0] (id "inv"): unknown channel "pigeon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := decode(t, tt.doc).Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate(%s) = %q, want substring %q", tt.name, errString(err), tt.want)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Errorf("Validate(%s) returned %T, want *ValidationError", tt.name, err)
			}
			if _, perr := Parse([]byte(tt.doc)); perr == nil || !strings.Contains(perr.Error(), tt.want) {
				t.Errorf("Parse(%s) = %q, want substring %q", tt.name, errString(perr), tt.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestValidateListsEveryProblem checks that problems are collected, not just the first, with
// paths and step ids as separate fields.
func TestValidateListsEveryProblem(t *testing.T) {
	d := decode(t, `{"trigger":"manual_invite","enabled":true,"steps":[
		{"id":"a","type":"wait","wait":{"duration":"1ms"}},
		{"id":"b","type":"invite","invite":{"channels":["fax","email","email"],"mediumType":"NONE"}},
		{"type":"partner_callback","partner_callback":{"status":"invited"}}]}`)
	err := d.Validate()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate() = %v, want *ValidationError", err)
	}
	want := []Problem{
		{Path: "steps[0].wait.duration", StepID: "a", Message: `"1ms" is not a whole number of seconds`},
		{Path: "steps[1].invite.channels[0]", StepID: "b", Message: `unknown channel "fax"; want one of email, sms, whatsapp, phone`},
		{Path: "steps[1].invite.channels[2]", StepID: "b", Message: `"email" is listed twice`},
		{Path: "steps[1].invite.mediumType", StepID: "b", Message: `"NONE" is no interview medium to invite to; want one of VIDEO, PHONE, EXTERNAL, BOTH, WHATSAPP, PHONE_SMS, SMS`},
		{Path: "steps[2]", Message: "partner_callback steps are only allowed in partner_application definitions"},
	}
	if len(ve.Problems) != len(want) {
		t.Fatalf("Validate() problems = %q, want %d problems", ve.Error(), len(want))
	}
	for i, p := range ve.Problems {
		if p != want[i] {
			t.Errorf("problem %d = %+v, want %+v", i, p, want[i])
		}
	}
	if !strings.HasPrefix(err.Error(), `invalid workflow definition: steps[0].wait.duration (id "a"): "1ms"`) {
		t.Errorf("Validate().Error() = %q, want it to start with the first problem", err)
	}
}

// TestValidateGoValues covers values only Go code can build: numbers of other kinds are
// accepted, non-finite numbers and other types are not.
func TestValidateGoValues(t *testing.T) {
	mk := func(op Op, v any) *Definition {
		return &Definition{Trigger: models.TriggerManualInvite, Enabled: true, Steps: []Step{{Type: StepCondition, Condition: &ConditionStep{
			All: []Predicate{{Field: "candidate.yearsExperience", Op: op, Value: v}}, OnFalse: &EndAction{Outcome: OutcomeStop}}}}}
	}
	for _, v := range []any{3, int64(3), uint8(3), float32(2.5)} {
		if err := mk(OpGt, v).Validate(); err != nil {
			t.Errorf("Validate(gt %T) = %q, want nil", v, err)
		}
	}
	if err := mk(OpIn, []string{"a", "b"}).Validate(); err != nil {
		t.Errorf("Validate(in []string) = %q, want nil", err)
	}
	for _, tt := range []struct {
		op   Op
		v    any
		want string
	}{
		{OpGt, math.NaN(), "value: want a finite number"},
		{OpEq, math.Inf(1), "value: want a finite number"},
		{OpEq, struct{}{}, "value: got a value of type struct {}; want a string"},
		{OpEq, "\xff", ""},
	} {
		err := mk(tt.op, tt.v).Validate()
		if tt.want == "" {
			if err != nil {
				t.Errorf("Validate(%s %#v) = %q, want nil", tt.op, tt.v, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%s %#v) = %q, want substring %q", tt.op, tt.v, errString(err), tt.want)
		}
	}
	var nilDef *Definition
	if err := nilDef.Validate(); err == nil {
		t.Error("Validate(nil) = nil, want an error")
	}
	bad := &Definition{Trigger: models.TriggerManualInvite, Enabled: true, Name: "\xffname", Steps: []Step{{Type: StepWait, Wait: &WaitStep{Duration: "1m"}}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "name: is not valid UTF-8") {
		t.Errorf("Validate(invalid UTF-8 name) = %q, want substring %q", errString(err), "name: is not valid UTF-8")
	}
}

func TestParseTrigger(t *testing.T) {
	for _, tr := range models.AllFlowTriggers() {
		if got, err := ParseTrigger(string(tr)); got != tr || err != nil {
			t.Errorf("ParseTrigger(%q) = %q, %v, want %q", tr, got, err, tr)
		}
	}
	for _, s := range []string{"", "Partner_Application", "webhook"} {
		_, err := ParseTrigger(s)
		if err == nil || !strings.Contains(err.Error(), "want one of partner_application, new_application_webhook, new_job_from_ats, manual_invite, new_application_ats") {
			t.Errorf("ParseTrigger(%q) = %v, want an error naming the triggers", s, err)
		}
	}
	if len(models.AllFlowTriggers()) != 5 {
		t.Errorf("models.AllFlowTriggers() = %v, want 5 triggers", models.AllFlowTriggers())
	}
}

func TestDefaults(t *testing.T) {
	defs := Defaults()
	for _, tr := range models.AllFlowTriggers() {
		d := defs[tr]
		if d == nil {
			t.Errorf("Defaults()[%s] missing", tr)
			continue
		}
		if err := d.Validate(); err != nil {
			t.Errorf("Validate(default %s) = %q, want nil", tr, err)
		}
		if d.Trigger != tr || !d.Enabled || d.Name == "" {
			t.Errorf("Defaults()[%s] = trigger %q enabled %v name %q, want an enabled, named %s definition", tr, d.Trigger, d.Enabled, d.Name, tr)
		}
	}
	if len(defs) != len(models.AllFlowTriggers()) {
		t.Errorf("Defaults() has %d definitions, want %d", len(defs), len(models.AllFlowTriggers()))
	}
	// Every call returns new definitions.
	defs[models.TriggerManualInvite].Steps[0].Invite.Channels[0] = "fax"
	if c := Defaults()[models.TriggerManualInvite].Steps[0].Invite.Channels[0]; c != "email" {
		t.Errorf("Defaults() after a caller's edit: channel %q, want email", c)
	}
}
