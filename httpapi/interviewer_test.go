package httpapi_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/recruitd/recruitd/httpapi"
)

// TestInterviewerIDsArePerCompany: company demo's job x-coll1 and company demo-x's job coll1
// share the interviewer id demo-x-coll1. Each tenant creates its job, reads its own under that
// id and invites into its own; neither learns of the other's.
func TestInterviewerIDsArePerCompany(t *testing.T) {
	f := newFixture(t)
	demo, demoKey := f.company(t, "demo", "Demo")
	demoX, demoXKey := f.company(t, "demo-x", "Demo X")
	desc := "We are hiring a Registered Nurse for our ICU. Requirements: RN license."
	for _, c := range []struct{ key, ext string }{{demoKey, "x-coll1"}, {demoXKey, "coll1"}} {
		job := f.createJob(t, c.key, map[string]any{"externalJobId": c.ext, "jobDescription": desc, "active": true})
		if job.Payload != "demo-x-coll1" {
			t.Fatalf("createJob(%s) payload = %q, want demo-x-coll1", c.ext, job.Payload)
		}
		f.awaitGenerated(t, c.key, "demo-x-coll1")
	}
	for _, c := range []struct{ key, ext, company string }{{demoKey, "x-coll1", demo.ID.String()}, {demoXKey, "coll1", demoX.ID.String()}} {
		resp := f.get(t, "/v1/api/interviewers/demo-x-coll1", http.Header{"X-Api-Key": {c.key}})
		got := decode[httpapi.InterviewerResponse](t, resp)
		if resp.StatusCode != http.StatusOK || got.Interviewer.ExternalJobID != c.ext {
			t.Errorf("GET demo-x-coll1 as %s = %d %+v, want its own job %s", c.ext, resp.StatusCode, got.Interviewer, c.ext)
		}
		resp = f.send(t, http.MethodPost, "/v1/api/inviteCandidate", c.key, map[string]any{
			"interviewerId": "demo-x-coll1", "candidate": map[string]any{"firstName": "Ana", "email": "ana-" + c.ext + "@example.com"}})
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("inviteCandidate demo-x-coll1 as %s = %d %s", c.ext, resp.StatusCode, b)
		}
		var n int64
		f.st.DB().Raw(`SELECT count(*) FROM interview_sessions s JOIN jobs j ON j.company_id = s.company_id AND j.id = s.job_id
			WHERE s.company_id = ? AND j.external_id = ?`, c.company, c.ext).Scan(&n)
		if n != 1 {
			t.Errorf("sessions of %s's own job = %d, want the one invitation", c.ext, n)
		}
	}
	// A second createJob of the same id in one company is still a duplicate.
	resp := f.send(t, http.MethodPost, "/v1/api/createJob", demoXKey, map[string]any{"externalJobId": "coll1", "jobDescription": desc})
	if body := decode[map[string]any](t, resp); resp.StatusCode != http.StatusBadRequest || body["code"] != "DUPLICATE_EXTERNAL_JOB_ID" {
		t.Errorf("createJob coll1 again in demo-x = %d %v, want DUPLICATE_EXTERNAL_JOB_ID", resp.StatusCode, body)
	}
}
