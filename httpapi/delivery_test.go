package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/twiliosim"
	"github.com/recruitd/recruitd/models"
)

// TestTextDeliveryReports: Twilio's status callbacks of the texts recruitd sends are recorded on
// the messages, forward only. A plain run ends delivered; callbacks duplicated and in reverse
// order still end delivered; an undelivered text ends failed with the provider's error code. A
// callback with a wrong signature is refused, and one of a message recruitd never sent is
// acknowledged and changes nothing.
func TestTextDeliveryReports(t *testing.T) {
	f, sim := smsFixture(t)
	invitation := func(session uuid.UUID) models.Message {
		t.Helper()
		var m models.Message
		await(t, 30*time.Second, "the invitation's final delivery status", func() bool {
			m = models.Message{}
			f.st.DB().Where("company_id = ? AND session_id = ? AND direction = 'outbound'", f.acme.ID, session).Order("created_at").Take(&m)
			return m.ProviderStatus != nil && (*m.ProviderStatus == "delivered" || *m.ProviderStatus == "undelivered")
		})
		time.Sleep(300 * time.Millisecond) // late callbacks (out of order, duplicates) arrive meanwhile
		f.st.DB().Where("id = ?", m.ID).Take(&m)
		return m
	}

	if m := invitation(f.inviteByText(t, "dl-1", "+14155550161")); m.Status != models.MessageStatusDelivered || *m.ProviderStatus != "delivered" || m.StatusAt == nil {
		t.Errorf("plain run: status %s, provider status %v; want delivered", m.Status, deref(m.ProviderStatus))
	}

	if err := sim.SetFaults(twiliosim.Faults{Duplicate: true, OutOfOrder: true}); err != nil {
		t.Fatal(err)
	}
	m := invitation(f.inviteByText(t, "dl-2", "+14155550162"))
	if m.Status != models.MessageStatusDelivered || *m.ProviderStatus != "delivered" {
		t.Errorf("duplicated, out of order: status %s, provider status %s; want delivered", m.Status, deref(m.ProviderStatus))
	}
	var callbacks int
	for _, d := range sim.Deliveries() {
		if d.Status != "" && d.HTTPStatus != http.StatusNoContent {
			t.Errorf("status callback %s answered %d %s, want 204", d.Status, d.HTTPStatus, d.Error)
		}
		if d.Status != "" {
			callbacks++
		}
	}
	if callbacks < 9 {
		t.Errorf("%d status callbacks posted, want the three of each message (twice for the second)", callbacks)
	}

	if err := sim.SetFaults(twiliosim.Faults{Fail: "undelivered"}); err != nil {
		t.Fatal(err)
	}
	m = invitation(f.inviteByText(t, "dl-3", "+14155550163"))
	if m.Status != models.MessageStatusFailed || *m.ProviderStatus != "undelivered" || !strings.Contains(deref(m.Error), "30003") {
		t.Errorf("undelivered: status %s, provider status %s, error %q; want failed with 30003", m.Status, deref(m.ProviderStatus), deref(m.Error))
	}

	form := url.Values{"MessageSid": {"SM" + strings.Repeat("0", 32)}, "AccountSid": {simSID}, "MessageStatus": {"delivered"}}
	if resp := f.postTwilio(t, "/webhook/twilio/status", form, "forged"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("forged status callback = %d, want 401", resp.StatusCode)
	}
	if resp := f.postTwilio(t, "/webhook/twilio/status", form, ""); resp.StatusCode != http.StatusNoContent {
		t.Errorf("status callback of an unknown message = %d, want 204", resp.StatusCode)
	}
}

// postTwilio posts form to path as Twilio would, signed with the simulator's auth token, or with
// signature when it is not "".
func (f *fixture) postTwilio(t *testing.T, path string, form url.Values, signature string) *http.Response {
	t.Helper()
	if signature == "" {
		signature = channels.TwilioSignature(simToken, f.srv.URL+path, form)
	}
	req, err := http.NewRequest(http.MethodPost, f.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Twilio-Signature", signature)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}
