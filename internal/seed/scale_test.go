package seed_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/rollup"
	"github.com/recruitd/recruitd/internal/seed"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// asOf is the fixed "now" of the data sets under test: every generated row is stamped at or
// before it, while the rows Demo makes are stamped with the wall clock, after it.
var asOf = time.Date(2025, 6, 30, 0, 0, 0, 0, time.UTC)

func smallOptions() seed.ScaleOptions {
	return seed.ScaleOptions{Companies: 3, Candidates: 300, SessionsPerCandidate: 3, Seed: 1, AsOf: asOf, DropIndexesFrom: 1}
}

func newStore(t *testing.T) (*pgtest.DB, *store.Store) {
	t.Helper()
	db := pgtest.New(t)
	st, err := store.FromSQL(db.SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return db, st
}

func scale(t *testing.T, st *store.Store, o seed.ScaleOptions) *seed.ScaleResult {
	t.Helper()
	res, err := seed.Scale(t.Context(), st, o)
	if err != nil {
		t.Fatalf("Scale(%+v): %v", o, err)
	}
	return res
}

func queryInt(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func queryStrings(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// schema lists every index and constraint of the public schema with its definition.
func schema(t *testing.T, db *sql.DB) string {
	t.Helper()
	idx := queryStrings(t, db, `SELECT tablename || ' ' || indexname || ': ' || indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1`)
	cons := queryStrings(t, db, `SELECT conrelid::regclass || ' ' || conname || ': ' || pg_get_constraintdef(oid)
		FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1`)
	trig := queryStrings(t, db, `SELECT tgrelid::regclass || ' ' || tgname || ' ' || tgenabled::text || ': ' || pg_get_triggerdef(oid)
		FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1`)
	if len(idx) < 50 || len(cons) < 50 || len(trig) < 50 {
		t.Fatalf("schema looks empty: %d indexes, %d constraints, %d triggers", len(idx), len(cons), len(trig))
	}
	return strings.Join(idx, "\n") + "\n" + strings.Join(cons, "\n") + "\n" + strings.Join(trig, "\n")
}

// seededTables are the tables Scale fills.
var seededTables = []string{"companies", "users", "company_memberships", "templates", "jobs", "interview_guides",
	"interview_questions", "grading_criteria", "ats_coverage_weeks", "candidates", "applications", "interview_sessions",
	"recruiter_notes", "cheating_evaluations", "fraud_verifications", "identity_verifications"}

// dump fingerprints the generated rows of every seeded table: the md5 of its rows stamped at or
// before asOf, as text, in order. (Rows made by Demo are stamped later, with the clock.)
func dump(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, table := range seededTables {
		var sum string
		var n int
		q := "SELECT md5(coalesce(string_agg(r, E'\\n' ORDER BY r), '')), count(*) FROM (SELECT t::text AS r FROM " + table + " t WHERE created_at <= $1) x"
		if err := db.QueryRow(q, asOf).Scan(&sum, &n); err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		if n == 0 && table != "companies" {
			t.Errorf("dump %s: no generated rows", table)
		}
		out[table] = sum
	}
	return out
}

func TestScale(t *testing.T) {
	db, st := newStore(t)
	before := schema(t, db.SQL)
	earthOID := queryInt(t, db.SQL, "SELECT 'candidates_location_idx'::regclass::oid::int")
	applicantsKeyOID := queryInt(t, db.SQL, "SELECT 'job_applicants_pkey'::regclass::oid::int")
	sessionsTriggerOID := queryInt(t, db.SQL, "SELECT oid::int FROM pg_trigger WHERE tgname = 'interview_sessions_rollup_insert'")
	var progress bytes.Buffer
	o := smallOptions()
	o.Progress = &progress
	res := scale(t, st, o)

	if res.Mode != "parallel" {
		t.Errorf("mode %q, want parallel (the test database role is a superuser)", res.Mode)
	}
	if !res.Demo.CompanyCreated || !res.Demo.KeyCreated {
		t.Errorf("demo = %+v, want the demo tenant and a key created", res.Demo)
	}
	if len(res.Companies) != 3 || res.Companies[0].Slug != seed.DemoSlug || res.Companies[1].Slug == res.Companies[2].Slug {
		t.Fatalf("companies = %+v", res.Companies)
	}
	for _, c := range res.Companies {
		if c.Skipped != "" {
			t.Errorf("company %s skipped: %s", c.Slug, c.Skipped)
		}
	}
	// A bytes.Buffer is not a terminal: a line per step, none redrawn.
	log := progress.String()
	if !strings.Contains(log, "interview_sessions") || !strings.HasSuffix(log, " done\n") || strings.ContainsAny(log, "\r\x1b") {
		t.Errorf("progress output lacks the tables or the end, or redraws:\n%q", log)
	}
	for _, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		if !strings.HasPrefix(line, "seed: ") {
			t.Errorf("progress line %q, want it to start with \"seed: \"", line)
		}
	}

	// Indexes and triggers: dropped and re-created (new oid), identical definitions, nothing
	// missing.
	if after := schema(t, db.SQL); after != before {
		t.Errorf("indexes, constraints or triggers changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if oid := queryInt(t, db.SQL, "SELECT oid::int FROM pg_trigger WHERE tgname = 'interview_sessions_rollup_insert'"); oid == sessionsTriggerOID {
		t.Error("interview_sessions_rollup_insert has its old oid: the load did not drop and re-create the capture triggers")
	}
	if oid := queryInt(t, db.SQL, "SELECT 'candidates_location_idx'::regclass::oid::int"); oid == earthOID {
		t.Error("candidates_location_idx has its old oid: the load did not drop and re-create the indexes (DropIndexesFrom: 1)")
	}
	if oid := queryInt(t, db.SQL, "SELECT 'job_applicants_pkey'::regclass::oid::int"); oid == applicantsKeyOID {
		t.Error("job_applicants_pkey has its old oid: the load did not drop and re-create the key")
	}

	// Row counts per company.
	reported := map[string]int64{}
	for _, r := range res.Rows {
		reported[r.Table] = r.Rows
	}
	for _, c := range res.Companies {
		count := func(table string) int {
			return queryInt(t, db.SQL, "SELECT count(*) FROM "+table+" WHERE company_id = $1 AND created_at <= $2", c.ID, asOf)
		}
		if n := count("candidates"); n != 300 {
			t.Errorf("%s: %d generated candidates, want 300", c.Slug, n)
		}
		if n := count("jobs"); n != 20 {
			t.Errorf("%s: %d generated jobs, want 20 (the minimum)", c.Slug, n)
		}
		sessions, apps := count("interview_sessions"), count("applications")
		if sessions < 2*300 || sessions > 4*300 {
			t.Errorf("%s: %d sessions, want about 3 per candidate", c.Slug, sessions)
		}
		if apps != sessions {
			t.Errorf("%s: %d applications for %d sessions, want one each", c.Slug, apps, sessions)
		}
		for _, table := range []string{"templates", "interview_guides", "interview_questions", "grading_criteria", "recruiter_notes"} {
			if count(table) == 0 {
				t.Errorf("%s: no %s", c.Slug, table)
			}
		}
		if n := queryInt(t, db.SQL, "SELECT count(*) FROM company_memberships m JOIN users u ON u.id = m.user_id WHERE m.company_id = $1 AND u.email LIKE '%@' || $2 || '.example.com' AND m.created_at <= $3", c.ID, c.Slug, asOf); n < 4 {
			t.Errorf("%s: %d generated recruiters, want at least 4", c.Slug, n)
		}
		coverage := count("ats_coverage_weeks")
		if want := map[bool]int{true: 26, false: 0}[c.Index == 1]; coverage != want {
			t.Errorf("%s: %d coverage weeks, want %d", c.Slug, coverage, want)
		}
	}
	for _, table := range seededTables {
		var n int64
		if table == "companies" {
			n = int64(queryInt(t, db.SQL, "SELECT count(*) FROM companies WHERE created_at <= $1", asOf))
		} else {
			n = int64(queryInt(t, db.SQL, "SELECT count(*) FROM "+table+" WHERE created_at <= $1", asOf))
		}
		if reported[table] != n {
			t.Errorf("%s: result says %d rows loaded, table holds %d", table, reported[table], n)
		}
	}
	if n := queryInt(t, db.SQL, "SELECT count(*) FROM companies"); n != 3 {
		t.Errorf("%d companies, want 3", n)
	}

	// A generated company's rows lie in the order of the keys that the load's index builds sort
	// by, so that the builds find them sorted.
	for _, c := range res.Companies[1:] {
		for name, q := range map[string]string{
			"interview_sessions (company, candidate, created_at DESC)": `SELECT count(*) FILTER (WHERE candidate_id < pc OR (candidate_id = pc AND created_at > pt))
				FROM (SELECT candidate_id, created_at, lag(candidate_id) OVER w pc, lag(created_at) OVER w pt
				      FROM interview_sessions WHERE company_id = $1 WINDOW w AS (ORDER BY ctid)) x`,
			"interview_sessions (id)":             `SELECT count(*) FILTER (WHERE id < p) FROM (SELECT id, lag(id) OVER (ORDER BY ctid) p FROM interview_sessions WHERE company_id = $1) x`,
			"interview_sessions (application_id)": `SELECT count(*) FILTER (WHERE application_id < p) FROM (SELECT application_id, lag(application_id) OVER (ORDER BY ctid) p FROM interview_sessions WHERE company_id = $1) x`,
			"applications (id)":                   `SELECT count(*) FILTER (WHERE id < p) FROM (SELECT id, lag(id) OVER (ORDER BY ctid) p FROM applications WHERE company_id = $1) x`,
			"candidate_media (candidate, medium)": `SELECT count(*) FILTER (WHERE (candidate_id, medium_type) < (pc, pm))
				FROM (SELECT candidate_id, medium_type, lag(candidate_id) OVER w pc, lag(medium_type) OVER w pm
				      FROM candidate_media WHERE company_id = $1 WINDOW w AS (ORDER BY ctid)) x`,
		} {
			if n := queryInt(t, db.SQL, q, c.ID); n != 0 {
				t.Errorf("%s: %d rows of %s out of key order", c.Slug, n, name)
			}
		}
	}
	if n := queryInt(t, db.SQL, "SELECT count(*) FROM companies WHERE fraud_detection_enabled AND model_cheat_detection_enabled AND ats_type = 'ATS-A' AND slug = 'demo'"); n != 1 {
		t.Error("the demo tenant lost its flags or ATS type")
	}

	// Every enumeration value shows up, but the two statuses only a real interview reaches (a
	// candidate who declines the notice, or starts and never finishes): the scale data predates
	// the interview page, and its sessions keep the five statuses the demo data always had.
	sessionStatuses := slices.DeleteFunc(models.AllSessionStatuses(), func(s models.SessionStatus) bool {
		return s == models.SessionStatusIncomplete || s == models.SessionStatusDeclined
	})
	for col, values := range map[string][]string{
		"status":      enumStrings(sessionStatuses),
		"medium_type": enumStrings(models.AllMediumTypes()),
		"decision":    enumStrings(models.AllDecisions()),
	} {
		got := queryStrings(t, db.SQL, "SELECT DISTINCT "+col+" FROM interview_sessions")
		for _, v := range values {
			if !containsStr(got, v) {
				t.Errorf("interview_sessions.%s never %s (got %v)", col, v, got)
			}
		}
	}
	got := queryStrings(t, db.SQL, "SELECT DISTINCT status FROM candidates")
	for _, v := range []string{"new", "screening", "interviewing", "offered", "hired", "rejected", "withdrawn"} {
		if !containsStr(got, v) {
			t.Errorf("candidates.status never %s (got %v)", v, got)
		}
	}
	got = queryStrings(t, db.SQL, "SELECT DISTINCT status FROM jobs")
	for _, v := range enumStrings(models.AllJobStatuses()) {
		if !containsStr(got, v) {
			t.Errorf("jobs.status never %s (got %v)", v, got)
		}
	}

	// Integrity tables, flagged rows included.
	for name, q := range map[string]string{
		"cheating evaluations":            "SELECT count(*) FROM cheating_evaluations",
		"flagged cheating evaluations":    "SELECT count(*) FROM cheating_evaluations e JOIN companies c ON c.id = e.company_id WHERE e.cheating_score >= c.cheat_threshold",
		"fraud verifications":             "SELECT count(*) FROM fraud_verifications",
		"high-risk fraud verifications":   "SELECT count(*) FROM fraud_verifications WHERE overall_verification_score < 50",
		"identity verifications":          "SELECT count(*) FROM identity_verifications",
		"failed identity verifications":   "SELECT count(*) FROM identity_verifications WHERE status = 'FAILED' AND failure_reason IS NOT NULL",
		"template-marked questions":       "SELECT count(*) FROM interview_questions WHERE template_id IS NOT NULL",
		"jobs with a resume-fit template": "SELECT count(*) FROM jobs WHERE resume_fit_template_id IS NOT NULL",
		"coverage ids that match a job":   "SELECT count(*) FROM ats_coverage_weeks w, unnest(w.ats_job_ids) x(ext) WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = w.company_id AND j.external_id = x.ext)",
		"coverage ids that match no job":  "SELECT count(*) FROM ats_coverage_weeks w, unnest(w.ats_job_ids) x(ext) WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.company_id = w.company_id AND j.external_id = x.ext)",
	} {
		if queryInt(t, db.SQL, q) == 0 {
			t.Errorf("no %s", name)
		}
	}
	// Rows only where the company's flags or the job's setting allow them.
	for name, q := range map[string]string{
		"cheating rows without cheating detection": "SELECT count(*) FROM cheating_evaluations e JOIN companies c ON c.id = e.company_id WHERE NOT c.model_cheat_detection_enabled",
		"fraud rows without fraud detection":       "SELECT count(*) FROM fraud_verifications f JOIN companies c ON c.id = f.company_id WHERE NOT c.fraud_detection_enabled",
		"identity rows of jobs without it":         "SELECT count(*) FROM identity_verifications v JOIN jobs j ON j.id = v.job_id WHERE NOT j.enable_identity_verification",
		"cheating rows of unfinished sessions":     "SELECT count(*) FROM cheating_evaluations e JOIN interview_sessions s ON s.id = e.session_id WHERE s.status <> 'COMPLETED'",
		"sessions completed before invited":        "SELECT count(*) FROM interview_sessions WHERE completed_at < invited_at OR started_at < invited_at",
		"sessions invited before the job existed":  "SELECT count(*) FROM interview_sessions s JOIN jobs j ON j.id = s.job_id WHERE s.created_at <= $1 AND s.invited_at < j.created_at",
		"rows stamped after as-of":                 "SELECT count(*) FROM interview_sessions WHERE created_at <= $1 AND greatest(invited_at, started_at, completed_at, updated_at) > $1",
		"sessions of jobs without a guide":         "SELECT count(*) FROM interview_sessions s WHERE NOT EXISTS (SELECT 1 FROM interview_guides g WHERE g.job_id = s.job_id)",
		"candidates outside the US":                "SELECT count(*) FROM candidates WHERE created_at <= $1 AND (country <> 'US' OR latitude NOT BETWEEN 18 AND 72 OR longitude NOT BETWEEN -170 AND -66 OR location <> city || ', ' || state)",
		"phones not in E.164":                      "SELECT count(*) FROM candidates WHERE phone !~ '^\\+1[2-9][0-9]{2}55501[0-9]{2}$' AND created_at <= $1",
	} {
		args := []any{}
		if strings.Contains(q, "$1") {
			args = append(args, asOf)
		}
		if n := queryInt(t, db.SQL, q, args...); n != 0 {
			t.Errorf("%d %s", n, name)
		}
	}
	// The planner has statistics.
	if n := queryInt(t, db.SQL, "SELECT count(*) FROM pg_stat_user_tables WHERE relname IN ('candidates', 'interview_sessions') AND last_analyze IS NOT NULL"); n != 2 {
		t.Error("the loaded tables were not analysed")
	}

	// Running it again skips every company and changes nothing; a fourth company is added.
	counts := dump(t, db.SQL)
	again := scale(t, st, o)
	for _, c := range again.Companies {
		if c.Skipped == "" {
			t.Errorf("second run generated %s again", c.Slug)
		}
	}
	if len(again.Rows) != 0 {
		t.Errorf("second run loaded %v", again.Rows)
	}
	for table, sum := range dump(t, db.SQL) {
		if sum != counts[table] {
			t.Errorf("%s changed on the second run", table)
		}
	}
	o.Companies = 4
	more := scale(t, st, o)
	if more.Companies[3].Skipped != "" || more.Companies[0].Skipped == "" {
		t.Errorf("companies on growing the data set: %+v", more.Companies)
	}
	if n := queryInt(t, db.SQL, "SELECT count(*) FROM candidates WHERE company_id = $1", more.Companies[3].ID); n != 300 {
		t.Errorf("the fourth company has %d candidates, want 300", n)
	}
	if n := queryInt(t, db.SQL, "SELECT count(*) FROM candidates WHERE company_id <> $1", more.Companies[3].ID); n != 3*300+3 {
		t.Errorf("%d candidates outside the fourth company, want %d (3 companies of 300 and the demo's own 3)", n, 3*300+3)
	}
	if after := schema(t, db.SQL); after != before {
		t.Error("indexes or constraints changed on the second and third run")
	}
}

func TestScaleIsDeterministic(t *testing.T) {
	parallelDB, parallelStore := newStore(t)
	checkedDB, checkedStore := newStore(t)
	otherDB, otherStore := newStore(t)

	o := smallOptions()
	scale(t, parallelStore, o)
	// The checked load runs every foreign key check row by row: identical data proves that the
	// parallel load, which skips them, produces consistent rows.
	o.Checked = true
	if res := scale(t, checkedStore, o); res.Mode != "checked" {
		t.Errorf("mode %q, want checked", res.Mode)
	}
	o.Checked, o.Seed = false, 2
	scale(t, otherStore, o)

	// The checked load ran the rollup triggers over COPY; the parallel load rebuilt the rollups
	// after it. Both must equal a fresh rebuild.
	for name, db := range map[string]*sql.DB{"parallel": parallelDB.SQL, "checked": checkedDB.SQL} {
		rows, err := db.Query("SELECT id FROM companies")
		if err != nil {
			t.Fatal(err)
		}
		var ids []uuid.UUID
		for rows.Next() {
			var id uuid.UUID
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		for _, id := range ids {
			if err := rollup.Check(context.Background(), db, id); err != nil {
				t.Errorf("%s load: %v", name, err)
			}
		}
	}

	a, b, c := dump(t, parallelDB.SQL), dump(t, checkedDB.SQL), dump(t, otherDB.SQL)
	for _, table := range seededTables {
		if a[table] != b[table] {
			t.Errorf("%s differs between two loads with seed 1", table)
		}
		if a[table] == c[table] && table != "companies" {
			t.Errorf("%s is the same with seeds 1 and 2", table)
		}
	}
	var demo1, demo2 string
	parallelDB.SQL.QueryRow("SELECT id::text FROM companies WHERE slug = 'demo'").Scan(&demo1)
	checkedDB.SQL.QueryRow("SELECT id::text FROM companies WHERE slug = 'demo'").Scan(&demo2)
	if demo1 == "" || demo1 != demo2 {
		t.Errorf("demo tenant ids %q and %q, want the same seed-derived id", demo1, demo2)
	}
}

func TestScaleCancelRollsBack(t *testing.T) {
	db, st := newStore(t)
	before := schema(t, db.SQL)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Cancel as soon as the candidates are being copied.
	go func() {
		for ctx.Err() == nil {
			var n int
			db.SQL.QueryRowContext(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY candidates%'").Scan(&n)
			if n > 0 {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	o := seed.ScaleOptions{Companies: 2, Candidates: 50_000, SessionsPerCandidate: 3, Seed: 1, AsOf: asOf, DropIndexesFrom: 1}
	_, err := seed.Scale(ctx, st, o)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "nothing was committed") {
		t.Fatalf("Scale = %v, want it interrupted", err)
	}
	for _, table := range seededTables {
		if n := queryInt(t, db.SQL, "SELECT count(*) FROM "+table+" WHERE created_at <= $1", asOf); n != 0 {
			t.Errorf("%s: %d rows committed by the interrupted load", table, n)
		}
	}
	if after := schema(t, db.SQL); after != before {
		t.Errorf("indexes or constraints changed by the interrupted load:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func enumStrings[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
