package jobtools

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// Bounds of getJobsSummary (spec Limits).
const (
	defaultSummaryLimit = 50
	maxSummaryLimit     = 200
)

// coverageATSType is the only ATS type whose weekly job report feeds ats_coverage_weeks today.
const coverageATSType = models.ATSTypeA

func registerJobsSummary(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getJobsSummary",
		Title: "Jobs summary",
		Description: "Counts and lists the company's jobs (positions). Use it for questions like \"how many open jobs do we have\", " +
			"\"which jobs did Dana create last month\" or \"how many of our ATS jobs made it into the service\".\n" +
			"Filters (all optional, combined with AND): userId (creator's user UUID) or userName (creator's name, partial; " +
			"resolved among the company's members, an ambiguous name is an error listing the matches); sinceDate/untilDate " +
			"(ISO dates on the job's creation date; untilDate is inclusive of its day); includeClosedJobs (default true; false " +
			"keeps only jobs open for applications); status (GENERATING, ACTIVE, PAUSED or FAILED, any case). Soft-deleted jobs " +
			"are never counted.\n" +
			"The totals (totalJobs, openJobs, closedJobs, activeJobs, pausedJobs, generatingJobs, failedJobs, " +
			"jobsWithInterviews = jobs with at least one interview session) cover the WHOLE filtered set, regardless of " +
			"limit/offset. jobs is one page, newest first (limit default 50, max 200; offset default 0) with per-job session " +
			"counts and deep links; hasMore says whether another page exists.\n" +
			"atsCoverage compares the ATS's weekly report of active jobs created in the ATS (same date window) with the jobs " +
			"in the service: atsJobsCreated, serviceJobsImported, serviceJobsWithInterviews, coveragePercent = imported/created, " +
			"interviewPercent = withInterviews/created, weeksCovered. Only ATS-A companies have the report; for others " +
			"supported is false and the figures are null; atsType is always the company's ATS type.\n" +
			"hrSuiteImport (null when the company has no HR-suite jobs) does the same for the jobs an HR suite reports through " +
			"the integration aggregator: its open jobs created in the window, imported, with interviews, and the weeks they span.",
		InputSchema: toolkit.InputSchema[JobsSummaryInput](nil),
	}, jobsSummary)
}

// JobsSummaryInput are getJobsSummary's arguments.
type JobsSummaryInput struct {
	UserID            string `json:"userId,omitempty" jsonschema:"only jobs created by this user (UUID)"`
	UserName          string `json:"userName,omitempty" jsonschema:"only jobs created by the company member with this name (partial, any word order); an ambiguous name is an error listing the matches"`
	SinceDate         string `json:"sinceDate,omitempty" jsonschema:"only jobs created on or after this ISO date (YYYY-MM-DD) or RFC 3339 time"`
	UntilDate         string `json:"untilDate,omitempty" jsonschema:"only jobs created on or before this ISO date (inclusive) or before this RFC 3339 time"`
	IncludeClosedJobs *bool  `json:"includeClosedJobs,omitempty" jsonschema:"default true; false keeps only jobs open for applications"`
	Status            string `json:"status,omitempty" jsonschema:"only jobs in this status: GENERATING, ACTIVE, PAUSED or FAILED (any case)"`
	Limit             *int   `json:"limit,omitempty" jsonschema:"page size: default 50, 1 to 200 (larger values are clamped to 200)"`
	Offset            *int   `json:"offset,omitempty" jsonschema:"jobs to skip before the page: default 0"`
	toolkit.CompanyArg
}

