package hrsuitereport

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file walks a delivery body without building a value per row: the body is checked once
// with json.Valid, after which the array's elements and each object's members are found by
// skipping over well-formed JSON. Every index is still bounds-checked, so a mistake here ends a
// walk early instead of panicking (the fuzz target compares the walk with encoding/json).

// elements checks that body is one JSON array, with only JSON whitespace around it, and calls
// fn (when not nil) with each element's index and bytes (no surrounding whitespace). It returns
// the number of elements.
func elements(body []byte, fn func(i int, elem []byte)) (int, error) {
	if !json.Valid(body) {
		return 0, notArray(body)
	}
	i := skipWS(body, 0)
	if i >= len(body) || body[i] != '[' {
		return 0, notArray(body)
	}
	i = skipWS(body, i+1)
	if i < len(body) && body[i] == ']' {
		return 0, nil
	}
	n := 0
	for i < len(body) {
		end := skipValue(body, i)
		if fn != nil {
			fn(n, body[i:end])
		}
		n++
		i = skipWS(body, end)
		if i >= len(body) || body[i] != ',' {
			break // ']'
		}
		i = skipWS(body, i+1)
	}
	return n, nil
}

// notArray tells what is wrong with a body that is not one JSON array. The text names a JSON
// kind or a syntax error (which quotes at most one character of the body), never a cell.
func notArray(body []byte) error {
	if err := json.Unmarshal(body, new(json.RawMessage)); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return fmt.Errorf("%w: %s at offset %d", ErrNotArray, syn.Error(), syn.Offset)
		}
		return fmt.Errorf("%w: %s", ErrNotArray, err.Error())
	}
	kind := "value"
	if i := skipWS(body, 0); i < len(body) {
		switch body[i] {
		case '{':
			kind = "object"
		case '"':
			kind = "string"
		case 't', 'f':
			kind = "boolean"
		case 'n':
			kind = "null"
		default:
			kind = "number"
		}
	}
	return fmt.Errorf("%w: it is a JSON %s", ErrNotArray, kind)
}

// members calls fn with the key (quotes included) and the value of each member of the JSON
// object obj, in order; duplicate keys are all passed.
func members(obj []byte, fn func(key, val []byte)) {
	i := skipWS(obj, 1)
	for i < len(obj) && obj[i] == '"' {
		ke := skipValue(obj, i)
		key := obj[i:ke]
		i = skipWS(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = skipWS(obj, i+1)
		ve := skipValue(obj, i)
		fn(key, obj[i:ve])
		i = skipWS(obj, ve)
		if i >= len(obj) || obj[i] != ',' {
			return // '}'
		}
		i = skipWS(obj, i+1)
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	default: // number, true, false, null
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return len(b)
	}
}

// skipString returns the index just past the JSON string starting at b[i] (a '"').
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// decodeString returns the text of the JSON string literal lit (quotes included), with
// invalid UTF-8 replaced by U+FFFD as encoding/json does.
func decodeString(lit []byte) string {
	if len(lit) < 2 {
		return ""
	}
	if inner := lit[1 : len(lit)-1]; !containsByte(inner, '\\') && utf8.Valid(inner) {
		return string(inner)
	}
	var s string // escapes or invalid UTF-8 (each bad byte becomes U+FFFD): encoding/json's way
	if err := json.Unmarshal(lit, &s); err != nil {
		return ""
	}
	return s
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// decimalText writes the JSON number lit in plain decimal notation: 4.155552671E9 is
// "4155552671", 12.50 is "12.5", -0 is "0". ok is false when the text would be longer than max
// bytes (1e999 is not spelled out).
func decimalText(lit []byte, max int) (text string, ok bool) {
	s := string(lit)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e := s[i+1:]
		eneg := strings.HasPrefix(e, "-")
		e = strings.TrimLeft(e, "+-")
		for _, c := range e {
			if exp < 1<<30 {
				exp = exp*10 + int(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	point := len(intPart) + exp - (len(intPart) + len(frac) - len(digits)) // digits before the point
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return "0", true
	}
	var n int // length of the result
	switch {
	case point <= 0:
		n = 2 - point + len(digits) // "0." zeros digits
	case point >= len(digits):
		n = point
	default:
		n = len(digits) + 1
	}
	if neg {
		n++
	}
	if n > max || point > max || point < -max {
		return "", false
	}
	var b strings.Builder
	b.Grow(n)
	if neg {
		b.WriteByte('-')
	}
	switch {
	case point <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -point))
		b.WriteString(digits)
	case point >= len(digits):
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", point-len(digits)))
	default:
		b.WriteString(digits[:point])
		b.WriteByte('.')
		b.WriteString(digits[point:])
	}
	return b.String(), true
}
