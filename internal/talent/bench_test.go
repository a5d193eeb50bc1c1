package talent

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/pgtest"
)

// BenchmarkSearch1M measures Search on 1,000,000 synthetic candidates of one company. It is
// skipped unless RECRUITD_BENCH_1M=1 (loading takes about a minute). Each query reports p50 and
// p95 in ms. Optional: RECRUITD_BENCH_EXPLAIN=DIR writes EXPLAIN ANALYZE of each statement to
// DIR/NAME.plan; RECRUITD_BENCH_DB=URL uses (and keeps) that migrated database instead of a
// throwaway one, loading it on first use; RECRUITD_BENCH_ONLY=NAME runs the matching queries.
//
//	RECRUITD_BENCH_1M=1 go test -run '^$' -bench Search1M -benchtime 20x ./internal/talent/
func BenchmarkSearch1M(b *testing.B) {
	if os.Getenv("RECRUITD_BENCH_1M") != "1" {
		b.Skip("set RECRUITD_BENCH_1M=1 to load 1,000,000 candidates")
	}
	ctx := context.Background()
	var db *sql.DB
	if url := os.Getenv("RECRUITD_BENCH_DB"); url != "" {
		// A migrated database kept between runs: loaded once, reused after.
		var err error
		if db, err = sql.Open("pgx", url); err != nil {
			b.Fatal(err)
		}
		defer db.Close()
	} else {
		db = pgtest.New(b).SQL
	}
	var company uuid.UUID
	err := db.QueryRowContext(ctx, `SELECT id FROM companies WHERE slug = 'bench'`).Scan(&company)
	if errors.Is(err, sql.ErrNoRows) {
		company = loadSynthetic(ctx, b, db)
	} else if err != nil {
		b.Fatal(err)
	}
	runBench(ctx, b, db, company)
}

// loadSynthetic inserts the 1,000,000 candidates of a new company "bench".
func loadSynthetic(ctx context.Context, b *testing.B, db *sql.DB) uuid.UUID {
	var company uuid.UUID
	if err := db.QueryRowContext(ctx, `INSERT INTO companies (slug, name) VALUES ('bench', 'Bench') RETURNING id`).Scan(&company); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for _, stmt := range []string{
		"DROP INDEX candidates_search_idx", "DROP INDEX candidates_location_idx",
		fmt.Sprintf(syntheticInsert, company),
		"CREATE INDEX candidates_search_idx ON candidates USING gin (search)",
		`CREATE INDEX candidates_location_idx ON candidates USING gist (point(longitude, latitude))
		 WHERE latitude IS NOT NULL AND longitude IS NOT NULL`,
		"VACUUM ANALYZE candidates",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			b.Fatalf("%.60s: %v", stmt, err)
		}
	}
	b.Logf("loaded 1,000,000 candidates in %v", time.Since(start).Round(time.Second))
	return company
}

