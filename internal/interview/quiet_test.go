package interview

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/phone"
	"github.com/recruitd/recruitd/models"
)

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func quiet(t *testing.T, start, end string) QuietHours {
	t.Helper()
	q, err := ParseQuietHours(start, end)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestParseQuietHours(t *testing.T) {
	for _, tt := range []struct {
		start, end string
		want       string
		ok         bool
	}{
		{"21:00", "08:00", "21:00-08:00", true},
		{"00:00", "23:59", "00:00-23:59", true},
		{"13:30", "14:00", "13:30-14:00", true},
		{"08:00", "08:00", "none", true},
		{"24:00", "08:00", "", false},
		{"9:00", "08:00", "", false},
		{"21:00", "08:60", "", false},
		{"21:00", "", "", false},
		{"21:00:00", "08:00", "", false},
	} {
		q, err := ParseQuietHours(tt.start, tt.end)
		if (err == nil) != tt.ok || (tt.ok && q.String() != tt.want) {
			t.Errorf("ParseQuietHours(%q, %q) = %v, %v, want %s (ok %v)", tt.start, tt.end, q, err, tt.want, tt.ok)
		}
	}
	if DefaultQuietHours.String() != "21:00-08:00" {
		t.Errorf("DefaultQuietHours = %s", DefaultQuietHours)
	}
}

// TestQuietHoursNext: the earliest time outside the quiet hours, in one zone and in several, on
// the days the clocks change, across midnight and a zone boundary.
func TestQuietHoursNext(t *testing.T) {
	ny, la, madrid, canary := zone(t, "America/New_York"), zone(t, "America/Los_Angeles"), zone(t, "Europe/Madrid"), zone(t, "Atlantic/Canary")
	auckland, honolulu := zone(t, "Pacific/Auckland"), zone(t, "Pacific/Honolulu")
	night := quiet(t, "21:00", "08:00")
	for _, tt := range []struct {
		name  string
		q     QuietHours
		at    string
		zones []*time.Location
		want  string
	}{
		{"daytime is free", night, "2026-06-10T15:00:00Z", []*time.Location{ny}, "2026-06-10T15:00:00Z"},
		{"the end is free", night, "2026-06-10T12:00:00Z", []*time.Location{ny}, "2026-06-10T12:00:00Z"},
		{"the start is quiet", night, "2026-06-11T01:00:00Z", []*time.Location{ny}, "2026-06-11T12:00:00Z"},
		{"early morning waits for 08:00", night, "2026-06-10T09:30:00Z", []*time.Location{ny}, "2026-06-10T12:00:00Z"},
		{"late evening waits for the next morning", night, "2026-06-10T02:30:00Z", []*time.Location{ny}, "2026-06-10T12:00:00Z"},
		// The day the clocks go forward (2026-03-08 in New York) 08:00 is 12:00 UTC; the day
		// before it is 13:00 UTC. The night of the change is an hour shorter.
		{"spring forward: 08:00 EDT", night, "2026-03-08T11:30:00Z", []*time.Location{ny}, "2026-03-08T12:00:00Z"},
		{"the day before: 08:00 EST", night, "2026-03-07T11:30:00Z", []*time.Location{ny}, "2026-03-07T13:00:00Z"},
		{"the night of the change", night, "2026-03-08T03:00:00Z", []*time.Location{ny}, "2026-03-08T12:00:00Z"},
		// Back again on 2026-11-01: 08:00 EST is 13:00 UTC.
		{"fall back: 08:00 EST", night, "2026-11-01T11:30:00Z", []*time.Location{ny}, "2026-11-01T13:00:00Z"},
		{"the day before: 08:00 EDT", night, "2026-10-31T11:30:00Z", []*time.Location{ny}, "2026-10-31T12:00:00Z"},
		// An end the clock skips (02:30 on 2026-03-08 in New York) ends at the change, 03:00 EDT.
		{"end in the DST gap", quiet(t, "22:00", "02:30"), "2026-03-08T06:00:00Z", []*time.Location{ny}, "2026-03-08T07:00:00Z"},
		// 08:30 in New York is 05:30 in Los Angeles: the candidate's zone decides.
		{"across a zone boundary", night, "2026-06-10T12:30:00Z", []*time.Location{la}, "2026-06-10T15:00:00Z"},
		{"the company's zone would send", night, "2026-06-10T12:30:00Z", []*time.Location{ny}, "2026-06-10T12:30:00Z"},
		// Across the date line: 20:00 on the 10th in Honolulu is 18:00 on the 11th in Auckland.
		{"date line, Honolulu evening", night, "2026-06-11T06:00:00Z", []*time.Location{honolulu}, "2026-06-11T06:00:00Z"},
		{"date line, Honolulu night", night, "2026-06-11T07:30:00Z", []*time.Location{honolulu}, "2026-06-11T18:00:00Z"},
		{"date line, Auckland morning", night, "2026-06-10T18:00:00Z", []*time.Location{auckland}, "2026-06-10T20:00:00Z"},
		// A Spanish mobile may be in Madrid or the Canaries (an hour behind): free in both.
		{"two zones: the later morning", night, "2026-06-10T06:30:00Z", []*time.Location{madrid, canary}, "2026-06-10T07:00:00Z"},
		{"two zones: the earlier evening", night, "2026-06-10T19:30:00Z", []*time.Location{madrid, canary}, "2026-06-11T07:00:00Z"},
		{"two zones: free in both", night, "2026-06-10T12:00:00Z", []*time.Location{madrid, canary}, "2026-06-10T12:00:00Z"},
		{"a daytime window", quiet(t, "13:00", "14:00"), "2026-06-10T17:30:00Z", []*time.Location{ny}, "2026-06-10T18:00:00Z"},
		{"no quiet hours", quiet(t, "08:00", "08:00"), "2026-06-11T03:00:00Z", []*time.Location{ny}, "2026-06-11T03:00:00Z"},
	} {
		got, ok := tt.q.Next(utc(tt.at), tt.zones)
		if !ok || !got.Equal(utc(tt.want)) {
			t.Errorf("%s: %s.Next(%s) = %s, %v, want %s", tt.name, tt.q, tt.at, got.UTC().Format(time.RFC3339), ok, tt.want)
		}
		if ok && tt.q.Enabled() {
			for _, loc := range tt.zones {
				if tt.q.Quiet(got, loc) {
					t.Errorf("%s: %s is quiet in %s", tt.name, got, loc)
				}
			}
		}
	}
	// Zones around the globe leave no free hour: not ok.
	if got, ok := night.Next(utc("2026-06-10T12:00:00Z"), []*time.Location{honolulu, zone(t, "Europe/Berlin"), zone(t, "America/Sao_Paulo"), zone(t, "Asia/Tokyo")}); ok {
		t.Errorf("Next over Honolulu, Berlin, Sao Paulo and Tokyo found %s free", got)
	}
	if _, ok := night.Next(utc("2026-06-10T12:00:00Z"), nil); ok {
		t.Error("Next without zones is ok")
	}
}

func names(z CandidateZones) string { return z.Source + ":" + z.Names() }

func TestResolveZones(t *testing.T) {
	night := DefaultQuietHours
	texas := JobZones("Registered Nurse - Austin, TX")
	for _, tt := range []struct {
		name    string
		phone   []string
		job     []string
		company string
		want    string
	}{
		{"the phone's zone", phone.TimeZones("+14155552671"), texas, "Europe/Berlin", "phone:America/Los_Angeles"},
		{"no phone: the job's place", nil, texas, "Europe/Berlin", "job:America/Chicago,America/Denver"},
		{"nothing: the company's zone", nil, nil, "Europe/Berlin", "company:Europe/Berlin"},
		{"a company zone that does not load", nil, nil, "Mars/Olympus", "company:UTC"},
		{"several phone zones, narrowed by the job", []string{"America/Denver", "America/Chicago", "America/Phoenix"}, texas, "UTC", "phone:America/Denver,America/Chicago"},
		{"several phone zones the job does not share", phone.TimeZones("+34612345678"), texas, "UTC", "phone:Atlantic/Canary,Europe/Madrid"},
		{"a toll-free number", phone.TimeZones("+18005551234"), nil, "America/New_York", "company:America/New_York"},
		// Zones around the globe leave no free hour in all of them: the phone says nothing.
		{"zones around the globe", []string{"Pacific/Honolulu", "Europe/Berlin", "America/Sao_Paulo", "Asia/Tokyo"}, nil, "UTC", "company:UTC"},
		{"unknown zone names", []string{"Etc/Unknown", "Nowhere/Else"}, nil, "UTC", "company:UTC"},
	} {
		if got := names(ResolveZones(night, tt.phone, tt.job, tt.company)); got != tt.want {
			t.Errorf("%s: ResolveZones(%v, %v, %q) = %s, want %s", tt.name, tt.phone, tt.job, tt.company, got, tt.want)
		}
	}
}

func TestJobZones(t *testing.T) {
	for _, tt := range []struct {
		texts []string
		want  []string
	}{
		{[]string{"Registered Nurse - Brooklyn, NY"}, []string{"America/New_York"}},
		{[]string{"Registered Nurse", "Join our clinic in Phoenix, AZ."}, []string{"America/Phoenix"}},
		{[]string{"Registered Nurse (remote)", "Work from home."}, nil},
		{[]string{"Java developer", "Spring and Java"}, nil},
		{nil, nil},
	} {
		if got := JobZones(tt.texts...); !slices.Equal(got, tt.want) {
			t.Errorf("JobZones(%q) = %v, want %v", tt.texts, got, tt.want)
		}
	}
}

// TestReminderSchedule: which reminder comes next, and when.
func TestReminderSchedule(t *testing.T) {
	ny := CandidateZones{Source: ZoneFromPhone, Zones: []*time.Location{zone(t, "America/New_York")}}
	invited := utc("2026-06-10T14:00:00Z") // 10:00 in New York
	base := ReminderSchedule{
		Status: models.SessionStatusInvited, InvitedAt: invited, ExpiresAt: invited.Add(7 * 24 * time.Hour),
		Enabled: true, FirstAfter: 24 * time.Hour, LastBefore: 24 * time.Hour, Quiet: DefaultQuietHours, Zones: ny,
	}
	lastKey := ReminderKey(ReminderLast, base.ExpiresAt)
	for _, tt := range []struct {
		name string
		edit func(*ReminderSchedule)
		now  string
		want string // "kind at", or "" for none
	}{
		{"the first, a day later", nil, "2026-06-10T14:00:01Z", "first 2026-06-11T14:00:00Z"},
		{"the first, late: now", nil, "2026-06-12T15:00:00Z", "first 2026-06-12T15:00:00Z"},
		{"the first, late at night: the morning", nil, "2026-06-12T03:00:00Z", "first 2026-06-12T12:00:00Z"},
		{"the first, due in the night", func(s *ReminderSchedule) { s.InvitedAt = utc("2026-06-10T02:00:00Z") }, "2026-06-10T02:00:01Z", "first 2026-06-11T12:00:00Z"},
		{"the last, once the first went", func(s *ReminderSchedule) { s.Done = map[string]bool{"reminder/first": true} }, "2026-06-11T14:00:01Z", "last 2026-06-16T14:00:00Z"},
		{"started: the last only", func(s *ReminderSchedule) {
			s.Status, s.ExpiresAt = models.SessionStatusStarted, utc("2026-06-14T14:00:00Z")
		}, "2026-06-10T15:00:00Z", "last 2026-06-13T14:00:00Z"},
		{"both done", func(s *ReminderSchedule) { s.Done = map[string]bool{"reminder/first": true, lastKey: true} }, "2026-06-11T14:00:01Z", ""},
		{"a new deadline gets its last reminder", func(s *ReminderSchedule) {
			s.Done = map[string]bool{"reminder/first": true, lastKey: true}
			s.ExpiresAt = s.ExpiresAt.Add(72 * time.Hour)
		}, "2026-06-17T15:00:00Z", "last 2026-06-19T14:00:00Z"},
		{"no first after a last reminder", func(s *ReminderSchedule) {
			s.Done = map[string]bool{lastKey: true}
			s.ExpiresAt = s.ExpiresAt.Add(72 * time.Hour)
		}, "2026-06-17T15:00:00Z", "last 2026-06-19T14:00:00Z"},
		{"the last before the first: the last only", func(s *ReminderSchedule) { s.FirstAfter = 6*24*time.Hour + time.Hour }, "2026-06-10T15:00:00Z", "last 2026-06-16T14:00:00Z"},
		{"pushed past the deadline by the night: none", func(s *ReminderSchedule) {
			s.ExpiresAt, s.FirstAfter, s.LastBefore = utc("2026-06-11T04:00:00Z"), 13*time.Hour, time.Hour
		}, "2026-06-10T14:00:01Z", ""},
		{"reminders off", func(s *ReminderSchedule) { s.Enabled = false }, "2026-06-10T14:00:01Z", ""},
		{"completed", func(s *ReminderSchedule) { s.Status = models.SessionStatusCompleted }, "2026-06-10T14:00:01Z", ""},
		{"cancelled", func(s *ReminderSchedule) { s.Status = models.SessionStatusCancelled }, "2026-06-10T14:00:01Z", ""},
		{"past the deadline", nil, "2026-06-17T14:00:00Z", ""},
	} {
		s := base
		if tt.edit != nil {
			tt.edit(&s)
		}
		r, ok := s.Next(utc(tt.now))
		got := ""
		if ok {
			got = string(r.Kind) + " " + r.At.UTC().Format(time.RFC3339)
			if !strings.HasPrefix(r.Key, "reminder/"+string(r.Kind)) {
				t.Errorf("%s: key %q", tt.name, r.Key)
			}
		}
		if got != tt.want {
			t.Errorf("%s: Next(%s) = %q, want %q", tt.name, tt.now, got, tt.want)
		}
	}
}
