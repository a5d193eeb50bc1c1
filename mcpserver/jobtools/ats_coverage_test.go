package jobtools_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
	"github.com/recruitd/recruitd/models"
)

// TestHRSuiteImportKeptApartFromATSCoverage: jobs an HR suite reports through the aggregator
// change nothing in atsCoverage (the ATS-A weekly report only, atsType always the company's ATS
// type), and are reported in hrSuiteImport of their own.
func TestHRSuiteImportKeptApartFromATSCoverage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := f.h.DB.SQL
	initechJob := &models.Job{CompanyID: f.initech.ID, ExternalID: "I-1", InterviewerID: "initech-I-1", Title: "Initech Clerk",
		ExternalTitle: "Initech Clerk", Status: models.JobStatusActive, IsOpen: true, CreatedAt: day("2026-05-02"), UpdatedAt: day("2026-05-02")}
	if err := f.h.Store.DB().Create(initechJob).Error; err != nil {
		t.Fatal(err)
	}
	agg := func(company, job uuid.UUID, remote, status, created string) {
		t.Helper()
		if _, err := db.ExecContext(t.Context(), `INSERT INTO aggregator_jobs (company_id, remote_id, ats_job_id, job_id, remote_status, remote_created_at)
			VALUES ($1, $2, $2, $3, $4, $5)`, company, remote, job, status, day(created)); err != nil {
			t.Fatal(err)
		}
	}
	// Acme: J1 (interviewed) and J6 open, in ISO weeks of 2026-04-27 and 2026-05-04; J2 closed.
	agg(f.acme.ID, f.j[1], "kmb_1", "OPEN", "2026-05-01")
	agg(f.acme.ID, f.j[6], "kmb_2", "OPEN", "2026-05-10")
	agg(f.acme.ID, f.j[2], "kmb_3", "CLOSED", "2026-05-10")
	agg(f.globex.ID, f.gJob, "kmb_g", "OPEN", "2026-05-03")
	agg(f.initech.ID, initechJob.ID, "kmb_i", "OPEN", "2026-05-02")

	m, r := f.decode(t, "getJobsSummary", nil)
	if jsonPath(t, m, "atsCoverage.supported") != true || jsonPath(t, m, "atsCoverage.atsType") != "ATS-A" {
		t.Errorf("Acme atsCoverage = %v, want the ATS-A report", m["atsCoverage"])
	}
	expect(t, m, map[string]float64{"atsCoverage.atsJobsCreated": 8, "atsCoverage.serviceJobsImported": 4,
		"atsCoverage.serviceJobsWithInterviews": 3, "atsCoverage.weeksCovered": 4,
		"hrSuiteImport.jobsCreated": 2, "hrSuiteImport.serviceJobsImported": 2, "hrSuiteImport.serviceJobsWithInterviews": 1,
		"hrSuiteImport.importPercent": 100, "hrSuiteImport.interviewPercent": 50, "hrSuiteImport.weeksCovered": 2})
	contains(t, r.Text, "ATS jobs created:          8", "HR-suite import", "Open HR-suite jobs created: 2")

	nulls := []string{"atsCoverage.atsJobsCreated", "atsCoverage.serviceJobsImported", "atsCoverage.serviceJobsWithInterviews",
		"atsCoverage.coveragePercent", "atsCoverage.interviewPercent", "atsCoverage.weeksCovered"}
	for _, tc := range []struct {
		caller  *models.Company
		atsType any
	}{{f.globex, "ATS-B"}, {f.initech, nil}} {
		res := f.h.OK(t, tooltest.KeyCaller(tc.caller), "getJobsSummary", nil)
		var g map[string]any
		res.Decode(t, &g)
		if jsonPath(t, g, "atsCoverage.supported") != false || jsonPath(t, g, "atsCoverage.atsType") != tc.atsType {
			t.Errorf("%s atsCoverage = %v, want unsupported with atsType %v", tc.caller.Slug, g["atsCoverage"], tc.atsType)
		}
		isNull(t, g, nulls...)
		expect(t, g, map[string]float64{"hrSuiteImport.jobsCreated": 1, "hrSuiteImport.serviceJobsImported": 1})
	}

	// Outside the window the suite's jobs count zero; a company without any has no hrSuiteImport.
	m, _ = f.decode(t, "getJobsSummary", map[string]any{"untilDate": "2026-04-01"})
	expect(t, m, map[string]float64{"hrSuiteImport.jobsCreated": 0, "hrSuiteImport.weeksCovered": 0})
	isNull(t, m, "hrSuiteImport.importPercent")
	if _, err := db.ExecContext(t.Context(), `DELETE FROM aggregator_jobs WHERE company_id = $1`, f.acme.ID); err != nil {
		t.Fatal(err)
	}
	m, _ = f.decode(t, "getJobsSummary", nil)
	isNull(t, m, "hrSuiteImport")
}
