package conversation_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/conversation"
)

func TestMeasure(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		enc   conversation.Encoding
		units int
		parts int
	}{
		{"empty", "", conversation.GSM7, 0, 0},
		{"plain", "Are you available on weekends?", conversation.GSM7, 30, 1},
		{"160 GSM", strings.Repeat("a", 160), conversation.GSM7, 160, 1},
		{"161 GSM", strings.Repeat("a", 161), conversation.GSM7, 161, 2},
		{"306 GSM", strings.Repeat("a", 306), conversation.GSM7, 306, 2},
		{"307 GSM", strings.Repeat("a", 307), conversation.GSM7, 307, 3},
		{"GSM accents and Greek", "Café à Ñoño ΔΩ £5 ¿Sì?", conversation.GSM7, 22, 1},
		{"extension counts 2", "Salary in € [range] {a|b} ~x^ \\", conversation.GSM7, 40, 1},
		{"extension at 160", strings.Repeat("a", 158) + "€", conversation.GSM7, 160, 1},
		{"extension over 160", strings.Repeat("a", 159) + "€", conversation.GSM7, 161, 2},
		// an escape pair never straddles two parts: 152 + € goes to the second part
		{"escape not split", strings.Repeat("a", 152) + "€" + strings.Repeat("a", 10), conversation.GSM7, 164, 2},
		{"escape pushes a part", strings.Repeat("a", 152) + "€" + strings.Repeat("a", 152), conversation.GSM7, 306, 3},
		{"emoji forces UCS-2", "Great, thanks 👍", conversation.UCS2, 16, 1},
		{"curly quote forces UCS-2", "It’s fine", conversation.UCS2, 9, 1},
		{"cedilla lower c is not GSM", "façade", conversation.UCS2, 6, 1},
		{"70 UCS-2", strings.Repeat("ж", 70), conversation.UCS2, 70, 1},
		{"71 UCS-2", strings.Repeat("ж", 71), conversation.UCS2, 71, 2},
		{"134 UCS-2", strings.Repeat("ж", 134), conversation.UCS2, 134, 2},
		{"135 UCS-2", strings.Repeat("ж", 135), conversation.UCS2, 135, 3},
		{"35 emoji are 70 units", strings.Repeat("😀", 35), conversation.UCS2, 70, 1},
		// a surrogate pair never straddles two parts: 66 units + emoji goes to the second part
		{"surrogate not split", strings.Repeat("ж", 66) + "😀" + strings.Repeat("ж", 67), conversation.UCS2, 135, 3},
		{"CJK", "你好，请问你周末有空吗？", conversation.UCS2, 12, 1},
	}
	for _, c := range cases {
		got := conversation.Measure(c.text)
		if got != (conversation.Size{Encoding: c.enc, Units: c.units, Parts: c.parts}) {
			t.Errorf("%s: Measure = %+v (%s), want %s %d units, %d parts", c.name, got, got.Encoding, c.enc, c.units, c.parts)
		}
	}
}

func TestSplit(t *testing.T) {
	s1 := "Thanks for your answer." // 23
	long := strings.Repeat("word ", 40) + "end."
	cases := []struct {
		name     string
		text     string
		maxParts int
		want     []string
	}{
		{"empty", "  ", 1, nil},
		{"fits one segment", "  Tell us about yourself.  ", 1, []string{"Tell us about yourself."}},
		{"fits in max parts: one message", strings.Repeat(s1+" ", 12), 3, []string{strings.TrimSpace(strings.Repeat(s1+" ", 12))}},
		{"sentences packed per segment", strings.Repeat(s1+" ", 8), 1, []string{
			strings.TrimSpace(strings.Repeat(s1+" ", 6)), strings.TrimSpace(strings.Repeat(s1+" ", 2))}},
		{"line breaks are boundaries", strings.Repeat("a", 100) + "\n" + strings.Repeat("b", 100), 1, []string{strings.Repeat("a", 100), strings.Repeat("b", 100)}},
		{"abbreviation and lower case do not end a sentence",
			strings.Repeat("x", 50) + " e.g. Dr. Smith said so. " + strings.Repeat("y", 60) + " 3 p.m. is fine. " + strings.Repeat("z", 100), 1,
			[]string{strings.Repeat("x", 50) + " e.g. Dr. Smith said so. " + strings.Repeat("y", 60) + " 3 p.m. is fine.", strings.Repeat("z", 100)}},
		{"long sentence cut between words", long, 1, []string{strings.TrimSpace(strings.Repeat("word ", 32)), strings.TrimSpace(strings.Repeat("word ", 8)) + " end."}},
		{"long word cut between characters", strings.Repeat("a", 200), 1, []string{strings.Repeat("a", 160), strings.Repeat("a", 40)}},
		{"emoji makes only its message UCS-2", strings.Repeat("a", 100) + ". Ok 👍 " + strings.Repeat("b", 30) + ". " + strings.Repeat("C", 150) + ".", 1,
			[]string{strings.Repeat("a", 100) + ".", "Ok 👍 " + strings.Repeat("b", 30) + ".", strings.Repeat("C", 150) + "."}},
		{"question after exclamation", "Great! " + strings.Repeat("q", 158) + "?", 1, []string{"Great!", strings.Repeat("q", 158) + "?"}},
		{"closing quote stays with its sentence", `He said "go." ` + strings.Repeat("n", 150), 1, []string{`He said "go."`, strings.Repeat("n", 150)}},
	}
	for _, c := range cases {
		got := conversation.Split(c.text, c.maxParts)
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("%s: Split =\n%q\nwant\n%q", c.name, got, c.want)
		}
		for _, m := range got {
			if p := conversation.Measure(m).Parts; p > c.maxParts {
				t.Errorf("%s: message of %d parts > %d: %q", c.name, p, c.maxParts, m)
			}
		}
	}
}

