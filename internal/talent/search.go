package talent

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/recruitd/recruitd/internal/gazetteer"
)

const (
	// DefaultLimit and MaxLimit bound Params.Limit.
	DefaultLimit = 10
	MaxLimit     = 100
	// DefaultRadiusMiles applies when the query names a city and Params.RadiusMiles is nil.
	DefaultRadiusMiles = 25.0
	// MaxRadiusMiles bounds Params.RadiusMiles.
	MaxRadiusMiles = 500.0
	// PoolSize is how many matches are ranked by relevance: the most recently updated ones. A
	// common term ("engineer") can match hundreds of thousands of candidates; ranking them all
	// costs seconds, so relevance orders the PoolSize most recently updated matches.
	PoolSize = 2000
	// CountCap bounds the count of matches; a larger match set is reported as "at least
	// CountCap" (Result.TotalCapped). Counting stops there, so a common term costs no more than
	// reading the CountCap most recent matches.
	CountCap = 10000
)

// Params are the searchCandidates tool's inputs.
type Params struct {
	Query          string
	Limit          int      // 0 means DefaultLimit; at most MaxLimit
	RadiusMiles    *float64 // around the query's city; nil means DefaultRadiusMiles
	RecencyDays    *int     // only candidates updated within that many days
	Status         []string // candidate statuses, compared case-insensitively
	StatusOperator string   // "includes" (default) or "excludes"
}

// Result is a search's answer.
type Result struct {
	Query Query // the parsed request
	// Interpretation is the parsed request in words, with the filters Search added (radius,
	// recency, status): what the tool shows as "Interpreted as: ...".
	Interpretation string
	// Total is the number of matching candidates; when TotalCapped it is CountCap and the true
	// number is at least that.
	Total       int
	TotalCapped bool
	// Ranked is how many matches were ordered by relevance: all of them, or when the match set
	// is larger than PoolSize, the PoolSize most recently updated.
	Ranked      int
	RadiusMiles float64 // the radius applied around Query.Location, 0 when none
	Notes       []string
	Candidates  []Candidate
}

// Candidate is one hit.
type Candidate struct {
	ID              uuid.UUID
	Name            string
	Title           string
	Location        string
	City, State     string
	DistanceMiles   *float64 // from the query's city, when it has one
	Skills          []string
	Employers       []string
	Education       string
	YearsExperience *int
	Status          string
	UpdatedAt       time.Time
	MatchedSkills   []string // the query's skills this candidate has
	Score           float64  // relevance (ts_rank_cd)
}

// ErrInvalidParams wraps the errors of bad Params.
var ErrInvalidParams = errors.New("invalid search parameters")

// Search runs p against company's candidates. It builds one parameterised statement: the query
// text only ever reaches Postgres as bind parameters.
func Search(ctx context.Context, db *sql.DB, companyID uuid.UUID, p Params) (*Result, error) {
	pl, args, err := buildSearch(companyID, p)
	if err != nil {
		return nil, err
	}
	q, res := pl.res.Query, pl.res
	// A read-only transaction only to scope settings to this statement: custom plans, because
	// a cached generic plan cannot see how selective the text query is (measured: 0.2 s becomes
	// 0.9 s from the sixth run on a connection), no JIT, whose compile time exceeds its gain on
	// statements of this size, and a statement_timeout ending with ctx (the tool call's bound).
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("search candidates: %w", err)
	}
	defer tx.Rollback()
	var timeout *string
	if dl, ok := ctx.Deadline(); ok {
		ms := strconv.FormatInt(max(1, time.Until(dl).Milliseconds()), 10)
		timeout = &ms
	}
	if _, err := tx.ExecContext(ctx, `SELECT set_config('plan_cache_mode', 'force_custom_plan', true), set_config('jit', 'off', true),
		set_config('statement_timeout', coalesce($1, current_setting('statement_timeout')), true)`, timeout); err != nil {
		return nil, fmt.Errorf("search candidates: %w", err)
	}
	rows, err := tx.QueryContext(ctx, pl.sql, args...)
	if err != nil {
		return nil, fmt.Errorf("search candidates: %w", err)
	}
	defer rows.Close()
	types := pgtype.NewMap()
	for rows.Next() {
		var c Candidate
		var first, last string
		var skills, employers []string
		var dist sql.NullFloat64
		var years sql.NullInt64
		var pool, total int
		if err := rows.Scan(&c.ID, &first, &last, &c.Title, &c.Location, &c.City, &c.State, types.SQLScanner(&skills), types.SQLScanner(&employers),
			&c.Education, &years, &c.Status, &c.UpdatedAt, &dist, &c.Score, &pool, &total); err != nil {
			return nil, fmt.Errorf("search candidates: %w", err)
		}
		c.Name = strings.TrimSpace(first + " " + last)
		c.Skills, c.Employers = skills, employers
		if dist.Valid {
			d := math.Round(dist.Float64*10) / 10
			c.DistanceMiles = &d
		}
		if years.Valid {
			y := int(years.Int64)
			c.YearsExperience = &y
		}
		c.MatchedSkills = matchedSkills(q.Skills, skills)
		res.Ranked, res.Total = pool, total
		res.Candidates = append(res.Candidates, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search candidates: %w", err)
	}
	if res.Total > CountCap {
		res.Total, res.TotalCapped = CountCap, true
	}
	res.Interpretation = interpretation(q, res, p, pl.statuses)
	return res, nil
}

