package talent

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	type want struct {
		roles     []string
		seniority string
		skills    []string
		location  string // Place.String()
		min, max  int    // -1 for none
		level     string // "-" for no education
		field     string
		employers []string
		prefs     []string
		keywords  []string
	}
	tests := []struct {
		q string
		w want
	}{
		{"senior backend engineer with Go and Kubernetes, 5+ years, near Austin TX, ex-Google, CS degree, open to remote",
			want{roles: []string{"backend engineer"}, seniority: "senior", skills: []string{"Go", "Kubernetes"}, location: "Austin, TX",
				min: 5, max: -1, level: "", field: "computer science", employers: []string{"Google"}, prefs: []string{"remote"}}},
		{"registered nurse in dallas with 3-5 years ICU experience",
			want{roles: []string{"registered nurse"}, skills: []string{"Emergency Care"}, location: "Dallas, TX", min: 3, max: 5, level: "-"}},
		{"React developers in the Bay Area, previously at Stripe or Square",
			want{roles: []string{"developer"}, skills: []string{"React"}, location: "San Francisco, CA", min: -1, max: -1, level: "-",
				employers: []string{"Stripe", "Square"}}},
		{"ML engineer, Boston MA, PhD in statistics, python pytorch",
			want{roles: []string{"ml engineer"}, skills: []string{"Python", "PyTorch"}, location: "Boston, MA", min: -1, max: -1,
				level: "phd", field: "statistics"}},
		{"junior data analyst SQL Excel Tableau, at least 2 years, Chicago",
			want{roles: []string{"data analyst"}, seniority: "junior", skills: []string{"SQL", "Microsoft Excel", "Tableau"},
				location: "Chicago, IL", min: 2, max: -1, level: "-"}},
		{"sales rep near Mobile, AL who worked at Oracle",
			want{roles: []string{"sales rep"}, location: "Mobile, AL", min: -1, max: -1, level: "-", employers: []string{"Oracle"}}},
		{"staff software engineer golang k8s js, FAANG, master's in computer science",
			want{roles: []string{"software engineer"}, seniority: "staff", skills: []string{"Go", "Kubernetes", "JavaScript"}, min: -1, max: -1,
				level: "master", field: "computer science", employers: []string{"Meta", "Facebook", "Apple", "Amazon", "Netflix", "Google"}}},
		{"account executive, SaaS, 10 years, willing to relocate, hybrid",
			want{roles: []string{"account executive"}, min: 10, max: -1, level: "-", prefs: []string{"relocation", "hybrid"}, keywords: []string{"saas"}}},
		{"Java developer with no more than 4 years",
			want{roles: []string{"developer"}, skills: []string{"Java"}, min: -1, max: 4, level: "-"}},
		{"accountant with more than 5 years, BS in accounting",
			want{roles: []string{"accountant"}, min: 6, max: -1, level: "bachelor", field: "accounting"}},
		{"nurse in Texas", want{roles: []string{"nurse"}, location: "Texas", min: -1, max: -1, level: "-"}},
		{"engineers in ms paint", want{roles: []string{"engineer"}, min: -1, max: -1, level: "-", keywords: []string{"ms", "paint"}}},
		{"MBA product manager", want{roles: []string{"product manager"}, min: -1, max: -1, level: "master", field: "business administration"}},
		{"frontend or backend engineer", want{roles: []string{"backend engineer", "frontend engineer"}, min: -1, max: -1, level: "-"}},
		{"someone who knows Go and can go to the office",
			want{skills: []string{"Go"}, min: -1, max: -1, level: "-", keywords: []string{"go", "office"}}},
		{"", want{min: -1, max: -1, level: "-"}},
	}
	for _, tt := range tests {
		q := Parse(tt.q)
		var roles []string
		for _, r := range q.Roles {
			roles = append(roles, r.Title)
		}
		loc := ""
		if q.Location != nil {
			loc = q.Location.String()
		}
		intOr := func(p *int) int {
			if p == nil {
				return -1
			}
			return *p
		}
		level, field := "-", ""
		if q.Education != nil {
			level, field = q.Education.Level, q.Education.Field
		}
		got := want{roles, q.Seniority, q.Skills, loc, intOr(q.MinYears), intOr(q.MaxYears), level, field, q.Employers, q.Preferences, q.Keywords}
		w := tt.w
		if !slices.Equal(got.roles, w.roles) || got.seniority != w.seniority || !slices.Equal(got.skills, w.skills) ||
			got.location != w.location || got.min != w.min || got.max != w.max || got.level != w.level || got.field != w.field ||
			!slices.Equal(got.employers, w.employers) || !slices.Equal(got.prefs, w.prefs) || !slices.Equal(got.keywords, w.keywords) {
			t.Errorf("Parse(%q)\n got  %+v\n want %+v", tt.q, got, w)
		}
	}
}

func TestParseInterpretation(t *testing.T) {
	s := Parse("senior backend engineer with Go, 5+ years, near Austin TX, open to remote").String()
	for _, part := range []string{`role "backend engineer"`, "seniority senior (ranking hint)", "skills Go", "5+ years",
		"location Austin, TX", "not filterable (no such data in the talent pool): remote"} {
		if !strings.Contains(s, part) {
			t.Errorf("interpretation %q lacks %q", s, part)
		}
	}
	if got := Parse("").String(); got != "everyone (no criteria)" {
		t.Errorf("empty interpretation %q", got)
	}
}

func TestParseBounded(t *testing.T) {
	long := strings.Repeat("go engineer in austin ", 200)
	q := Parse(long)
	if len(q.Raw) > MaxQueryLen {
		t.Errorf("Raw is %d bytes, want at most %d", len(q.Raw), MaxQueryLen)
	}
	q = Parse(strings.Repeat("é", 600)) // a cut inside a rune must not leave invalid UTF-8
	if !utf8.ValidString(q.Raw) || len(q.Raw) > MaxQueryLen {
		t.Errorf("Raw invalid or too long: %d bytes", len(q.Raw))
	}
}

func FuzzParse(f *testing.F) {
	f.Add("senior backend engineer with Go and Kubernetes, 5+ years, near Austin TX, ex-Google, CS degree, open to remote")
	f.Add("ex-")
	f.Add("3-5 years")
	f.Fuzz(func(t *testing.T, s string) {
		q := Parse(s)
		if len(q.Raw) > MaxQueryLen || !utf8.ValidString(q.Raw) {
			t.Fatalf("bad Raw %q", q.Raw)
		}
		_ = q.String()
		if _, _, err := buildSearch([16]byte{}, Params{Query: s}); err != nil {
			t.Fatalf("buildSearch: %v", err)
		}
	})
}
