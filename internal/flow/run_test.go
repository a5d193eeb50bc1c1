package flow

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/models"
)

// fakeExecutor records every call as a line; fail makes the named method fail.
type fakeExecutor struct {
	calls     []string
	logs      []string
	invites   int
	channel   string // of invite results; "" is the step's first channel
	completed bool
	ended     models.SessionStatus // what CancelSession finds; "" is an open session it cancels
	fail      map[string]error
}

func (f *fakeExecutor) Invite(step InviteStep) (InviteResult, error) {
	f.calls = append(f.calls, fmt.Sprintf("Invite(%v %s %q)", step.Channels, step.MediumType, step.Template))
	step.Channels[0] = "mutated" // must not reach the definition
	if err := f.fail["Invite"]; err != nil {
		return InviteResult{}, err
	}
	f.invites++
	ch := f.channel
	if ch == "" {
		ch = "first"
	}
	return InviteResult{SessionID: fmt.Sprintf("s-%d", f.invites), Channel: ch}, nil
}

func (f *fakeExecutor) Sleep(d time.Duration) error {
	f.calls = append(f.calls, fmt.Sprintf("Sleep(%s)", d))
	return f.fail["Sleep"]
}

func (f *fakeExecutor) WaitForSession(id string, timeout time.Duration) (bool, error) {
	f.calls = append(f.calls, fmt.Sprintf("WaitForSession(%s, %s)", id, timeout))
	return f.completed, f.fail["WaitForSession"]
}

func (f *fakeExecutor) PartnerCallback(status, reason, link string) error {
	f.calls = append(f.calls, fmt.Sprintf("PartnerCallback(%s, %q, %q)", status, reason, link))
	return f.fail["PartnerCallback"]
}

func (f *fakeExecutor) SetStatus(target, status string) error {
	f.calls = append(f.calls, fmt.Sprintf("SetStatus(%s, %s)", target, status))
	return f.fail["SetStatus"]
}

func (f *fakeExecutor) CancelSession(id, reason string) (models.SessionStatus, error) {
	f.calls = append(f.calls, fmt.Sprintf("CancelSession(%s, %q)", id, reason))
	if f.ended != "" {
		return f.ended, f.fail["CancelSession"]
	}
	return models.SessionStatusCancelled, f.fail["CancelSession"]
}

func (f *fakeExecutor) Log(i int, id, msg string) {
	f.logs = append(f.logs, fmt.Sprintf("%d %s: %s", i, id, msg))
}