// searchPlan is the statement of a search and the parts of its Result known before running it.
type searchPlan struct {
	sql      string
	res      *Result
	statuses []string
}

func buildSearch(companyID uuid.UUID, p Params) (*searchPlan, []any, error) {
	q := Parse(p.Query)
	res := &Result{Query: q}
	b := &builder{}
	b.arg(companyID) // $1
	var where []string
	where = append(where, "c.company_id = $1")

	limit := p.Limit
	switch {
	case limit == 0:
		limit = DefaultLimit
	case limit < 0:
		return nil, nil, fmt.Errorf("%w: limit must be positive", ErrInvalidParams)
	case limit > MaxLimit:
		limit = MaxLimit
		res.Notes = append(res.Notes, fmt.Sprintf("limit capped at %d", MaxLimit))
	}

	// Full-text: what a candidate must match, and what ranks it.
	must := b.mustQuery(q)
	if must != "" {
		where = append(where, "c.search @@ ("+must+")")
	}
	rankQ := b.rankQuery(q)

	// Employers: the text match above uses the index; this makes sure it is an employer.
	if len(q.Employers) > 0 {
		exact, prefix := employerPatterns(q.Employers)
		where = append(where, fmt.Sprintf("EXISTS (SELECT 1 FROM unnest(c.employers) e WHERE lower(e) = ANY(%s) OR lower(e) LIKE ANY(%s))",
			b.arg(exact), b.arg(prefix)))
	}
	if q.MinYears != nil {
		where = append(where, "c.years_experience >= "+b.arg(*q.MinYears))
	}
	if q.MaxYears != nil {
		where = append(where, "c.years_experience <= "+b.arg(*q.MaxYears))
	}
	if ed := q.Education; ed != nil {
		if ed.Level != "" {
			where = append(where, "c.education ~* "+b.arg(levelPattern(ed.Level)))
		} else {
			where = append(where, "c.education <> ''")
		}
		if ed.Field != "" {
			where = append(where, "c.education ~* "+b.arg(fieldPattern(ed.Field)))
		}
	}

	// Location.
	distance := "NULL::float8"
	if loc := q.Location; loc != nil {
		switch loc.Kind {
		case gazetteer.State:
			where = append(where, fmt.Sprintf("(upper(c.state) = %s OR lower(c.state) = %s)",
				b.arg(loc.State), b.arg(strings.ToLower(loc.StateName()))))
			if p.RadiusMiles != nil {
				res.Notes = append(res.Notes, "radius ignored: the location is a whole state")
			}
		default:
			miles := DefaultRadiusMiles
			if p.RadiusMiles != nil {
				miles = *p.RadiusMiles
				if math.IsNaN(miles) || miles <= 0 {
					return nil, nil, fmt.Errorf("%w: radius must be a positive number of miles", ErrInvalidParams)
				}
				if miles > MaxRadiusMiles {
					miles = MaxRadiusMiles
					res.Notes = append(res.Notes, fmt.Sprintf("radius capped at %.0f miles", MaxRadiusMiles))
				}
			}
			res.RadiusMiles = miles
			center := fmt.Sprintf("earth_point(%s, %s)", b.arg(loc.Lat), b.arg(loc.Lon))
			meters := b.arg(miles * metersPerMile)
			point := "earth_point(c.latitude, c.longitude)"
			var boxes []string
			for _, bx := range radiusBoxes(loc.Lat, loc.Lon, miles*metersPerMile) {
				// The expression of candidates_location_idx.
				boxes = append(boxes, fmt.Sprintf("point(c.longitude, c.latitude) <@ box(point(%s::float8, %s::float8), point(%s::float8, %s::float8))",
					b.arg(bx[0]), b.arg(bx[1]), b.arg(bx[2]), b.arg(bx[3])))
			}
			where = append(where, "c.latitude IS NOT NULL AND c.longitude IS NOT NULL",
				"("+strings.Join(boxes, " OR ")+")",
				fmt.Sprintf("earth_distance(%s, %s) <= %s", center, point, meters))
			distance = fmt.Sprintf("earth_distance(%s, %s) / %v", center, point, metersPerMile)
		}
	} else if p.RadiusMiles != nil {
		res.Notes = append(res.Notes, "radius ignored: the query names no location")
	}

	if p.RecencyDays != nil {
		if *p.RecencyDays <= 0 {
			return nil, nil, fmt.Errorf("%w: recency must be a positive number of days", ErrInvalidParams)
		}
		where = append(where, "c.updated_at >= now() - make_interval(days => "+b.arg(min(*p.RecencyDays, 36500))+")")
	}
	statuses := make([]string, 0, len(p.Status))
	for _, s := range p.Status {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" && !slices.Contains(statuses, s) {
			statuses = append(statuses, s)
		}
	}
	if len(statuses) > 0 {
		switch strings.ToLower(strings.TrimSpace(p.StatusOperator)) {
		case "", "includes":
			// Exact spellings rather than lower(status), so (company_id, status) stays usable.
			where = append(where, "c.status = ANY("+b.arg(statusSpellings(statuses))+")")
		case "excludes":
			where = append(where, "NOT coalesce(lower(c.status) = ANY("+b.arg(statuses)+"), false)")
		default:
			return nil, nil, fmt.Errorf("%w: statusOperator must be includes or excludes", ErrInvalidParams)
		}
	}

	cond := strings.Join(where, "\n    AND ")
	rank := "0::float4"
	if rankQ != "" {
		rank = "ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', p.search, " + rankQ + ")"
	}
	// One scan finds the CountCap+1 most recently updated matches (the count); the PoolSize most
	// recent of them are ranked. For a common term the planner walks (company_id, updated_at)
	// backwards and stops early; for a selective one it uses the GIN/GiST indexes and sorts.
	stmt := `WITH matches AS MATERIALIZED (
  SELECT c.id, c.updated_at
  FROM candidates c
  WHERE ` + cond + `
  ORDER BY c.updated_at DESC
  LIMIT ` + strconv.Itoa(CountCap+1) + `
), pool AS MATERIALIZED (
  SELECT c.id, c.first_name, c.last_name, c.title, c.location, c.city, c.state, c.skills, c.employers,
         c.education, c.years_experience, c.status, c.updated_at, c.search, ` + distance + ` AS distance
  FROM (SELECT id FROM matches ORDER BY updated_at DESC LIMIT ` + strconv.Itoa(PoolSize) + `) m
  JOIN candidates c ON c.id = m.id AND c.company_id = $1
)
SELECT p.id, p.first_name, p.last_name, p.title, p.location, p.city, p.state, p.skills, p.employers,
       p.education, p.years_experience, p.status, p.updated_at, p.distance, ` + rank + ` AS score,
       (SELECT count(*) FROM pool), (SELECT count(*) FROM matches)
FROM pool p
ORDER BY score DESC, p.updated_at DESC, p.id
LIMIT ` + b.arg(limit)

	return &searchPlan{sql: stmt, res: res, statuses: statuses}, b.args, nil
}

