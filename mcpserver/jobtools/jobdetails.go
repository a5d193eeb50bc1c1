package jobtools

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// Bounds of getJobDetails.sessionLimit (the spec gives the default only).
const (
	defaultSessionLimit = 10
	maxSessionLimit     = 50
	// maxOtherMatches bounds the other jobs listed when jobName matches several.
	maxOtherMatches = 5
)

func registerJobDetails(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getJobDetails",
		Title: "Job details",
		Description: "Everything about ONE job (also called position or interviewer): its configuration (status, open/closed, " +
			"soft-deleted, identity verification, resume-fit template, interview-guide size, created/generated dates, creator), " +
			"its current pipeline counts (applications, distinct candidates, sessions by status, decisions) and its most recent " +
			"interview sessions with candidate names and deep links.\n" +
			"Identify the job with exactly one of: jobId (internal UUID), externalId (the ATS job id) or jobName (fuzzy, " +
			"order-agnostic match on the title; the best match is shown and other close matches are listed with their ids). " +
			"With none of them, the job currently open in the client (job context) is used. " +
			"sessionLimit (default 10, max 50) bounds the recent sessions, newest invitation first; sessionStatus filters them " +
			"(INVITED, STARTED, COMPLETED, EXPIRED, CANCELLED; any case) but not the pipeline counts. " +
			"For many jobs at once use getJobsSummary; for the interview questions use getInterviewGuideDetails.",
		InputSchema: toolkit.InputSchema[JobDetailsInput](nil),
	}, jobDetails)
}

// JobDetailsInput are getJobDetails' arguments.
type JobDetailsInput struct {
	JobID         string `json:"jobId,omitempty" jsonschema:"the job's internal UUID"`
	ExternalID    string `json:"externalId,omitempty" jsonschema:"the job's ATS id (exact)"`
	JobName       string `json:"jobName,omitempty" jsonschema:"words of the job title (fuzzy, order-agnostic); the best match wins and close alternatives are listed"`
	SessionLimit  *int   `json:"sessionLimit,omitempty" jsonschema:"how many recent sessions to list: default 10, 1 to 50 (larger values are clamped to 50)"`
	SessionStatus string `json:"sessionStatus,omitempty" jsonschema:"only list recent sessions in this status: INVITED, STARTED, COMPLETED, EXPIRED, CANCELLED, INCOMPLETE or DECLINED (any case)"`
	toolkit.CompanyArg
}

// JobDetailsOutput is getJobDetails' structured result.
type JobDetailsOutput struct {
	MatchedBy      string           `json:"matchedBy" jsonschema:"how the job was identified: jobId, externalId, jobName or jobContext"`
	OtherMatches   []toolkit.JobRef `json:"otherMatches,omitempty" jsonschema:"other jobs matching jobName, best first (pass one's id as jobId to see it)"`
	Job            jobConfig        `json:"job"`
	Pipeline       pipelineCounts   `json:"pipeline"`
	SessionLimit   int              `json:"sessionLimit" jsonschema:"the limit applied to recentSessions"`
	SessionStatus  *string          `json:"sessionStatus" jsonschema:"the status filter applied to recentSessions; null when none"`
	RecentSessions []sessionRow     `json:"recentSessions" jsonschema:"the job's sessions, newest invitation first"`
	toolkit.Notices
}