func mustParse(t *testing.T, s string) *Definition {
	t.Helper()
	d, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

var contactFacts = Facts{"candidate.email": "ana@example.test", "job.isOpen": true, "job.status": "ACTIVE", "application.doNotHire": false}

func TestRun(t *testing.T) {
	defs := Defaults()
	invited := &CallbackRecord{Status: "invited", SessionID: "s-1"}
	tests := []struct {
		name      string
		def       *Definition
		facts     Facts
		ex        fakeExecutor
		wantCalls []string
		want      Outcome
	}{
		{"partner default, interview completed", defs[models.TriggerPartnerApplication], contactFacts, fakeExecutor{completed: true},
			[]string{`Invite([email sms] VIDEO "default")`, `PartnerCallback(invited, "", "s-1")`, `WaitForSession(s-1, 72h0m0s)`},
			Outcome{Result: ResultCompleted, Callback: invited, StepsRun: 5}},
		{"partner default, no interview", defs[models.TriggerPartnerApplication], contactFacts, fakeExecutor{},
			[]string{`Invite([email sms] VIDEO "default")`, `PartnerCallback(invited, "", "s-1")`, `WaitForSession(s-1, 72h0m0s)`},
			Outcome{Result: ResultStopped, Reason: "session not completed within 72h", Callback: invited, StepsRun: 5}},
		{"partner default, no contact details", defs[models.TriggerPartnerApplication], Facts{"candidate.email": "", "job.isOpen": true}, fakeExecutor{},
			[]string{`PartnerCallback(not_eligible, "no_contact_details", "")`},
			Outcome{Result: ResultNotEligible, Reason: "no_contact_details", Callback: &CallbackRecord{Status: "not_eligible", Reason: "no_contact_details"}, StepsRun: 1}},
		{"partner default, job paused", defs[models.TriggerPartnerApplication], Facts{"candidate.phone": "+1555", "job.isOpen": true, "job.status": "PAUSED"}, fakeExecutor{},
			[]string{`PartnerCallback(not_eligible, "job_not_open", "")`},
			Outcome{Result: ResultNotEligible, Reason: "job_not_open", Callback: &CallbackRecord{Status: "not_eligible", Reason: "job_not_open"}, StepsRun: 2}},
		{"webhook default", defs[models.TriggerNewApplicationWebhook], contactFacts, fakeExecutor{},
			[]string{`Invite([sms email] VIDEO "default")`},
			Outcome{Result: ResultCompleted, StepsRun: 3}},
		{"webhook default, do not hire", defs[models.TriggerNewApplicationWebhook], Facts{"application.doNotHire": true, "job.isOpen": true}, fakeExecutor{},
			nil, Outcome{Result: ResultStopped, Reason: "do_not_hire", StepsRun: 1}},
		{"webhook default, doNotHire unknown", defs[models.TriggerNewApplicationWebhook], Facts{"job.isOpen": true}, fakeExecutor{},
			nil, Outcome{Result: ResultStopped, Reason: "do_not_hire", StepsRun: 1}},
		{"ATS default", defs[models.TriggerNewApplicationATS], Facts{"application.status": "new", "job.isOpen": true}, fakeExecutor{},
			[]string{`Invite([email sms] VIDEO "default")`}, Outcome{Result: ResultCompleted, StepsRun: 3}},
		{"ATS default, declined in the ATS", defs[models.TriggerNewApplicationATS], Facts{"application.status": "declined", "job.isOpen": true}, fakeExecutor{},
			nil, Outcome{Result: ResultStopped, Reason: "decided_in_ats", StepsRun: 1}},
		{"ATS default, closed job", defs[models.TriggerNewApplicationATS], Facts{"application.status": "new", "job.isOpen": false}, fakeExecutor{},
			nil, Outcome{Result: ResultStopped, Reason: "job_not_open", StepsRun: 2}},
		{"manual default", defs[models.TriggerManualInvite], nil, fakeExecutor{},
			[]string{`Invite([email sms] VIDEO "default")`}, Outcome{Result: ResultCompleted, StepsRun: 1}},
		{"job default, closed job", defs[models.TriggerNewJobFromATS], Facts{"job.isOpen": false}, fakeExecutor{},
			[]string{`SetStatus(job, PAUSED)`}, Outcome{Result: ResultCompleted, StepsRun: 2}},
		{"job default, open job", defs[models.TriggerNewJobFromATS], Facts{"job.isOpen": true}, fakeExecutor{},
			nil, Outcome{Result: ResultStopped, Reason: "job_open", StepsRun: 1}},
		{"wait and set status", mustParse(t, doc("manual_invite", sWait, sSetStatus)), nil, fakeExecutor{},
			[]string{`Sleep(10m0s)`, `SetStatus(application, invited)`}, Outcome{Result: ResultCompleted, StepsRun: 2}},
		{"condition false without reason", mustParse(t, doc("manual_invite", sCond, sWait)), Facts{"job.isOpen": false}, fakeExecutor{},
			nil, Outcome{Result: ResultStopped, Reason: "condition false: all[0] (job.isOpen eq true) is false", StepsRun: 1}},
		{"not_eligible outside partner runs sends nothing", mustParse(t, doc("manual_invite",
			`{"type":"condition","condition":{"all":[{"field":"job.isOpen","op":"eq","value":true}],"onFalse":{"outcome":"not_eligible","reason":"closed"}}}`)),
			nil, fakeExecutor{}, nil, Outcome{Result: ResultNotEligible, Reason: "closed", StepsRun: 1}},
		{"reminder after an unanswered invite", mustParse(t, doc("manual_invite",
			`{"type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"}}`,
			`{"type":"wait_for_session","wait_for_session":{"timeout":"24h","onTimeout":{"outcome":"continue"}}}`,
			cond(`{"field":"session.completed","op":"eq","value":false}`),
			`{"type":"invite","invite":{"channels":["sms"],"mediumType":"VIDEO","template":"reminder"}}`,
			`{"type":"wait_for_session","wait_for_session":{"timeout":"48h","onTimeout":{"outcome":"not_eligible","reason":"no_show"}}}`)),
			nil, fakeExecutor{},
			[]string{`Invite([email] VIDEO "")`, `WaitForSession(s-1, 24h0m0s)`, `Invite([sms] VIDEO "reminder")`, `WaitForSession(s-2, 48h0m0s)`},
			Outcome{Result: ResultNotEligible, Reason: "no_show", StepsRun: 5}},
		{"no reminder after a completed interview", mustParse(t, doc("manual_invite",
			sInvite, sWaitSession, cond(`{"field":"session.completed","op":"eq","value":false}`), sInvite)),
			nil, fakeExecutor{completed: true},
			[]string{`Invite([email sms] VIDEO "")`, `WaitForSession(s-1, 72h0m0s)`},
			Outcome{Result: ResultStopped, Reason: "condition false: all[0] (session.completed eq false) is false", StepsRun: 3}},
		{"invite result feeds a later condition", mustParse(t, doc("manual_invite",
			sInvite, cond(`{"field":"session.channel","op":"eq","value":"sms"}`), sSetStatus)),
			nil, fakeExecutor{channel: "sms"},
			[]string{`Invite([email sms] VIDEO "")`, `SetStatus(application, invited)`}, Outcome{Result: ResultCompleted, StepsRun: 3}},
		{"invite result feeds a later condition, other channel", mustParse(t, doc("manual_invite",
			sInvite, cond(`{"field":"session.channel","op":"eq","value":"sms"}`), sSetStatus)),
			nil, fakeExecutor{channel: "email"},
			[]string{`Invite([email sms] VIDEO "")`},
			Outcome{Result: ResultStopped, Reason: `condition false: all[0] (session.channel eq "sms") is false`, StepsRun: 2}},
		{"second callback is not sent", mustParse(t, doc("partner_application", sInvite, sCallback,
			`{"id":"again","type":"partner_callback","partner_callback":{"status":"not_eligible"}}`, sCallback, sSetStatus)),
			nil, fakeExecutor{},
			[]string{`Invite([email sms] VIDEO "")`, `PartnerCallback(invited, "", "s-1")`, `SetStatus(application, invited)`},
			Outcome{Result: ResultCompleted, Callback: invited, StepsRun: 5}},
		{"not_eligible after invited sends no second callback", mustParse(t, doc("partner_application", sInvite, sCallback,
			`{"type":"wait_for_session","wait_for_session":{"timeout":"1h","onTimeout":{"outcome":"not_eligible","reason":"no_show"}}}`)),
			nil, fakeExecutor{},
			[]string{`Invite([email sms] VIDEO "")`, `PartnerCallback(invited, "", "s-1")`, `WaitForSession(s-1, 1h0m0s)`},
			Outcome{Result: ResultNotEligible, Reason: "no_show", Callback: invited, StepsRun: 3}},
		{"callback not_eligible, then the condition's not_eligible", mustParse(t, doc("partner_application",
			`{"type":"partner_callback","partner_callback":{"status":"not_eligible","reason":"first"}}`,
			`{"type":"condition","condition":{"all":[{"field":"job.isOpen","op":"eq","value":true}],"onFalse":{"outcome":"not_eligible","reason":"second"}}}`)),
			nil, fakeExecutor{},
			[]string{`PartnerCallback(not_eligible, "first", "")`},
			Outcome{Result: ResultNotEligible, Reason: "second", Callback: &CallbackRecord{Status: "not_eligible", Reason: "first"}, StepsRun: 2}},
		{"cancel after an unanswered invite", mustParse(t, doc("manual_invite",
			sInvite, sWaitSession, cond(`{"field":"session.completed","op":"eq","value":false}`), sCancel, sSetStatus)),
			nil, fakeExecutor{},
			[]string{`Invite([email sms] VIDEO "")`, `WaitForSession(s-1, 72h0m0s)`, `CancelSession(s-1, "not taken within 3 days")`, `SetStatus(application, invited)`},
			Outcome{Result: ResultCompleted, StepsRun: 5}},
		{"cancel of a session that ended goes on", mustParse(t, doc("manual_invite", sInvite, sCancel, sSetStatus)),
			nil, fakeExecutor{ended: models.SessionStatusCompleted},
			[]string{`Invite([email sms] VIDEO "")`, `CancelSession(s-1, "not taken within 3 days")`, `SetStatus(application, invited)`},
			Outcome{Result: ResultCompleted, StepsRun: 3}},
		{"cancel cancels the latest invite's session", mustParse(t, doc("manual_invite", sInvite, sInvite, sCancel)),
			nil, fakeExecutor{},
			[]string{`Invite([email sms] VIDEO "")`, `Invite([email sms] VIDEO "")`, `CancelSession(s-2, "not taken within 3 days")`},
			Outcome{Result: ResultCompleted, StepsRun: 3}},
		{"partner run ending without callback", mustParse(t, doc("partner_application", sCond)), nil, fakeExecutor{},
			nil, Outcome{Result: ResultStopped, Reason: "condition false: all[0] (job.isOpen eq true) is false", StepsRun: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := tt.ex
			before := Hash(tt.def)
			got, err := Run(tt.def, Evaluate(tt.def, tt.facts), &ex)
			if err != nil {
				t.Fatalf("Run() error = %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Run() = %s, want %s", outcomeString(got), outcomeString(tt.want))
			}
			if !slices.Equal(ex.calls, tt.wantCalls) {
				t.Errorf("Run() calls:\n got %q\nwant %q", ex.calls, tt.wantCalls)
			}
			if Hash(tt.def) != before {
				t.Error("Run() changed the definition")
			}
			if len(ex.logs) < got.StepsRun {
				t.Errorf("Run() logged %q, want a line per step", ex.logs)
			}
		})
	}
}

func outcomeString(o Outcome) string {
	cb := "<nil>"
	if o.Callback != nil {
		cb = fmt.Sprintf("%+v", *o.Callback)
	}
	return fmt.Sprintf("{Result:%s Reason:%q Callback:%s StepsRun:%d}", o.Result, o.Reason, cb, o.StepsRun)
}

func TestRunLogs(t *testing.T) {
	ex := &fakeExecutor{}
	d := mustParse(t, doc("partner_application", sInvite, `{"id":"cb","type":"partner_callback","partner_callback":{"status":"invited"}}`,
		`{"id":"cb2","type":"partner_callback","partner_callback":{"status":"not_eligible"}}`))
	if _, err := Run(d, nil, ex); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0 : invited by first to session s-1",
		`1 cb: partner callback "invited" sent`,
		`2 cb2: partner callback "not_eligible" not sent: "invited" was sent already`,
	}
	if !reflect.DeepEqual(ex.logs, want) {
		t.Errorf("Run() logs:\n got %q\nwant %q", ex.logs, want)
	}
	for _, l := range ex.logs {
		if strings.Contains(l, "https://") {
			t.Errorf("Run() logged the interview link: %q", l)
		}
	}
}