// TestSplitBounds: for texts of every kind and length, each message stays within the part
// limit, nothing but white space is lost, and the segment total is never worse than one
// message per part limit would need plus one per message boundary.
func TestSplitBounds(t *testing.T) {
	unit := []string{"Why do you want this job? ", "Tell me about a time you helped a patient 😊. ", "Préférez-vous le matin? ", "Описание смены. ", "x{y}€ "}
	for n := 1; n < 60; n++ {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(unit[(i*7+n)%len(unit)])
		}
		text := b.String()
		for _, maxParts := range []int{1, 2, 3, 0} {
			got := conversation.Split(text, maxParts)
			limit := maxParts
			if limit == 0 {
				limit = conversation.DefaultMaxParts
			}
			for _, m := range got {
				if p := conversation.Measure(m).Parts; p > limit || p == 0 {
					t.Fatalf("n=%d max=%d: message with %d parts: %q", n, maxParts, p, m)
				}
			}
			if strings.Join(strings.Fields(strings.Join(got, " ")), " ") != strings.Join(strings.Fields(text), " ") {
				t.Fatalf("n=%d max=%d: text changed:\n%q\n%q", n, maxParts, got, text)
			}
			if whole := conversation.Measure(strings.TrimSpace(text)); whole.Parts <= limit && len(got) != 1 {
				t.Fatalf("n=%d max=%d: fits in %d parts but split in %d messages", n, maxParts, whole.Parts, len(got))
			}
		}
	}
}

func TestSmartEncode(t *testing.T) {
	in := "It’s “great” – really… yes\u00a0no"
	out := conversation.SmartEncode(in)
	if out != `It's "great" - really... yes no` || conversation.EncodingOf(out) != conversation.GSM7 {
		t.Errorf("SmartEncode = %q (%s)", out, conversation.EncodingOf(out))
	}
	if conversation.SmartEncode("👍") != "👍" {
		t.Error("SmartEncode changed an emoji")
	}
}

func TestSMSMessages(t *testing.T) {
	q := "Which shift suits you?"
	if got := conversation.SMSMessages(q, []string{"Mornings", "Evenings"}, 1); len(got) != 1 ||
		got[0] != "Which shift suits you?\n1. Mornings\n2. Evenings\nReply with a number from 1 to 2." {
		t.Errorf("short question = %q", got)
	}
	if got := conversation.SMSMessages("It’s a “night” shift – fine?", nil, 1); len(got) != 1 || got[0] != `It's a "night" shift - fine?` {
		t.Errorf("typography not made GSM-7: %q", got)
	}
	long := strings.Repeat("This sentence describes the job in some detail. ", 4) + q // 192 + 22
	got := conversation.SMSMessages(long, []string{"Mornings", "Evenings"}, 1)
	if len(got) != 2 || !strings.HasSuffix(got[1], "1. Mornings\n2. Evenings\nReply with a number from 1 to 2.") || !strings.HasPrefix(got[1], "This sentence") {
		t.Errorf("long question: %q", got)
	}
	var many []string
	for i := 0; i < 12; i++ {
		many = append(many, "Choice number "+strings.Repeat("x", i+5))
	}
	got = conversation.SMSMessages(q, many, 1)
	for _, m := range got {
		if conversation.Measure(m).Parts != 1 {
			t.Errorf("message over one segment: %q", m)
		}
	}
	all := strings.Join(got, "\n")
	if !strings.HasPrefix(all, q) || !strings.Contains(all, "\n12. Choice number "+strings.Repeat("x", 16)+"\n") || !strings.HasSuffix(all, "from 1 to 12.") {
		t.Errorf("many choices: %q", got)
	}
	for _, m := range got[1:] {
		for _, line := range strings.Split(m, "\n") {
			if !strings.HasPrefix(line, "Reply") && !regexp.MustCompile(`^\d+\. Choice number x+$`).MatchString(line) {
				t.Errorf("an option was cut: %q in %q", line, m)
			}
		}
	}
	// a numbered list inside a question is not cut after its numbers
	list := "Tell us which you hold:\n1. BLS certificate\n2. LPN license\n3. Forklift licence\n" + strings.Repeat("y", 120)
	for _, m := range conversation.Split(list, 1) {
		if strings.HasSuffix(m, ".") && regexp.MustCompile(`\d\.$`).MatchString(m) {
			t.Errorf("cut after a list number: %q", m)
		}
	}
	if conversation.SMSMessages("  ", nil, 1) != nil {
		t.Error("empty question gave messages")
	}
}