type jobConfig struct {
	toolkit.JobRef
	InterviewerID               string       `json:"interviewerId" jsonschema:"the id used to invite candidates (<company slug>-<externalId>)"`
	ExternalTitle               string       `json:"externalTitle" jsonschema:"candidate-facing title"`
	Active                      bool         `json:"active" jsonschema:"status ACTIVE and not deleted"`
	FailureReason               *string      `json:"failureReason" jsonschema:"why the interview could not be generated (status FAILED: a failed generation, or an imported job with no description), or why a new version of it could not be (the previous one stays in use); null otherwise"`
	IdentityVerificationEnabled bool         `json:"identityVerificationEnabled" jsonschema:"government-ID plus selfie verification is on for this job"`
	ResumeFitTemplate           *templateRef `json:"resumeFitTemplate" jsonschema:"the resume-fit template the job uses; null when none"`
	Guide                       guideSummary `json:"guide"`
	CreatedAt                   string       `json:"createdAt"`
	GeneratedAt                 *string      `json:"generatedAt" jsonschema:"when interview generation finished; null while generating or after a failure"`
	CreatedBy                   *userRef     `json:"createdBy" jsonschema:"who created the job; null when unknown (API or ATS import)"`
}

type templateRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type userRef struct {
	ID   string  `json:"id"`
	Name *string `json:"name" jsonschema:"null when the user is no longer a member of the company"`
}

type guideSummary struct {
	Exists             bool `json:"exists" jsonschema:"false until the interview guide is generated"`
	Questions          int  `json:"questions"`
	GradingCriteria    int  `json:"gradingCriteria"`
	LearningObjectives int  `json:"learningObjectives"`
	Skills             int  `json:"skills"`
}

type pipelineCounts struct {
	Applications     int            `json:"applications" jsonschema:"application rows for the job"`
	Candidates       int            `json:"candidates" jsonschema:"distinct candidates who applied"`
	Sessions         int            `json:"sessions" jsonschema:"interview sessions of any status"`
	SessionsByStatus map[string]int `json:"sessionsByStatus" jsonschema:"sessions per status (every status listed)"`
	Decisions        map[string]int `json:"decisions" jsonschema:"sessions per recruiter decision (every decision listed; NONE = undecided)"`
}

type sessionRow struct {
	ID              string  `json:"id"`
	Link            string  `json:"link" jsonschema:"deep link to the session report"`
	CandidateID     string  `json:"candidateId"`
	CandidateName   string  `json:"candidateName"`
	CandidateLink   string  `json:"candidateLink" jsonschema:"deep link to the candidate"`
	Status          string  `json:"status"`
	MediumType      string  `json:"mediumType"`
	Decision        string  `json:"decision"`
	InvitedAt       string  `json:"invitedAt"`
	StartedAt       *string `json:"startedAt"`
	CompletedAt     *string `json:"completedAt"`
	DurationSeconds *int    `json:"durationSeconds"`
}

func jobDetails(ctx context.Context, call *toolkit.Call, in JobDetailsInput) (JobDetailsOutput, *toolkit.Text, error) {
	out := JobDetailsOutput{RecentSessions: []sessionRow{}}
	limit, err := call.Limit("sessionLimit", in.SessionLimit, defaultSessionLimit, 1, maxSessionLimit)
	if err != nil {
		return out, nil, err
	}
	var status models.SessionStatus
	if s := strings.TrimSpace(in.SessionStatus); s != "" {
		if status, err = toolkit.OneOfFold("sessionStatus", s, models.AllSessionStatuses()); err != nil {
			return out, nil, err
		}
		st := string(status)
		out.SessionStatus = &st
	}
	out.SessionLimit = limit

	id, err := identifyJob(ctx, call, in, &out)
	if err != nil {
		return out, nil, err
	}
	if err := loadJobConfig(ctx, call, id, &out.Job); err != nil {
		return out, nil, err
	}
	if out.Pipeline, err = loadPipeline(ctx, call, id); err != nil {
		return out, nil, err
	}
	if out.RecentSessions, err = recentSessions(ctx, call, id, status, limit); err != nil {
		return out, nil, err
	}
	return out, jobDetailsText(&out), nil
}

