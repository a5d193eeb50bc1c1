package jsontext

import (
	"errors"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		body string
		want string // the Problem's text; "" for none
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
	}
	for _, tt := range tests {
		err := Check([]byte(tt.body))
		got := ""
		var p *Problem
		if errors.As(err, &p) {
			got = p.Error()
		}
		if got != tt.want {
			t.Errorf("Check(%q) = %v, want %q", tt.body, err, tt.want)
		}
	}
	if err := Check([]byte(`{"a":`)); !errors.Is(err, ErrSyntax) {
		t.Errorf("Check(truncated) = %v, want ErrSyntax", err)
	}
}

func TestString(t *testing.T) {
	for in, bad := range map[string]bool{"demo-rn-1": false, "demo-rn-1\x00": true, "\xff\xfe": true, "\xc3\x28": true, "Zoë": false} {
		if err := String("interviewerId", in); (err != nil) != bad {
			t.Errorf("String(%q) = %v, want error %v", in, err, bad)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `{"a":"\u0000"}`, "{\"a\":\"\xff\"}", `[1,{"x":[{"y":"z"}]}]`, `{"a":`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Check(b)
		var p *Problem
		if err != nil && !errors.As(err, &p) && !errors.Is(err, ErrSyntax) {
			t.Fatalf("Check(%q) = %v, want nil, a *Problem or ErrSyntax", b, err)
		}
	})
}