// JobsSummaryOutput is getJobsSummary's structured result.
type JobsSummaryOutput struct {
	Filters            summaryFilters `json:"filters" jsonschema:"the filters applied, as resolved"`
	TotalJobs          int            `json:"totalJobs" jsonschema:"jobs matching the filters (whole set, not just this page)"`
	OpenJobs           int            `json:"openJobs" jsonschema:"of totalJobs, open for applications"`
	ClosedJobs         int            `json:"closedJobs" jsonschema:"of totalJobs, closed for applications"`
	ActiveJobs         int            `json:"activeJobs" jsonschema:"of totalJobs, status ACTIVE"`
	PausedJobs         int            `json:"pausedJobs" jsonschema:"of totalJobs, status PAUSED"`
	GeneratingJobs     int            `json:"generatingJobs" jsonschema:"of totalJobs, status GENERATING (interview being generated)"`
	FailedJobs         int            `json:"failedJobs" jsonschema:"of totalJobs, status FAILED (generation failed)"`
	JobsWithInterviews int            `json:"jobsWithInterviews" jsonschema:"of totalJobs, jobs with at least one interview session"`
	Limit              int            `json:"limit"`
	Offset             int            `json:"offset"`
	HasMore            bool           `json:"hasMore" jsonschema:"true when jobs beyond this page match; call again with offset + limit"`
	Jobs               []jobSummary   `json:"jobs" jsonschema:"this page, newest first"`
	ATSCoverage        atsCoverage    `json:"atsCoverage"`
	HRSuiteImport      *hrSuiteImport `json:"hrSuiteImport" jsonschema:"the HR suite's jobs (through the integration aggregator) against the service's; null when the company has none"`
	toolkit.Notices
}

type summaryFilters struct {
	UserID            *string           `json:"userId"`
	UserName          *string           `json:"userName" jsonschema:"the resolved member's full name"`
	Window            toolkit.WindowOut `json:"createdWindow" jsonschema:"job creation window"`
	IncludeClosedJobs bool              `json:"includeClosedJobs"`
	Status            *string           `json:"status"`
}

type jobSummary struct {
	toolkit.JobRef
	CreatedAt         string `json:"createdAt"`
	Sessions          int    `json:"sessions" jsonschema:"interview sessions of any status"`
	CompletedSessions int    `json:"completedSessions" jsonschema:"sessions with status COMPLETED"`

	created time.Time
}

type atsCoverage struct {
	Supported                 bool     `json:"supported" jsonschema:"true when the company's ATS has the weekly coverage report (ATS-A only today); when false every figure is null"`
	ATSType                   *string  `json:"atsType" jsonschema:"the company's ATS type; null when none is configured"`
	ATSJobsCreated            *int     `json:"atsJobsCreated" jsonschema:"distinct active jobs created in the ATS in the window"`
	ServiceJobsImported       *int     `json:"serviceJobsImported" jsonschema:"of those, how many exist as (non-deleted) jobs in the service"`
	ServiceJobsWithInterviews *int     `json:"serviceJobsWithInterviews" jsonschema:"of the imported, how many have at least one interview session"`
	CoveragePercent           *float64 `json:"coveragePercent" jsonschema:"serviceJobsImported / atsJobsCreated in percent (one decimal); null when atsJobsCreated is 0"`
	InterviewPercent          *float64 `json:"interviewPercent" jsonschema:"serviceJobsWithInterviews / atsJobsCreated in percent (one decimal); null when atsJobsCreated is 0"`
	WeeksCovered              *int     `json:"weeksCovered" jsonschema:"weekly report rows in the window"`
}

// hrSuiteImport is atsCoverage's counterpart for the jobs an HR suite reports through the
// integration aggregator (aggregator_jobs), which the import brings into the service.
type hrSuiteImport struct {
	JobsCreated               int      `json:"jobsCreated" jsonschema:"open jobs the HR suite reports, created in the window"`
	ServiceJobsImported       int      `json:"serviceJobsImported" jsonschema:"of those, how many exist as (non-deleted) jobs in the service"`
	ServiceJobsWithInterviews int      `json:"serviceJobsWithInterviews" jsonschema:"of the imported, how many have at least one interview session"`
	ImportPercent             *float64 `json:"importPercent" jsonschema:"serviceJobsImported / jobsCreated in percent (one decimal); null when jobsCreated is 0"`
	InterviewPercent          *float64 `json:"interviewPercent" jsonschema:"serviceJobsWithInterviews / jobsCreated in percent (one decimal); null when jobsCreated is 0"`
	WeeksCovered              int      `json:"weeksCovered" jsonschema:"ISO weeks the jobs' creation dates span"`
}

