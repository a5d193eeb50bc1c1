// Package jobtools is the tool family about jobs (positions, interviewers) and company
// configuration: job details and summaries, position and pipeline statistics, interview guides,
// templates, company features and the ATS connection.
//
// Every query is parameterised SQL in the call's read-only snapshot (toolkit.Call.DB) with
// company_id = $1 on every table it touches (users are reached only through the company's
// memberships), so a tool never reads another company's rows. Soft-deleted jobs are left out everywhere except getJobDetails and
// getInterviewGuideDetails asked for one job by id (where the output says it is deleted).
package jobtools

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

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

func dateStr(t time.Time) string { return toolkit.Date(t) }

func tsStr(t time.Time) string { return toolkit.Timestamp(t) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func itoa(n int) string { return strconv.Itoa(n) }

// collect runs q and calls scan for every row.
func collect(ctx context.Context, db toolkit.Querier, q string, args []any, scan func(*sql.Rows) error) error {
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
