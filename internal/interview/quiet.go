package interview

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // zones load on hosts without a zone database (distroless images)

	"github.com/recruitd/recruitd/internal/gazetteer"
)

// QuietHours is the daily window, on the candidate's local clock, in which no reminder is sent:
// from Start (included) to End (excluded), across midnight when Start is later than End
// (21:00-08:00, the default). Equal Start and End mean no quiet hours. The zero value has none.
type QuietHours struct {
	start, end time.Duration // since local midnight, on the wall clock
}

// DefaultQuietHours is 21:00-08:00, the companies' default (companies.quiet_hours_start/end).
var DefaultQuietHours = QuietHours{start: 21 * time.Hour, end: 8 * time.Hour}

// ParseQuietHours reads a company's quiet hours, each "HH:MM" on the 24-hour clock.
func ParseQuietHours(start, end string) (QuietHours, error) {
	s, err := clockTime(start)
	if err != nil {
		return QuietHours{}, fmt.Errorf("quiet hours start: %w", err)
	}
	e, err := clockTime(end)
	if err != nil {
		return QuietHours{}, fmt.Errorf("quiet hours end: %w", err)
	}
	return QuietHours{start: s, end: e}, nil
}

var errClock = errors.New(`want "HH:MM" between 00:00 and 23:59`)

