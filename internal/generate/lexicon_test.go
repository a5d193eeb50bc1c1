package generate

import (
	"slices"
	"strings"
	"testing"
)

func TestLexiconFind(t *testing.T) {
	tests := []struct {
		text      string
		want, not []string
	}{
		{"Strong golang skills", []string{"Go"}, nil},
		{"We write Go, and Go's tooling is great.", []string{"Go"}, nil},
		{"good communication; let's go to market; a go-getter", []string{"Communication"}, []string{"Go"}},
		{"Go-to-market experience", nil, []string{"Go"}},
		{"Postgres and postgresql and PSQL", []string{"PostgreSQL"}, []string{"SQL"}},
		{"SQL Server (T-SQL) and plain SQL", []string{"SQL Server", "SQL"}, nil},
		{"MySQL, NoSQL", []string{"MySQL", "NoSQL"}, []string{"SQL"}},
		{"JavaScript only", []string{"JavaScript"}, []string{"Java"}},
		{"C, C++ and C#", []string{"C", "C++", "C#"}, nil},
		{"R&D budget and C-suite access", []string{"Budgeting"}, []string{"R", "C"}},
		{"k8s on EKS", []string{"Kubernetes"}, nil},
		{"Node.js and React.js; we react quickly", []string{"Node.js", "React"}, nil},
		{"we react quickly to change", nil, []string{"React"}},
		{"operate forklifts and pallet jacks", []string{"Forklift Operation"}, nil},
		{"CPR-certified, BLS", []string{"CPR Certification", "BLS Certification"}, nil},
		{"excel in a fast-paced team", []string{"Composure Under Pressure"}, []string{"Microsoft Excel"}},
		{"Advanced Excel (pivot tables)", []string{"Microsoft Excel"}, nil},
		{"CI/CD with GitHub Actions", []string{"CI/CD", "GitHub Actions"}, []string{"Git"}},
		{"Customer Service and CUSTOMER SERVICE", []string{"Customer Service"}, nil},
		{"goods, gold, Google", nil, []string{"Go"}},
	}
	lx := newLexicon()
	for _, tt := range tests {
		var got []string
		for _, id := range lx.skillsIn(tt.text) {
			got = append(got, lx.entries[id].name)
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("skillsIn(%q) = %q, want it to hold %q", tt.text, got, w)
			}
		}
		for _, n := range tt.not {
			if slices.Contains(got, n) {
				t.Errorf("skillsIn(%q) = %q, want no %q", tt.text, got, n)
			}
		}
	}
}

func TestLexiconTable(t *testing.T) {
	if n := len(skillTable); n < 300 {
		t.Errorf("lexicon has %d skills, want at least 300", n)
	}
	names := map[string]bool{}
	aliases := map[string]string{}
	for _, e := range skillTable {
		if names[e.name] {
			t.Errorf("skill %q listed twice", e.name)
		}
		names[e.name] = true
		if len(e.name) > MaxSkillLen {
			t.Errorf("skill name %q longer than %d", e.name, MaxSkillLen)
		}
		for a := range strings.SplitSeq(e.aliases, "|") {
			key := a
			if !strings.HasPrefix(a, "=") {
				key = asciiLower(a)
			}
			if a == "" || a == "=" || strings.TrimSpace(a) != a {
				t.Errorf("skill %q has a malformed alias %q", e.name, a)
			}
			if other, dup := aliases[key]; dup {
				t.Errorf("alias %q of %q is also an alias of %q", a, e.name, other)
			}
			aliases[key] = e.name
		}
	}
	if _, ok := skillQuestions[kOps]; !ok {
		t.Fatal("no question templates for kOps")
	}
	for k := kTech; k <= kLang; k++ {
		if len(skillQuestions[k]) == 0 || criterionTemplates[k] == "" {
			t.Errorf("kind %d has no question or criterion template", k)
		}
	}
}

func TestInSentence(t *testing.T) {
	lx := newLexicon()
	tests := map[string]string{
		"Customer Service":    "customer service",
		"HIPAA Compliance":    "HIPAA compliance",
		"PostgreSQL":          "PostgreSQL",
		"Attention to Detail": "attention to detail",
		"CPR Certification":   "CPR Certification",
		"B2B Sales":           "B2B sales",
	}
	for name, want := range tests {
		i := slices.IndexFunc(lx.entries, func(e skillEntry) bool { return e.name == name })
		if i < 0 {
			t.Fatalf("no skill %q", name)
		}
		if got := inSentence(lx.entries[i]); got != want {
			t.Errorf("inSentence(%q) = %q, want %q", name, got, want)
		}
	}
}