func TestRunExecutorErrors(t *testing.T) {
	boom := errors.New("provider unavailable")
	d := mustParse(t, doc("partner_application", sCond, sWait,
		`{"id":"inv","type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"}}`,
		sCallback, sWaitSession, sSetStatus, sCancel))
	facts := Facts{"job.isOpen": true}
	tests := []struct {
		method    string
		wantErr   string
		wantSteps int
		wantCalls int
	}{
		{"Sleep", "steps[1] wait: provider unavailable", 2, 1},
		{"Invite", `steps[2] (id "inv") invite: provider unavailable`, 3, 2},
		{"PartnerCallback", "steps[3] partner_callback: provider unavailable", 4, 3},
		{"WaitForSession", "steps[4] wait_for_session: provider unavailable", 5, 4},
		{"SetStatus", "steps[5] set_status: provider unavailable", 6, 5},
		{"CancelSession", "steps[6] cancel_session: provider unavailable", 7, 6},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			ex := &fakeExecutor{completed: true, fail: map[string]error{tt.method: boom}}
			got, err := Run(d, Evaluate(d, facts), ex)
			if !errors.Is(err, boom) || err.Error() != tt.wantErr {
				t.Errorf("Run() error = %v, want %q wrapping the executor's", err, tt.wantErr)
			}
			if got.Result != ResultFailed || got.Reason != tt.wantErr || got.StepsRun != tt.wantSteps {
				t.Errorf("Run() = %s, want failed after %d steps", outcomeString(got), tt.wantSteps)
			}
			if len(ex.calls) != tt.wantCalls {
				t.Errorf("Run() calls = %q, want %d: nothing after the failure", ex.calls, tt.wantCalls)
			}
			if tt.method == "PartnerCallback" && got.Callback != nil {
				t.Errorf("Run() Callback = %+v after a failed callback, want nil", got.Callback)
			}
		})
	}

	// A failing not_eligible report fails the run.
	ex := &fakeExecutor{fail: map[string]error{"PartnerCallback": boom}}
	got, err := Run(Defaults()[models.TriggerPartnerApplication], Evaluate(Defaults()[models.TriggerPartnerApplication], Facts{}), ex)
	if !errors.Is(err, boom) || got.Result != ResultFailed || got.Callback != nil {
		t.Errorf("Run(not_eligible, failing callback) = %s, %v, want failed", outcomeString(got), err)
	}
}

