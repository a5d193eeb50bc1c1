// Package jsontext enforces the one input-hygiene rule at recruitd's edges: text that Postgres
// cannot store (a NUL character, bytes that are not UTF-8) is refused where it enters, naming
// the field, and nothing else is. A JSON escape that only spells a NUL (`"C:\\u0000"`, a
// backslash and "u0000") is ordinary text.
package jsontext

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Problem is a value Postgres cannot store, and where it is.
type Problem struct {
	Path   string // "jobDescription", "candidate.firstName", "steps[2].condition.all[0].value"; "" for the body itself
	Reason string // "contains a NUL character" or "is not valid UTF-8"
}

func (p *Problem) Error() string {
	if p.Path == "" {
		return "the body " + p.Reason
	}
	return p.Path + " " + p.Reason
}

// ErrSyntax means the body is not JSON; the caller's own decoder reports the details.
var ErrSyntax = errors.New("not JSON")

// Check walks a JSON document and returns the first key or string that holds a NUL character
// or bytes that are not UTF-8, as a *Problem; ErrSyntax when body is not JSON.
func Check(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var path []step
	prev := int64(0)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if len(path) > 0 {
				return ErrSyntax
			}
			return nil
		}
		if err != nil {
			return ErrSyntax
		}
		off := dec.InputOffset()
		raw := body[prev:off]
		prev = off
		inObject := len(path) > 0 && path[len(path)-1].object
		isKey := inObject && !path[len(path)-1].haveKey
		if s, ok := tok.(string); ok {
			where := pathString(path)
			if isKey {
				where = joinKey(where, s)
			}
			if !utf8.Valid(raw) {
				return &Problem{Path: where, Reason: "is not valid UTF-8"}
			}
			if strings.ContainsRune(s, 0) {
				return &Problem{Path: where, Reason: "contains a NUL character"}
			}
		}
		switch tok {
		case json.Delim('{'):
			path = append(path, step{object: true})
			continue
		case json.Delim('['):
			path = append(path, step{})
			continue
		case json.Delim('}'), json.Delim(']'):
			path = path[:len(path)-1]
		default:
			if isKey {
				path[len(path)-1].key, path[len(path)-1].haveKey = tok.(string), true
				continue
			}
		}
		// A value ended: the enclosing object wants a key next, the array its next index.
		if len(path) > 0 {
			top := &path[len(path)-1]
			if top.object {
				top.haveKey = false
			} else {
				top.index++
			}
		}
	}
}

// String checks one value, such as a path or query parameter, named name.
func String(name, s string) error {
	if !utf8.ValidString(s) {
		return &Problem{Path: name, Reason: "is not valid UTF-8"}
	}
	if strings.ContainsRune(s, 0) {
		return &Problem{Path: name, Reason: "contains a NUL character"}
	}
	return nil
}

type step struct {
	object  bool
	key     string
	haveKey bool
	index   int
}

func pathString(path []step) string {
	p := ""
	for _, s := range path {
		switch {
		case s.object && s.haveKey:
			p = joinKey(p, s.key)
		case !s.object:
			p += "[" + strconv.Itoa(s.index) + "]"
		}
	}
	return p
}

// joinKey appends key to a path: a plain key after a dot, any other in brackets and quotes.
func joinKey(prefix, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		return prefix + "[" + strconv.Quote(strings.ToValidUTF8(key, "\uFFFD")) + "]"
	case prefix == "":
		return key
	}
	return prefix + "." + key
}
