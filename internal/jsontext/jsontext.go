// Package jsontext enforces the input-hygiene rules at recruitd's edges: text that Postgres
// cannot store (a NUL character, bytes that are not UTF-8) is refused where it enters, naming
// the field; so are a name given twice in one object and nesting deeper than MaxDepth. A JSON
// escape that only spells a NUL (`"C:\\u0000"`, a backslash and "u0000") is ordinary text.
//
// The walk is linear in the size of the body: it uses the tokenizer of encoding/json/v2
// (github.com/go-json-experiment/json/jsontext, which also rejects repeated names), and builds
// a field's path only for the error it reports.
package jsontext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// MaxDepth is the deepest nesting of objects and arrays a body may have. recruitd's deepest
// documents (workflow definitions) need 12 levels.
const MaxDepth = 64

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

// Repeated is an object that names one member twice; Path ends with that name.
type Repeated struct {
	Path string // "candidate.firstName"
}

func (r *Repeated) Error() string { return r.Path + " is given twice in one object" }

// ErrSyntax means the body is not JSON; the caller's own decoder reports the details.
var ErrSyntax = errors.New("not JSON")

// ErrTooDeep means objects and arrays nest deeper than MaxDepth.
var ErrTooDeep = fmt.Errorf("objects and arrays nest more than %d levels deep", MaxDepth)

// Check is CheckContext without a deadline; for values already in memory and bounded, such as
// a tool call's arguments.
func Check(body []byte) error { return CheckContext(context.Background(), body) }

// cancelEvery is how many tokens CheckContext reads between looks at its context.
const cancelEvery = 4096

// CheckContext walks a JSON document and returns the first problem: a key or string that holds
// a NUL character or bytes that are not UTF-8 (a *Problem), a repeated name (a *Repeated),
// nesting deeper than MaxDepth (ErrTooDeep), or ErrSyntax when body is not JSON. It stops with
// ctx's error when ctx ends. A sequence of JSON values (`{} {}`) is walked value by value.
func CheckContext(ctx context.Context, body []byte) error {
	// A lone surrogate escape ("\ud800") decodes to U+FFFD, as encoding/json does; raw bytes that
	// are not UTF-8 are reported below with their path instead of as a syntax error.
	dec := jsontext.NewDecoder(bytes.NewBuffer(body), jsontext.AllowInvalidUTF8(true))
	for n := 1; ; n++ {
		if n%cancelEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if dec.PeekKind() == '"' {
			raw, err := dec.ReadValue()
			if err != nil {
				return syntaxOrRepeated(dec, err)
			}
			if !utf8.Valid(raw) {
				return &Problem{Path: path(dec), Reason: "is not valid UTF-8"}
			}
			if hasNUL(raw) {
				return &Problem{Path: path(dec), Reason: "contains a NUL character"}
			}
			continue
		}
		tok, err := dec.ReadToken()
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return syntaxOrRepeated(dec, err)
		}
		if k := tok.Kind(); (k == '{' || k == '[') && dec.StackDepth() > MaxDepth {
			return ErrTooDeep
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

func syntaxOrRepeated(dec *jsontext.Decoder, err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && errors.Is(se.Err, jsontext.ErrDuplicateName) {
		return &Repeated{Path: pointerPath(dec, se.JSONPointer)}
	}
	return ErrSyntax
}

// hasNUL reports whether the quoted JSON string raw decodes to text holding a NUL. Raw control
// characters are not JSON, so a NUL can only be spelled by the escape \u0000; the string is
// decoded only when that escape may be there.
func hasNUL(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`\u0000`)) {
		return false
	}
	s, _ := jsontext.AppendUnquote(nil, raw) // an error here is a lone surrogate: U+FFFD, no NUL
	return bytes.IndexByte(s, 0) >= 0
}

// path is the recruitd path of the value or name the decoder read last.
func path(dec *jsontext.Decoder) string { return pointerPath(dec, dec.StackPointer()) }

// pointerPath turns a JSON Pointer into a recruitd path ("steps[2].condition.all[0].value"),
// using the decoder's stack to tell array indices from names that are digits.
func pointerPath(dec *jsontext.Decoder, ptr jsontext.Pointer) string {
	p, level := "", 1
	for tok := range ptr.Tokens() {
		if kind, _ := dec.StackIndex(level); kind == '[' {
			p += "[" + tok + "]"
		} else {
			p = joinKey(p, tok)
		}
		level++
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
