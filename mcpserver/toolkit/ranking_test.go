package toolkit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
	"github.com/recruitd/recruitd/models"
)

type rankOutput struct {
	Jobs, Count int64
	Titles      []string
	toolkit.Notices
}

// TestRankJobsCutsAfterTheTies: RankJobs lists the top rows by its order, ties broken by the
// title even where the tie spans the cut, and counts every job of the aggregate, listed or not;
// another company's jobs never appear.
func TestRankJobsCutsAfterTheTies(t *testing.T) {
	h := tooltest.New(t, time.Time{}, func(s *mcp.Server, env *toolkit.Env) {
		toolkit.Add(s, env, &mcp.Tool{Name: "rank", Description: "test tool"}, func(ctx context.Context, call *toolkit.Call, in struct{ toolkit.CompanyArg }) (rankOutput, *toolkit.Text, error) {
			q := toolkit.NewQuery(call.Company.ID)
			// count from the title's last character: "job 7" counts 7 sessions, part 1 of them.
			agg := `SELECT id, right(title, 1)::int, 1 FROM jobs WHERE company_id = $1`
			r, err := call.RankJobs(ctx, q, agg, "a.count DESC", 3, "sessions", "sessions")
			if err != nil {
				return rankOutput{}, nil, err
			}
			out := rankOutput{Jobs: r.Jobs, Count: r.Count}
			for _, j := range r.Rows {
				out.Titles = append(out.Titles, j.Title)
			}
			return out, &toolkit.Text{}, nil
		})
	})
	acme := h.Company(t, "acme", "Acme Corp", nil)
	other := h.Company(t, "other", "Other Inc", nil)
	job := func(c *models.Company, title string) {
		j := &models.Job{ID: uuid.New(), CompanyID: c.ID, ExternalID: title, InterviewerID: c.Slug + "-" + title, Title: title,
			ExternalTitle: title, Status: models.JobStatusActive, IsOpen: true}
		if err := h.Store.DB().Create(j).Error; err != nil {
			t.Fatal(err)
		}
	}
	// Sessions 9, then four jobs tied at 5 across the cut of 3, then 2 and 1.
	for _, title := range []string{"d 5", "b 5", "z 9", "e 1", "c 5", "a 5", "f 2"} {
		job(acme, title)
	}
	job(other, "x 9")
	var out rankOutput
	h.OK(t, tooltest.KeyCaller(acme), "rank", nil).Decode(t, &out)
	if got, want := fmt.Sprint(out.Titles), "[z 9 a 5 b 5]"; got != want {
		t.Errorf("ranked %s, want %s (the ties at 5 by title)", got, want)
	}
	if out.Jobs != 7 || out.Count != 9+4*5+2+1 {
		t.Errorf("jobs %d, count %d; want 7 and 32, over every job listed or not", out.Jobs, out.Count)
	}
	if len(out.Messages) != 1 {
		t.Errorf("notices %v, want one saying 7 jobs have sessions", out.Messages)
	}
}
