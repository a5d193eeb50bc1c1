package conversation

import (
	"strings"
	"testing"
)

// TestTemplates: every template has a body and a development id of the ContentSid shape; no body
// starts or ends with a placeholder (Meta refuses those); rendering fills every placeholder.
func TestTemplates(t *testing.T) {
	for _, key := range []TemplateKey{TemplateInvite, TemplateInviteText, TemplateReminder, TemplateNudge} {
		body, id := TemplateBodies[key], DevTemplateIDs[key]
		if body == "" || len(id) != 34 || !strings.HasPrefix(id, "HX") {
			t.Errorf("%s: body %q, id %q", key, body, id)
		}
		if strings.HasPrefix(body, "{{") || strings.HasSuffix(body, "}}") {
			t.Errorf("%s starts or ends with a placeholder: %q", key, body)
		}
		got := RenderTemplate(body, TemplateVars("Ada", "Acme", "Nurse\nICU", "https://x.test/i/t"))
		if strings.Contains(got, "{{") || strings.Contains(got, "\n") {
			t.Errorf("%s rendered %q", key, got)
		}
	}
}
