package generate

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

const backendJD = `We are hiring a Senior Backend Engineer to build our payments platform.

Responsibilities:
- Design and build REST APIs in Go
- Own PostgreSQL schema design and query performance
- Participate in on-call and improve observability

Requirements:
- 5+ years of backend development experience
- Strong experience with Go and PostgreSQL
- Experience with AWS is a plus

Benefits: dental, vision, 401k.`

var sampleJDs = map[string]string{
	"backend": backendJD,
	"warehouse": `Warehouse Associate

Join our fulfillment center team! As a Warehouse Associate, you will pick, pack and ship customer orders.

What you'll do:
* Picking orders with RF scanners
* Load and unload trucks
* Keep the work area clean and safe

Requirements:
* Able to lift up to 50 lbs
* Forklift certification preferred
* Reliable and punctual`,
	"nurse": `Position: Registered Nurse - Med/Surg
Our hospital is seeking a compassionate RN. You will provide direct patient care, administer medications and document care in Epic.
Qualifications: active RN license, BLS required, 2+ years of acute care experience.`,
	"sales": `Account Executive (B2B SaaS)
You'll own the full sales cycle from prospecting to closing deals, manage your pipeline in Salesforce and exceed a quarterly quota.
Must have 3+ years of B2B sales experience and excellent negotiation skills.`,
	"hospitality": `We're hiring servers for our busy downtown restaurant! Greet guests, take orders, upsell specials and handle cash. Food handler card required. Friendly and team player.`,
	"tiny":        "Cashier needed.",
	"no skills":   "Lorem ipsum dolor sit amet.",
}

func TestLocalShape(t *testing.T) {
	l := NewLocal()
	for name, desc := range sampleJDs {
		t.Run(name, func(t *testing.T) {
			g, err := l.Generate(context.Background(), Request{Description: desc})
			if err != nil {
				t.Fatalf("Generate(%q): %v", name, err)
			}
			if n := len(g.Questions); n < 6 || n > 10 {
				t.Errorf("Generate(%q) has %d questions, want 6..10", name, n)
			}
			if n := len(g.Criteria); n < 3 || n > 6 {
				t.Errorf("Generate(%q) has %d criteria, want 3..6", name, n)
			}
			if n := len(g.LearningObjectives); n < 2 || n > 5 {
				t.Errorf("Generate(%q) has %d learning objectives, want 2..5", name, n)
			}
			if len(g.Skills) == 0 {
				t.Errorf("Generate(%q) has no skills", name)
			}
			if g.Title != fallbackTitle && (!strings.Contains(g.Intro, g.Title) || !strings.Contains(g.Outro, g.Title)) {
				t.Errorf("Generate(%q) intro %q / outro %q do not mention title %q", name, g.Intro, g.Outro, g.Title)
			}
			seen := map[string]bool{}
			for _, q := range g.Questions {
				if q.Source != SourceGenerated || q.Text == "" || utf8.RuneCountInString(q.Text) > MaxQuestionLen {
					t.Errorf("Generate(%q) question %+v", name, q)
				}
				if seen[q.Text] {
					t.Errorf("Generate(%q) repeats question %q", name, q.Text)
				}
				seen[q.Text] = true
				if q.Skill != "" && !slices.Contains(g.Skills, q.Skill) {
					t.Errorf("Generate(%q) question skill %q not among skills %q", name, q.Skill, g.Skills)
				}
			}
		})
	}
}

func TestLocalSkills(t *testing.T) {
	tests := []struct {
		name string
		want []string
		not  []string
	}{
		{"backend", []string{"Go", "PostgreSQL", "REST APIs", "AWS"}, []string{"Dental Care"}},
		{"warehouse", []string{"Order Picking", "RF Scanners", "Forklift Certification", "Loading and Unloading"}, nil},
		{"nurse", []string{"Patient Care", "Medication Administration", "BLS Certification", "Electronic Health Records"}, nil},
		{"sales", []string{"Salesforce", "B2B Sales", "Negotiation", "Quota Attainment"}, nil},
		{"hospitality", []string{"Cash Handling", "Upselling", "ServSafe Certification"}, nil},
	}
	l := NewLocal()
	for _, tt := range tests {
		g, err := l.Generate(context.Background(), Request{Description: sampleJDs[tt.name]})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !slices.Contains(g.Skills, w) {
				t.Errorf("Generate(%q) skills = %q, want %q among them", tt.name, g.Skills, w)
			}
		}
		for _, n := range tt.not {
			if slices.Contains(g.Skills, n) {
				t.Errorf("Generate(%q) skills = %q, want no %q", tt.name, g.Skills, n)
			}
		}
	}
}

func TestLocalDeterministic(t *testing.T) {
	r := Request{
		Description: backendJD, AdditionalContext: "Focus on Kafka and incident response.",
		AdditionalQuestions: []string{"Tell me about your PostgreSQL tuning experience"},
		StructuredQuestions: []StructuredQuestion{{Question: "Can you work weekends?", Answers: []string{"Yes", "No"}}},
		IntelligentlyOrder:  true,
	}
	a, err := NewLocal().Generate(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		b, err := NewLocal().Generate(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("Generate(%q) differs between runs:\n%+v\n%+v", r.Description[:40], a, b)
		}
	}
}

