package conversation_test

import (
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/conversation"
)

func TestNumberedOptions(t *testing.T) {
	got := conversation.NumberedOptions(" Which shift suits you? ", []string{"Mornings", "Evenings\n(after 5pm)", "Nights"})
	want := "Which shift suits you?\n1. Mornings\n2. Evenings (after 5pm)\n3. Nights\nReply with a number from 1 to 3."
	if got != want {
		t.Errorf("NumberedOptions =\n%s\nwant\n%s", got, want)
	}
	if conversation.EncodingOf(got) != conversation.GSM7 {
		t.Error("numbered options are not GSM-7")
	}
}

func TestWhatsAppChoices(t *testing.T) {
	q := "Which shift suits you?"
	b := conversation.WhatsAppChoices(q, []string{"Mornings", "Evenings", "Nights"})
	if b.Kind != conversation.KindButtons || b.Body != q || len(b.Options) != 3 || b.Options[1] != (conversation.Option{ID: "2", Title: "Evenings"}) {
		t.Errorf("three short choices = %+v, want buttons", b)
	}
	// 21 characters: too long for a button title, fits a list row
	l := conversation.WhatsAppChoices(q, []string{"Mornings", "Evenings, weekdays only"})
	if l.Kind != conversation.KindList || l.ListButton == "" || l.Options[1].Title != "Evenings, weekdays only" || l.Options[1].Description != "" {
		t.Errorf("a 23-character choice = %+v, want a list", l)
	}
	four := conversation.WhatsAppChoices(q, []string{"A", "B", "C", "D"})
	if four.Kind != conversation.KindList || len(four.Options) != 4 || four.Options[3].ID != "4" {
		t.Errorf("four choices = %+v, want a list", four)
	}
	long := "Evenings and weekends, including public holidays"
	ll := conversation.WhatsAppChoices(q, []string{"Mornings", long})
	if ll.Kind != conversation.KindList || ll.Options[1].Description != long || len([]rune(ll.Options[1].Title)) > conversation.MaxListRowTitle ||
		!strings.HasSuffix(ll.Options[1].Title, "…") {
		t.Errorf("a long choice = %+v, want a shortened title and the full description", ll)
	}
	var ten, eleven []string
	for i := 0; i < 11; i++ {
		eleven = append(eleven, strings.Repeat("x", i+1))
	}
	ten = eleven[:10]
	if k := conversation.WhatsAppChoices(q, ten).Kind; k != conversation.KindList {
		t.Errorf("ten choices: %s, want list", k)
	}
	txt := conversation.WhatsAppChoices(q, eleven)
	if txt.Kind != conversation.KindText || !strings.Contains(txt.Body, "\n11. xxxxxxxxxxx\n") {
		t.Errorf("eleven choices = %+v, want numbered text", txt)
	}
	if k := conversation.WhatsAppChoices(q, []string{"a", strings.Repeat("y", 73)}).Kind; k != conversation.KindText {
		t.Errorf("a choice over 72 characters: %s, want text", k)
	}
	same := conversation.WhatsAppChoices(q, []string{"Available on weekdays, mornings", "Available on weekdays, evenings"})
	if same.Kind != conversation.KindText {
		t.Errorf("choices whose shortened titles collide = %+v, want text", same)
	}
	if k := conversation.WhatsAppChoices(q, []string{"Yes", "yes"}).Kind; k != conversation.KindText {
		t.Errorf("duplicate titles: %s, want text", k)
	}
}