// identifyJob resolves the job argument: exactly one of jobId, externalId, jobName, else the
// job context.
func identifyJob(ctx context.Context, call *toolkit.Call, in JobDetailsInput, out *JobDetailsOutput) (uuid.UUID, error) {
	jobID, extID, name := strings.TrimSpace(in.JobID), strings.TrimSpace(in.ExternalID), strings.TrimSpace(in.JobName)
	var given []string
	for _, g := range []struct{ name, v string }{{"jobId", jobID}, {"externalId", extID}, {"jobName", name}} {
		if g.v != "" {
			given = append(given, g.name)
		}
	}
	if len(given) > 1 {
		return uuid.Nil, toolkit.Errorf("pass exactly one of jobId, externalId or jobName (got %s)", strings.Join(given, " and "))
	}
	db := call.DB
	switch {
	case jobID != "":
		id, err := toolkit.ParseJobID("jobId", jobID)
		if err != nil {
			return uuid.Nil, err
		}
		if j, err := call.Job(ctx, id); err != nil || j == nil {
			if err == nil {
				err = toolkit.Errorf("no job with id %s in this company; getJobsSummary lists job ids", id)
			}
			return uuid.Nil, err
		}
		out.MatchedBy = "jobId"
		return id, nil
	case extID != "":
		var id uuid.UUID
		err := db.QueryRowContext(ctx, `SELECT id FROM jobs WHERE company_id = $1 AND external_id = $2`, call.Company.ID, extID).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return uuid.Nil, toolkit.Errorf("no job with externalId %q in this company (externalId is the exact ATS job id; try jobName for a title search)", extID)
		}
		out.MatchedBy = "externalId"
		return id, err
	case name != "":
		out.MatchedBy = "jobName"
		return matchJobName(ctx, call, name, out)
	}
	sc, err := call.Scope(ctx, toolkit.ScopeArg{})
	if err != nil {
		return uuid.Nil, err
	}
	id := sc.JobID()
	if id == nil {
		return uuid.Nil, toolkit.Errorf("pass one of jobId, externalId or jobName (no job is open in the client to use as context); getJobsSummary lists the company's jobs")
	}
	out.MatchedBy = "jobContext"
	return *id, nil
}

// matchJobName finds the non-deleted job whose title best matches name: an exact title first,
// then titles containing every word (in any order), then by trigram similarity (typos); newer
// jobs break ties. When some title contains every word, only such titles are offered as
// alternatives.
//
// A title's rank depends on the title alone, so the statement scores the company's distinct
// titles (a skip scan of jobs_company_title_idx, one probe per title) and reads only the newest
// jobs of the best titles: its work follows the titles, not the jobs, which repeat a title as
// a company grows.
func matchJobName(ctx context.Context, call *toolkit.Call, name string, out *JobDetailsOutput) (uuid.UUID, error) {
	type match struct {
		toolkit.JobRef
		allWords bool
	}
	var matches []match
	err := collect(ctx, call.DB, `
		WITH RECURSIVE titles(t) AS (
			(SELECT left(title, 500) FROM jobs WHERE company_id = $1 AND NOT is_deleted ORDER BY 1 LIMIT 1)
			UNION ALL
			SELECT (SELECT left(j.title, 500) FROM jobs j
			        WHERE j.company_id = $1 AND NOT j.is_deleted AND left(j.title, 500) > titles.t ORDER BY 1 LIMIT 1)
			FROM titles WHERE titles.t IS NOT NULL
		), ranked AS (
			SELECT t, exact, all_words, score FROM (
				SELECT t, lower(t) = lower($2) AS exact, t ILIKE ALL ($3::text[]) AS all_words,
				       greatest(similarity(t, $2), word_similarity($2, t)) AS score
				FROM titles WHERE t IS NOT NULL
			) r
			WHERE exact OR all_words OR score >= 0.3
			ORDER BY exact DESC, all_words DESC, score DESC
			LIMIT $4
		)
		SELECT j.id, j.title, j.external_id, j.status, j.is_open, r.all_words
		FROM ranked r CROSS JOIN LATERAL (
			SELECT id, title, external_id, status, is_open, created_at FROM jobs
			WHERE company_id = $1 AND NOT is_deleted AND left(title, 500) = r.t
			ORDER BY created_at DESC, id
			LIMIT $4
		) j
		ORDER BY r.exact DESC, r.all_words DESC, r.score DESC, j.created_at DESC, j.id
		LIMIT $4`,
		[]any{call.Company.ID, name, textArray(containsPatterns(name)), maxOtherMatches + 1},
		func(r *sql.Rows) error {
			var m match
			var id uuid.UUID
			if err := r.Scan(&id, &m.Title, &m.ExternalID, &m.Status, &m.IsOpen, &m.allWords); err != nil {
				return err
			}
			m.ID, m.Link = id.String(), call.Env.Links.Job(id)
			matches = append(matches, m)
			return nil
		})
	if err != nil {
		return uuid.Nil, err
	}
	if len(matches) == 0 {
		return uuid.Nil, toolkit.Errorf("no job title matches %q; getJobsSummary lists the company's jobs", name)
	}
	if !matches[0].allWords {
		call.Notice("no job title contains every word of jobName %q; showing the closest title %q", name, matches[0].Title)
	}
	for _, m := range matches[1:] {
		if m.allWords || !matches[0].allWords {
			out.OtherMatches = append(out.OtherMatches, m.JobRef)
		}
	}
	if len(out.OtherMatches) > 0 {
		call.Notice("jobName %q matched several jobs; showing the best match %q (others are listed; pass jobId to pick one)", name, matches[0].Title)
	}
	return uuid.MustParse(matches[0].ID), nil
}