func TestLocalAdditionalContext(t *testing.T) {
	l := NewLocal()
	plain, err := l.Generate(context.Background(), Request{Description: backendJD})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(plain.Skills, "Kubernetes") {
		t.Fatalf("Generate(backend) skills = %q, want no Kubernetes without context", plain.Skills)
	}

	g, err := l.Generate(context.Background(), Request{Description: backendJD, AdditionalContext: "Please focus on Kubernetes and on-call experience."})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Skills) == 0 || g.Skills[0] != "Kubernetes" {
		t.Errorf("Generate(backend, context Kubernetes) skills = %q, want Kubernetes first", g.Skills)
	}
	if !slices.ContainsFunc(g.Questions, func(q Question) bool { return q.Skill == "Kubernetes" }) {
		t.Errorf("Generate(backend, context Kubernetes) has no Kubernetes question: %+v", g.Questions)
	}
	if !slices.ContainsFunc(g.Questions, func(q Question) bool { return strings.Contains(q.Text, "on-call experience") }) {
		t.Errorf("Generate(backend, context on-call) has no focus question: %+v", g.Questions)
	}

	g, err = l.Generate(context.Background(), Request{Description: backendJD, AdditionalContext: "Don't ask about PostgreSQL, another interview covers it."})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(g.Questions, func(q Question) bool { return q.Skill == "PostgreSQL" }) {
		t.Errorf("Generate(backend, avoid PostgreSQL) still asks about it: %+v", g.Questions)
	}
}

func TestLocalInvalid(t *testing.T) {
	tests := []struct {
		name string
		r    Request
	}{
		{"empty", Request{}},
		{"blank", Request{Title: "Engineer", Description: " \n\t "}},
		{"blank additional question", Request{Description: "Build APIs.", AdditionalQuestions: []string{" "}}},
		{"long additional question", Request{Description: "Build APIs.", AdditionalQuestions: []string{strings.Repeat("a", MaxQuestionLen+1)}}},
		{"NUL in structured answer", Request{Description: "Build APIs.", StructuredQuestions: []StructuredQuestion{{Question: "Q?", Answers: []string{"a\x00"}}}}},
		{"too many answers", Request{Description: "Build APIs.", StructuredQuestions: []StructuredQuestion{{Question: "Q?", Answers: make([]string, MaxAnswers+1)}}}},
	}
	for _, tt := range tests {
		_, err := NewLocal().Generate(context.Background(), tt.r)
		if !IsPermanent(err) {
			t.Errorf("Generate(%s) error = %v, want a permanent error", tt.name, err)
		}
	}
	_, err := NewLocal().Generate(context.Background(), Request{Description: "  "})
	if !errors.Is(err, ErrEmptyDescription) {
		t.Errorf("Generate(blank) error = %v, want ErrEmptyDescription", err)
	}
}

func TestLocalCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewLocal().Generate(ctx, Request{Description: backendJD})
	if !errors.Is(err, context.Canceled) || IsPermanent(err) {
		t.Errorf("Generate(canceled) error = %v, want a transient context.Canceled", err)
	}
}

func TestLocalLargeInput(t *testing.T) {
	desc := strings.Repeat("- Design and build REST APIs in Go with PostgreSQL, Kafka and Kubernetes. ", 5000) // ~370 KB
	g, err := NewLocal().Generate(context.Background(), Request{Description: desc, AdditionalContext: strings.Repeat("focus on Go ", 20000)})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Questions) > 10 || len(g.Skills) > MaxSkills || utf8.RuneCountInString(g.Title) > MaxTitleLen {
		t.Errorf("Generate(large) = %d questions, %d skills, title %d characters", len(g.Questions), len(g.Skills), len(g.Title))
	}
}

// TestLocalRequirementsNotTheTitle: a sentence is not a requirement because the job's title has
// a requirement's word in it ("Licensed Practical Nurse"), and the description's requirements
// heading is quoted, not its opening sentence.
func TestLocalRequirementsNotTheTitle(t *testing.T) {
	const desc = "We are hiring a Licensed Practical Nurse for day shifts at our Dallas clinic. " +
		"You take vital signs, give medication, dress wounds and keep patient records, working with registered nurses and physicians. " +
		"Requirements: an LPN license, BLS certification and one year of clinical experience."
	for _, title := range []string{"Licensed Practical Nurse", ""} {
		g, err := NewLocal().Generate(context.Background(), Request{Title: title, Description: desc})
		if err != nil {
			t.Fatal(err)
		}
		quoted := false
		for _, q := range g.Questions {
			if strings.Contains(q.Text, "We are hiring") {
				t.Errorf("title %q: a question quotes the opening sentence as a requirement: %q", title, q.Text)
			}
			quoted = quoted || strings.Contains(q.Text, `"an LPN license, BLS certification and one year of clinical experience"`)
		}
		if !quoted {
			t.Errorf("title %q: no question quotes the requirements; questions: %q", title, texts(g.Questions))
		}
	}
}