func TestParseChoice(t *testing.T) {
	shifts := []string{"Mornings", "Evenings", "Nights", "Either mornings or evenings"}
	years := []string{"Less than 1 year", "1 year", "3 years", "5+ years"}
	cases := []struct {
		reply   string
		choices []string
		index   int
		match   conversation.Match
	}{
		{"2", shifts, 1, conversation.Matched},
		{" 2. ", shifts, 1, conversation.Matched},
		{"2)", shifts, 1, conversation.Matched},
		{"#3", shifts, 2, conversation.Matched},
		{"Option 3", shifts, 2, conversation.Matched},
		{"option  4", shifts, 3, conversation.Matched},
		{"choice 1", shifts, 0, conversation.Matched},
		{"5", shifts, -1, conversation.NoMatch},
		{"0", shifts, -1, conversation.NoMatch},
		{"evenings", shifts, 1, conversation.Matched},
		{"  NIGHTS!! ", shifts, 2, conversation.Matched},
		{"Either  mornings or evenings", shifts, 3, conversation.Matched},
		{"eve", shifts, 1, conversation.Matched},
		{"either", shifts, 3, conversation.Matched},
		{"m", shifts, 0, conversation.Matched},
		{"2. Evenings", shifts, 1, conversation.Matched},
		{"2 - evenings", shifts, 1, conversation.Matched},
		{"2. Nights", shifts, -1, conversation.Ambiguous},
		{"2 please", shifts, 1, conversation.Matched},
		{"2 evenings", shifts, 1, conversation.Matched},
		{"2 years", years, -1, conversation.NoMatch},
		{"2 shifts", shifts, -1, conversation.NoMatch},
		{"weekends", shifts, -1, conversation.NoMatch},
		{"", shifts, -1, conversation.NoMatch},
		{"?", shifts, -1, conversation.NoMatch},
		// "1" is choice 1 by number and "1 year" by words
		{"1", years, -1, conversation.Ambiguous},
		{"3", years, 2, conversation.Matched},
		{"1 year", years, 1, conversation.Matched},
		{"5+ years", years, 3, conversation.Matched},
		{"5+", years, 3, conversation.Matched},
		{"less", years, 0, conversation.Matched},
		{"y", []string{"Yes", "No", "Yes, part time"}, -1, conversation.Ambiguous},
		{"yes", []string{"Yes", "No", "Yes, part time"}, 0, conversation.Matched},
		{"no", []string{"Yes", "No"}, 1, conversation.Matched},
		{"7", []string{"5", "7", "9"}, 1, conversation.Matched},
		{"2", []string{"5", "7", "9"}, 1, conversation.Matched},
	}
	for _, c := range cases {
		i, m := conversation.ParseChoice(c.reply, c.choices)
		if i != c.index || m != c.match {
			t.Errorf("ParseChoice(%q, %q) = %d, %v; want %d, %v", c.reply, c.choices, i, m, c.index, c.match)
		}
	}
}

func TestParseKeyword(t *testing.T) {
	cases := map[string]conversation.Keyword{
		"STOP": conversation.KeywordStop, " stop ": conversation.KeywordStop, "Stop.": conversation.KeywordStop, "stop!!": conversation.KeywordStop,
		"STOPALL": conversation.KeywordStop, "Unsubscribe": conversation.KeywordStop, "cancel": conversation.KeywordStop, "END": conversation.KeywordStop,
		"quit": conversation.KeywordStop, "REVOKE": conversation.KeywordStop, "optout": conversation.KeywordStop, "OptOut": conversation.KeywordStop,
		"START": conversation.KeywordStart, "unstop": conversation.KeywordStart,
		"HELP": conversation.KeywordHelp, "info?": conversation.KeywordHelp,
		"YES": conversation.KeywordYes, "y": conversation.KeywordYes, "Yes please": conversation.KeywordYes, "yes  please!": conversation.KeywordYes, "OK": conversation.KeywordYes,
		"no": conversation.KeywordNo, "N": conversation.KeywordNo, "No thanks": conversation.KeywordNo, "no, thank you": conversation.KeywordNo,
		"stop it now": conversation.KeywordNone, "I stopped": conversation.KeywordNone, "s t o p": conversation.KeywordNone,
		"yes I worked there": conversation.KeywordNone, "helpful": conversation.KeywordNone, "": conversation.KeywordNone, "nobody": conversation.KeywordNone,
	}
	for text, want := range cases {
		if got := conversation.ParseKeyword(text); got != want {
			t.Errorf("ParseKeyword(%q) = %s, want %s", text, got, want)
		}
	}
}

