package jobimport

import (
	"context"
	"strings"
	"time"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/personname"
	"github.com/recruitd/recruitd/internal/phone"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// MayConnect reports whether the company may connect through the aggregator: an HR-suite
// account (its jobs) or a company with an ATS (its jobs, candidates and applications; ATS-D's
// come only this way).
func MayConnect(co *models.Company) bool { return co.HRSuiteAccount || co.ATSType != nil }

// SyncsApplications reports whether the import also syncs the company's candidates and
// applications: it connected its ATS through the aggregator. An HR suite's applications come by
// webhook (internal/hrsuite), so its import brings jobs only.
func SyncsApplications(co *models.Company) bool { return !co.HRSuiteAccount }

// WriteJobPage writes converted aggregator jobs for co in one transaction (store.Tx
// UpsertImportedJobs) with the 'New Job from ATS' start of every job it created and the interview
// generation start of every job created with, or given, a new description (a new guide version),
// and returns the counts and the starts to launch after the commit.
func WriteJobPage(ctx context.Context, st *store.Store, co *models.Company, jobs []store.ImportedJob) (store.ImportCounts, []models.WorkflowStart, error) {
	tx, err := st.Begin(ctx)
	if err != nil {
		return store.ImportCounts{}, nil, err
	}
	defer tx.Rollback()
	counts, starts, due, err := tx.UpsertImportedJobs(co, jobs)
	if err != nil {
		return counts, nil, err
	}
	if len(due) > 0 {
		gens := make([]models.WorkflowStart, len(due))
		for i, d := range due {
			gens[i] = kinds.ImportedJobGenerationStart(co.Slug, d.ExternalID, d.InterviewerID, d.ChangedAt,
				kinds.JobGenerationInput{CompanyID: co.ID, JobID: d.JobID})
		}
		if gens, err = tx.InsertStarts(gens); err != nil {
			return counts, nil, err
		}
		starts = append(starts, gens...)
	}
	if err := tx.Commit(); err != nil {
		return counts, nil, err
	}
	st.AnalyzeGrownJobs(ctx, counts.Created)
	return counts, starts, nil
}

// SyncApplicationPage writes one page of the aggregator's applications for co (converted by
// SyncedApplications, then WriteApplicationPage) and also returns the latest change the page
// holds. Nothing is written to the ATS.
func SyncApplicationPage(ctx context.Context, st *store.Store, co *models.Company, page []aggregator.Application, seen time.Time, fire bool) (store.SyncCounts, []models.WorkflowStart, time.Time, error) {
	apps, maxSeen := SyncedApplications(page)
	counts, starts, err := WriteApplicationPage(ctx, st, co, apps, seen, fire)
	return counts, starts, maxSeen, err
}

// WriteApplicationPage writes converted applications for co in one transaction, seen at seen
// (the pass's start), with the 'New Application from ATS' start of every application it created
// when fire is set (the company's trigger is saved and enabled), and returns the counts and the
// starts to launch after the commit.
func WriteApplicationPage(ctx context.Context, st *store.Store, co *models.Company, apps []store.SyncedApplication, seen time.Time, fire bool) (store.SyncCounts, []models.WorkflowStart, error) {
	tx, err := st.Begin(ctx)
	if err != nil {
		return store.SyncCounts{}, nil, err
	}
	defer tx.Rollback()
	counts, created, err := tx.SyncApplications(co, apps, seen)
	if err != nil {
		return counts, nil, err
	}
	var starts []models.WorkflowStart
	if fire && len(created) > 0 {
		starts = make([]models.WorkflowStart, len(created))
		for i, c := range created {
			starts[i] = kinds.ATSApplicationStart(co.Slug, co.ID, c.JobID, c.CandidateID, c.ApplicationID, c.ExternalID, c.InterviewerID)
		}
		if starts, err = tx.InsertStarts(starts); err != nil {
			return counts, nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return counts, nil, err
	}
	st.AnalyzeGrownApplications(ctx, counts.Created)
	return counts, starts, nil
}

// SyncedApplications converts a page for the store: one entry per ATS application id (the
// latest change wins), text trimmed, the candidate's first e-mail address and phone number
// (candidatePhone), and the ATS's verdict as an upstream status (deleted: closed; HIRED;
// DECLINED). It also returns the latest change the page holds.
func SyncedApplications(page []aggregator.Application) ([]store.SyncedApplication, time.Time) {
	clean := func(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\x00", "") }
	idx := map[string]int{}
	var out []store.SyncedApplication
	var maxSeen time.Time
	for _, a := range page {
		if a.ChangedAt.After(maxSeen) {
			maxSeen = a.ChangedAt
		}
		ext, cext := clean(a.ExternalID()), clean(a.Candidate.ExternalID())
		if ext == "" || cext == "" {
			continue
		}
		s := store.SyncedApplication{RemoteID: clean(a.ID), ExternalID: ext, JobRemoteID: clean(a.JobID), Outcome: clean(a.Outcome), Stage: clean(a.Stage),
			CandidateRemoteID: clean(a.Candidate.ID), CandidateExternalID: cext, FirstName: personname.Clean(a.Candidate.FirstName), LastName: personname.Clean(a.Candidate.LastName),
			Email: candidateEmail(a.Candidate.Emails), Phone: candidatePhone(a.Candidate.Phones),
			RemoteCreatedAt: a.RemoteCreatedAt, RemoteDeletedAt: a.RemoteDeletedAt, ChangedAt: a.ChangedAt}
		switch {
		case a.RemoteDeletedAt != nil:
			s.UpstreamStatus = store.UpstreamClosed
		case s.Outcome == "HIRED":
			s.UpstreamStatus = store.UpstreamHired
		case s.Outcome == "DECLINED":
			s.UpstreamStatus = store.UpstreamDeclined
		}
		if i, ok := idx[ext]; ok {
			if !a.ChangedAt.Before(out[i].ChangedAt) {
				out[i] = s
			}
			continue
		}
		idx[ext] = len(out)
		out = append(out, s)
	}
	return out, maxSeen
}

// candidateEmail is the first address that looks like one (an @ with text either side and no
// spaces), its domain in lower case; "" when none does.
func candidateEmail(all []string) string {
	for _, e := range all {
		e = strings.TrimSpace(e)
		at := strings.LastIndexByte(e, '@')
		if at > 0 && at < len(e)-1 && !strings.ContainsAny(e, " \t\r\n") {
			return e[:at+1] + strings.ToLower(e[at+1:])
		}
	}
	return ""
}

// candidatePhone is the candidate's number in E.164: the first valid mobile one, else the first
// valid one, else the best-effort form (package phone) of the first that looks like a number;
// "" when none does.
func candidatePhone(all []aggregator.Phone) string {
	ordered := make([]aggregator.Phone, 0, len(all))
	for _, p := range all {
		if p.Type == "MOBILE" {
			ordered = append(ordered, p)
		}
	}
	for _, p := range all {
		if p.Type != "MOBILE" {
			ordered = append(ordered, p)
		}
	}
	fallback := ""
	for _, p := range ordered {
		if !phone.LooksLikeNumber(p.Number) {
			continue
		}
		e164, ok := phone.Normalize(p.Number, "US")
		if ok {
			return e164
		}
		if fallback == "" {
			fallback = e164
		}
	}
	return fallback
}
