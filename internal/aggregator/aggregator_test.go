package aggregator_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/aggsim"
	"github.com/recruitd/recruitd/internal/webhooksig"
	"github.com/recruitd/recruitd/models"
)

func TestCard(t *testing.T) {
	tests := []struct {
		remote, setup string
		want          models.IntegrationState
	}{
		{"ACTIVE", "INCOMPLETE", models.IntegrationSyncing},
		{"ACTIVE", "FINAL_SYNC_PENDING", models.IntegrationSyncing},
		{"ACTIVE", "COMPLETED", models.IntegrationConnected},
		{"INVALID", "COMPLETED", models.IntegrationNeedsAttention},
		{"INACTIVE", "COMPLETED", models.IntegrationNeedsAttention},
		{"COMPLETE", "", models.IntegrationConnected},           // Merge linked account
		{"INCOMPLETE", "", models.IntegrationSyncing},           // Merge linked account
		{"RELINK_NEEDED", "", models.IntegrationNeedsAttention}, // Merge linked account
	}
	for _, tt := range tests {
		got, reason := aggregator.Card(tt.remote, tt.setup)
		if got != tt.want || (got == models.IntegrationNeedsAttention) != (reason != "") {
			t.Errorf("Card(%q, %q) = %q, %q, want %q with a reason only for needs_attention", tt.remote, tt.setup, got, reason, tt.want)
		}
	}
}

func TestParseEvent(t *testing.T) {
	tests := []struct {
		body    string
		want    aggregator.Event
		wantErr bool
	}{
		{`{"id":"e1","type":"data-changed","data":{"integration_id":"sim:1","changed_models":[{"name":"ats_jobs"}]}}`,
			aggregator.Event{ID: "e1", Type: "data-changed", IntegrationID: "sim:1", ChangedModels: []string{"ats_jobs"}}, false},
		{`{"id":"e2","type":"integration-created","data":{"id":"sim:2","end_user":{"origin_id":"c1"}}}`,
			aggregator.Event{ID: "e2", Type: "integration-created", IntegrationID: "sim:2", OriginID: "c1"}, false},
		{`{"id":"e3","type":"integration-state-changed","data":{"integration_id":"sim:3","state":"INVALID","setup_status":"COMPLETED"}}`,
			aggregator.Event{ID: "e3", Type: "integration-state-changed", IntegrationID: "sim:3", State: "INVALID", SetupStatus: "COMPLETED"}, false},
		{`{"type":"data-changed","data":{"integration_id":"x"}}`, aggregator.Event{}, true},
		{`{"id":"e","type":"data-changed","data":{}}`, aggregator.Event{}, true},
		{`[]`, aggregator.Event{}, true},
		{`{"id":"e","type":"t","data":{"integration_id":"x"}} {}`, aggregator.Event{}, true},
	}
	for _, tt := range tests {
		got, err := aggregator.ParseEvent([]byte(tt.body))
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseEvent(%q) error = %v, want error %v", tt.body, err, tt.wantErr)
			continue
		}
		if err == nil && (got.ID != tt.want.ID || got.Type != tt.want.Type || got.IntegrationID != tt.want.IntegrationID ||
			got.OriginID != tt.want.OriginID || got.State != tt.want.State || len(got.ChangedModels) != len(tt.want.ChangedModels)) {
			t.Errorf("ParseEvent(%q) = %+v, want %+v", tt.body, got, tt.want)
		}
	}
}

func TestVerifySignature(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	body := []byte(`{"id":"e1"}`)
	now := time.Unix(1_800_000_000, 0)
	header := func(id string, ts time.Time, sig string) http.Header {
		return http.Header{"Webhook-Id": {id}, "Webhook-Timestamp": {strconv.FormatInt(ts.Unix(), 10)}, "Webhook-Signature": {sig}}
	}
	good := webhooksig.Sign(secret, "e1", now, body)
	tests := []struct {
		name string
		h    http.Header
		body []byte
		want error
	}{
		{"valid", header("e1", now, good), body, nil},
		{"valid among others", header("e1", now, "v1,AAAA "+good), body, nil},
		{"other body", header("e1", now, good), []byte(`{"id":"e2"}`), aggregator.ErrBadSignature},
		{"other id", header("e2", now, good), body, aggregator.ErrBadSignature},
		{"other secret", header("e1", now, webhooksig.Sign("whsec_b3RoZXI=", "e1", now, body)), body, aggregator.ErrBadSignature},
		{"too old", header("e1", now.Add(-6*time.Minute), webhooksig.Sign(secret, "e1", now.Add(-6*time.Minute), body)), body, aggregator.ErrTimestamp},
		{"missing", http.Header{}, body, aggregator.ErrNoSignature},
	}
	for _, tt := range tests {
		_, err := aggregator.VerifySignature(tt.h, tt.body, secret, now)
		if !errors.Is(err, tt.want) && !(err == nil && tt.want == nil) {
			t.Errorf("VerifySignature(%s) = %v, want %v", tt.name, err, tt.want)
		}
	}
}