func jobsSummary(ctx context.Context, call *toolkit.Call, in JobsSummaryInput) (JobsSummaryOutput, *toolkit.Text, error) {
	out := JobsSummaryOutput{Jobs: []jobSummary{}}
	limit, err := call.Limit("limit", in.Limit, defaultSummaryLimit, 1, maxSummaryLimit)
	if err != nil {
		return out, nil, err
	}
	offset, err := call.Limit("offset", in.Offset, 0, 0, 0)
	if err != nil {
		return out, nil, err
	}
	w, err := call.Window(in.SinceDate, in.UntilDate, 0, nil)
	if err != nil {
		return out, nil, err
	}
	out.Limit, out.Offset = limit, offset
	out.Filters.Window = w.Out("")
	out.Filters.IncludeClosedJobs = in.IncludeClosedJobs == nil || *in.IncludeClosedJobs

	q := toolkit.NewQuery(call.Company.ID)
	where := "j.company_id = $1 AND NOT j.is_deleted" + q.Range("j.created_at", w)
	if !out.Filters.IncludeClosedJobs {
		where += " AND j.is_open"
	}
	if s := strings.TrimSpace(in.Status); s != "" {
		st, err := toolkit.OneOfFold("status", s, models.AllJobStatuses())
		if err != nil {
			return out, nil, err
		}
		where += " AND j.status = " + q.Arg(string(st))
		v := string(st)
		out.Filters.Status = &v
	}
	creator, err := resolveCreator(ctx, call, in.UserID, in.UserName, &out.Filters)
	if err != nil {
		return out, nil, err
	}
	if creator != nil {
		where += " AND j.created_by_user_id = " + q.Arg(*creator)
	}

	db := call.DB
	// Totals over the whole filtered set. jobsWithInterviews reads the jobs' session counts in
	// job_totals (one row per job, kept exact by the sessions' triggers; a probe of the sessions
	// index per job touched four times the pages), never counting the company's sessions.
	err = db.QueryRowContext(ctx, `
		SELECT count(*),
		       count(*) FILTER (WHERE is_open),
		       count(*) FILTER (WHERE NOT is_open),
		       count(*) FILTER (WHERE status = 'ACTIVE'),
		       count(*) FILTER (WHERE status = 'PAUSED'),
		       count(*) FILTER (WHERE status = 'GENERATING'),
		       count(*) FILTER (WHERE status = 'FAILED'),
		       count(*) FILTER (WHERE has_sessions)
		FROM (
			SELECT j.is_open, j.status, coalesce(t.sessions, 0) > 0 AS has_sessions
			FROM jobs j LEFT JOIN job_totals t ON t.company_id = $1 AND t.job_id = j.id
			WHERE `+where+`
		) f`, q.Args...).Scan(&out.TotalJobs, &out.OpenJobs, &out.ClosedJobs, &out.ActiveJobs, &out.PausedJobs,
		&out.GeneratingJobs, &out.FailedJobs, &out.JobsWithInterviews)
	if err != nil {
		return out, nil, err
	}

	pageArgs := append(append([]any{}, q.Args...), limit+1, offset)
	n := len(q.Args)
	var ids []string
	err = collect(ctx, db, fmt.Sprintf(`
		SELECT j.id, j.title, j.external_id, j.status, j.is_open, j.created_at
		FROM jobs j WHERE %s
		ORDER BY j.created_at DESC, j.id DESC
		LIMIT $%d OFFSET $%d`, where, n+1, n+2), pageArgs, func(r *sql.Rows) error {
		var js jobSummary
		var id uuid.UUID
		var created sql.NullTime
		if err := r.Scan(&id, &js.Title, &js.ExternalID, &js.Status, &js.IsOpen, &created); err != nil {
			return err
		}
		js.ID, js.Link, js.CreatedAt, js.created = id.String(), call.Env.Links.Job(id), tsStr(created.Time), created.Time
		out.Jobs = append(out.Jobs, js)
		ids = append(ids, js.ID)
		return nil
	})
	if err != nil {
		return out, nil, err
	}
	if len(out.Jobs) > limit {
		out.Jobs, ids, out.HasMore = out.Jobs[:limit], ids[:limit], true
	}
	if err := pageSessionCounts(ctx, call, ids, out.Jobs); err != nil {
		return out, nil, err
	}
	if out.ATSCoverage, err = coverage(ctx, call, w); err != nil {
		return out, nil, err
	}
	if out.HRSuiteImport, err = aggregatorImport(ctx, call, w); err != nil {
		return out, nil, err
	}
	return out, summaryText(&out), nil
}

