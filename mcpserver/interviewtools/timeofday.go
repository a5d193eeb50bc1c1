package interviewtools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
)

// Defaults of getInterviewTimeOfDayBreakdown.
const (
	defaultTimezone      = "America/New_York"
	defaultBusinessStart = 9
	defaultBusinessEnd   = 18
	defaultTimeOfDayDays = 30
)

func registerTimeOfDay(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getInterviewTimeOfDayBreakdown",
		Title: "Completed interviews by hour of day",
		Description: "When do candidates complete their interviews? Counts COMPLETED interviews by the local hour (0-23) of their completion time " +
			"in timezone (IANA name, default America/New_York; daylight-saving time is applied per interview), and splits them into business hours " +
			"[businessHoursStart, businessHoursEnd) and after hours. businessHoursStart is 0-23 (default 9), businessHoursEnd 1-24 (default 18) and " +
			"exclusive: with the defaults an interview completed at 17:59 is in business hours and one at 18:00 is after hours. " +
			"sinceDate/untilDate are ISO dates read in that timezone (untilDate inclusive); default the last 30 days. " +
			"Returns all 24 hour buckets (zeros included), inHoursCount, afterHoursCount and afterHoursPercent (null when there is no interview). " +
			"Scope: positionId limits to one job; otherwise the client's current job context applies when present; companyWide: true ignores the job context (positionId together with companyWide: true is refused). " +
			"Needs no company feature flag.",
	}, timeOfDay)
}

// TimeOfDayInput are getInterviewTimeOfDayBreakdown's arguments.
type TimeOfDayInput struct {
	SinceDate          string `json:"sinceDate,omitempty" jsonschema:"inclusive start: ISO date (read in timezone) or RFC 3339 timestamp; default 30 days before the end"`
	UntilDate          string `json:"untilDate,omitempty" jsonschema:"end: an ISO date includes that whole local day; default now"`
	Timezone           string `json:"timezone,omitempty" jsonschema:"IANA time zone name for the hour buckets and the dates, default America/New_York"`
	BusinessHoursStart *int   `json:"businessHoursStart,omitempty" jsonschema:"first business hour, 0-23, default 9"`
	BusinessHoursEnd   *int   `json:"businessHoursEnd,omitempty" jsonschema:"end of business hours, 1-24, exclusive, default 18 (an 18:xx interview is after hours)"`
	toolkit.ScopeArg
	toolkit.CompanyArg
}

// HourBucket is one local hour.
type HourBucket struct {
	Hour            int    `json:"hour" jsonschema:"local hour 0-23 in timezone"`
	Label           string `json:"label" jsonschema:"the hour as HH:00-HH:59"`
	Count           int64  `json:"count" jsonschema:"completed interviews in that hour"`
	InBusinessHours bool   `json:"inBusinessHours"`
}

// BusinessHours is the applied business-hours range.
type BusinessHours struct {
	Start int `json:"start" jsonschema:"first business hour (inclusive)"`
	End   int `json:"end" jsonschema:"end hour (exclusive)"`
}

// TimeOfDayOutput is getInterviewTimeOfDayBreakdown's structured result.
type TimeOfDayOutput struct {
	Timezone          string            `json:"timezone"`
	Window            toolkit.WindowOut `json:"window"`
	BusinessHours     BusinessHours     `json:"businessHours"`
	Scope             toolkit.Scope     `json:"scope"`
	Buckets           []HourBucket      `json:"buckets" jsonschema:"24 buckets, hour 0 to 23"`
	Total             int64             `json:"total" jsonschema:"completed interviews in the window"`
	InHoursCount      int64             `json:"inHoursCount"`
	AfterHoursCount   int64             `json:"afterHoursCount"`
	AfterHoursPercent *float64          `json:"afterHoursPercent" jsonschema:"afterHoursCount / total in percent (one decimal); null when total is 0"`
	toolkit.Notices
}

