package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/models"
)

// TestInvitationWithoutPhoneLogsNoError: an HR-suite application whose candidate has an e-mail
// address but no phone, under a definition that invites by SMS then e-mail, falls back to
// e-mail. The missing phone is not a failure of the service, so the worker (its activities and
// the Temporal SDK) logs no ERROR.
func TestInvitationWithoutPhoneLogsNoError(t *testing.T) {
	var log syncBuffer
	f := newFixture(t, withWorkerLog(&log))
	if err := f.st.DB().Model(&models.Company{}).Where("id = ?", f.acme.ID).Update("hr_suite_account", true).Error; err != nil {
		t.Fatal(err)
	}
	f.job(t, f.acme, "REQ-1")
	resp := f.send(t, http.MethodPut, "/v1/api/workflows/new_application_webhook", f.acmeKey, map[string]any{
		"enabled": true, "steps": []any{map[string]any{"type": "invite", "invite": map[string]any{"channels": []string{"sms", "email"}, "mediumType": "VIDEO"}}},
	})
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("PUT new_application_webhook = %d %s", resp.StatusCode, b)
	}
	if status, _, raw := f.deliver(t, f.acmeKey, []map[string]any{row("APP-1", "C-1", "REQ-1", "lin@example.com", "Personal Email")}); status != http.StatusOK {
		t.Fatalf("HR-suite delivery = %d %s", status, raw)
	}
	f.awaitInvited(t, f.acme, "APP-1")
	if !strings.Contains(log.String(), "channel=email") || !strings.Contains(log.String(), "invitation sent") {
		t.Fatalf("the worker's log lacks the e-mail invitation:\n%s", log.String())
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("the worker logged an ERROR for a candidate without a phone:\n%s", log.String())
	}
}