// resolveCreator resolves userId / userName to the creator to filter on (nil: no filter).
func resolveCreator(ctx context.Context, call *toolkit.Call, userID, userName string, f *summaryFilters) (*uuid.UUID, error) {
	userID, userName = strings.TrimSpace(userID), strings.TrimSpace(userName)
	if userID != "" && userName != "" {
		return nil, toolkit.Errorf("pass userId or userName, not both")
	}
	db := call.DB
	if userID != "" {
		id, err := uuid.Parse(userID)
		if err != nil {
			return nil, toolkit.Errorf("userId %q is not a UUID; pass userName to filter by the creator's name", userID)
		}
		var name string
		err = db.QueryRowContext(ctx, `
			SELECT u.name FROM company_memberships m JOIN users u ON u.id = m.user_id
			WHERE m.company_id = $1 AND m.user_id = $2`, call.Company.ID, id).Scan(&name)
		switch {
		case err == sql.ErrNoRows:
			call.Notice("userId %s is not a member of this company; only jobs it created here are counted", id)
		case err != nil:
			return nil, err
		default:
			f.UserName = &name
		}
		s := id.String()
		f.UserID = &s
		return &id, nil
	}
	if userName == "" {
		return nil, nil
	}
	type member struct {
		id   uuid.UUID
		name string
	}
	var ms []member
	err := collect(ctx, db, `
		SELECT u.id, u.name FROM company_memberships m JOIN users u ON u.id = m.user_id
		WHERE m.company_id = $1 AND u.name ILIKE ALL ($2::text[])
		ORDER BY lower(u.name), u.id LIMIT 11`,
		[]any{call.Company.ID, textArray(containsPatterns(userName))}, func(r *sql.Rows) error {
			var m member
			if err := r.Scan(&m.id, &m.name); err != nil {
				return err
			}
			ms = append(ms, m)
			return nil
		})
	if err != nil {
		return nil, err
	}
	// A unique exact (case-insensitive) full name wins over partial matches.
	var exact []member
	for _, m := range ms {
		if strings.EqualFold(strings.Join(strings.Fields(m.name), " "), strings.Join(strings.Fields(userName), " ")) {
			exact = append(exact, m)
		}
	}
	if len(exact) == 1 {
		ms = exact
	}
	switch len(ms) {
	case 0:
		return nil, toolkit.Errorf("no member of this company is named like %q; check the spelling or pass userId", userName)
	case 1:
	default:
		list := make([]string, 0, len(ms))
		for i, m := range ms {
			if i == 10 {
				list = append(list, "…")
				break
			}
			list = append(list, fmt.Sprintf("%s (userId %s)", m.name, m.id))
		}
		return nil, toolkit.Errorf("userName %q matches several members: %s; pass userId or a fuller name", userName, strings.Join(list, "; "))
	}
	id, s := ms[0].id, ms[0].id.String()
	f.UserID, f.UserName = &s, &ms[0].name
	return &id, nil
}

// pageSessionCounts fills the page's session counts from job_totals (kept exact by the
// sessions' triggers, migration 00007): a row per job of the page, not its sessions.
func pageSessionCounts(ctx context.Context, call *toolkit.Call, ids []string, jobs []jobSummary) error {
	if len(ids) == 0 {
		return nil
	}
	byID := make(map[string]*jobSummary, len(jobs))
	for i := range jobs {
		byID[jobs[i].ID] = &jobs[i]
	}
	return collect(ctx, call.DB, `
		SELECT job_id, sessions, completed
		FROM job_totals WHERE company_id = $1 AND job_id = ANY ($2::uuid[])`, []any{call.Company.ID, textArray(ids)}, func(r *sql.Rows) error {
		var id uuid.UUID
		var n, completed int
		if err := r.Scan(&id, &n, &completed); err != nil {
			return err
		}
		if j := byID[id.String()]; j != nil {
			j.Sessions, j.CompletedSessions = n, completed
		}
		return nil
	})
}

