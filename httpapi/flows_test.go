package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/httpapi"
)

// TestWorkflowDefinitionsEndpoints: GET and PUT /v1/api/workflows/{trigger} read and save a
// company's flow definition for a trigger: 404 before one is saved, a 400 naming the invalid
// step, a new version only for changed content, another company's key reaching nothing.
func TestWorkflowDefinitionsEndpoints(t *testing.T) {
	f := newFixture(t)
	path := "/v1/api/workflows/manual_invite"
	if r := f.send(t, http.MethodGet, path, f.acmeKey, nil); r.StatusCode != 404 {
		t.Errorf("GET unconfigured = %d, want 404", r.StatusCode)
	}
	bad := `{"trigger":"manual_invite","enabled":true,"steps":[{"type":"invite","invite":{"channels":["email","fax"],"mediumType":"VIDEO"}}]}`
	resp := f.send(t, http.MethodPut, path, f.acmeKey, bad)
	body := decode[httpapi.ErrorBody](t, resp)
	if resp.StatusCode != 400 || body.Code != "INVALID_WORKFLOW" || !strings.Contains(body.Message, "steps[0].invite.channels[1]") {
		t.Errorf("PUT invalid = %d %+v, want 400 INVALID_WORKFLOW pointing at steps[0].invite.channels[1]", resp.StatusCode, body)
	}
	good := `{"trigger":"manual_invite","enabled":true,"steps":[{"type":"invite","invite":{"channels":["email"],"mediumType":"VIDEO"}}]}`
	v1 := decode[httpapi.FlowDefinitionResponse](t, f.send(t, http.MethodPut, path, f.acmeKey, good))
	if v1.Version != 1 || !v1.Enabled {
		t.Errorf("first PUT = %+v", v1)
	}
	same := decode[httpapi.FlowDefinitionResponse](t, f.send(t, http.MethodPut, path, f.acmeKey, good))
	if same.Version != 1 {
		t.Errorf("identical PUT made version %d, want 1 kept", same.Version)
	}
	changed := strings.Replace(good, `["email"]`, `["email","sms"]`, 1)
	v2 := decode[httpapi.FlowDefinitionResponse](t, f.send(t, http.MethodPut, path, f.acmeKey, changed))
	if v2.Version != 2 {
		t.Errorf("changed PUT = version %d, want 2", v2.Version)
	}
	got := decode[httpapi.FlowDefinitionResponse](t, f.send(t, http.MethodGet, path, f.acmeKey, nil))
	if got.Version != 2 || !strings.Contains(string(got.Definition), "sms") {
		t.Errorf("GET = %+v", got)
	}
	if r := f.send(t, http.MethodGet, path, f.otherKy, nil); r.StatusCode != 404 {
		t.Errorf("globex reads acme's workflow: %d", r.StatusCode)
	}
	mismatch := strings.Replace(good, `"trigger":"manual_invite"`, `"trigger":"partner_application"`, 1)
	if r := f.send(t, http.MethodPut, path, f.acmeKey, mismatch); r.StatusCode != 400 {
		t.Errorf("PUT with another trigger in the body = %d, want 400", r.StatusCode)
	}
	if r := f.send(t, http.MethodGet, "/v1/api/workflows/nope", f.acmeKey, nil); r.StatusCode != 404 {
		t.Errorf("unknown trigger = %d", r.StatusCode)
	}
}