const metersPerMile = 1609.344

// earthRadius is the radius in meters of earthdistance's earth(), on whose sphere
// earth_distance measures.
const earthRadius = 6378168.0

// radiusBoxes returns boxes of longitude and latitude, in degrees, {west, south, east, north},
// that together hold every point within meters of (lat, lon) on earthRadius's sphere: one box,
// two when it crosses the antimeridian, the whole band of latitudes when it reaches a pole.
// A radius search finds its rows through them in candidates_location_idx (a GiST index of
// points, which Postgres builds sorted, fifteen times faster than the earth cubes' index) and
// keeps the ones earth_distance puts within the radius; the boxes are widened by a millionth
// so that rounding never drops a row at the edge.
func radiusBoxes(lat, lon, meters float64) [][4]float64 {
	rad := meters / earthRadius * (1 + 1e-6)
	dLat := rad * 180 / math.Pi
	south, north := lat-dLat, lat+dLat
	if south <= -90 || north >= 90 || rad >= math.Pi/2 {
		return [][4]float64{{-180, max(south, -90), 180, min(north, 90)}}
	}
	dLon := math.Asin(min(math.Sin(rad)/math.Cos(lat*math.Pi/180), 1)) * 180 / math.Pi
	west, east := lon-dLon, lon+dLon
	switch {
	case west < -180:
		return [][4]float64{{west + 360, south, 180, north}, {-180, south, east, north}}
	case east > 180:
		return [][4]float64{{west, south, 180, north}, {-180, south, east - 360, north}}
	}
	return [][4]float64{{west, south, east, north}}
}

