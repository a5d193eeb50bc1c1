package interview

import (
	"strings"
	"time"

	"github.com/recruitd/recruitd/models"
)

// ReminderKind names one of a session's two reminders.
type ReminderKind string

// Reminder kinds.
const (
	// ReminderFirst: the session is still INVITED FirstAfter after the invitation.
	ReminderFirst ReminderKind = "first"
	// ReminderLast: the session is open LastBefore its deadline.
	ReminderLast ReminderKind = "last"
)

// Reminder is a reminder due to a session.
type Reminder struct {
	Kind ReminderKind
	// Key names the reminder among the session's for good (interview_events.once_key): the first
	// reminder has one, the last one per deadline, so a deadline moved by the start of the
	// interview or an extension gets its own last reminder.
	Key string
	// Due is when the rule asks for it; At is when it goes: Due (or now, if later) moved out of
	// the quiet hours.
	Due, At time.Time
}

// ReminderSchedule is what decides a session's reminders.
type ReminderSchedule struct {
	Status    models.SessionStatus
	InvitedAt time.Time
	ExpiresAt time.Time
	// Enabled is companies.interview_reminders_enabled; FirstAfter and LastBefore its
	// interview_first_reminder_seconds and interview_last_reminder_seconds.
	Enabled    bool
	FirstAfter time.Duration
	LastBefore time.Duration
	Quiet      QuietHours
	Zones      CandidateZones
	// Done holds the keys of the reminders sent or skipped already.
	Done map[string]bool
}

const lastPrefix = "reminder/last/"

// ReminderKey is the key of a reminder of kind for a session whose deadline is expiresAt.
func ReminderKey(kind ReminderKind, expiresAt time.Time) string {
	if kind == ReminderFirst {
		return "reminder/first"
	}
	return lastPrefix + expiresAt.UTC().Format(time.RFC3339)
}

// Next returns the session's next reminder at now, if one is to come before the deadline:
//   - the first while INVITED, FirstAfter after the invitation;
//   - the last while INVITED or STARTED, LastBefore the deadline (expires_at);
//
// each at its due time, or now when that has passed, moved past the quiet hours in the
// candidate's zones. A reminder that would go at or after the deadline is dropped, and so is the
// first when the last goes no later than it or a last reminder (of any deadline) was sent or
// skipped (the candidate was reminded already).
func (s ReminderSchedule) Next(now time.Time) (Reminder, bool) {
	if !s.Enabled || !s.Status.Open() || !now.Before(s.ExpiresAt) {
		return Reminder{}, false
	}
	at := func(due time.Time) (time.Time, bool) {
		t := due
		if now.After(t) {
			t = now
		}
		t, ok := s.Quiet.Next(t, s.Zones.Zones)
		return t, ok && t.Before(s.ExpiresAt)
	}
	var last *Reminder
	lastKey := ReminderKey(ReminderLast, s.ExpiresAt)
	if s.LastBefore > 0 && !s.Done[lastKey] {
		due := s.ExpiresAt.Add(-s.LastBefore)
		if t, ok := at(due); ok {
			last = &Reminder{Kind: ReminderLast, Key: lastKey, Due: due, At: t}
		}
	}
	firstKey := ReminderKey(ReminderFirst, s.ExpiresAt)
	if s.Status == models.SessionStatusInvited && s.FirstAfter > 0 && !s.Done[firstKey] && !s.lastDone() {
		due := s.InvitedAt.Add(s.FirstAfter)
		if t, ok := at(due); ok && (last == nil || t.Before(last.At)) {
			return Reminder{Kind: ReminderFirst, Key: firstKey, Due: due, At: t}, true
		}
	}
	if last != nil {
		return *last, true
	}
	return Reminder{}, false
}

// lastDone reports whether a last reminder of any deadline is done.
func (s ReminderSchedule) lastDone() bool {
	for k, done := range s.Done {
		if done && strings.HasPrefix(k, lastPrefix) {
			return true
		}
	}
	return false
}
