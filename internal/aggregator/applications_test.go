package aggregator_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/aggsim"
)

// TestListApplicationsAgainstSimulator checks the application listing against the simulator's
// wire shapes: the candidate expanded with its contacts, cursor paging, updated_after catching
// an application's own change and its candidate's, deleted applications listed with
// remote_deleted_at, and SETUP_SYNC_PENDING before the first sync.
func TestListApplicationsAgainstSimulator(t *testing.T) {
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
	if _, err := c.ListApplications(ctx, id, aggregator.ApplicationQuery{}); !errors.Is(err, aggregator.ErrSetupPending) {
		t.Fatalf("ListApplications before the first sync = %v, want ErrSetupPending", err)
	}
	if err := sim.FinishSync(id); err != nil {
		t.Fatal(err)
	}
	if err := sim.AddJobs(id, "J", 2); err != nil {
		t.Fatal(err)
	}
	if err := sim.AddApplications(id, "A", 7, "J000001", "J000002"); err != nil {
		t.Fatal(err)
	}
	all := func(q aggregator.ApplicationQuery) []aggregator.Application {
		var out []aggregator.Application
		for {
			p, err := c.ListApplications(ctx, id, q)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p.Applications...)
			if p.Next == "" {
				return out
			}
			q.Cursor = p.Next
		}
	}
	apps := all(aggregator.ApplicationQuery{PageSize: 3})
	if len(apps) != 7 {
		t.Fatalf("ListApplications pages = %d applications, want 7", len(apps))
	}
	a := apps[0]
	if a.ExternalID() != "A000001" || a.ID != "kmb_app_A000001" || a.JobID != "kmb_J000001" || a.Outcome != "PENDING" || a.Stage != "Applied" ||
		a.Candidate.ExternalID() != "AC000001" || a.Candidate.LastName != "Tester A000001" ||
		len(a.Candidate.Emails) != 1 || a.Candidate.Emails[0] != "a.000001@example.com" ||
		len(a.Candidate.Phones) != 1 || a.Candidate.Phones[0].Type != "MOBILE" || a.RemoteDeletedAt != nil {
		t.Fatalf("first application = %+v", a)
	}
	if apps[1].JobID != "kmb_J000002" {
		t.Errorf("second application's job = %s, want kmb_J000002", apps[1].JobID)
	}
	mark := apps[6].ChangedAt
	if err := sim.ChangeApplication(id, "A000002", "Interview", "DECLINED"); err != nil {
		t.Fatal(err)
	}
	if err := sim.DeleteApplication(id, "A000003"); err != nil {
		t.Fatal(err)
	}
	if err := sim.PutCandidates(id, aggsim.Candidate{RemoteID: "AC000004", FirstName: "Alexa", LastName: "Renamed", Email: "renamed@example.com"}); err != nil {
		t.Fatal(err)
	}
	changed := all(aggregator.ApplicationQuery{UpdatedAfter: mark, PageSize: 2})
	if len(changed) != 3 {
		t.Fatalf("ListApplications(updated_after) = %d applications, want 3: %+v", len(changed), changed)
	}
	if changed[0].ExternalID() != "A000002" || changed[0].Outcome != "DECLINED" || changed[0].Stage != "Interview" {
		t.Errorf("changed application = %+v, want A000002 declined at Interview", changed[0])
	}
	if changed[1].ExternalID() != "A000003" || changed[1].RemoteDeletedAt == nil {
		t.Errorf("deleted application = %+v, want A000003 with remote_deleted_at", changed[1])
	}
	if changed[2].ExternalID() != "A000004" || changed[2].Candidate.LastName != "Renamed" || changed[2].ChangedAt.After(mark) {
		t.Errorf("application of the changed candidate = %+v, want A000004 with its own older changed_at", changed[2])
	}
	if inc, full := sim.ListingQueries(id); inc != 1 || full != 1 {
		t.Errorf("listing queries = %d incremental, %d full; want 1 and 1", inc, full)
	}
	if err := sim.FailListing(id, 1, 503, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListApplications(ctx, id, aggregator.ApplicationQuery{}); !errors.Is(err, aggregator.ErrTransient) {
		t.Fatalf("ListApplications with a 503 = %v, want ErrTransient", err)
	}
}

func TestParseApplicationPage(t *testing.T) {
	ok := `{"next":null,"results":[{"id":"k1","remote_id":"32","outcome":"hired","job_id":"kj","candidate_id":"kc",` +
		`"changed_at":"2024-01-02T03:04:05Z","remote_deleted_at":null,"current_stage":{"name":"Offer"},` +
		`"candidate":{"id":"kc","remote_id":"7","first_name":"John","last_name":"Doe","email_addresses":[{"email_address":null},{"email_address":" john@example.com "}],` +
		`"phone_numbers":[{"phone_number":"+1-541-754-3010","type":"home"}]}}]}`
	p, err := aggregator.ParseApplicationPage([]byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	a := p.Applications[0]
	if p.Next != "" || a.ExternalID() != "32" || a.Outcome != "HIRED" || a.Stage != "Offer" || a.JobID != "kj" || a.Candidate.ExternalID() != "7" ||
		len(a.Candidate.Emails) != 1 || a.Candidate.Emails[0] != "john@example.com" || a.Candidate.Phones[0] != (aggregator.Phone{Number: "+1-541-754-3010", Type: "HOME"}) {
		t.Errorf("parsed %+v", a)
	}
	for name, body := range map[string]string{
		"not JSON":        `{`,
		"no id":           `{"results":[{"job_id":"j","candidate_id":"c"}]}`,
		"no job":          `{"results":[{"id":"a","candidate_id":"c"}]}`,
		"no candidate":    `{"results":[{"id":"a","job_id":"j"}]}`,
		"long id":         `{"results":[{"id":"` + strings.Repeat("x", 201) + `","job_id":"j","candidate_id":"c"}]}`,
		"NUL in a name":   `{"results":[{"id":"a","job_id":"j","candidate":{"id":"c","first_name":"a\u0000b"}}]}`,
		"results object":  `{"results":{}}`,
		"long first name": `{"results":[{"id":"a","job_id":"j","candidate":{"id":"c","first_name":"` + strings.Repeat("n", 501) + `"}}]}`,
	} {
		if _, err := aggregator.ParseApplicationPage([]byte(body)); !errors.Is(err, aggregator.ErrPermanent) {
			t.Errorf("%s: ParseApplicationPage = %v, want ErrPermanent", name, err)
		}
	}
}

// FuzzParseApplicationPage: any answer either parses into applications whose ids, job and
// candidate are set and bounded, or is refused with ErrPermanent; it never panics.
func FuzzParseApplicationPage(f *testing.F) {
	f.Add([]byte(`{"next":"c1","results":[{"id":"k1","remote_id":"32","job_id":"kj","candidate":{"id":"kc","first_name":"A"}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := aggregator.ParseApplicationPage(body)
		if err != nil {
			if !errors.Is(err, aggregator.ErrPermanent) {
				t.Fatalf("ParseApplicationPage(%q) error %v is not ErrPermanent", body, err)
			}
			return
		}
		for _, a := range p.Applications {
			if a.ID == "" || a.JobID == "" || a.Candidate.ID == "" || len(a.ExternalID()) > 200 || len(a.Candidate.Emails) > 10 || len(a.Candidate.Phones) > 10 {
				t.Fatalf("ParseApplicationPage(%q) = %+v", body, a)
			}
		}
	})
}