func clockTime(s string) (time.Duration, error) {
	t, err := time.Parse("15:04", s)
	if err != nil || len(s) != 5 {
		return 0, fmt.Errorf("%q: %w", s, errClock)
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, nil
}

// Enabled reports whether q has quiet hours at all.
func (q QuietHours) Enabled() bool { return q.start != q.end }

// String is "21:00-08:00", or "none".
func (q QuietHours) String() string {
	if !q.Enabled() {
		return "none"
	}
	f := func(d time.Duration) string { return fmt.Sprintf("%02d:%02d", int(d.Hours()), int(d.Minutes())%60) }
	return f(q.start) + "-" + f(q.end)
}

// Quiet reports whether t falls in the quiet hours on the wall clock of loc.
func (q QuietHours) Quiet(t time.Time, loc *time.Location) bool {
	if !q.Enabled() {
		return false
	}
	tod := timeOfDay(t.In(loc))
	if q.start < q.end {
		return tod >= q.start && tod < q.end
	}
	return tod >= q.start || tod < q.end
}

func timeOfDay(lt time.Time) time.Duration {
	return time.Duration(lt.Hour())*time.Hour + time.Duration(lt.Minute())*time.Minute +
		time.Duration(lt.Second())*time.Second + time.Duration(lt.Nanosecond())
}

// endOf returns when the quiet hours that hold t (quiet in loc) end: End on t's local day, or on
// the next day when t is in the evening part of a window across midnight. An End that the clock
// skips that day (a DST gap) ends at the change.
func (q QuietHours) endOf(t time.Time, loc *time.Location) time.Time {
	lt := t.In(loc)
	day := lt.Day()
	if q.start > q.end && timeOfDay(lt) >= q.start {
		day++
	}
	h, m := int(q.end/time.Hour), int(q.end%time.Hour/time.Minute)
	e := time.Date(lt.Year(), lt.Month(), day, h, m, 0, 0, loc)
	if e.Hour() != h || e.Minute() != m {
		// In a gap time.Date answers by the offset before the change: the window ends at the
		// change, when the clock jumps past End.
		_, e = e.ZoneBounds()
	}
	if !e.After(t) {
		return t.Add(time.Minute) // unreachable with the zone data we know; never stand still
	}
	return e
}

// Next returns the earliest instant at or after t outside the quiet hours in every zone of
// zones. ok is false when the quiet hours of the zones together leave no time free within two
// days (zones spread around the globe), or zones is empty.
func (q QuietHours) Next(t time.Time, zones []*time.Location) (next time.Time, ok bool) {
	if len(zones) == 0 {
		return t, false
	}
	if !q.Enabled() {
		return t, true
	}
	limit := t.Add(48 * time.Hour)
	for next = t; next.Before(limit); {
		moved := false
		for _, loc := range zones {
			if q.Quiet(next, loc) {
				next, moved = q.endOf(next, loc), true
			}
		}
		if !moved {
			return next, true
		}
	}
	return t, false
}

// Where a candidate's time zones come from (CandidateZones.Source), in order of trust.
const (
	ZoneFromPhone   = "phone"   // the phone number's region and prefix
	ZoneFromJob     = "job"     // a place named in the job's title or description
	ZoneFromCompany = "company" // companies.time_zone
)

// CandidateZones are the time zones a candidate may be in: reminders respect the quiet hours in
// all of them. One zone in most cases; several when the source spans zones (a mobile number of
// a country with several zones, a state that spans two).
type CandidateZones struct {
	Source string
	Zones  []*time.Location
}

// Names lists the zones' names, comma-separated.
func (z CandidateZones) Names() string {
	names := make([]string, len(z.Zones))
	for i, loc := range z.Zones {
		names[i] = loc.String()
	}
	return strings.Join(names, ",")
}

// ResolveZones chooses the zones of a candidate from the zones of the phone number (phone, as
// internal/phone.TimeZones gives them), of the job's location (job, JobZones) and the company's
// zone (an IANA name): the phone's, narrowed to the job's when both name several zones and
// share some; else the job's; else the company's (UTC when that name does not load). A source
// is passed over when its zones do not load or leave no time outside the quiet hours q in all
// of them (a toll-free number of the whole North American plan).
func ResolveZones(q QuietHours, phone, job []string, companyZone string) CandidateZones {
	p, j := loadZones(phone), loadZones(job)
	if len(p) > 1 && len(j) > 0 {
		var both []*time.Location
		for _, loc := range p {
			if slices.ContainsFunc(j, func(o *time.Location) bool { return o.String() == loc.String() }) {
				both = append(both, loc)
			}
		}
		if usable(q, both) {
			return CandidateZones{Source: ZoneFromPhone, Zones: both}
		}
	}
	if usable(q, p) {
		return CandidateZones{Source: ZoneFromPhone, Zones: p}
	}
	if usable(q, j) {
		return CandidateZones{Source: ZoneFromJob, Zones: j}
	}
	co := loadZones([]string{companyZone})
	if len(co) == 0 {
		co = []*time.Location{time.UTC}
	}
	return CandidateZones{Source: ZoneFromCompany, Zones: co}
}

// usable reports whether zones are some zones with time outside the quiet hours in all of them
// (judged over a week from a fixed date, so the answer does not depend on the day).
func usable(q QuietHours, zones []*time.Location) bool {
	if len(zones) == 0 {
		return false
	}
	from := time.Date(2026, time.January, 5, 0, 0, 0, 0, time.UTC)
	for d := range 2 {
		if _, ok := q.Next(from.AddDate(0, 6*d, 0), zones); !ok {
			return false
		}
	}
	return true
}

// loadZones loads the names that are zones, in order, without repeats.
func loadZones(names []string) []*time.Location {
	var out []*time.Location
	for _, n := range names {
		if n == "" || n == "Local" || slices.ContainsFunc(out, func(l *time.Location) bool { return l.String() == n }) {
			continue
		}
		if loc, err := time.LoadLocation(n); err == nil {
			out = append(out, loc)
		}
	}
	return out
}

// JobZones returns the zones of the place a job names, from the first text (its title, then its
// description) that names one unambiguously ("Nurse - Austin, TX", "based in Texas"; see
// gazetteer.FindIn, strong matches only): nil when none does. The gazetteer knows US places
// only.
func JobZones(texts ...string) []string {
	for _, s := range texts {
		if m, ok := gazetteer.FindIn(s); ok && m.Strong {
			return m.Place.TimeZones()
		}
	}
	return nil
}