// TestKomboAgainstSimulator checks the client against the simulator's wire shapes: connect link,
// SETUP_SYNC_PENDING before the first sync, cursor paging with updated_after, closed and deleted
// jobs, refused credentials and injected 5xx.
func TestKomboAgainstSimulator(t *testing.T) {
	ctx := context.Background()
	sim := aggsim.New(aggsim.Options{APIKey: "k"})
	defer sim.Close()
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	c, err := aggregator.NewKombo(map[string]string{aggregator.FieldBaseURL: srv.URL, aggregator.FieldAPIKey: "k"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	link, err := c.CreateLink(ctx, aggregator.LinkRequest{OriginID: "company-1", OrganizationName: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(link, "text/plain", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("authorise = %v, %v", resp, err)
	}
	resp.Body.Close()
	id := sim.IntegrationOf("company-1")
	if _, err := c.ListJobs(ctx, id, aggregator.JobQuery{}); !errors.Is(err, aggregator.ErrSetupPending) {
		t.Fatalf("ListJobs before the first sync = %v, want ErrSetupPending", err)
	}
	if err := sim.FinishSync(id); err != nil {
		t.Fatal(err)
	}
	if err := sim.AddJobs(id, "J", 7); err != nil {
		t.Fatal(err)
	}
	all := func(q aggregator.JobQuery) []aggregator.Job {
		var out []aggregator.Job
		for {
			p, err := c.ListJobs(ctx, id, q)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p.Jobs...)
			if p.Next == "" {
				return out
			}
			q.Cursor = p.Next
		}
	}
	jobs := all(aggregator.JobQuery{PageSize: 3})
	if len(jobs) != 7 || jobs[0].ExternalID() != "J000001" || !jobs[0].Open() {
		t.Fatalf("ListJobs pages = %d jobs, first %+v; want 7, J000001 open", len(jobs), jobs[0])
	}
	mark := jobs[6].ChangedAt
	if err := sim.CloseJob(id, "J000002"); err != nil {
		t.Fatal(err)
	}
	if err := sim.DeleteJob(id, "J000003"); err != nil {
		t.Fatal(err)
	}
	changed := all(aggregator.JobQuery{UpdatedAfter: mark, PageSize: 3})
	if len(changed) != 2 || changed[0].Open() || changed[1].RemoteDeletedAt == nil || changed[1].Open() {
		t.Fatalf("ListJobs(updated_after) = %+v, want J000002 closed and J000003 deleted", changed)
	}
	if err := sim.FailListing(id, 1, 503, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListJobs(ctx, id, aggregator.JobQuery{}); !errors.Is(err, aggregator.ErrTransient) {
		t.Fatalf("ListJobs with a 503 = %v, want ErrTransient", err)
	}
	if err := sim.FailAuth(id); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListJobs(ctx, id, aggregator.JobQuery{}); !errors.Is(err, aggregator.ErrUnauthorized) {
		t.Fatalf("ListJobs after failed authentication = %v, want ErrUnauthorized", err)
	}
	bad, _ := aggregator.NewKombo(map[string]string{aggregator.FieldBaseURL: srv.URL, aggregator.FieldAPIKey: "wrong"}, nil)
	if _, err := bad.CreateLink(ctx, aggregator.LinkRequest{OriginID: "x"}); !errors.Is(err, aggregator.ErrUnauthorized) {
		t.Fatalf("CreateLink with a wrong key = %v, want ErrUnauthorized", err)
	}
}

// FuzzParseEvent: any body either parses into an event with its ids set, or is refused with
// ErrBadEvent; it never panics.
func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"id":"e1","type":"data-changed","data":{"integration_id":"sim:1","changed_models":[{"name":"ats_jobs"}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := aggregator.ParseEvent(body)
		if err != nil {
			if !errors.Is(err, aggregator.ErrBadEvent) {
				t.Fatalf("ParseEvent(%q) error %v is not ErrBadEvent", body, err)
			}
			return
		}
		if ev.ID == "" || ev.Type == "" || ev.IntegrationID == "" {
			t.Fatalf("ParseEvent(%q) = %+v, want ids set", body, ev)
		}
	})
}
