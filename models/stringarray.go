package models

import (
	"database/sql/driver"
	"fmt"
	"strings"
)

// StringArray is a Postgres text[] column. A nil or empty slice is written as '{}', never NULL.
// Scanning rejects NULL elements and multi-dimensional arrays.
type StringArray []string

// Value formats a as a Postgres array literal with every element quoted.
func (a StringArray) Value() (driver.Value, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for j := 0; j < len(s); j++ {
			if s[j] == '"' || s[j] == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(s[j])
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String(), nil
}

// Scan parses a Postgres array literal (text format), as database/sql returns text[] columns.
func (a *StringArray) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil:
		*a = nil
		return nil
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("scan text[]: unsupported source type %T", src)
	}
	out, err := parseArrayLiteral(s)
	if err != nil {
		return fmt.Errorf("scan text[] %q: %w", s, err)
	}
	*a = out
	return nil
}

// parseArrayLiteral parses a one-dimensional array literal such as {a,"b c","d\"e"}, optionally
// preceded by dimension decoration ([0:1]={...}).
func parseArrayLiteral(s string) ([]string, error) {
	if strings.HasPrefix(s, "[") {
		i := strings.IndexByte(s, '=')
		if i < 0 {
			return nil, fmt.Errorf("dimension decoration without '='")
		}
		s = s[i+1:]
	}
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, fmt.Errorf("not enclosed in braces")
	}
	body := s[1 : len(s)-1]
	out := []string{}
	if strings.TrimSpace(body) == "" {
		return out, nil
	}
	i := 0
	for {
		for i < len(body) && isArraySpace(body[i]) {
			i++
		}
		if i == len(body) {
			return nil, fmt.Errorf("missing element after ','")
		}
		var elem strings.Builder
		switch body[i] {
		case '{':
			return nil, fmt.Errorf("multi-dimensional arrays are not supported")
		case '"':
			i++
			closed := false
			for i < len(body) {
				c := body[i]
				if c == '\\' && i+1 < len(body) {
					elem.WriteByte(body[i+1])
					i += 2
					continue
				}
				i++
				if c == '"' {
					closed = true
					break
				}
				elem.WriteByte(c)
			}
			if !closed {
				return nil, fmt.Errorf("unterminated quoted element")
			}
			for i < len(body) && isArraySpace(body[i]) {
				i++
			}
			out = append(out, elem.String())
		default:
			quotedTail := 0
			for i < len(body) && body[i] != ',' {
				c := body[i]
				switch {
				case c == '\\' && i+1 < len(body):
					elem.WriteByte(body[i+1])
					i += 2
					quotedTail = elem.Len()
					continue
				case c == '"' || c == '{' || c == '}':
					return nil, fmt.Errorf("unexpected %q in unquoted element", c)
				}
				elem.WriteByte(c)
				i++
			}
			v := elem.String()
			trimmed := strings.TrimRight(v[quotedTail:], " \t\n\r\v\f")
			v = v[:quotedTail] + trimmed
			if quotedTail == 0 && v == "" {
				return nil, fmt.Errorf("empty unquoted element at index %d", len(out))
			}
			if quotedTail == 0 && strings.EqualFold(v, "NULL") {
				return nil, fmt.Errorf("NULL element at index %d", len(out))
			}
			out = append(out, v)
		}
		if i == len(body) {
			return out, nil
		}
		if body[i] != ',' {
			return nil, fmt.Errorf("unexpected %q after element", body[i])
		}
		i++
	}
}

func isArraySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
