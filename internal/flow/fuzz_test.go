package flow

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, rejects only with a *ValidationError, and that what
// it accepts validates, survives a JSON round trip with the same Hash and runs to an end
// without failing or sending two partner callbacks.
func FuzzParse(f *testing.F) {
	for _, s := range defaultDefinitions {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		doc("partner_application", sCond, sInvite, sWait, sCallback, sWaitSession, sSetStatus),
		doc("partner_application", sInvite, sCallback, sCallback),
		doc("manual_invite", sInvite, sWaitSession, cond(`{"field":"session.completed","op":"eq","value":false}`), sCancel),
		doc("manual_invite", sInvite, sWaitSession, cond(`{"field":"session.completed","op":"eq","value":false}`), sInvite),
		doc("new_job_from_ats", cond(`{"field":"job.status","op":"in","value":["ACTIVE",1,true]}`),
			`{"type":"set_status","set_status":{"target":"job","status":"ACTIVE"}}`),
		doc("new_application_webhook", cond(`{"field":"candidate.phone","op":"matches","value":"^\\+1"}`)),
		doc("manual_invite", `{"type":"wait","type":"wait","wait":{"duration":"1m"}}`),
		`{"trigger":"manual_invite","enabled":false,"steps":[]}`,
		`{"Trigger":"manual_invite"}`,
		`{} {}`,
		`[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Parse(b)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 || d != nil {
				t.Fatalf("Parse(%q) = %v, %v; want nil and a *ValidationError", b, d, err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("Parse(%q) accepted a definition Validate rejects: %v", b, err)
		}
		h := Hash(d)
		if h == "" {
			t.Fatalf("Hash(Parse(%q)) is empty", b)
		}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("marshal Parse(%q): %v", b, err)
		}
		if len(out) <= MaxDefinitionBytes {
			again, err := Parse(out)
			if err != nil {
				t.Fatalf("Parse(marshal(Parse(%q))) = %v", b, err)
			}
			if Hash(again) != h {
				t.Fatalf("Hash changes over a round trip of %q", b)
			}
		}
		ex := &fakeExecutor{}
		facts := Facts{"candidate.email": "a@b.test", "job.isOpen": true, "job.status": "ACTIVE", "candidate.years": 3}
		o, err := Run(d, Evaluate(d, facts), ex)
		if err != nil || o.Result == ResultFailed {
			t.Fatalf("Run(Parse(%q)) = %s, %v; want no failure with an executor that never fails", b, outcomeString(o), err)
		}
		callbacks := 0
		for _, c := range ex.calls {
			if strings.HasPrefix(c, "PartnerCallback(") {
				callbacks++
			}
		}
		if callbacks > 1 {
			t.Fatalf("Run(Parse(%q)) sent %d partner callbacks", b, callbacks)
		}
	})
}
