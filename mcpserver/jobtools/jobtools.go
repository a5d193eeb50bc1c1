// Package jobtools is the tool family about jobs (positions, interviewers) and company
// configuration: job details and summaries, position and pipeline statistics, interview guides,
// templates, company features and the ATS connection.
//
// Every query is parameterised SQL on the store's *sql.DB with company_id = $1 on every table it
// touches (users are reached only through the company's memberships), so a tool never reads
// another company's rows. Soft-deleted jobs are left out everywhere except getJobDetails and
// getInterviewGuideDetails asked for one job by id (where the output says it is deleted).
package jobtools

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// Register adds the job and company-configuration tools to s.
func Register(s *mcp.Server, env *toolkit.Env) {
	registerJobDetails(s, env)
	registerJobsSummary(s, env)
	registerPositionStats(s, env)
	registerPipelineStats(s, env)
	registerGuide(s, env)
	registerTemplates(s, env)
	registerFeatures(s, env)
	registerATS(s, env)
}

// positiveDecisions are the decisions that move a candidate forward (the funnel's
// "positive decision" stage).
var positiveDecisions = []models.Decision{models.DecisionAccepted, models.DecisionSubmitted, models.DecisionPlaced, models.DecisionHired}

// containsPatterns turns free text into ILIKE patterns, one per word, each matching the word
// anywhere (so "engineer backend" matches "Backend Engineer"); nil when s has no words.
func containsPatterns(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		out = append(out, toolkit.LikeContains(w))
	}
	return out
}

// textArray is a []string argument for a text[] parameter.
func textArray(vs []string) models.StringArray {
	if vs == nil {
		return models.StringArray{}
	}
	return models.StringArray(vs)
}

// parseJobID parses a job UUID argument.
func parseJobID(name, v string) (uuid.UUID, error) {
	id, err := uuid.Parse(strings.TrimSpace(v))
	if err != nil {
		return uuid.Nil, toolkit.Errorf("%s %q is not a job UUID; getJobsSummary lists job ids (or use getJobDetails with jobName)", name, v)
	}
	return id, nil
}

// jobRef is the short form of a job in outputs.
type jobRef struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	ExternalID string `json:"externalId" jsonschema:"the ATS job id"`
	Status     string `json:"status"`
	IsOpen     bool   `json:"isOpen"`
	Deleted    bool   `json:"deleted" jsonschema:"true when the job is soft-deleted"`
	Link       string `json:"link" jsonschema:"deep link to the job's page"`
}

// loadJobRef loads one job of the company, deleted or not; ok is false when there is none.
func loadJobRef(ctx context.Context, call *toolkit.Call, id uuid.UUID) (jobRef, bool, error) {
	var r jobRef
	var jid uuid.UUID
	err := call.Env.Store.SQL().QueryRowContext(ctx,
		`SELECT id, title, external_id, status, is_open, is_deleted FROM jobs WHERE company_id = $1 AND id = $2`,
		call.Company.ID, id).Scan(&jid, &r.Title, &r.ExternalID, &r.Status, &r.IsOpen, &r.Deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	r.ID, r.Link = jid.String(), call.Env.Links.Job(jid)
	return r, true, nil
}

// scopeText names a job scope for output text.
func scopeText(j *jobRef, source string) string {
	if j == nil {
		return "company-wide"
	}
	return fmt.Sprintf("job %q (%s, %s)", j.Title, j.ID, source)
}

// resolveScope resolves positionId / companyWide / the request's job context into a job (nil
// means company-wide) and how it was chosen: "positionId", "jobContext" or "companyWide".
func resolveScope(ctx context.Context, call *toolkit.Call, positionID string, companyWide bool) (*jobRef, string, error) {
	positionID = strings.TrimSpace(positionID)
	if companyWide && positionID != "" {
		return nil, "", toolkit.Errorf("pass either positionId or companyWide: true, not both")
	}
	id, err := call.Position(ctx, positionID, companyWide)
	if err != nil || id == nil {
		return nil, "companyWide", err
	}
	source := "jobContext"
	if positionID != "" {
		source = "positionId"
	}
	j, ok, err := loadJobRef(ctx, call, *id)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", toolkit.Errorf("positionId %s is not a job of this company", id)
	}
	return &j, source, nil
}

// scope is the JSON form of a tool's resolved job scope.
type scope struct {
	Kind string  `json:"kind" jsonschema:"companyWide, positionId (explicit argument) or jobContext (the job open in the client)"`
	Job  *jobRef `json:"job" jsonschema:"the job the figures are about; null when company-wide"`
}

func dateStr(t time.Time) string { return toolkit.Date(t) }

func tsStr(t time.Time) string { return toolkit.Timestamp(t) }

func optTS(t sql.NullTime) *string {
	if !t.Valid {
		return nil
	}
	s := toolkit.Timestamp(t.Time)
	return &s
}

func optStr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func itoa(n int) string { return strconv.Itoa(n) }

// windowOut is the JSON form of a date window.
type windowOut struct {
	Since *string `json:"since" jsonschema:"inclusive start (RFC 3339); null when unbounded"`
	Until *string `json:"until" jsonschema:"exclusive end (RFC 3339); null when unbounded"`
}

func windowJSON(w toolkit.Window) windowOut {
	var o windowOut
	if w.Since != nil {
		s := toolkit.Timestamp(*w.Since)
		o.Since = &s
	}
	if w.Until != nil {
		s := toolkit.Timestamp(*w.Until)
		o.Until = &s
	}
	return o
}

// collect runs q and calls scan for every row.
func collect(ctx context.Context, db *sql.DB, q string, args []any, scan func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