func TestRunDisabled(t *testing.T) {
	d := Defaults()[models.TriggerPartnerApplication]
	d.Enabled = false
	ex := &fakeExecutor{}
	got, err := Run(d, Evaluate(d, contactFacts), ex)
	want := Outcome{Result: ResultStopped, Reason: "definition disabled"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Run(disabled) = %s, %v, want %s", outcomeString(got), err, outcomeString(want))
	}
	if len(ex.calls)+len(ex.logs) != 0 {
		t.Errorf("Run(disabled) called the executor: %q %q", ex.calls, ex.logs)
	}
}

func TestRunDoesNotMutateFacts(t *testing.T) {
	facts := Facts{"candidate.email": "a@b.test", "job.isOpen": true, "job.status": "ACTIVE", "session.id": "caller's"}
	before := maps.Clone(facts)
	d := mustParse(t, doc("partner_application", sInvite, sWaitSession, cond(`{"field":"session.id","op":"eq","value":"s-1"}`), sSetStatus))
	ex := &fakeExecutor{}
	got, err := Run(d, Evaluate(d, facts), ex)
	if err != nil || got.Result != ResultCompleted {
		t.Fatalf("Run() = %s, %v, want completed (session.id comes from the invite)", outcomeString(got), err)
	}
	if !reflect.DeepEqual(facts, before) {
		t.Errorf("Run() changed the caller's facts: %v, want %v", facts, before)
	}
}

