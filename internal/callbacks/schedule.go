package callbacks

import (
	"math"
	"time"
)

// schedule is the base delay before each attempt: immediately, 5 s, 5 min, 30 min, 2 h, 5 h,
// 10 h, 14 h, 20 h, 24 h.
var schedule = [...]time.Duration{
	0,
	5 * time.Second,
	5 * time.Minute,
	30 * time.Minute,
	2 * time.Hour,
	5 * time.Hour,
	10 * time.Hour,
	14 * time.Hour,
	20 * time.Hour,
	24 * time.Hour,
}

// Attempts is the number of attempts of the schedule.
const Attempts = len(schedule)

// Delay is the wait before attempt (1-based; attempt 1 is immediate), and false when attempt is
// outside the schedule. rnd in [0,1) adds 0.2*(rnd-0.5) times the base delay, so ±10%, and 0.5
// gives the base delay exactly. Delay is a pure function of its arguments, so a Temporal
// workflow can pass its own deterministic randomness; rnd outside [0,1) or NaN is clamped.
func Delay(attempt int, rnd float64) (time.Duration, bool) {
	if attempt < 1 || attempt > Attempts {
		return 0, false
	}
	switch {
	case math.IsNaN(rnd):
		rnd = 0.5
	case rnd < 0:
		rnd = 0
	case rnd >= 1:
		rnd = math.Nextafter(1, 0)
	}
	base := schedule[attempt-1]
	return base + time.Duration(float64(base)*0.2*(rnd-0.5)), true
}

// NextDelay is the wait before the attempt after a: the scheduled Delay, or a.RetryAfter capped
// at 24 h when that is longer; false when a was the last attempt of the schedule.
func NextDelay(a Attempt, rnd float64) (time.Duration, bool) {
	d, ok := Delay(a.Number+1, rnd)
	if !ok {
		return 0, false
	}
	return max(d, min(a.RetryAfter, maxRetryAfter)), true
}
