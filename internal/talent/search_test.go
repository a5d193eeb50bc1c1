package talent

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

type fixtureCandidate struct {
	key, first, title string
	skills, employers []string
	education         string
	years             *int
	city, state       string
	lat, lon          *float64
	status            string
	updatedDaysAgo    int
	company           int // 0 = company A, 1 = company B
}

func ip(n int) *int { return &n }

var cities = map[string][2]float64{
	"Austin": {30.2672, -97.7431}, "Round Rock": {30.5083, -97.6789}, "Georgetown": {30.6327, -97.6772},
	"San Marcos": {29.8833, -97.9414}, "Dallas": {32.7831, -96.8067}, "Seattle": {47.6062, -122.3321},
	"Chicago": {41.85, -87.65}, "Denver": {39.7392, -104.9847}, "New York": {40.7143, -74.006},
	"San Francisco": {37.7749, -122.4194}, "Boston": {42.3584, -71.0598},
}

var fixture = []fixtureCandidate{
	{key: "A1", title: "Backend Engineer", skills: []string{"Go", "Kubernetes", "PostgreSQL"}, employers: []string{"Google"}, education: "BS Computer Science, University of Texas", years: ip(7), city: "Austin", status: "new", updatedDaysAgo: 1},
	{key: "A2", title: "Senior Backend Engineer", skills: []string{"Go", "Kubernetes"}, employers: []string{"Stripe"}, education: "MS Computer Science", years: ip(9), city: "Round Rock", status: "interviewing", updatedDaysAgo: 3},
	{key: "A3", title: "Backend Developer", skills: []string{"Python", "Django"}, employers: []string{"Amazon"}, education: "BA Economics", years: ip(4), city: "Austin", status: "new", updatedDaysAgo: 10},
	{key: "A4", title: "Software Engineer", skills: []string{"Go", "gRPC"}, employers: []string{"Google LLC"}, education: "Bachelor of Science in Mathematics", years: ip(6), city: "Dallas", status: "new", updatedDaysAgo: 2},
	{key: "A5", title: "Frontend Engineer", skills: []string{"React", "TypeScript"}, employers: []string{"Meta"}, education: "B.S. Computer Science", years: ip(5), city: "Austin", status: "rejected", updatedDaysAgo: 1},
	{key: "A6", title: "Backend Engineer", skills: []string{"Java", "Spring Boot"}, employers: []string{"Oracle"}, years: ip(2), city: "Georgetown", status: "new", updatedDaysAgo: 5},
	{key: "A7", title: "Back-End Engineer", skills: []string{"Go"}, employers: []string{"Google"}, education: "PhD Computer Science", years: ip(12), city: "San Marcos", status: "hired", updatedDaysAgo: 40},
	{key: "A8", title: "Data Scientist", skills: []string{"Python", "Machine Learning", "SQL"}, employers: []string{"Netflix"}, education: "PhD Statistics", years: ip(8), city: "Seattle", status: "new", updatedDaysAgo: 1},
	{key: "A9", title: "Registered Nurse", skills: []string{"Patient Care", "Triage"}, employers: []string{"St. David's Medical Center"}, education: "BSN Nursing", years: ip(6), city: "Austin", status: "new", updatedDaysAgo: 1},
	{key: "A10", title: "Data Analyst", skills: []string{"SQL", "Excel", "Tableau"}, employers: []string{"Target"}, education: "BA Economics", years: ip(1), city: "Chicago", status: "new", updatedDaysAgo: 20},
	{key: "A11", title: "Backend Engineer", skills: []string{"Go", "Kubernetes"}, status: "new", updatedDaysAgo: 1}, // no location, no years
	{key: "A12", title: "Sales Representative", skills: []string{"Salesforce", "Cold Calling"}, employers: []string{"Oracle"}, years: ip(3), city: "Denver", status: "new", updatedDaysAgo: 100},
	{key: "A13", title: "DevOps Engineer", skills: []string{"Kubernetes", "Terraform", "AWS"}, employers: []string{"Google"}, education: "BS CS", years: ip(5), city: "Austin", status: "screening", updatedDaysAgo: 2},
	{key: "A14", title: "Backend Engineer", skills: []string{"Rust", "Kubernetes"}, employers: []string{"Microsoft"}, education: "MS Electrical Engineering", years: ip(3), city: "Austin", status: "new", updatedDaysAgo: 200},
	{key: "A15", title: "Product Manager", skills: []string{"Product Management", "Roadmapping"}, employers: []string{"Google"}, education: "MBA", years: ip(10), city: "New York", status: "new", updatedDaysAgo: 1},
	{key: "A16", title: "Warehouse Associate", skills: []string{"Forklift", "Inventory Management"}, employers: []string{"Amazon"}, years: ip(2), city: "Round Rock", status: "new", updatedDaysAgo: 4},
	{key: "A17", title: "Customer Support Specialist", skills: []string{"Zendesk", "Customer Service"}, employers: []string{"Dell"}, years: ip(4), city: "Austin", status: "new", updatedDaysAgo: 6},
	{key: "A18", title: "iOS Developer", skills: []string{"Swift", "iOS"}, employers: []string{"Apple"}, education: "BS Computer Engineering", years: ip(5), city: "San Francisco", status: "new", updatedDaysAgo: 7},
	{key: "A19", title: "Machine Learning Engineer", skills: []string{"Python", "PyTorch"}, employers: []string{"OpenAI"}, education: "MS Computer Science", years: ip(4), city: "Boston", status: "new", updatedDaysAgo: 8},
	{key: "A20", title: "Accountant", skills: []string{"QuickBooks", "Excel"}, employers: []string{"Deloitte"}, education: "BBA Accounting", years: ip(6), city: "Austin", status: "new", updatedDaysAgo: 9},
	// Company B: strong matches for most queries, which must never leak into company A's results.
	{key: "B1", title: "Backend Engineer", skills: []string{"Go", "Kubernetes"}, employers: []string{"Google"}, education: "MS Computer Science", years: ip(8), city: "Austin", status: "new", company: 1},
	{key: "B2", title: "Senior Backend Engineer", skills: []string{"Go"}, employers: []string{"Google"}, education: "PhD Computer Science", years: ip(15), city: "Round Rock", status: "interviewing", company: 1},
	{key: "B3", title: "Registered Nurse", skills: []string{"Patient Care"}, years: ip(3), city: "Austin", status: "new", company: 1},
	{key: "B4", title: "Data Scientist", skills: []string{"Python", "SQL"}, employers: []string{"Netflix"}, education: "PhD Statistics", years: ip(9), city: "Seattle", status: "new", company: 1},
	{key: "B5", title: "Software Engineer", skills: []string{"Go"}, employers: []string{"Google"}, years: ip(6), city: "Dallas", status: "hired", company: 1},
	{key: "B6", title: "Sales Representative", skills: []string{"Salesforce"}, years: ip(3), city: "Denver", status: "new", company: 1},
	{key: "B7", title: "DevOps Engineer", skills: []string{"Kubernetes"}, employers: []string{"Google"}, years: ip(5), city: "Austin", status: "new", company: 1},
	{key: "B8", title: "Frontend Engineer", skills: []string{"React"}, years: ip(5), city: "Austin", status: "new", company: 1},
	{key: "B9", title: "Accountant", skills: []string{"Excel"}, years: ip(6), city: "Austin", status: "new", company: 1},
	{key: "B10", title: "Product Manager", skills: []string{"Product Management"}, employers: []string{"Google"}, years: ip(10), city: "New York", status: "new", company: 1},
}