// coverage computes atsCoverage over the weekly rows whose week_start (midnight UTC) falls in w.
// Whether a job has interviews comes from job_totals (a few hundred kilobytes per company at
// 3M candidates, kept in cache by every job tool), not from a probe of the sessions index per
// job, which at that size read cold pages on most calls.
// Only coverageATSType has them: for any other ATS (or none) supported is false and the figures
// null, whatever else the company imports (hrSuiteImport reports the aggregator's jobs).
func coverage(ctx context.Context, call *toolkit.Call, w toolkit.Window) (atsCoverage, error) {
	var c atsCoverage
	if call.Company.ATSType != nil {
		s := string(*call.Company.ATSType)
		c.ATSType = &s
	}
	if call.Company.ATSType == nil || *call.Company.ATSType != coverageATSType {
		return c, nil
	}
	db := call.DB
	c.Supported = true
	q := toolkit.NewQuery(call.Company.ID)
	typeArg := q.Arg(string(coverageATSType))
	weekWhere := "w.company_id = $1 AND w.ats_type = " + typeArg +
		q.Range("(w.week_start::timestamp AT TIME ZONE 'UTC')", w)
	var weeks, created, imported, withInterviews int
	err := db.QueryRowContext(ctx, `
		WITH weeks AS (
			SELECT w.ats_job_ids FROM ats_coverage_weeks w WHERE `+weekWhere+`
		), ids AS (
			SELECT DISTINCT x.ext FROM weeks, unnest(weeks.ats_job_ids) AS x(ext)
		)
		SELECT (SELECT count(*) FROM weeks),
		       count(*),
		       count(j.id),
		       count(j.id) FILTER (WHERE t.sessions > 0)
		FROM ids
		LEFT JOIN jobs j ON j.company_id = $1 AND j.external_id = ids.ext AND NOT j.is_deleted
		LEFT JOIN job_totals t ON t.company_id = $1 AND t.job_id = j.id`,
		q.Args...).Scan(&weeks, &created, &imported, &withInterviews)
	if err != nil {
		return c, err
	}
	c.WeeksCovered, c.ATSJobsCreated, c.ServiceJobsImported, c.ServiceJobsWithInterviews = &weeks, &created, &imported, &withInterviews
	c.CoveragePercent = toolkit.Percent(int64(imported), int64(created))
	c.InterviewPercent = toolkit.Percent(int64(withInterviews), int64(created))
	return c, nil
}

