package toolkit

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Limit resolves an optional count argument: nil is def; below min is a tool error; above max
// is clamped to max with a notice (max 0 means unbounded).
func (c *Call) Limit(name string, v *int, def, min, max int) (int, error) {
	if v == nil {
		return def, nil
	}
	n := *v
	if n < min {
		return 0, Errorf("%s must be at least %d (got %d)", name, min, n)
	}
	if max > 0 && n > max {
		c.Notice("%s %d is above the maximum %d; used %d", name, n, max, max)
		return max, nil
	}
	return n, nil
}

// OneOf checks an enumerated argument and returns it typed. Matching is exact; the error names
// every allowed value.
func OneOf[T ~string](name, v string, allowed []T) (T, error) {
	for _, a := range allowed {
		if string(a) == v {
			return a, nil
		}
	}
	return "", Errorf("%s must be one of %s (got %q)", name, join(allowed), v)
}

// OneOfFold is OneOf ignoring case (for values such as job or session statuses that users type
// in any case); it returns the canonical spelling.
func OneOfFold[T ~string](name, v string, allowed []T) (T, error) {
	for _, a := range allowed {
		if strings.EqualFold(string(a), v) {
			return a, nil
		}
	}
	return "", Errorf("%s must be one of %s (got %q)", name, join(allowed), v)
}

// EachOf checks every element of an enumerated array argument.
func EachOf[T ~string](name string, vs []string, allowed []T) ([]T, error) {
	out := make([]T, 0, len(vs))
	for _, v := range vs {
		t, err := OneOfFold(name, v, allowed)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

func join[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// WindowArg is the optional date window of a tool whose window is all time by default; embed it
// in inputs and pass its fields to Call.Window. The tool's description says which timestamp it
// filters on.
type WindowArg struct {
	SinceDate string `json:"sinceDate,omitempty" jsonschema:"inclusive start: an ISO date (YYYY-MM-DD, UTC) or an RFC 3339 timestamp; omitted means no lower bound"`
	UntilDate string `json:"untilDate,omitempty" jsonschema:"end: an ISO date includes that whole day (UTC); an RFC 3339 timestamp is exclusive; omitted means no upper bound"`
}

// Window is a half-open time range [Since, Until); a nil end is unbounded.
type Window struct {
	Since, Until *time.Time
}

// String describes the window for output text.
func (w Window) String() string { return w.Out("").String() }

// Window parses optional sinceDate/untilDate arguments in loc (UTC when nil). A date
// ("2026-03-01") covers the whole day, so untilDate is inclusive of its day; a full RFC 3339
// timestamp is taken as is. defaultDays > 0 makes an omitted sinceDate that many days before
// the end (or now).
func (c *Call) Window(since, until string, defaultDays int, loc *time.Location) (Window, error) {
	if loc == nil {
		loc = time.UTC
	}
	var w Window
	if since != "" {
		t, _, err := parseDate(since, loc)
		if err != nil {
			return w, Errorf("sinceDate: %v", err)
		}
		w.Since = &t
	}
	if until != "" {
		t, dateOnly, err := parseDate(until, loc)
		if err != nil {
			return w, Errorf("untilDate: %v", err)
		}
		if dateOnly {
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
		}
		w.Until = &t
	}
	if w.Since == nil && defaultDays > 0 {
		end := c.Now
		if w.Until != nil {
			end = *w.Until
		}
		s := end.AddDate(0, 0, -defaultDays)
		w.Since = &s
		if w.Until == nil {
			w.Until = &end
		}
	}
	if w.Since != nil && w.Until != nil && !w.Since.Before(*w.Until) {
		return w, Errorf("sinceDate must be before untilDate")
	}
	return w, nil
}

func parseDate(s string, loc *time.Location) (time.Time, bool, error) {
	if t, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
		return t, true, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, false, nil
	}
	return time.Time{}, false, fmt.Errorf("%q is not an ISO date (YYYY-MM-DD) or RFC 3339 timestamp", s)
}

// WindowOut is a date window as applied, in outputs.
type WindowOut struct {
	Since *string `json:"since" jsonschema:"inclusive start (RFC 3339, UTC); null means unbounded"`
	Until *string `json:"until" jsonschema:"exclusive end (RFC 3339, UTC); null means unbounded"`
	Basis string  `json:"basis,omitempty" jsonschema:"the timestamp the window filters on"`
}

// Out is w as applied to the timestamp basis ("" when the output says it elsewhere).
func (w Window) Out(basis string) WindowOut {
	out := WindowOut{Basis: basis}
	if w.Since != nil {
		out.Since = new(Timestamp(*w.Since))
	}
	if w.Until != nil {
		out.Until = new(Timestamp(*w.Until))
	}
	return out
}

// String describes the window for output text.
func (w WindowOut) String() string {
	switch {
	case w.Since == nil && w.Until == nil:
		return "all time"
	case w.Until == nil:
		return "since " + *w.Since
	case w.Since == nil:
		return "before " + *w.Until
	}
	return *w.Since + " to " + *w.Until + " (end exclusive)"
}