func runBench(ctx context.Context, b *testing.B, db *sql.DB, company uuid.UUID) {
	only := os.Getenv("RECRUITD_BENCH_ONLY")
	for _, bq := range benchQueries {
		if only != "" && !strings.Contains(bq.name, only) {
			continue
		}
		b.Run(bq.name, func(b *testing.B) {
			if _, err := Search(ctx, db, company, bq.p); err != nil { // warm
				b.Fatal(err)
			}
			var times []time.Duration
			var res *Result
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				r, err := Search(ctx, db, company, bq.p)
				if err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t0))
				res = r
			}
			slices.Sort(times)
			pct := func(p float64) float64 {
				return float64(times[min(len(times)-1, int(p*float64(len(times))))].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.95), "p95-ms")
			b.ReportMetric(float64(res.Total), "matches")
			b.Logf("%q: p50 %.1f ms p95 %.1f ms, total %d (capped %v), ranked %d, returned %d; %s",
				bq.p.Query, pct(0.5), pct(0.95), res.Total, res.TotalCapped, res.Ranked, len(res.Candidates), res.Interpretation)
			if dir := os.Getenv("RECRUITD_BENCH_EXPLAIN"); dir != "" {
				plan, err := explainSearch(ctx, db, company, bq.p)
				if err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, bq.name+".plan"), []byte(plan+"\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var benchQueries = []struct {
	name string
	p    Params
}{
	{"common-term", Params{Query: "engineer"}},
	{"full-request", Params{Query: "senior backend engineer with Go and Kubernetes, 5+ years, near Austin TX, ex-Google, CS degree, open to remote"}},
	{"state", Params{Query: "registered nurse in Texas"}},
	{"radius-50", Params{Query: "python developer in Seattle", RadiusMiles: fp(50)}},
	{"phd-ml", Params{Query: "data scientist PhD machine learning"}},
	{"employer", Params{Query: "ex-Google engineers"}},
	{"rare", Params{Query: "haskell"}},
	{"years-recency", Params{Query: "sales representative salesforce 3-5 years", RecencyDays: ip(30)}},
	{"no-criteria-status", Params{Query: "", Status: []string{"rejected"}, StatusOperator: "excludes"}},
	{"frontend-sf", Params{Query: "frontend engineer react typescript near San Francisco"}},
	{"common-status-recency", Params{Query: "engineer", Status: []string{"hired"}, RecencyDays: ip(90)}},
	{"accountant-radius-10", Params{Query: "accountant excel in Chicago", RadiusMiles: fp(10)}},
	{"java-limit-50", Params{Query: "software engineer with Java", Limit: 50}},
	{"skills-or", Params{Query: "Go or Rust or Kubernetes or Terraform"}},
}

// explainSearch runs EXPLAIN ANALYZE on the statement Search would run.
func explainSearch(ctx context.Context, db *sql.DB, company uuid.UUID, p Params) (string, error) {
	stmt, args, err := buildSearch(company, p)
	if err != nil {
		return "", err
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT set_config('plan_cache_mode', 'force_custom_plan', true), set_config('jit', 'off', true)`); err != nil {
		return "", err
	}
	rows, err := tx.QueryContext(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+stmt.sql, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return "", err
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n"), rows.Err()
}

const syntheticInsert = `
WITH t AS (SELECT
  ARRAY['Software Engineer','Senior Software Engineer','Backend Engineer','Senior Backend Engineer','Frontend Engineer',
        'Full Stack Developer','DevOps Engineer','Data Engineer','Data Scientist','Machine Learning Engineer',
        'Mobile Developer','iOS Developer','QA Engineer','Site Reliability Engineer','Engineering Manager',
        'Product Manager','Project Manager','Product Designer','UX Designer','Data Analyst','Business Analyst',
        'Registered Nurse','Nurse Practitioner','Medical Assistant','Pharmacist','Sales Representative',
        'Account Executive','Customer Success Manager','Customer Support Specialist','Marketing Manager',
        'Recruiter','HR Generalist','Accountant','Financial Analyst','Warehouse Associate','Forklift Operator',
        'Truck Driver','Electrician','Teacher','Office Administrator'] AS titles,
  ARRAY['Go','Python','Java','JavaScript','TypeScript','React','Node.js','Kubernetes','Docker','AWS','GCP','Azure',
        'Terraform','PostgreSQL','MySQL','Redis','Kafka','Spark','SQL','Machine Learning','PyTorch','TensorFlow',
        'Rust','C++','C#','.NET','Ruby on Rails','Django','Swift','Kotlin','Android','iOS','GraphQL','gRPC','Linux',
        'Excel','Tableau','Salesforce','HubSpot','Cold Calling','Negotiation','Patient Care','Triage','EMR','CPR',
        'Phlebotomy','QuickBooks','GAAP','Forklift','Inventory Management','Customer Service','Zendesk',
        'Figma','User Research','Agile','Scrum','Jira','Leadership','Communication','Haskell'] AS skills,
  ARRAY['Google','Amazon','Microsoft','Meta','Apple','Netflix','Stripe','Salesforce','Oracle','IBM','Intel',
        'Dell','Target','Walmart','Kaiser Permanente','HCA Healthcare','Deloitte','Accenture','JPMorgan Chase',
        'Uber','Airbnb','Shopify','Atlassian','Adobe','Cisco','Tesla','SpaceX','Indeed','Spotify','Twilio'] AS employers,
  ARRAY['BS Computer Science','MS Computer Science','PhD Computer Science','BA Economics','MBA','BSN Nursing',
        'BS Mathematics','MS Statistics','PhD Statistics','BS Electrical Engineering','Associate Degree','',
        'High School Diploma','BBA Accounting'] AS educations,
  ARRAY['Austin','Round Rock','Dallas','Houston','San Antonio','Seattle','San Francisco','San Jose','Los Angeles',
        'San Diego','New York','Boston','Chicago','Denver','Atlanta','Miami','Phoenix','Portland','Minneapolis',
        'Detroit','Philadelphia','Washington','Raleigh','Nashville','Salt Lake City','Columbus','Pittsburgh',
        'Kansas City','Charlotte','Orlando'] AS cities,
  ARRAY['TX','TX','TX','TX','TX','WA','CA','CA','CA','CA','NY','MA','IL','CO','GA','FL','AZ','OR','MN','MI','PA','DC',
        'NC','TN','UT','OH','PA','MO','NC','FL'] AS states,
  ARRAY[30.2672,30.5083,32.7831,29.7633,29.4241,47.6062,37.7749,37.3394,34.0522,32.7157,40.7143,42.3584,41.85,
        39.7392,33.749,25.7743,33.4484,45.5234,44.98,42.3314,39.9523,38.8951,35.7721,36.1659,40.7608,39.9612,
        40.4406,39.0997,35.2271,28.5383] AS lats,
  ARRAY[-97.7431,-97.6789,-96.8067,-95.3633,-98.4936,-122.3321,-122.4194,-121.895,-118.2437,-117.1573,-74.006,
        -71.0598,-87.65,-104.9847,-84.388,-80.1937,-112.074,-122.6762,-93.2638,-83.0458,-75.1638,-77.0364,-78.6386,
        -86.7844,-111.8911,-82.9988,-79.9959,-94.5786,-80.8431,-81.3792] AS lons,
  ARRAY['new','new','new','screening','interviewing','hired','rejected'] AS statuses
)
INSERT INTO candidates (company_id, first_name, last_name, title, location, city, state, country, latitude, longitude,
                        skills, employers, education, years_experience, status, updated_at)
SELECT '%s', 'First' || i, 'Last' || i,
       t.titles[(1 + abs(hashint8(i * 16 + 1)::bigint) %% 40)::int],
       t.cities[c] || ', ' || t.states[c], t.cities[c], t.states[c], 'US',
       CASE WHEN i %% 50 = 0 THEN NULL ELSE t.lats[c] + (abs(hashint8(i * 16 + 10)::bigint) %% 101 - 50) / 400.0 END,
       CASE WHEN i %% 50 = 0 THEN NULL ELSE t.lons[c] + (abs(hashint8(i * 16 + 11)::bigint) %% 101 - 50) / 400.0 END,
       ARRAY[t.skills[(1 + abs(hashint8(i * 16 + 2)::bigint) %% 59)::int], t.skills[(1 + abs(hashint8(i * 16 + 3)::bigint) %% 59)::int], t.skills[(1 + abs(hashint8(i * 16 + 4)::bigint) %% 59)::int],
             t.skills[(1 + abs(hashint8(i * 16 + 5)::bigint) %% 59)::int]] || CASE WHEN i %% 997 = 0 THEN ARRAY['Haskell'] ELSE '{}'::text[] END,
       ARRAY[t.employers[(1 + abs(hashint8(i * 16 + 6)::bigint) %% 30)::int], t.employers[(1 + abs(hashint8(i * 16 + 7)::bigint) %% 30)::int]],
       t.educations[(1 + abs(hashint8(i * 16 + 8)::bigint) %% 14)::int],
       CASE WHEN i %% 20 = 0 THEN NULL ELSE (abs(hashint8(i * 16 + 12)::bigint) %% 31)::int END,
       t.statuses[(1 + abs(hashint8(i * 16 + 9)::bigint) %% 7)::int],
       now() - (abs(hashint8(i * 16 + 13)::bigint) %% (3 * 365 * 24 * 60)) * interval '1 minute'
FROM t, generate_series(1::bigint, 1000000) AS i, LATERAL (SELECT (1 + abs(hashint8(i * 16 + 14)::bigint) %% 30)::int AS c) cc`