// TestRunUnvalidated checks that definitions Validate rejects fail cleanly instead of
// panicking or calling the executor wrongly.
func TestRunUnvalidated(t *testing.T) {
	tests := []struct {
		name    string
		d       *Definition
		wantErr string
	}{
		{"missing object", &Definition{Enabled: true, Trigger: models.TriggerManualInvite, Steps: []Step{{Type: StepInvite}}},
			"steps[0] invite: the step's object is missing"},
		{"unknown type", &Definition{Enabled: true, Steps: []Step{{ID: "x", Type: "email"}}},
			`steps[0] (id "x") email: unknown step type "email"`},
		{"callback outside partner runs", &Definition{Enabled: true, Trigger: models.TriggerManualInvite,
			Steps: []Step{{Type: StepPartnerCallback, PartnerCallback: &PartnerCallbackStep{Status: CallbackNotEligible}}}},
			"partner callbacks belong to partner_application runs"},
		{"invited without invite", &Definition{Enabled: true, Trigger: models.TriggerPartnerApplication,
			Steps: []Step{{Type: StepPartnerCallback, PartnerCallback: &PartnerCallbackStep{Status: CallbackInvited}}}},
			`callback "invited" needs the interview link`},
		{"wait_for_session without invite", &Definition{Enabled: true, Trigger: models.TriggerManualInvite,
			Steps: []Step{{Type: StepWaitForSession, WaitForSession: &WaitForSessionStep{Timeout: "1h", OnTimeout: &EndAction{Outcome: OutcomeStop}}}}},
			"no invite step ran before it"},
		{"cancel_session without invite", &Definition{Enabled: true, Trigger: models.TriggerManualInvite,
			Steps: []Step{{Type: StepCancelSession, CancelSession: &CancelSessionStep{Reason: "late"}}}},
			"steps[0] cancel_session: no invite step ran before it"},
		{"cancel_session without object", &Definition{Enabled: true, Trigger: models.TriggerManualInvite,
			Steps: []Step{{Type: StepCancelSession}}},
			"steps[0] cancel_session: the step's object is missing"},
		{"bad duration", &Definition{Enabled: true, Steps: []Step{{Type: StepWait, Wait: &WaitStep{Duration: "soon"}}}},
			`time: invalid duration "soon"`},
		{"negative duration", &Definition{Enabled: true, Steps: []Step{{Type: StepWait, Wait: &WaitStep{Duration: "-1s"}}}},
			`duration "-1s" is not positive`},
		{"missing onFalse", &Definition{Enabled: true, Steps: []Step{{Type: StepCondition, Condition: &ConditionStep{All: []Predicate{{Field: "job.id", Op: OpExists}}}}}},
			"the step has no outcome action"},
		{"continue on false", &Definition{Enabled: true, Steps: []Step{{Type: StepCondition, Condition: &ConditionStep{
			All: []Predicate{{Field: "job.id", Op: OpExists}}, OnFalse: &EndAction{Outcome: OutcomeContinue}}}}},
			`unknown outcome "continue"`},
		{"bad op", &Definition{Enabled: true, Steps: []Step{{Type: StepCondition, Condition: &ConditionStep{
			All: []Predicate{{Field: "job.id", Op: "like"}}, OnFalse: &EndAction{Outcome: OutcomeStop}}}}},
			`all[0]: unknown op "like"`},
		{"nil definition", nil, "definition and executor are required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Run(tt.d, Evaluate(tt.d, nil), &fakeExecutor{})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || got.Result != ResultFailed {
				t.Errorf("Run(%s) = %s, %v, want failed with %q", tt.name, outcomeString(got), err, tt.wantErr)
			}
		})
	}
	if _, err := Run(Defaults()[models.TriggerManualInvite], nil, nil); err == nil {
		t.Error("Run(nil executor) = nil error, want one")
	}
	ex := &fakeExecutor{}
	got, err := Run(&Definition{Trigger: models.TriggerPartnerApplication, Enabled: true, Steps: []Step{
		{Type: StepPartnerCallback, PartnerCallback: &PartnerCallbackStep{Status: CallbackInvited}}}}, nil, ex)
	if err == nil || got.Result != ResultFailed || len(ex.calls) != 0 {
		t.Errorf("Run(invited without link) = %s, %v after %q, want failed before the callback", outcomeString(got), err, ex.calls)
	}
}

