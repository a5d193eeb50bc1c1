package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// fieldErrors collects input problems so one response can name them all.
type fieldErrors []string

func (f *fieldErrors) add(format string, args ...any) { *f = append(*f, fmt.Sprintf(format, args...)) }

// maxLen checks a text field's length in characters.
func (f *fieldErrors) maxLen(field, v string, n int) {
	if utf8.RuneCountInString(v) > n {
		f.add("%s is longer than %d characters", field, n)
	}
}

// maxItems checks a list's length.
func (f *fieldErrors) maxItems(field string, n, max int) {
	if n > max {
		f.add("%s has %d items; at most %d are allowed", field, n, max)
	}
}

func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return newError(http.StatusBadRequest, "INVALID_FIELD", strings.Join(f, "; "))
}

func blank(s *string) bool { return s == nil || strings.TrimSpace(*s) == "" }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}
