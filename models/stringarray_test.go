package models

import (
	"slices"
	"testing"
)

func TestStringArrayValue(t *testing.T) {
	tests := []struct {
		in   StringArray
		want string
	}{
		{nil, `{}`},
		{StringArray{}, `{}`},
		{StringArray{"a"}, `{"a"}`},
		{StringArray{"a", "b c"}, `{"a","b c"}`},
		{StringArray{""}, `{""}`},
		{StringArray{"NULL"}, `{"NULL"}`},
		{StringArray{`say "hi"`, `back\slash`}, `{"say \"hi\"","back\\slash"}`},
		{StringArray{"a,b", "{x}", "ünï"}, `{"a,b","{x}","ünï"}`},
	}
	for _, tt := range tests {
		v, err := tt.in.Value()
		if err != nil || v != tt.want {
			t.Errorf("StringArray(%q).Value() = %v, %v, want %q", tt.in, v, err, tt.want)
		}
	}
}

func TestStringArrayScan(t *testing.T) {
	tests := []struct {
		in      any
		want    StringArray
		wantErr bool
	}{
		{nil, nil, false},
		{`{}`, StringArray{}, false},
		{[]byte(`{a,b}`), StringArray{"a", "b"}, false},
		{`{"a b",c}`, StringArray{"a b", "c"}, false},
		{`{""}`, StringArray{""}, false},
		{`{"",""}`, StringArray{"", ""}, false},
		{`{"NULL"}`, StringArray{"NULL"}, false},
		{`{"say \"hi\"","back\\slash"}`, StringArray{`say "hi"`, `back\slash`}, false},
		{`{"a,b","{x}"}`, StringArray{"a,b", "{x}"}, false},
		{`{ a , b c ,"d" }`, StringArray{"a", "b c", "d"}, false},
		{`{a\,b,c\ }`, StringArray{"a,b", "c "}, false},
		{`{\NULL}`, StringArray{"NULL"}, false},
		{`[0:1]={x,y}`, StringArray{"x", "y"}, false},
		{`{ünï,日本}`, StringArray{"ünï", "日本"}, false},
		{`{NULL}`, nil, true},
		{`{a,null}`, nil, true},
		{`{{a,b},{c,d}}`, nil, true},
		{`{a,}`, nil, true},
		{`{,a}`, nil, true},
		{`{"a}`, nil, true},
		{`{"a"b}`, nil, true},
		{`{a"b}`, nil, true},
		{`a,b`, nil, true},
		{``, nil, true},
		{`[0:1]{a}`, nil, true},
		{42, nil, true},
	}
	for _, tt := range tests {
		var got StringArray
		err := got.Scan(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("Scan(%#v) = %q, want error", tt.in, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("Scan(%#v) = %#v, %v, want %#v", tt.in, got, err, tt.want)
		}
	}
}

func FuzzStringArrayRoundTrip(f *testing.F) {
	f.Add("a", "b c")
	f.Add(`"`, `\`)
	f.Add("", "NULL")
	f.Add("{,}", " x ")
	f.Fuzz(func(t *testing.T, a, b string) {
		in := StringArray{a, b}
		v, err := in.Value()
		if err != nil {
			t.Fatal(err)
		}
		var out StringArray
		if err := out.Scan(v); err != nil {
			t.Fatalf("Scan(%q) error: %v", v, err)
		}
		if !slices.Equal(in, out) {
			t.Fatalf("Scan(Value(%q)) = %q", in, out)
		}
	})
}

func FuzzStringArrayScan(f *testing.F) {
	for _, s := range []string{`{}`, `{a,"b c"}`, `{"a\"b"}`, `[1:2]={x,y}`, `{{a}}`, `{a\,b}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var a StringArray
		if err := a.Scan(s); err != nil {
			return
		}
		v, err := a.Value()
		if err != nil {
			t.Fatal(err)
		}
		var again StringArray
		if err := again.Scan(v); err != nil || !slices.Equal(a, again) {
			t.Fatalf("Scan(%q) = %q, reformatted %q scans to %q, %v", s, a, v, again, err)
		}
	})
}