// aggregatorImport computes hrSuiteImport from the jobs an HR suite reported through the
// aggregator (aggregator_jobs): the suite's open jobs created in w, how many exist in the
// service, how many have interviews, and the ISO weeks they span; nil when the company has no
// aggregator jobs.
func aggregatorImport(ctx context.Context, call *toolkit.Call, w toolkit.Window) (*hrSuiteImport, error) {
	var has bool
	if err := call.DB.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM aggregator_jobs WHERE company_id = $1)`, call.Company.ID).Scan(&has); err != nil || !has {
		return nil, err
	}
	q := toolkit.NewQuery(call.Company.ID)
	var c hrSuiteImport
	err := call.DB.QueryRowContext(ctx, `
		SELECT count(DISTINCT date_trunc('week', a.remote_created_at AT TIME ZONE 'UTC')), count(*), count(j.id),
		       count(j.id) FILTER (WHERE t.sessions > 0)
		FROM aggregator_jobs a
		LEFT JOIN jobs j ON j.company_id = $1 AND j.id = a.job_id AND NOT j.is_deleted
		LEFT JOIN job_totals t ON t.company_id = $1 AND t.job_id = j.id
		WHERE a.company_id = $1 AND a.remote_status = 'OPEN' AND a.remote_deleted_at IS NULL`+q.Range("a.remote_created_at", w),
		q.Args...).Scan(&c.WeeksCovered, &c.JobsCreated, &c.ServiceJobsImported, &c.ServiceJobsWithInterviews)
	if err != nil {
		return nil, err
	}
	c.ImportPercent = toolkit.Percent(int64(c.ServiceJobsImported), int64(c.JobsCreated))
	c.InterviewPercent = toolkit.Percent(int64(c.ServiceJobsWithInterviews), int64(c.JobsCreated))
	return &c, nil
}

func summaryText(o *JobsSummaryOutput) *toolkit.Text {
	var t toolkit.Text
	t.H1("Jobs summary")
	f := &o.Filters
	var filters []string
	if f.UserID != nil {
		who := *f.UserID
		if f.UserName != nil {
			who = *f.UserName + " (" + who + ")"
		}
		filters = append(filters, "created by "+who)
	}
	if f.Window.Since != nil || f.Window.Until != nil {
		filters = append(filters, "created "+f.Window.String())
	}
	if !f.IncludeClosedJobs {
		filters = append(filters, "open jobs only")
	}
	if f.Status != nil {
		filters = append(filters, "status "+*f.Status)
	}
	if len(filters) == 0 {
		filters = []string{"none (all jobs)"}
	}
	t.KV("Filters", strings.Join(filters, "; "), "Excluded", "soft-deleted jobs")
	t.H2("Totals (all %d matching jobs)", o.TotalJobs)
	t.KV(
		"Total jobs", itoa(o.TotalJobs),
		"Open", itoa(o.OpenJobs),
		"Closed", itoa(o.ClosedJobs),
		"Active", itoa(o.ActiveJobs),
		"Paused", itoa(o.PausedJobs),
		"Generating", itoa(o.GeneratingJobs),
		"Failed", itoa(o.FailedJobs),
		"With interviews", itoa(o.JobsWithInterviews),
	)

	first := o.Offset + 1
	if len(o.Jobs) == 0 {
		first = o.Offset
	}
	t.H2("Jobs %d-%d of %d (newest first)", first, o.Offset+len(o.Jobs), o.TotalJobs)
	rows := make([][]string, 0, len(o.Jobs))
	for _, j := range o.Jobs {
		rows = append(rows, []string{j.Title, j.Status, yesNo(j.IsOpen), dateStr(j.created), itoa(j.Sessions), itoa(j.CompletedSessions), j.ExternalID, j.ID, j.Link})
	}
	t.Table([]string{"Title", "Status", "Open", "Created", "Sessions", "Completed", "External id", "jobId", "Link"}, rows, "No jobs on this page.")
	if o.HasMore {
		t.Blank()
		t.Line("More jobs match: call again with offset %d.", o.Offset+o.Limit)
	}

	c := &o.ATSCoverage
	t.H2("ATS coverage")
	switch {
	case !c.Supported && c.ATSType == nil:
		t.Line("Not available: the company has no ATS configured (coverage needs %s's weekly job report).", coverageATSType)
	case !c.Supported:
		t.Line("Not available for %s: only %s provides the weekly job report coverage is computed from.", *c.ATSType, coverageATSType)
	default:
		t.KV(
			"ATS", *c.ATSType,
			"Window", f.Window.String()+" (report weeks starting in it)",
			"Weeks covered", itoa(*c.WeeksCovered),
			"ATS jobs created", itoa(*c.ATSJobsCreated),
			"Imported into the service", fmt.Sprintf("%d (%s)", *c.ServiceJobsImported, toolkit.Pct(c.CoveragePercent)),
			"With interviews", fmt.Sprintf("%d (%s)", *c.ServiceJobsWithInterviews, toolkit.Pct(c.InterviewPercent)),
		)
	}
	if h := o.HRSuiteImport; h != nil {
		t.H2("HR-suite import (through the integration aggregator)")
		t.KV(
			"Window", f.Window.String()+" (the suite's job creation dates)",
			"Weeks covered", itoa(h.WeeksCovered),
			"Open HR-suite jobs created", itoa(h.JobsCreated),
			"Imported into the service", fmt.Sprintf("%d (%s)", h.ServiceJobsImported, toolkit.Pct(h.ImportPercent)),
			"With interviews", fmt.Sprintf("%d (%s)", h.ServiceJobsWithInterviews, toolkit.Pct(h.InterviewPercent)),
		)
	}
	return &t
}
