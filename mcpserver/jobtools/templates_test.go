package jobtools_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/rollup"
)

// TestListTemplatesFollowsGuidesAndJobs: listTemplates counts active jobs from resume_fit_jobs and
// guide_template_jobs (migration 00067), which the jobs' triggers keep, guide_template_jobs by the
// jobs' guide_from_template, which the questions', criteria's and guides' triggers keep. After
// each change, pending and folded, its counts are those of the source rows (the statements the
// tool ran before), and rollups check finds the rollups exact.
func TestListTemplatesFollowsGuidesAndJobs(t *testing.T) {
	f := newFixture(t)
	db, ctx := f.h.DB.SQL, t.Context()
	var rfSales, igAssess uuid.UUID
	if err := db.QueryRowContext(ctx, `SELECT
			(SELECT id FROM templates WHERE company_id = $1 AND name = 'Sales Fit'),
			(SELECT id FROM templates WHERE company_id = $1 AND name = 'Assessment Basics')`, f.acme.ID).Scan(&rfSales, &igAssess); err != nil {
		t.Fatal(err)
	}
	guideOf := func(job uuid.UUID) (g uuid.UUID) {
		t.Helper()
		if err := db.QueryRowContext(ctx, `SELECT id FROM interview_guides WHERE job_id = $1`, job).Scan(&g); err != nil {
			t.Fatal(err)
		}
		return g
	}
	// The source rows, as listTemplates read them before the rollups.
	source := func() (resumeFit map[string]float64, guides float64) {
		t.Helper()
		resumeFit = map[string]float64{}
		rows, err := db.QueryContext(ctx, `SELECT t.name, count(*) FROM jobs j JOIN templates t ON t.id = j.resume_fit_template_id
			WHERE j.company_id = $1 AND j.status = 'ACTIVE' AND NOT j.is_deleted GROUP BY t.name`, f.acme.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			var n float64
			if err := rows.Scan(&name, &n); err != nil {
				t.Fatal(err)
			}
			resumeFit[name] = n
		}
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM jobs j
			JOIN interview_guides g ON g.company_id = $1 AND g.job_id = j.id
			WHERE j.company_id = $1 AND j.status = 'ACTIVE' AND NOT j.is_deleted
			  AND g.id IN (SELECT q.guide_id FROM interview_questions q WHERE q.company_id = $1 AND q.template_id IS NOT NULL
			               UNION SELECT c.guide_id FROM grading_criteria c WHERE c.company_id = $1 AND c.template_id IS NOT NULL)`,
			f.acme.ID).Scan(&guides); err != nil {
			t.Fatal(err)
		}
		return resumeFit, guides
	}
	check := func(when string) {
		t.Helper()
		wantRF, wantGuides := source()
		m, _ := f.decode(t, "listTemplates", map[string]any{"includeUnused": true})
		gotRF := map[string]float64{}
		for _, x := range jsonPath(t, m, "resumeFit.topTemplates").([]any) {
			if n := num(t, x, "jobCount"); n > 0 {
				gotRF[jsonPath(t, x, "name").(string)] = n
			}
		}
		var total float64
		for _, n := range wantRF {
			total += n
		}
		if !maps.Equal(gotRF, wantRF) || num(t, m, "resumeFit.jobsUsingType") != total {
			t.Errorf("%s: resume-fit jobs %v (%v in all); the jobs say %v", when, gotRF, num(t, m, "resumeFit.jobsUsingType"), wantRF)
		}
		if got := num(t, m, "interviewGuide.jobsUsingType"); got != wantGuides {
			t.Errorf("%s: jobs using guide templates %v; the guides say %v", when, got, wantGuides)
		}
		if err := rollup.Check(ctx, db, f.acme.ID); err != nil {
			t.Errorf("%s: %v", when, err)
		}
	}
	step := func(when string, stmts ...string) {
		t.Helper()
		for _, s := range stmts {
			f.exec(t, s)
		}
		check(when)
		f.exec(t, `SELECT rollup_fold()`)
		check(when + ", folded")
	}
	check("the fixture")
	// The fixture's counts, so that the steps below start from known ones: J1 and J2 use
	// Engineering Fit, J1's guide has a question of Behavioral Core and J2's a criterion of
	// Assessment Basics (J3 paused and J7 deleted do not count).
	if rf, g := source(); !maps.Equal(rf, map[string]float64{"Engineering Fit": 2}) || g != 2 {
		t.Fatalf("the fixture's source rows: %v %v", rf, g)
	}

	j1, j2, j3, j6 := f.j[1].String(), f.j[2].String(), f.j[3].String(), f.j[6].String()
	g2, g6 := guideOf(f.j[2]).String(), guideOf(f.j[6]).String()
	step("J1's guide replaced by one without templates (as SaveGuide does)",
		`DELETE FROM interview_guides WHERE job_id = '`+j1+`'`,
		fmt.Sprintf(`WITH g AS (INSERT INTO interview_guides (company_id, job_id) VALUES ('%s', '%s') RETURNING id)
			INSERT INTO interview_questions (company_id, guide_id, position, text, source) SELECT '%[1]s', g.id, 1, 'Plain', 'generated' FROM g`,
			f.acme.ID, j1))
	step("a question of J6's guide copied from a template", `UPDATE interview_questions SET template_id = '`+igAssess.String()+`' WHERE guide_id = '`+g6+`'`)
	step("a second marked item on J2's guide, then its first one unmarked",
		`INSERT INTO interview_questions (company_id, guide_id, position, text, source, template_id)
			VALUES ('`+f.acme.ID.String()+`', '`+g2+`', 9, 'From the template', 'additional', '`+igAssess.String()+`')`,
		`UPDATE grading_criteria SET template_id = NULL WHERE guide_id = '`+g2+`'`)
	step("J2's last marked item deleted", `DELETE FROM interview_questions WHERE guide_id = '`+g2+`' AND template_id IS NOT NULL`)
	step("J6's marked question moved to J2's guide", `UPDATE interview_questions SET guide_id = '`+g2+`', position = 5 WHERE guide_id = '`+g6+`'`)
	step("and back", `UPDATE interview_questions SET guide_id = '`+g6+`', position = 0 WHERE guide_id = '`+g2+`' AND position = 5`)
	step("J3 activated, J6 paused", `UPDATE jobs SET status = 'ACTIVE' WHERE id = '`+j3+`'`, `UPDATE jobs SET status = 'PAUSED' WHERE id = '`+j6+`'`)
	step("J6 active again with Sales Fit, J2 deleted",
		`UPDATE jobs SET status = 'ACTIVE', resume_fit_template_id = '`+rfSales.String()+`' WHERE id = '`+j6+`'`,
		`UPDATE jobs SET is_deleted = true WHERE id = '`+j2+`'`)
	step("Engineering Fit deleted (its jobs lose it)", `DELETE FROM templates WHERE id = '`+f.rfEngineering.String()+`'`)
	step("J6's guide moved to J1 (J1's own guide deleted first)",
		`DELETE FROM interview_guides WHERE job_id = '`+j1+`'`,
		`UPDATE interview_guides SET job_id = '`+j1+`' WHERE id = '`+g6+`'`)
	step("J3 deleted with its guide", `DELETE FROM jobs WHERE id = '`+j3+`'`)

	rf, g := source()
	if len(rf) == 0 || g == 0 {
		t.Fatalf("the steps left nothing to count (%v, %v): the last checks prove nothing", rf, g)
	}
	if names := slices.Sorted(maps.Keys(rf)); !slices.Equal(names, []string{"Sales Fit"}) {
		t.Errorf("resume-fit templates in use at the end: %v, want Sales Fit (J6)", names)
	}
}
