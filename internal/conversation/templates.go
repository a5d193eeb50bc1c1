package conversation

import (
	"sort"
	"strconv"
	"strings"
)

// TemplateKey names one of the WhatsApp message templates recruitd sends outside the 24-hour
// window. Each is a utility template registered at the provider (Twilio: a Content template,
// sent by its ContentSid with ContentVariables); its id comes from the configuration.
type TemplateKey string

// The templates.
const (
	// TemplateInvite invites to an interview taken on the web page: {{1}} first name, {{2}}
	// company, {{3}} role, {{4}} link.
	TemplateInvite TemplateKey = "invite"
	// TemplateInviteText invites to an interview taken in the thread (YES starts it), same
	// variables.
	TemplateInviteText TemplateKey = "invite_text"
	// TemplateReminder reminds of an interview not started: {{1}} company, {{2}} role, {{3}}
	// deadline, {{4}} link.
	TemplateReminder TemplateKey = "reminder"
	// TemplateNudge asks a candidate who started in the thread to reply to continue, same
	// variables as the reminder.
	TemplateNudge TemplateKey = "nudge"
)

// TemplateBodies are the templates' texts as registered, with Twilio's {{n}} placeholders. Meta
// refuses a template that starts or ends with a placeholder.
var TemplateBodies = map[TemplateKey]string{
	TemplateInvite:     "Hi {{1}}, {{2}} invites you to a short interview for {{3}}. Take it whenever it suits you: {{4}} Reply STOP to opt out.",
	TemplateInviteText: "Hi {{1}}, {{2}} invites you to a short interview for {{3}}, here in WhatsApp. Reply YES to start, or take it on the web: {{4}} Reply STOP to opt out.",
	TemplateReminder:   "Reminder from {{1}}: your interview for {{2}} is open until {{3}}: {{4}} Reply STOP to opt out.",
	TemplateNudge:      "Your interview with {{1}} for {{2}} is waiting for your next answer. Reply here to continue, until {{3}}, or use {{4}} Reply STOP to opt out.",
}

// TemplateIDs are the provider's ids of the templates (Twilio ContentSids, "HX" and 32 hex
// digits).
type TemplateIDs map[TemplateKey]string

// DevTemplateIDs are the ids the development configuration and the Twilio simulator use.
var DevTemplateIDs = TemplateIDs{
	TemplateInvite:     "HX00000000000000000000000000000a01",
	TemplateInviteText: "HX00000000000000000000000000000a02",
	TemplateReminder:   "HX00000000000000000000000000000a03",
	TemplateNudge:      "HX00000000000000000000000000000a04",
}

// TemplateVars numbers values as a template's variables: {"1": values[0], ...}, each on one
// line.
func TemplateVars(values ...string) map[string]string {
	out := make(map[string]string, len(values))
	for i, v := range values {
		out[strconv.Itoa(i+1)] = oneLine(v)
	}
	return out
}

// RenderTemplate is body with vars in its placeholders: what the candidate reads, for records.
func RenderTemplate(body string, vars map[string]string) string {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pairs := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		pairs = append(pairs, "{{"+k+"}}", vars[k])
	}
	return strings.NewReplacer(pairs...).Replace(body)
}
