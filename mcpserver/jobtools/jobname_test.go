package jobtools_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/recruitd/recruitd/mcpserver/jobtools"
	"github.com/recruitd/recruitd/mcpserver/toolkit/tooltest"
	"github.com/recruitd/recruitd/models"
)

// TestJobNameAmongRepeatedTitles: a company repeats its titles, and the match reads titles
// first and then the newest jobs of the best ones. The best match is the newest non-deleted job
// of the exact title (in any case), the others follow by title rank and then newest first, and
// a title that only resembles the name is not offered while some title has every word.
func TestJobNameAmongRepeatedTitles(t *testing.T) {
	t.Parallel()
	h := tooltest.New(t, now, jobtools.Register)
	co := h.Company(t, "titles", "Titles Inc", nil)
	other := h.Company(t, "other", "Other Inc", nil)
	db := h.Store.DB().WithContext(t.Context())
	base := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	n := 0
	job := func(c *models.Company, title string, day int, deleted bool) string {
		t.Helper()
		n++
		j := &models.Job{CompanyID: c.ID, ExternalID: fmt.Sprintf("T-%d", n), InterviewerID: fmt.Sprintf("%s-%d", c.Slug, n),
			Title: title, Status: models.JobStatusActive, IsOpen: true, IsDeleted: deleted,
			CreatedAt: base.AddDate(0, 0, day), UpdatedAt: base.AddDate(0, 0, day)}
		if err := db.Create(j).Error; err != nil {
			t.Fatal(err)
		}
		return j.ID.String()
	}
	var exact []string // newest first
	for day := 1; day <= 12; day++ {
		title := "Support Team Lead"
		if day%4 == 0 {
			title = "support team lead"
		}
		exact = append([]string{job(co, title, day, false)}, exact...)
	}
	job(co, "Support Team Lead", 40, true) // the newest, deleted
	job(co, "Senior Support Team Lead", 30, false)
	job(co, "Support Lead", 35, false) // resembles, lacks the word team
	job(other, "Support Team Lead", 50, false)

	var got struct {
		Job          struct{ ID, Title string }
		OtherMatches []struct{ ID string } `json:"otherMatches"`
	}
	r := h.OK(t, tooltest.KeyCaller(co), "getJobDetails", map[string]any{"jobName": "support TEAM lead"})
	r.Decode(t, &got)
	if got.Job.ID != exact[0] {
		t.Errorf("best match %s %q, want the newest exact title %s", got.Job.ID, got.Job.Title, exact[0])
	}
	var others []string
	for _, o := range got.OtherMatches {
		others = append(others, o.ID)
	}
	if fmt.Sprint(others) != fmt.Sprint(exact[1:6]) {
		t.Errorf("other matches %v, want the next five exact titles newest first %v", others, exact[1:6])
	}

	// Every word, then resemblance: the senior title outranks the one-word-short title.
	r = h.OK(t, tooltest.KeyCaller(co), "getJobDetails", map[string]any{"jobName": "senior support lead"})
	got.OtherMatches = nil
	r.Decode(t, &got)
	if got.Job.Title != "Senior Support Team Lead" || len(got.OtherMatches) != 0 {
		t.Errorf("senior support lead: %q, others %v; want Senior Support Team Lead alone", got.Job.Title, got.OtherMatches)
	}
}