type world struct {
	db        *sql.DB
	companies [2]uuid.UUID
	byID      map[uuid.UUID]string
}

func setup(t *testing.T) *world {
	t.Helper()
	db := pgtest.New(t).SQL
	ctx := t.Context()
	w := &world{db: db, byID: map[uuid.UUID]string{}}
	for i, slug := range []string{"talent-a", "talent-b"} {
		if err := db.QueryRowContext(ctx, `INSERT INTO companies (slug, name) VALUES ($1, $1) RETURNING id`, slug).Scan(&w.companies[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range fixture {
		lat, lon := f.lat, f.lon
		if c, ok := cities[f.city]; ok {
			lat, lon = &c[0], &c[1]
		}
		state := map[string]string{"Austin": "TX", "Round Rock": "TX", "Georgetown": "TX", "San Marcos": "TX", "Dallas": "TX",
			"Seattle": "WA", "Chicago": "IL", "Denver": "CO", "New York": "NY", "San Francisco": "CA", "Boston": "MA"}[f.city]
		loc := "Remote"
		if f.city != "" {
			loc = f.city + ", " + state
		}
		var id uuid.UUID
		err := db.QueryRowContext(ctx, `INSERT INTO candidates (company_id, first_name, last_name, title, location, city, state,
			country, latitude, longitude, skills, employers, education, years_experience, status, updated_at)
			VALUES ($1, $2, 'Fixture', $3, $4, $5, $6, 'US', $7, $8, $9, $10, $11, $12, $13, now() - make_interval(days => $14))
			RETURNING id`,
			w.companies[f.company], f.key, f.title, loc, f.city, state, lat, lon, nonNil(f.skills), nonNil(f.employers),
			f.education, f.years, f.status, f.updatedDaysAgo).Scan(&id)
		if err != nil {
			t.Fatalf("insert %s: %v", f.key, err)
		}
		w.byID[id] = f.key
	}
	if _, err := db.ExecContext(ctx, "ANALYZE candidates"); err != nil {
		t.Fatal(err)
	}
	return w
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (w *world) search(t *testing.T, company int, p Params) (*Result, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := Search(ctx, w.db, w.companies[company], p)
	if err != nil {
		t.Fatalf("Search(%+v): %v", p, err)
	}
	var keys []string
	for _, c := range res.Candidates {
		k := w.byID[c.ID]
		if (company == 0) != strings.HasPrefix(k, "A") {
			t.Fatalf("Search(%q) for company %d returned %s of the other company", p.Query, company, k)
		}
		keys = append(keys, k)
	}
	return res, keys
}

func fp(f float64) *float64 { return &f }

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestSearch(t *testing.T) {
	w := setup(t)
	tests := []struct {
		name string
		p    Params
		want []string // as a set
	}{
		{"role and skill", Params{Query: "backend engineer with Go"}, []string{"A1", "A2", "A7", "A11"}},
		{"role synonyms", Params{Query: "backend developer"}, []string{"A1", "A2", "A3", "A6", "A7", "A11", "A14"}},
		{"skill alias", Params{Query: "golang k8s engineers", Limit: 20}, []string{"A1", "A2", "A4", "A7", "A11", "A13", "A14"}},
		{"default radius", Params{Query: "backend engineer with Go near Austin TX"}, []string{"A1", "A2"}},
		{"radius 30", Params{Query: "backend engineer with Go near Austin, TX", RadiusMiles: fp(30)}, []string{"A1", "A2", "A7"}},
		{"radius 100", Params{Query: "engineer with Go in Austin", RadiusMiles: fp(100)}, []string{"A1", "A2", "A7"}},
		{"radius 200", Params{Query: "engineer with Go in Austin", RadiusMiles: fp(200)}, []string{"A1", "A2", "A4", "A7"}},
		{"round rock", Params{Query: "warehouse associate in Round Rock", RadiusMiles: fp(5)}, []string{"A16"}},
		{"state", Params{Query: "registered nurse in Texas"}, []string{"A9"}},
		{"employer", Params{Query: "ex-Google engineers"}, []string{"A1", "A4", "A7", "A13"}},
		{"employer phrase", Params{Query: "engineer who worked at Stripe"}, []string{"A2"}},
		{"education level", Params{Query: "engineer with a master's degree"}, []string{"A2", "A7", "A14", "A19"}},
		{"education field", Params{Query: "engineer with a CS degree"}, []string{"A1", "A2", "A5", "A7", "A13", "A19"}},
		{"phd", Params{Query: "data scientist PhD"}, []string{"A8"}},
		{"years min", Params{Query: "backend engineer 5+ years"}, []string{"A1", "A2", "A7"}},
		{"years range", Params{Query: "backend engineer 3-5 years"}, []string{"A3", "A14"}},
		{"recency", Params{Query: "backend engineer", RecencyDays: ip(7)}, []string{"A1", "A2", "A6", "A11"}},
		{"status includes", Params{Query: "engineer", Status: []string{"Interviewing", "hired"}}, []string{"A2", "A7"}},
		{"status excludes", Params{Query: "backend engineer", Status: []string{"new"}, StatusOperator: "excludes"}, []string{"A2", "A7"}},
		{"skills only", Params{Query: "Excel"}, []string{"A10", "A20"}},
		{"keywords only", Params{Query: "zendesk"}, []string{"A17"}},
		{"no match", Params{Query: "haskell engineer"}, nil},
		{"everything", Params{Query: "senior backend engineer with Go and Kubernetes, 5+ years, near Austin TX, ex-Google, CS degree, open to remote"}, []string{"A1"}},
		{"injection", Params{Query: `'; DROP TABLE candidates; -- " or 1=1`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, got := w.search(t, 0, tt.p)
			if !slices.Equal(sorted(got), sorted(tt.want)) {
				t.Errorf("Search(%q) = %v, want %v\ninterpreted as: %s", tt.p.Query, got, tt.want, res.Interpretation)
			}
			if res.Total != len(tt.want) || res.TotalCapped {
				t.Errorf("Total = %d (capped %v), want %d", res.Total, res.TotalCapped, len(tt.want))
			}
		})
	}
}

func TestSearchDetails(t *testing.T) {
	w := setup(t)

	// Ordering: both skills outrank one skill; seniority is a ranking hint.
	_, got := w.search(t, 0, Params{Query: "backend engineer with Go and Kubernetes"})
	if len(got) != 5 || !slices.Equal(sorted(got[:3]), []string{"A1", "A11", "A2"}) {
		t.Errorf("order = %v, want A1, A2, A11 (both skills) before A7, A14", got)
	}
	_, got = w.search(t, 0, Params{Query: "senior backend engineer"})
	if len(got) == 0 || got[0] != "A2" {
		t.Errorf("senior backend engineer: first = %v, want A2", got)
	}

	// Limit keeps the best and still counts everything.
	res, got := w.search(t, 0, Params{Query: "engineer", Limit: 3})
	if len(got) != 3 || res.Total != 12 {
		t.Errorf("limit 3: got %v total %d, want 3 of 12", got, res.Total)
	}

	// Distances, matched skills and the interpretation.
	res, got = w.search(t, 0, Params{Query: "backend engineer with Go near Austin TX"})
	for i, c := range res.Candidates {
		switch got[i] {
		case "A1":
			if c.DistanceMiles == nil || *c.DistanceMiles > 0.5 {
				t.Errorf("A1 distance %v", c.DistanceMiles)
			}
		case "A2":
			if c.DistanceMiles == nil || *c.DistanceMiles < 15 || *c.DistanceMiles > 18 {
				t.Errorf("A2 (Round Rock) distance %v, want ~16.6", c.DistanceMiles)
			}
		}
		if !slices.Equal(c.MatchedSkills, []string{"Go"}) {
			t.Errorf("%s matched skills %v", got[i], c.MatchedSkills)
		}
	}
	if res.RadiusMiles != DefaultRadiusMiles || !strings.Contains(res.Interpretation, "Austin, TX") ||
		!strings.Contains(res.Interpretation, "default radius") {
		t.Errorf("interpretation %q radius %v", res.Interpretation, res.RadiusMiles)
	}

	// No criteria: the most recently updated candidates of the company.
	res, got = w.search(t, 0, Params{Query: ""})
	if len(got) != DefaultLimit || res.Total != 20 {
		t.Errorf("empty query: %v total %d", got, res.Total)
	}

	// The other company sees only its own.
	_, got = w.search(t, 1, Params{Query: "backend engineer with Go near Austin TX"})
	if !slices.Equal(sorted(got), []string{"B1", "B2"}) {
		t.Errorf("company B: %v", got)
	}

	// Bad parameters.
	for _, p := range []Params{
		{Query: "engineer", StatusOperator: "between", Status: []string{"new"}},
		{Query: "engineer in Austin", RadiusMiles: fp(-1)},
		{Query: "engineer", RecencyDays: ip(-3)},
		{Query: "engineer", Limit: -1},
	} {
		if _, err := Search(t.Context(), w.db, w.companies[0], p); err == nil {
			t.Errorf("Search(%+v) succeeded, want an error", p)
		}
	}
	var n int
	if err := w.db.QueryRow("SELECT count(*) FROM candidates").Scan(&n); err != nil || n != len(fixture) {
		t.Errorf("candidates table: %d rows, %v", n, err)
	}
}

// TestRadiusBoxesHoldTheCircle: every point of a grid that earth_distance puts within the radius
// lies in one of radiusBoxes' boxes, as Postgres' point <@ box sees it, for circles that cross
// the antimeridian, reach a pole or have the largest radius; and the boxes are not much bigger
// than the circle (a box wider than it must be would make the index read more rows).
func TestRadiusBoxesHoldTheCircle(t *testing.T) {
	db := pgtest.New(t).SQL
	ctx := t.Context()
	for _, c := range []struct{ lat, lon, miles float64 }{
		{30.2672, -97.7431, 25}, {30.2672, -97.7431, MaxRadiusMiles}, {51.88, -176.65, MaxRadiusMiles},
		{-17.7, 178.4, 300}, {88.5, 10, 200}, {-89.9, -45, 25}, {0, 180, 100}, {0, -180, 100}, {64.8, -147.7, 1},
	} {
		meters := c.miles * metersPerMile
		boxes := radiusBoxes(c.lat, c.lon, meters)
		var inside, missed int
		var area float64
		err := db.QueryRowContext(ctx, `
			WITH b AS (SELECT box(point(x[1], x[2]), point(x[3], x[4])) AS bx FROM jsonb_to_recordset($4::jsonb) AS r(x float8[])),
			grid AS (
				SELECT la::float8, lo::float8 FROM generate_series(greatest(-90, $1::numeric - 10), least(90, $1::numeric + 10), 0.05) la,
				                   generate_series(-180, 180, CASE WHEN abs($1) > 80 THEN 0.5 ELSE 0.05 END) lo
				WHERE abs(lo - $2::numeric) < 12 OR abs(lo - $2::numeric) > 348 OR abs($1) > 80)
			SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM b WHERE point(lo, la) <@ bx)),
			       (SELECT sum(width(bx) * height(bx)) FROM b)
			FROM grid WHERE earth_distance(earth_point($1, $2), earth_point(la, lo)) <= $3`,
			c.lat, c.lon, meters, boxesJSON(boxes)).Scan(&inside, &missed, &area)
		if err != nil {
			t.Fatal(err)
		}
		if inside == 0 || missed > 0 {
			t.Errorf("circle %v: %d grid points within the radius, %d of them outside the boxes %v", c, inside, missed, boxes)
		}
		if abs(c.lat) < 80 {
			// A circle of radius r degrees of latitude fits a box of 2r by 2r/cos(lat) degrees.
			r := meters / earthRadius * 180 / 3.141592653589793
			if want := 4 * r * r / cosDeg(c.lat); area > want*1.05 {
				t.Errorf("circle %v: boxes %v cover %.4f square degrees, the circle's box %.4f", c, boxes, area, want)
			}
		}
	}
}

func boxesJSON(boxes [][4]float64) string {
	var parts []string
	for _, b := range boxes {
		parts = append(parts, fmt.Sprintf(`{"x":[%v,%v,%v,%v]}`, b[0], b[1], b[2], b[3]))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func abs(x float64) float64 { return math.Abs(x) }

func cosDeg(x float64) float64 { return math.Cos(x * math.Pi / 180) }