func loadJobConfig(ctx context.Context, call *toolkit.Call, id uuid.UUID, j *jobConfig) error {
	var (
		jid                        uuid.UUID
		failure, tplName, userName sql.NullString
		tplID, userID, guideID     uuid.NullUUID
		createdAt                  sql.NullTime
		generatedAt                sql.NullTime
	)
	err := call.DB.QueryRowContext(ctx, `
		SELECT j.id, j.external_id, j.interviewer_id, j.title, j.external_title, j.status, j.failure_reason,
		       j.is_open, j.is_deleted, j.enable_identity_verification, j.created_at, j.generated_at,
		       t.id, t.name, j.created_by_user_id, u.name,
		       g.id, coalesce(cardinality(g.learning_objectives), 0), coalesce(cardinality(g.skills), 0),
		       (SELECT count(*) FROM interview_questions q WHERE q.company_id = $1 AND q.guide_id = g.id),
		       (SELECT count(*) FROM grading_criteria c WHERE c.company_id = $1 AND c.guide_id = g.id)
		FROM jobs j
		LEFT JOIN templates t ON t.company_id = $1 AND t.id = j.resume_fit_template_id
		LEFT JOIN company_memberships m ON m.company_id = $1 AND m.user_id = j.created_by_user_id
		LEFT JOIN users u ON u.id = m.user_id
		LEFT JOIN interview_guides g ON g.company_id = $1 AND g.job_id = j.id
		WHERE j.company_id = $1 AND j.id = $2`, call.Company.ID, id).Scan(
		&jid, &j.ExternalID, &j.InterviewerID, &j.Title, &j.ExternalTitle, &j.Status, &failure,
		&j.IsOpen, &j.Deleted, &j.IdentityVerificationEnabled, &createdAt, &generatedAt,
		&tplID, &tplName, &userID, &userName,
		&guideID, &j.Guide.LearningObjectives, &j.Guide.Skills, &j.Guide.Questions, &j.Guide.GradingCriteria)
	if err != nil {
		return err
	}
	j.ID, j.Link = jid.String(), call.Env.Links.Job(jid)
	j.Active = j.Status == string(models.JobStatusActive) && !j.Deleted
	j.FailureReason = toolkit.NullString(failure)
	j.CreatedAt = tsStr(createdAt.Time)
	j.GeneratedAt = toolkit.NullTime(generatedAt)
	j.Guide.Exists = guideID.Valid
	if tplID.Valid {
		j.ResumeFitTemplate = &templateRef{ID: tplID.UUID.String(), Name: tplName.String}
	}
	if userID.Valid {
		j.CreatedBy = &userRef{ID: userID.UUID.String(), Name: toolkit.NullString(userName)}
	}
	return nil
}

