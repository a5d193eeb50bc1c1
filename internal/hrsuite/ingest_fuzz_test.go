package hrsuite

import (
	"bytes"
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/hrsuitereport"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// FuzzIngestHRSuite: whatever a delivery body holds, what the row rules accept Postgres stores:
// storing the delivery, recording invalid rows and applying its applications (applyChunk) never
// fail, and every application gets an outcome.
func FuzzIngestHRSuite(f *testing.F) {
	for _, seed := range []string{
		`[]`,
		`[{"Job Posting Application Id":"A-1","Candidate Id":"C-1","Job Req Id":"REQ-1","Contact Method":"(201) 555-0123","Contact Type Description":"Mobile","Candidate First Name":"Ada"}]`,
		`[{"Job Posting Application Id":"A-\u0000","Candidate Id":"C-\u0000","Job Req Id":"REQ-1","Contact Method":"a@b.co","Contact Type Description":"Personal Email","Candidate First Name":"\u0000"}]`,
		"[{\"Job Posting Application Id\":\"A-\xff\",\"Candidate Id\":\"C\xfe\",\"Job Req Id\":\"REQ-1\",\"Contact Method\":\"+1 201 555 0123\",\"Contact Type Description\":\"Home\",\"Candidate Last Name\":\"\xc3\x28\"}]",
		`[{"Job Posting Application Id":12345678901234567890,"Candidate Id":1e3,"Job Req Id":"REQ-1","Contact Method":2015550123,"Contact Type Description":"Mobile"}]`,
		`[{"Job Posting Application Id":"A-2","Candidate Id":"C-2","Job Req Id":"REQ-1","Contact Method":"x@y.z","Contact Type Description":"Personal Email","Do Not Hire Status":"True"},{"Job Posting Application Id":"A-2","Candidate Id":"C-3","Job Req Id":"REQ-2","Contact Method":"(201) 555-0124","Contact Type Description":"Mobile"}]`,
		`[1, "x", null, {"Job Posting Application Id":"A-3"}]`,
		`[{"Job Posting Application Id":"A-4","Candidate Id":"C-4","Job Req Id":"REQ-1","Contact Method":"(201) 555-0125","Contact Type Description":"Mobile","Do Not Hire Status":"True","Do Not Hire Status":"False"}]`,
	} {
		f.Add([]byte(seed))
	}
	st, err := store.FromSQL(pgtest.New(f).SQL, nil)
	if err != nil {
		f.Fatal(err)
	}
	co := &models.Company{Slug: "fuzz", Name: "fuzz", DefaultJobStatus: models.JobStatusActive, HRSuiteAccount: true}
	if err := st.CreateCompany(f.Context(), co); err != nil {
		f.Fatal(err)
	}
	for _, ext := range []string{"REQ-1", "REQ-2"} {
		j := &models.Job{CompanyID: co.ID, ExternalID: ext, InterviewerID: "fuzz-" + ext, Title: ext, ExternalTitle: ext, Description: "d", Status: models.JobStatusActive, IsOpen: true}
		if err := st.DB().Create(j).Error; err != nil {
			f.Fatal(err)
		}
		// Imported from the HR suite: the only jobs a Job Req Id matches.
		if err := st.DB().Exec(`INSERT INTO aggregator_jobs (company_id, remote_id, ats_job_id, job_id) VALUES (?, ?, ?, ?)`, co.ID, "r-"+ext, ext, j.ID).Error; err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		n, err := hrsuitereport.Count(body)
		if err != nil {
			return
		}
		batch, err := hrsuitereport.Parse(body)
		if err != nil {
			t.Fatalf("Count accepted the body (%d rows), Parse refused it: %v", n, err)
		}
		id := uuid.New()
		rec, err := st.StoreHRSuiteDelivery(t.Context(), &models.HRSuiteDelivery{ID: id, CompanyID: co.ID, Body: body, RowCount: n}, 1<<40,
			models.WorkflowStart{ID: uuid.New(), CompanyID: co.ID, Kind: "hrsuite-delivery", WorkflowID: "fuzz/" + id.String(), CompanySlug: co.Slug, Input: []byte(`{}`)})
		if err != nil {
			t.Fatalf("store delivery: %v", err)
		}
		// Stored compressed, read back as received (a repeat refers to its first delivery).
		if rec.Delivery.DuplicateOf == nil {
			back, err := st.HRSuiteDelivery(t.Context(), co.ID, rec.Delivery.ID)
			if err != nil {
				t.Fatalf("read the stored delivery: %v", err)
			}
			if !bytes.Equal(back.Body, body) {
				t.Fatalf("stored body reads back as %d bytes, want the %d received", len(back.Body), len(body))
			}
		}
		var invalid []store.HRSuiteRowOutcome
		for _, r := range batch.Invalid {
			invalid = append(invalid, store.HRSuiteRowOutcome{Index: r.Index, Outcome: hrsuitereport.Invalid(r.Reason)})
		}
		if err := st.RecordHRSuiteRows(t.Context(), co.ID, rec.Delivery.ID, invalid); err != nil {
			t.Fatalf("record invalid rows: %v", err)
		}
		tx, err := st.Begin(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		out, err := applyChunk(tx, chunk{
			Company: co, DeliveryID: rec.Delivery.ID, TriggerEnabled: true, Applications: batch.Applications,
		})
		if err != nil {
			t.Fatalf("ingest: %v", err)
		}
		var starts []models.WorkflowStart
		for _, a := range out.Accepted {
			starts = append(starts, models.WorkflowStart{ID: uuid.New(), CompanyID: co.ID, Kind: "new-application", WorkflowID: "fuzz-app/" + a.ApplicationID.String(), CompanySlug: co.Slug, Input: []byte(`{}`)})
		}
		if _, err := tx.InsertStarts(starts); err != nil {
			t.Fatalf("record the accepted applications' starts: %v", err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatalf("commit the ingest: %v", err)
		}
		for _, a := range batch.Applications {
			if out.Outcomes[a.ExternalID] == "" {
				t.Errorf("application %q has no outcome", a.ExternalID)
			}
		}
	})
}