// statusSpellings are the lower-case, upper-case and capitalised spellings of statuses.
func statusSpellings(statuses []string) []string {
	var out []string
	for _, s := range statuses {
		title := strings.ToUpper(s[:1]) + s[1:]
		for _, v := range []string{s, strings.ToUpper(s), title} {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// builder collects bind parameters.
type builder struct{ args []any }

// arg adds a parameter and returns its placeholder.
func (b *builder) arg(v any) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args))
}

// ts is the tsquery of a websearch text, as SQL.
func (b *builder) ts(text string) string {
	return "websearch_to_tsquery('english', " + b.arg(text) + ")"
}

// mustQuery is the tsquery a candidate must match: every role group of one of the roles, AND
// at least one skill, AND one of the employers; the keywords (any) only when there is nothing
// else. "" when the query has none of these.
func (b *builder) mustQuery(q Query) string {
	var and []string
	if len(q.Roles) > 0 {
		var or []string
		for _, r := range q.Roles {
			var groups []string
			for _, m := range r.Modifiers {
				groups = append(groups, b.ts(orTerms(roleModifiers[m])))
			}
			heads := roleHeads[r.Head]
			if heads == nil {
				heads = []string{r.Head}
			}
			groups = append(groups, b.ts(orTerms(heads)))
			or = append(or, "("+strings.Join(groups, " && ")+")")
		}
		and = append(and, "("+strings.Join(or, " || ")+")")
	}
	if len(q.Skills) > 0 {
		and = append(and, b.ts(orTerms(slices.Concat(q.skillTerms...))))
	}
	if len(q.Employers) > 0 {
		and = append(and, b.ts(orTerms(q.Employers)))
	}
	if len(and) == 0 && len(q.Keywords) > 0 {
		and = append(and, b.ts(orTerms(q.Keywords)))
	}
	return strings.Join(and, " && ")
}

// rankQuery ORs every term of the query; ts_rank_cd of it orders the pool.
func (b *builder) rankQuery(q Query) string {
	var terms []string
	for _, r := range q.Roles {
		terms = append(terms, r.Modifiers...)
		terms = append(terms, r.Head)
	}
	if q.Seniority != "" {
		terms = append(terms, q.Seniority)
	}
	terms = append(terms, slices.Concat(q.skillTerms...)...)
	terms = append(terms, q.Keywords...)
	terms = append(terms, q.Employers...)
	if len(terms) == 0 {
		return ""
	}
	return b.ts(orTerms(terms))
}