func TestIsRefusal(t *testing.T) {
	refusals := []string{
		"please stop texting me",
		"Please stop texting me!",
		"STOP TEXTING ME",
		"stop messaging me",
		"Stop sending me messages",
		"stop contacting me please",
		"quit texting me",
		"Can you stop texting me",
		"I want you to stop calling me",
		"don't text me",
		"Don’t text me again",
		"do not contact me",
		"Do not message this number",
		"never text me again",
		"remove me from this list",
		"Remove me from your list please",
		"take me off your list",
		"Unsubscribe me",
		"remove my number",
		"leave me alone",
		"Just leave me alone.",
		"opt me out",
		"I want to opt out",
		"no more texts",
		"No more messages please",
		"I don't want any more texts",
		"i dont want your messages",
		"wrong number",
		"You have the wrong number",
		"Stop, I'm not interested",
		"Not interested. Stop",
		"Thanks but please stop messaging me, I found a job",
	}
	for _, s := range refusals {
		if !conversation.IsRefusal(s) || !conversation.OptsOut(s) {
			t.Errorf("IsRefusal(%q) = false, want true", s)
		}
	}
	answers := []string{
		"I stopped working there in 2020",
		"I stopped texting while driving years ago",
		"I had to stop calling customers after 8pm",
		"Stop signs and traffic rules matter for drivers",
		"Don't call me before 9am",
		"don't text me after 8pm on weekdays",
		"I remove patients' dressings daily",
		"Take me through the schedule",
		"No, I can't work nights",
		"No",
		"I would leave them alone to calm down",
		"My manager told a rude caller to stop calling the store",
		"I called the wrong number once and apologised",
		"Not the end of the world",
		"The end",
		"I do not want to work weekends",
		"I don't want to text while driving",
		"Opt outs were handled by my team lead at the call centre, so I escalated to her",
		"I told him: please stop texting me at night, we can talk at work. Then we agreed on a schedule that suited us both and I never had an issue again",
		"",
	}
	for _, s := range answers {
		if conversation.IsRefusal(s) {
			t.Errorf("IsRefusal(%q) = true, want false", s)
		}
	}
}

// TestCatalogue: every fixed text is GSM-7 and fits one segment with names of usual length,
// and every placeholder is filled.
func TestCatalogue(t *testing.T) {
	v := conversation.Vars{Company: "Harbor Clinics Inc", Role: "Licensed Practical Nurse", Contact: "jobs@harborclinics.com", N: 4}
	for key := range conversation.Catalogue {
		text := conversation.Fill(key, v)
		if strings.ContainsAny(text, "{}") {
			t.Errorf("%s: placeholder left: %q", key, text)
		}
		if s := conversation.Measure(text); s.Encoding != conversation.GSM7 || s.Parts != 1 {
			t.Errorf("%s: %+v (%s): %q", key, s, s.Encoding, text)
		}
	}
	help := conversation.Fill(conversation.TextHelp, v)
	for _, want := range []string{v.Company, v.Contact, "STOP"} {
		if !strings.Contains(help, want) {
			t.Errorf("help text %q lacks %q", help, want)
		}
	}
	if c := conversation.Fill(conversation.TextConsentRequest, v); !strings.Contains(c, "YES") || !strings.Contains(c, "STOP") || !strings.Contains(c, v.Role) {
		t.Errorf("consent request %q", c)
	}
	if got := conversation.Fill(conversation.TextOptOutConfirmation, conversation.Vars{Company: "Café “Nord”\nLtd"}); !strings.HasPrefix(got, `Café "Nord" Ltd:`) {
		t.Errorf("company not cleaned: %q", got)
	}
	if conversation.Fill("nope", v) != "" {
		t.Error("unknown key filled")
	}
	if got := conversation.Fill(conversation.TextUnknownNumber, v); strings.Contains(got, v.Company) {
		t.Errorf("unknown-number reply names a company: %q", got)
	}
}