func loadPipeline(ctx context.Context, call *toolkit.Call, id uuid.UUID) (pipelineCounts, error) {
	p := pipelineCounts{SessionsByStatus: map[string]int{}, Decisions: map[string]int{}}
	for _, s := range models.AllSessionStatuses() {
		p.SessionsByStatus[string(s)] = 0
	}
	for _, d := range models.AllDecisions() {
		p.Decisions[string(d)] = 0
	}
	db := call.DB
	err := db.QueryRowContext(ctx, `
		SELECT count(*), count(DISTINCT candidate_id) FROM applications WHERE company_id = $1 AND job_id = $2`,
		call.Company.ID, id).Scan(&p.Applications, &p.Candidates)
	if err != nil {
		return p, err
	}
	err = collect(ctx, db, `
		SELECT status, decision, count(*) FROM interview_sessions WHERE company_id = $1 AND job_id = $2 GROUP BY status, decision`,
		[]any{call.Company.ID, id}, func(r *sql.Rows) error {
			var status, decision string
			var n int
			if err := r.Scan(&status, &decision, &n); err != nil {
				return err
			}
			p.Sessions += n
			p.SessionsByStatus[status] += n
			p.Decisions[decision] += n
			return nil
		})
	return p, err
}

// recentSessions lists the job's newest sessions by invitation time. It reads each status's
// newest rows separately (LATERAL per status) so that an index on (company_id, job_id, status,
// invited_at) serves it without sorting the job's whole history.
func recentSessions(ctx context.Context, call *toolkit.Call, id uuid.UUID, status models.SessionStatus, limit int) ([]sessionRow, error) {
	statuses := toolkit.Strings(models.AllSessionStatuses())
	if status != "" {
		statuses = []string{string(status)}
	}
	out := []sessionRow{}
	err := collect(ctx, call.DB, `
		SELECT s.id, s.candidate_id, c.first_name, c.last_name, s.status, s.medium_type, s.decision,
		       s.invited_at, s.started_at, s.completed_at, s.duration_seconds
		FROM unnest($3::text[]) AS st(status)
		CROSS JOIN LATERAL (
			SELECT * FROM interview_sessions s
			WHERE s.company_id = $1 AND s.job_id = $2 AND s.status = st.status
			ORDER BY s.invited_at DESC, s.id DESC
			LIMIT $4
		) s
		JOIN candidates c ON c.company_id = $1 AND c.id = s.candidate_id
		ORDER BY s.invited_at DESC, s.id DESC
		LIMIT $4`,
		[]any{call.Company.ID, id, textArray(statuses), limit}, func(r *sql.Rows) error {
			var (
				s                  sessionRow
				sid, cid           uuid.UUID
				first, last        string
				invited            sql.NullTime
				started, completed sql.NullTime
				duration           sql.NullInt64
			)
			if err := r.Scan(&sid, &cid, &first, &last, &s.Status, &s.MediumType, &s.Decision, &invited, &started, &completed, &duration); err != nil {
				return err
			}
			s.ID, s.Link = sid.String(), call.Env.Links.Session(sid)
			s.CandidateID, s.CandidateLink = cid.String(), call.Env.Links.Candidate(cid)
			s.CandidateName = candidateName(first, last)
			s.InvitedAt = tsStr(invited.Time)
			s.StartedAt, s.CompletedAt = toolkit.NullTime(started), toolkit.NullTime(completed)
			if duration.Valid {
				d := int(duration.Int64)
				s.DurationSeconds = &d
			}
			out = append(out, s)
			return nil
		})
	return out, err
}