// orTerms is a websearch_to_tsquery text matching any of terms: multi-word terms are quoted
// phrases, and characters with a meaning in that syntax are dropped.
func orTerms(terms []string) string {
	var out []string
	for _, t := range terms {
		t = strings.Join(strings.FieldsFunc(t, func(r rune) bool {
			return !(isWordRune(r) || r == '+' || r == '#' || r == '.' || r == '/' || r == '\'')
		}), " ")
		if t == "" || strings.EqualFold(t, "or") {
			continue
		}
		quoted := `"` + t + `"`
		if !slices.Contains(out, quoted) {
			out = append(out, quoted)
		}
	}
	return strings.Join(out, " or ")
}

// employerPatterns are the lower-cased names and "name %" prefixes ("google %" finds "Google
// LLC"), with LIKE's wildcards escaped.
func employerPatterns(names []string) (exact, prefix []string) {
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	for _, n := range names {
		n = strings.ToLower(n)
		exact = append(exact, n)
		prefix = append(prefix, esc.Replace(n)+" %", esc.Replace(n)+",%")
	}
	return exact, prefix
}

// Degree patterns (POSIX, case-insensitive) on candidates.education, from the weakest level.
var levelPatterns = map[string]string{
	"associate": `associate|(^|[^a-z])a\.?a\.?s?([^a-z]|$)`,
	"bachelor":  `bachelor|undergrad|(^|[^a-z])b\.?s\.?c?([^a-z]|$)|(^|[^a-z])b\.?a\.?([^a-z]|$)|(^|[^a-z])b\.?eng|(^|[^a-z])b\.?tech`,
	"master":    `master|(^|[^a-z])m\.?s\.?c?([^a-z]|$)|(^|[^a-z])m\.?a\.?([^a-z]|$)|(^|[^a-z])m\.?b\.?a([^a-z]|$)|(^|[^a-z])m\.?eng|(^|[^a-z])m\.?tech`,
	"phd":       `ph\.? ?d|doctor|dphil`,
}

// levelPattern matches a degree of level or above.
func levelPattern(level string) string {
	var alts []string
	for _, l := range LevelAtLeast(level) {
		alts = append(alts, levelPatterns[l])
	}
	return strings.Join(alts, "|")
}

// fieldPatterns are the spellings of fields of study in education text.
var fieldPatterns = map[string]string{
	"computer science":        `computer science|comp\.? ?sci|(^|[^a-z])cs([^a-z]|$)`,
	"electrical engineering":  `electrical engineering|(^|[^a-z])e\.?e\.?([^a-z]|$)`,
	"mathematics":             `mathematics|(^|[^a-z])maths?([^a-z]|$)`,
	"statistics":              `statistic`,
	"business administration": `business|(^|[^a-z])m\.?b\.?a([^a-z]|$)`,
}

func fieldPattern(field string) string {
	if p, ok := fieldPatterns[field]; ok {
		return p
	}
	return strings.ReplaceAll(regexpQuote(field), " ", `\s+`)
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// matchedSkills are the query's skills found among a candidate's skills.
func matchedSkills(want, have []string) []string {
	if len(want) == 0 || len(have) == 0 {
		return nil
	}
	lx := skills()
	got := map[string]bool{}
	for _, h := range have {
		for _, hit := range lx.find(h, asciiLower(h), make([]bool, len(h))) {
			got[skillTable[hit.skill].name] = true
		}
		got[h] = true
	}
	var out []string
	for _, w := range want {
		if got[w] || slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, w) }) {
			out = append(out, w)
		}
	}
	return out
}

func interpretation(q Query, res *Result, p Params, statuses []string) string {
	s := q.String()
	var extra []string
	if res.RadiusMiles > 0 {
		r := fmt.Sprintf("within %g miles", res.RadiusMiles)
		if p.RadiusMiles == nil {
			r += " (default radius)"
		}
		extra = append(extra, r)
	}
	if p.RecencyDays != nil {
		extra = append(extra, fmt.Sprintf("updated in the last %d days", *p.RecencyDays))
	}
	if len(statuses) > 0 {
		op := "status is"
		if strings.EqualFold(strings.TrimSpace(p.StatusOperator), "excludes") {
			op = "status is not"
		}
		extra = append(extra, op+" "+strings.Join(statuses, " or "))
	}
	if len(extra) > 0 {
		s += " · " + strings.Join(extra, " · ")
	}
	return s
}