func TestRunInviteWithoutSession(t *testing.T) {
	got, err := Run(Defaults()[models.TriggerManualInvite], nil, noSessionExecutor{&fakeExecutor{}})
	if err == nil || !strings.Contains(err.Error(), "no session id") || got.Result != ResultFailed {
		t.Errorf("Run() = %s, %v, want failed: no session id", outcomeString(got), err)
	}
}

type noSessionExecutor struct{ *fakeExecutor }

func (noSessionExecutor) Invite(InviteStep) (InviteResult, error) {
	return InviteResult{Channel: "email"}, nil
}

// TestRunDeterministic runs the same definition twice, as a workflow replay does.
func TestRunDeterministic(t *testing.T) {
	d := Defaults()[models.TriggerPartnerApplication]
	var runs [2]*fakeExecutor
	var outs [2]Outcome
	for i := range runs {
		runs[i] = &fakeExecutor{}
		outs[i], _ = Run(d, Evaluate(d, contactFacts), runs[i])
	}
	if !reflect.DeepEqual(runs[0], runs[1]) || !reflect.DeepEqual(outs[0], outs[1]) {
		t.Errorf("two runs differ:\n%+v %s\n%+v %s", runs[0], outcomeString(outs[0]), runs[1], outcomeString(outs[1]))
	}
}

// notSentExecutor's invitations are never sent, for reason.
type notSentExecutor struct {
	*fakeExecutor
	reason string
}

func (n notSentExecutor) Invite(InviteStep) (InviteResult, error) {
	return InviteResult{NotSent: n.reason}, nil
}

// TestRunInviteNotSent: an invitation the executor did not send (its job's interview never got
// ready) ends the run, stopped with the reason; a partner run answers not_eligible with the
// reason as its callback's, and no later step runs.
func TestRunInviteNotSent(t *testing.T) {
	for _, tt := range []struct {
		trigger  models.FlowTrigger
		result   string
		callback string
	}{
		{models.TriggerNewApplicationATS, ResultStopped, ""},
		{models.TriggerPartnerApplication, ResultNotEligible, `PartnerCallback(not_eligible, "job_not_ready", "")`},
	} {
		ex := notSentExecutor{&fakeExecutor{}, "job_not_ready"}
		d := Defaults()[tt.trigger]
		facts := Facts{"application.status": "new"}
		for k, v := range contactFacts {
			facts[k] = v
		}
		got, err := Run(d, Evaluate(d, facts), ex)
		if err != nil || got.Result != tt.result || got.Reason != "job_not_ready" {
			t.Errorf("%s: Run() = %s, %v; want %s with job_not_ready", tt.trigger, outcomeString(got), err, tt.result)
		}
		calls := strings.Join(ex.calls, "; ")
		if calls != tt.callback {
			t.Errorf("%s: calls %q, want %q (nothing after the invite but the partner's callback)", tt.trigger, calls, tt.callback)
		}
	}
}