func candidateName(first, last string) string {
	n := strings.TrimSpace(strings.TrimSpace(first) + " " + strings.TrimSpace(last))
	if n == "" {
		return "(no name)"
	}
	return n
}

func jobDetailsText(o *JobDetailsOutput) *toolkit.Text {
	var t toolkit.Text
	j := &o.Job
	t.H1("Job: %s", j.Title)
	if len(o.OtherMatches) > 0 {
		t.Line("Best match for the name given. Other matching jobs:")
		rows := make([][]string, 0, len(o.OtherMatches))
		for _, m := range o.OtherMatches {
			rows = append(rows, []string{m.Title, m.ID, m.Status, yesNo(m.IsOpen)})
		}
		t.Table([]string{"Title", "jobId", "Status", "Open"}, rows, "")
		t.Blank()
	}
	tpl, creator := "none", "unknown"
	if j.ResumeFitTemplate != nil {
		tpl = fmt.Sprintf("%s (%s)", j.ResumeFitTemplate.Name, j.ResumeFitTemplate.ID)
	}
	if j.CreatedBy != nil {
		creator = toolkit.Str(j.CreatedBy.Name) + " (user " + j.CreatedBy.ID + ")"
	}
	t.KV(
		"Job id", j.ID,
		"External id (ATS)", j.ExternalID,
		"Interviewer id", j.InterviewerID,
		"Candidate-facing title", j.ExternalTitle,
		"Status", j.Status,
		"Open for applications", yesNo(j.IsOpen),
		"Active", yesNo(j.Active)+" (status ACTIVE and not deleted)",
		"Deleted", yesNo(j.Deleted),
		"Identity verification", onOff(j.IdentityVerificationEnabled),
		"Resume-fit template", tpl,
		"Created", j.CreatedAt,
		"Created by", creator,
		"Generated", toolkit.Str(j.GeneratedAt),
		"Link", j.Link,
	)
	if j.FailureReason != nil {
		t.KV("Failure reason", *j.FailureReason)
	}

	t.H2("Interview guide")
	if j.Guide.Exists {
		t.KV("Questions", itoa(j.Guide.Questions), "Grading criteria", itoa(j.Guide.GradingCriteria),
			"Learning objectives", itoa(j.Guide.LearningObjectives), "Skills", itoa(j.Guide.Skills))
		t.Line("(getInterviewGuideDetails shows the full guide.)")
	} else {
		t.Line("No interview guide yet.")
	}

	p := &o.Pipeline
	t.H2("Pipeline")
	t.KV("Applications", itoa(p.Applications), "Candidates (distinct)", itoa(p.Candidates), "Interview sessions", itoa(p.Sessions))
	t.Blank()
	var rows [][]string
	for _, s := range models.AllSessionStatuses() {
		rows = append(rows, []string{string(s), itoa(p.SessionsByStatus[string(s)])})
	}
	t.Table([]string{"Session status", "Sessions"}, rows, "")
	t.Blank()
	rows = nil
	for _, d := range models.AllDecisions() {
		rows = append(rows, []string{string(d), itoa(p.Decisions[string(d)])})
	}
	t.Table([]string{"Decision", "Sessions"}, rows, "")

	filter := ""
	if o.SessionStatus != nil {
		filter = ", status " + *o.SessionStatus
	}
	t.H2("Recent sessions (up to %d%s, newest invitation first)", o.SessionLimit, filter)
	rows = nil
	for _, s := range o.RecentSessions {
		rows = append(rows, []string{s.CandidateName, s.Status, s.Decision, s.MediumType, s.InvitedAt, toolkit.Str(s.CompletedAt), s.Link, s.CandidateLink})
	}
	t.Table([]string{"Candidate", "Status", "Decision", "Medium", "Invited", "Completed", "Session", "Candidate page"}, rows, "No sessions.")
	return &t
}

func onOff(b bool) string {
	if b {
		return "enabled"
	}
	return "disabled"
}