func timeOfDay(ctx context.Context, call *toolkit.Call, in TimeOfDayInput) (TimeOfDayOutput, *toolkit.Text, error) {
	var out TimeOfDayOutput
	tz := strings.TrimSpace(in.Timezone)
	if tz == "" {
		tz = defaultTimezone
	}
	loc, err := loadZone(tz)
	if err != nil {
		return out, nil, err
	}
	start, end := defaultBusinessStart, defaultBusinessEnd
	if in.BusinessHoursStart != nil {
		start = *in.BusinessHoursStart
		if start < 0 || start > 23 {
			return out, nil, toolkit.Errorf("businessHoursStart must be between 0 and 23 (got %d)", start)
		}
	}
	if in.BusinessHoursEnd != nil {
		end = *in.BusinessHoursEnd
		if end < 1 || end > 24 {
			return out, nil, toolkit.Errorf("businessHoursEnd must be between 1 and 24 (got %d); it is exclusive, 24 means midnight", end)
		}
	}
	if start >= end {
		return out, nil, toolkit.Errorf("businessHoursStart (%d) must be before businessHoursEnd (%d); overnight ranges are not supported", start, end)
	}
	w, err := call.Window(in.SinceDate, in.UntilDate, defaultTimeOfDayDays, loc)
	if err != nil {
		return out, nil, err
	}
	scope, err := call.Scope(ctx, in.ScopeArg)
	job := scope.JobID()
	if err != nil {
		return out, nil, err
	}
	out = TimeOfDayOutput{Timezone: tz, Window: w.Out("interview_sessions.completed_at"), BusinessHours: BusinessHours{start, end}, Scope: scope}

	q := toolkit.NewQuery(call.Company.ID)
	zone := q.Arg(tz)
	f := newFilters(q, job, nil)
	db := call.DB
	stmt := hourCounts(q, f, zone, w)
	rows, err := db.QueryContext(ctx, stmt, q.Args...)
	if err != nil {
		return out, nil, zoneErr(err, tz)
	}
	defer rows.Close()
	var counts [24]int64
	for rows.Next() {
		var h int
		var n int64
		if err := rows.Scan(&h, &n); err != nil {
			return out, nil, err
		}
		if h >= 0 && h < 24 {
			counts[h] = n
		}
	}
	if err := rows.Err(); err != nil {
		return out, nil, zoneErr(err, tz)
	}
	out.Buckets = make([]HourBucket, 24)
	var table [][]string
	for h := range 24 {
		b := HourBucket{Hour: h, Label: fmt.Sprintf("%02d:00-%02d:59", h, h), Count: counts[h], InBusinessHours: h >= start && h < end}
		out.Buckets[h] = b
		out.Total += b.Count
		if b.InBusinessHours {
			out.InHoursCount += b.Count
		} else {
			out.AfterHoursCount += b.Count
		}
		kind := "after hours"
		if b.InBusinessHours {
			kind = "business"
		}
		table = append(table, []string{b.Label, count(b.Count), kind, strings.Repeat("#", int(min(b.Count, 40)))})
	}
	out.AfterHoursPercent = toolkit.Percent(out.AfterHoursCount, out.Total)

	t := &toolkit.Text{}
	t.H1("Completed interviews by hour of day (%s)", tz)
	t.KV("Scope", scope.String(),
		"Window", windowInZone(w, loc)+" (by completion time)",
		"Business hours", fmt.Sprintf("%02d:00 to %02d:00 (end exclusive)", start, end),
		"Completed interviews", count(out.Total),
		"In business hours", count(out.InHoursCount),
		"After hours", count(out.AfterHoursCount),
		"After-hours share", toolkit.Pct(out.AfterHoursPercent))
	t.H2("By local hour")
	t.Table([]string{"Hour", "Interviews", "Period", "Bar"}, table, "")
	return out, t, nil
}

// hourCounts is the statement counting the sessions completed in w by local hour in zone:
// company-wide from completion_slot_totals (all media, migration 00047) for the whole slots (current IANA zones' offsets and clock
// changes fall on 15-minute boundaries, so each slot lies in one local hour) and the sessions of
// the partial slots at the ends, for a job from its sessions.
func hourCounts(q *toolkit.Query, f filters, zone string, w toolkit.Window) string {
	hour := func(col string) string { return "date_part('hour', " + col + " AT TIME ZONE " + zone + ")::int" }
	source := func(w toolkit.Window) string {
		return `SELECT ` + hour("s.completed_at") + `, count(*) FROM interview_sessions s
			WHERE s.company_id = $1 AND s.status = 'COMPLETED'` + f.on("s") + q.Range("s.completed_at", w) + ` GROUP BY 1`
	}
	if f.job != "" {
		return source(w)
	}
	rollup := func(w toolkit.Window) string {
		return `SELECT ` + hour("r.slot") + `, sum(r.completed) FROM completion_slot_totals r
			WHERE r.company_id = $1` + q.Range("r.slot", w) + ` GROUP BY 1`
	}
	return `SELECT h, sum(n)::bigint FROM (` + toolkit.SplitUnion(w, toolkit.Slot, rollup, source) + `) x(h, n) GROUP BY 1`
}

// loadZone resolves an IANA zone name; "Local" and other non-portable names are refused.
func loadZone(name string) (*time.Location, error) {
	if name == "Local" {
		return nil, toolkit.Errorf("timezone %q is not an IANA zone name; use e.g. America/New_York, Europe/London or UTC", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, toolkit.Errorf("timezone %q is not a known IANA zone name; use e.g. America/New_York, Europe/London or UTC", name)
	}
	return loc, nil
}

// windowInZone describes w in local time of loc.
func windowInZone(w toolkit.Window, loc *time.Location) string {
	f := func(t time.Time) string { return t.In(loc).Format("2006-01-02 15:04 MST") }
	switch {
	case w.Since == nil && w.Until == nil:
		return "all time"
	case w.Until == nil:
		return "since " + f(*w.Since)
	case w.Since == nil:
		return "before " + f(*w.Until)
	}
	return f(*w.Since) + " to " + f(*w.Until) + " (end exclusive)"
}

// zoneErr turns Postgres' "time zone not recognized" (Go's zone database knows a name that the
// server's does not) into a tool error.
func zoneErr(err error, tz string) error {
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "22023" {
		return toolkit.Errorf("timezone %q is not known to the database; use e.g. America/New_York, Europe/London or UTC", tz)
	}
	return err
}
