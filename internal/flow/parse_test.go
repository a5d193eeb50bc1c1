package flow

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/models"
)

func TestParseStrict(t *testing.T) {
	valid := doc("manual_invite", sInvite)
	tests := []struct{ name, in, want string }{
		{"empty", ``, `unexpected end of JSON`},
		{"not an object", `[]`, `got an array; want an object`},
		{"syntax error", `{"trigger":"manual_invite",}`, `invalid JSON at byte 27: invalid character '}'`},
		{"truncated", `{"trigger":"manual_invite","steps":[`, `steps: unexpected end of JSON`},
		{"unknown field", `{"trigger":"manual_invite","enabled":true,"steps":[],"owner":"x"}`,
			`owner: unknown field; want one of trigger, enabled, name, steps`},
		{"unknown nested field", doc("manual_invite", `{"type":"invite","invite":{"chanels":["email"],"mediumType":"VIDEO"}}`),
			`steps[0].invite.chanels: unknown field; want one of channels, mediumType, template`},
		{"field name in other case", `{"Trigger":"manual_invite","enabled":true,"steps":[]}`, `Trigger: unknown field`},
		{"nested field name in other case", doc("manual_invite", `{"type":"wait","wait":{"Duration":"1m"}}`),
			`steps[0].wait.Duration: unknown field; want one of duration`},
		{"repeated field", doc("manual_invite", `{"type":"wait","type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"}}`),
			`steps[0].type: repeated field`},
		{"repeated field in a value", doc("manual_invite", cond(`{"field":"job.status","op":"eq","value":{"a":1,"a":2}}`)),
			`steps[0].condition.all[0].value.a: repeated field`},
		{"null string", `{"trigger":"manual_invite","enabled":true,"name":null,"steps":[]}`, `name: null is not allowed; want a string`},
		{"null boolean", `{"trigger":"manual_invite","enabled":null,"steps":[]}`, `enabled: null is not allowed; want a boolean`},
		{"string for boolean", `{"trigger":"manual_invite","enabled":"yes","steps":[]}`, `enabled: got a string; want a boolean`},
		{"number for duration", doc("manual_invite", `{"type":"wait","wait":{"duration":600}}`),
			`steps[0].wait.duration: got a number; want a string`},
		{"string for list", doc("manual_invite", `{"type":"invite","invite":{"channels":"email","mediumType":"VIDEO"}}`),
			`steps[0].invite.channels: got a string; want an array`},
		{"list for object", doc("manual_invite", `{"type":"wait","wait":[]}`), `steps[0].wait: got an array; want an object`},
		{"object for step list", `{"trigger":"manual_invite","enabled":true,"steps":{}}`, `steps: got an object; want an array`},
		{"trailing object", valid + ` {}`, `unexpected data after the definition`},
		{"trailing garbage", valid + ` x`, `unexpected data after the definition`},
		{"two documents", valid + valid, `unexpected data after the definition`},
		{"too large", valid + strings.Repeat(" ", MaxDefinitionBytes-len(valid)+1), `definition is 65537 bytes; the limit is 65536`},
		{"too deep", doc("manual_invite", cond(`{"field":"job.status","op":"eq","value":`+strings.Repeat("[", 20)+strings.Repeat("]", 20)+`}`)),
			`nested too deeply`},
		{"number out of range", doc("manual_invite", cond(`{"field":"job.id","op":"eq","value":1e400}`)),
			`steps[0].condition.all[0].value: number 1e400 is out of range`},
		{"valid JSON, invalid definition", doc("manual_invite", `{"type":"wait","wait":{"duration":"1 week"}}`),
			`steps[0].wait.duration: "1 week" is not a duration`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse(%s) = %q, want substring %q", tt.name, errString(err), tt.want)
			}
			if d != nil {
				t.Errorf("Parse(%s) returned a definition with its error", tt.name)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Errorf("Parse(%s) error is %T, want *ValidationError with problems", tt.name, err)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	valid := doc("manual_invite", sInvite)
	for name, in := range map[string]string{
		"compact":             valid,
		"whitespace around":   "\n\t " + valid + " \n",
		"exactly the limit":   valid + strings.Repeat(" ", MaxDefinitionBytes-len(valid)),
		"null optional parts": `{"trigger":"manual_invite","enabled":true,"steps":[{"type":"wait","wait":{"duration":"1m"},"invite":null}]}`,
	} {
		d, err := Parse([]byte(in))
		if err != nil {
			t.Errorf("Parse(%s) = %q, want nil", name, err)
			continue
		}
		if d.Trigger != models.TriggerManualInvite || len(d.Steps) != 1 {
			t.Errorf("Parse(%s) = %+v, want the manual_invite definition", name, d)
		}
	}
}

func TestHash(t *testing.T) {
	a, err := Parse([]byte(doc("partner_application", sCond, sInvite, sCallback)))
	if err != nil {
		t.Fatal(err)
	}
	// The same definition with other spacing, key order and number spelling.
	b, err := Parse([]byte(`{ "steps": [
		{"condition": {"onFalse": {"outcome": "stop"}, "all": [{"value": true, "op": "eq", "field": "job.isOpen"}]}, "type": "condition"},
		{"invite": {"mediumType": "VIDEO", "channels": ["email", "sms"]}, "type": "invite", "id": ""},
		{"partner_callback": {"status": "invited"}, "type": "partner_callback"}],
		"enabled": true, "trigger": "partner_application", "name": ""}`))
	if err != nil {
		t.Fatal(err)
	}
	ha, hb := Hash(a), Hash(b)
	if len(ha) != 64 || strings.Trim(ha, "0123456789abcdef") != "" {
		t.Errorf("Hash() = %q, want 64 hex digits", ha)
	}
	if ha != hb {
		t.Errorf("Hash() differs for the same definition: %s vs %s", ha, hb)
	}
	if h := Hash(a); h != ha {
		t.Errorf("Hash() = %s, then %s", ha, h)
	}
	b.Enabled = false
	if Hash(b) == ha {
		t.Error("Hash() ignores Enabled")
	}
	b.Enabled = true
	b.Steps[1].Invite.Channels[0], b.Steps[1].Invite.Channels[1] = "sms", "email"
	if Hash(b) == ha {
		t.Error("Hash() ignores channel order")
	}
	n1 := doc("manual_invite", cond(`{"field":"candidate.age","op":"gt","value":1.50}`))
	n2 := doc("manual_invite", cond(`{"field":"candidate.age","op":"gt","value":15e-1}`))
	d1, _ := Parse([]byte(n1))
	d2, _ := Parse([]byte(n2))
	if Hash(d1) != Hash(d2) {
		t.Errorf("Hash() differs for 1.50 and 15e-1")
	}
	for tr, d := range Defaults() {
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Errorf("Parse(marshalled default %s) = %q", tr, err)
			continue
		}
		if Hash(again) != Hash(d) {
			t.Errorf("Hash() of default %s changes over a JSON round trip", tr)
		}
	}
	bad := &Definition{Steps: []Step{{Condition: &ConditionStep{All: []Predicate{{Value: func() {}}}}}}}
	if h := Hash(bad); h != "" {
		t.Errorf("Hash(unencodable) = %q, want empty", h)
	}
}

func TestParseFor(t *testing.T) {
	body := `{"enabled": true, "steps": [` + sInvite + `]}`
	d, canonical, err := ParseFor([]byte(body), models.TriggerManualInvite)
	if err != nil {
		t.Fatalf("ParseFor(no trigger, manual_invite) = %q, want nil", err)
	}
	if d.Trigger != models.TriggerManualInvite {
		t.Errorf("ParseFor(no trigger, manual_invite).Trigger = %q, want manual_invite", d.Trigger)
	}
	want := `{"trigger":"manual_invite","enabled":true,"steps":[{"type":"invite","invite":{"channels":["email","sms"],"mediumType":"VIDEO"}}]}`
	if string(canonical) != want {
		t.Errorf("ParseFor canonical = %s, want %s", canonical, want)
	}
	sum := sha256.Sum256(canonical)
	if Hash(d) != hex.EncodeToString(sum[:]) {
		t.Errorf("Hash() = %s, want the SHA-256 of the canonical form", Hash(d))
	}
	again, canonical2, err := ParseFor(canonical, "")
	if err != nil || string(canonical2) != want || Hash(again) != Hash(d) {
		t.Errorf("ParseFor(canonical) = %s, %v, want the same canonical form", canonical2, err)
	}

	for _, tt := range []struct {
		name, body string
		t          models.FlowTrigger
		want       string
	}{
		{"other trigger", doc("partner_application", sInvite), models.TriggerManualInvite,
			`trigger: "partner_application" does not match "manual_invite", the trigger the definition is for`},
		{"no trigger anywhere", body, "", `trigger: required`},
		{"invalid for the trigger", `{"enabled":true,"steps":[` + sInvite + `]}`, models.TriggerNewJobFromATS,
			`steps[0]: invite steps are not allowed in new_job_from_ats definitions`},
		{"unknown trigger", body, "webhook", `trigger: unknown trigger "webhook"`},
	} {
		_, c, err := ParseFor([]byte(tt.body), tt.t)
		if err == nil || !strings.Contains(err.Error(), tt.want) || c != nil {
			t.Errorf("ParseFor(%s) = %q, want substring %q", tt.name, errString(err), tt.want)
		}
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("ParseFor(%s) error is %T, want *ValidationError", tt.name, err)
		}
	}
}

func TestDecode(t *testing.T) {
	// Lenient on purpose: a stored definition decodes whatever rules Validate has today.
	d, err := Decode([]byte(`{"trigger":"manual_invite","enabled":true,"extra":1,"steps":[{"type":"wait","wait":{"duration":"1ms"}}]}`))
	if err != nil || d.Trigger != models.TriggerManualInvite || len(d.Steps) != 1 || d.Steps[0].Wait.Duration != "1ms" {
		t.Errorf("Decode() = %+v, %v, want the definition as stored", d, err)
	}
	if _, err := Decode([]byte(`{"trigger":`)); err == nil || !strings.HasPrefix(err.Error(), "decode workflow definition: ") {
		t.Errorf("Decode(truncated) = %v, want a decode error", err)
	}
}
