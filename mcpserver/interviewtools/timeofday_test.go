package interviewtools_test

import (
	"testing"

	"github.com/recruitd/recruitd/mcpserver/interviewtools"
)

type todOut = interviewtools.TimeOfDayOutput

func TestTimeOfDay(t *testing.T) {
	f := setup(t)
	tod := func(args map[string]any, meta map[string]any) todOut {
		t.Helper()
		o, _ := call[todOut](t, f, nil, "getInterviewTimeOfDayBreakdown", args, meta)
		if len(o.Buckets) != 24 {
			t.Fatalf("buckets = %d", len(o.Buckets))
		}
		var sum int64
		for h, b := range o.Buckets {
			if b.Hour != h {
				t.Fatalf("bucket %d has hour %d", h, b.Hour)
			}
			sum += b.Count
		}
		if sum != o.Total || o.InHoursCount+o.AfterHoursCount != o.Total {
			t.Fatalf("totals inconsistent: %+v", o)
		}
		return o
	}
	hours := func(o todOut) map[int]int64 {
		m := map[int]int64{}
		for _, b := range o.Buckets {
			if b.Count > 0 {
				m[b.Hour] = b.Count
			}
		}
		return m
	}
	eq := func(what string, got, want map[int]int64) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: hours %v, want %v", what, got, want)
			return
		}
		for h, n := range want {
			if got[h] != n {
				t.Errorf("%s: hours %v, want %v", what, got, want)
				return
			}
		}
	}

	// Defaults: last 30 days (S4 h18, S9 h23, S10 h10, S11 h17), New York, 9-18.
	o, r := call[todOut](t, f, nil, "getInterviewTimeOfDayBreakdown", nil, nil)
	eq("defaults", hours(o), map[int]int64{18: 1, 23: 1, 10: 1, 17: 1})
	if o.Timezone != "America/New_York" || o.BusinessHours.Start != 9 || o.BusinessHours.End != 18 || o.Total != 4 ||
		o.InHoursCount != 2 || o.AfterHoursCount != 2 || f64(o.AfterHoursPercent) != 50 ||
		*o.Window.Since != "2026-03-16T12:00:00Z" || *o.Window.Until != "2026-04-15T12:00:00Z" || o.Scope.Source != "companyWide" {
		t.Errorf("defaults = %+v", o)
	}
	// End-exclusive: 17:59 (S11) is in business hours, 18:15 (S4) after hours.
	if !o.Buckets[17].InBusinessHours || o.Buckets[18].InBusinessHours || !o.Buckets[9].InBusinessHours || o.Buckets[8].InBusinessHours {
		t.Errorf("business-hour flags wrong: %+v", o.Buckets)
	}
	contains(t, "default text", r.Text, "America/New_York", "09:00 to 18:00 (end exclusive)", "17:00-17:59", "After-hours share:", "50.0%",
		"2026-03-16 08:00 EDT")

	// DST: S2 at 13:30 UTC on 2026-03-06 (EST) is 08:30, S3 at 13:30 UTC on 2026-03-09 (EDT) is 09:30; S1 14:30 UTC EST 09:30.
	o = tod(map[string]any{"sinceDate": "2026-03-01", "untilDate": "2026-03-10"}, nil)
	eq("DST window", hours(o), map[int]int64{8: 1, 9: 2})
	if o.InHoursCount != 2 || o.AfterHoursCount != 1 || f64(o.AfterHoursPercent) != 33.3 {
		t.Errorf("DST window = %+v", o)
	}
	// Dates are read in the zone: 2026-03-01 New York starts at 05:00 UTC (EST).
	if *o.Window.Since != "2026-03-01T05:00:00Z" || *o.Window.Until != "2026-03-11T04:00:00Z" {
		t.Errorf("DST window ends = %s %s", *o.Window.Since, *o.Window.Until)
	}
	// Same window in UTC: S1 h14, S2 h13, S3 h13.
	o = tod(map[string]any{"sinceDate": "2026-03-01", "untilDate": "2026-03-10", "timezone": "UTC"}, nil)
	eq("UTC", hours(o), map[int]int64{13: 2, 14: 1})
	// Europe/Berlin (still CET on 03-09): 15:30, 14:30, 14:30.
	o = tod(map[string]any{"sinceDate": "2026-03-01", "untilDate": "2026-03-10", "timezone": "Europe/Berlin"}, nil)
	eq("Berlin", hours(o), map[int]int64{14: 2, 15: 1})

	// Business hours bounds.
	o = tod(map[string]any{"businessHoursEnd": 19}, nil)
	if o.InHoursCount != 3 || o.AfterHoursCount != 1 || f64(o.AfterHoursPercent) != 25 {
		t.Errorf("end 19 = %+v", o)
	}
	o = tod(map[string]any{"businessHoursStart": 0, "businessHoursEnd": 24}, nil)
	if o.InHoursCount != 4 || o.AfterHoursCount != 0 || f64(o.AfterHoursPercent) != 0 {
		t.Errorf("0-24 = %+v", o)
	}
	o = tod(map[string]any{"businessHoursStart": 23, "businessHoursEnd": 24}, nil)
	if o.InHoursCount != 1 || o.AfterHoursCount != 3 {
		t.Errorf("23-24 = %+v", o)
	}
	o = tod(map[string]any{"businessHoursStart": 10, "businessHoursEnd": 11}, nil)
	if o.InHoursCount != 1 || !o.Buckets[10].InBusinessHours || o.Buckets[11].InBusinessHours {
		t.Errorf("10-11 = %+v", o)
	}

	// Empty window: zeros everywhere, afterHoursPercent null.
	o = tod(map[string]any{"sinceDate": "2025-01-01", "untilDate": "2025-01-31"}, nil)
	if o.Total != 0 || o.AfterHoursPercent != nil {
		t.Errorf("empty = %+v", o)
	}
	// Only untilDate: the 30 days before it (New York dates). 2026-03-10 inclusive → [02-09 00:00, 03-11 00:00) local: S1 S2 S3.
	o = tod(map[string]any{"untilDate": "2026-03-10"}, nil)
	if o.Total != 3 {
		t.Errorf("untilDate only = %+v", o)
	}

	// Scope: J1 via positionId (S9 h23, S11 h17); J2 via the job context (S4 h18, S10 h10); companyWide wins.
	o = tod(map[string]any{"positionId": f.job["J1"].String()}, nil)
	eq("J1", hours(o), map[int]int64{23: 1, 17: 1})
	if o.Scope.Source != "positionId" {
		t.Errorf("J1 scope = %+v", o.Scope)
	}
	o = tod(nil, map[string]any{jobMeta: f.job["J2"].String()})
	eq("J2 context", hours(o), map[int]int64{18: 1, 10: 1})
	if o.Scope.Source != "jobContext" || o.Scope.Job == nil || o.Scope.Job.Title != "Sales Associate" {
		t.Errorf("J2 scope = %+v", o.Scope)
	}
	o = tod(map[string]any{"companyWide": true}, map[string]any{jobMeta: f.job["J2"].String()})
	if o.Total != 4 || o.Scope.Source != "companyWide" {
		t.Errorf("companyWide = %+v", o)
	}

	// Errors.
	toolErr(t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"timezone": "Mars/Olympus"}, "timezone", "Mars/Olympus", "IANA")
	toolErr(t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"timezone": "Local"}, "IANA")
	toolErr(t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"businessHoursStart": 24}, "businessHoursStart must be between 0 and 23")
	toolErr(t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"businessHoursStart": -1}, "businessHoursStart must be between 0 and 23")
	toolErr(t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"businessHoursEnd": 0}, "businessHoursEnd must be between 1 and 24")
	toolErr(t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"businessHoursEnd": 25}, "businessHoursEnd must be between 1 and 24")
	toolErr(t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"businessHoursStart": 18, "businessHoursEnd": 9}, "must be before businessHoursEnd")
	toolErr(t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"businessHoursStart": 12, "businessHoursEnd": 12}, "must be before businessHoursEnd")
	toolErr(t, f, nil, "getInterviewTimeOfDayBreakdown", map[string]any{"sinceDate": "2026-04-10", "untilDate": "2026-04-01"}, "sinceDate must be before untilDate")
}
