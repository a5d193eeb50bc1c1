package jsontext

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		body string
		want string // the error's text; "" for none
	}{
		{`{"jobDescription":"nurse","active":true}`, ""},
		{`{"jobDescription":"C:\\u0000"}`, ""}, // a backslash and "u0000": ordinary text
		{`{"jobDescription":"a\u0000b"}`, "jobDescription contains a NUL character"},
		{`{"candidate":{"firstName":"x","lastName":"\u0000"}}`, "candidate.lastName contains a NUL character"},
		{`{"steps":[{"type":"wait"},{"condition":{"all":[{"field":"job.id","value":"\u0000"}]}}]}`, "steps[1].condition.all[0].value contains a NUL character"},
		{`{"a\u0000":1}`, `["a\x00"] contains a NUL character`},
		{"{\"name\":\"caf\xc3\x28\"}", "name is not valid UTF-8"},
		{"{\"list\":[\"ok\",\"\xff\xfe\"]}", "list[1] is not valid UTF-8"},
		{"[\"\x00\"]", ""}, // a raw NUL is not JSON: the decoder's error, not ours
		{`["a","b\u0000"]`, "[1] contains a NUL character"},
		{`{"a":{"b":[1,2,{"c":"\u0000"}]},"d":1}`, "a.b[2].c contains a NUL character"},
		{`{"a":[],"b":{},"c":"\u0000"}`, "c contains a NUL character"},
		{`{"0":{"1":["x","\u0000"]}}`, "0.1[1] contains a NUL character"}, // names that are digits stay names
		{`{"a/b~c":"\u0000"}`, `["a/b~c"] contains a NUL character`},
		{`"\u0000"`, "the body contains a NUL character"},
		{`["\ud800"]`, ""}, // a lone surrogate escape is U+FFFD, as encoding/json reads it
		{`{"a":1,"a":2}`, "a is given twice in one object"},
		{`{"job":{"title":"x","title":"y"}}`, "job.title is given twice in one object"},
		{`{"list":[{"k":1},{"k":2,"k":3}]}`, "list[1].k is given twice in one object"},
		{`[{"k":1},{"k":1}]`, ""}, // the same name in two objects
		{`{} {}`, ""},             // a second value is the caller's to refuse
	}
	for _, tt := range tests {
		err := Check([]byte(tt.body))
		got := ""
		var p *Problem
		var r *Repeated
		if errors.As(err, &p) || errors.As(err, &r) {
			got = err.Error()
		}
		if got != tt.want || (tt.want == "" && err != nil && !errors.Is(err, ErrSyntax)) {
			t.Errorf("Check(%q) = %v, want %q", tt.body, err, tt.want)
		}
	}
	for _, bad := range []string{`{"a":`, `{"a" 1}`, `[1,]`, `nul`, `{"a":1}}`} {
		if err := Check([]byte(bad)); !errors.Is(err, ErrSyntax) {
			t.Errorf("Check(%q) = %v, want ErrSyntax", bad, err)
		}
	}
}

func TestCheckDepth(t *testing.T) {
	for _, tt := range []struct {
		body string
		deep bool
	}{
		{nestedObjects(MaxDepth, `"x"`), false},
		{nestedObjects(MaxDepth+1, `"x"`), true},
		{strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), false},
		{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), true},
		{strings.Repeat("[", MaxDepth+1), true}, // refused before the missing end
		{nestedObjects(4000, `"x"`), true},
		{`{"a":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`, true},
	} {
		err := Check([]byte(tt.body))
		if errors.Is(err, ErrTooDeep) != tt.deep || !tt.deep && err != nil {
			t.Errorf("Check(%.40q… %d bytes) = %v, want too deep: %v", tt.body, len(tt.body), err, tt.deep)
		}
	}
	if !strings.Contains(ErrTooDeep.Error(), "64") {
		t.Errorf("ErrTooDeep = %q, want it to name the limit", ErrTooDeep)
	}
}

// TestCheckStopsWhenContextEnds: a walk of a long body ends with the context's error.
func TestCheckStopsWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	body := []byte("[" + strings.Repeat(`1,`, 3*cancelEvery) + "1]")
	if err := CheckContext(ctx, body); !errors.Is(err, context.Canceled) {
		t.Errorf("CheckContext(cancelled) = %v, want context.Canceled", err)
	}
	if err := CheckContext(context.Background(), body); err != nil {
		t.Errorf("CheckContext = %v, want nil", err)
	}
}

func TestString(t *testing.T) {
	for in, bad := range map[string]bool{"demo-rn-1": false, "demo-rn-1\x00": true, "\xff\xfe": true, "\xc3\x28": true, "Zoë": false} {
		if err := String("interviewerId", in); (err != nil) != bad {
			t.Errorf("String(%q) = %v, want error %v", in, err, bad)
		}
	}
}

// FuzzCheck compares Check with a plain reference built on encoding/json's tokenizer: Check
// accepts a body exactly when the reference finds it JSON, not nested deeper than MaxDepth,
// UTF-8, free of NUL characters in keys and strings and of names repeated in one object. The
// seed corpus is in testdata/fuzz/FuzzCheck.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `{"a":"\u0000"}`, "{\"a\":\"\xff\"}", `[1,{"x":[{"y":"z"}]}]`, `{"a":`, `{"a":1,"a":2}`, `["\ud800"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Check(b)
		var p *Problem
		var r *Repeated
		if err != nil && !errors.As(err, &p) && !errors.As(err, &r) && !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrTooDeep) {
			t.Fatalf("Check(%q) = %v, want nil, a *Problem, a *Repeated, ErrTooDeep or ErrSyntax", b, err)
		}
		if want := reference(b); (err == nil) != (want == "") {
			t.Fatalf("Check(%q) = %v; the reference says %q", b, err, want)
		}
	})
}

// reference is what FuzzCheck compares Check with: "" for a body Check must accept, else why not.
func reference(b []byte) string {
	if !utf8.Valid(b) {
		return "not UTF-8" // outside strings, JSON is ASCII
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var names []map[string]bool // per open container: the object's names so far; nil for an array
	wantKey := false            // the innermost container is an object that wants a name next
	valueEnded := func() { wantKey = len(names) > 0 && names[len(names)-1] != nil }
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) && len(names) == 0 {
			return ""
		}
		if err != nil {
			return "syntax"
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(names) == MaxDepth {
				return "too deep"
			}
			var set map[string]bool
			if tok == json.Delim('{') {
				set = map[string]bool{}
			}
			names, wantKey = append(names, set), tok == json.Delim('{')
			continue
		case json.Delim('}'), json.Delim(']'):
			names = names[:len(names)-1]
			valueEnded()
			continue
		}
		if s, ok := tok.(string); ok && strings.ContainsRune(s, 0) {
			return "NUL"
		}
		if wantKey {
			s := tok.(string)
			if names[len(names)-1][s] {
				return "repeated"
			}
			names[len(names)-1][s], wantKey = true, false
			continue
		}
		valueEnded()
	}
}

// nestedObjects is {"a":{"a":…inner…}} with depth objects.
func nestedObjects(depth int, inner string) string {
	return strings.Repeat(`{"a":`, depth) + inner + strings.Repeat("}", depth)
}
