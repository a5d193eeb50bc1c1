package conversation

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NumberedOptions renders a question with structured choices for SMS: the question, one line
// per choice ("1. Mornings"), and how to answer. Each choice's text is put on one line.
func NumberedOptions(question string, choices []string) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(question))
	for i, c := range choices {
		b.WriteString("\n")
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(". ")
		b.WriteString(oneLine(c))
	}
	if len(choices) > 0 {
		b.WriteString("\n")
		b.WriteString(Fill(TextChooseNumber, Vars{N: len(choices)}))
	}
	return b.String()
}

// WhatsApp's limits on interactive messages.
const (
	MaxButtons            = 3    // reply buttons in one message
	MaxButtonTitle        = 20   // characters of a reply button's title
	MaxListRows           = 10   // rows of a list message
	MaxListRowTitle       = 24   // characters of a list row's title
	MaxListRowDescription = 72   // characters of a list row's description
	MaxListButton         = 20   // characters of the button that opens a list
	MaxInteractiveBody    = 1024 // characters of an interactive message's body
)

// InteractiveKind is how a question with choices is sent on WhatsApp.
type InteractiveKind string

// Interactive kinds: reply buttons, a list, or numbered options as plain text.
const (
	KindButtons InteractiveKind = "buttons"
	KindList    InteractiveKind = "list"
	KindText    InteractiveKind = "text"
)

// Option is one button or list row. ID is the choice's number ("1", "2", ...): WhatsApp
// returns it as ButtonPayload or ListId, and ParseChoice reads it like a typed number.
type Option struct {
	ID          string
	Title       string
	Description string // list rows only: the full choice when its title had to be shortened
}

// Interactive is a WhatsApp message asking a question with choices.
type Interactive struct {
	Kind InteractiveKind
	// Body is the question (buttons, list), or the whole numbered text (KindText, from
	// NumberedOptions).
	Body string
	// ListButton is the label of the button that opens a list.
	ListButton string
	Options    []Option
}

// ListButtonLabel is the label of the button that opens a list of choices.
const ListButtonLabel = "Choose an answer"

// WhatsAppChoices renders a question with choices for WhatsApp: reply buttons when there are
// at most MaxButtons choices whose titles all fit MaxButtonTitle characters; else a list when
// there are at most MaxListRows choices (a title longer than MaxListRowTitle is shortened at a
// word and the whole choice shown as the row's description, which must then fit
// MaxListRowDescription); else numbered options as text, as for SMS. Titles must be unique in
// a message, so choices that would share a title also fall back.
func WhatsAppChoices(question string, choices []string) Interactive {
	question = strings.TrimSpace(question)
	text := Interactive{Kind: KindText, Body: NumberedOptions(question, choices)}
	if len(choices) == 0 || question == "" || utf8.RuneCountInString(question) > MaxInteractiveBody {
		return text
	}
	titles := make([]string, len(choices))
	for i, c := range choices {
		titles[i] = oneLine(c)
		if titles[i] == "" {
			return text
		}
	}
	if len(choices) <= MaxButtons && allWithin(titles, MaxButtonTitle) && unique(titles) {
		opts := make([]Option, len(titles))
		for i, t := range titles {
			opts[i] = Option{ID: strconv.Itoa(i + 1), Title: t}
		}
		return Interactive{Kind: KindButtons, Body: question, Options: opts}
	}
	if len(choices) > MaxListRows || !allWithin(titles, MaxListRowDescription) {
		return text
	}
	opts := make([]Option, len(titles))
	short := make([]string, len(titles))
	for i, t := range titles {
		opts[i] = Option{ID: strconv.Itoa(i + 1), Title: t}
		if utf8.RuneCountInString(t) > MaxListRowTitle {
			opts[i].Title, opts[i].Description = shorten(t, MaxListRowTitle), t
		}
		short[i] = opts[i].Title
	}
	if !unique(short) {
		return text
	}
	return Interactive{Kind: KindList, Body: question, ListButton: ListButtonLabel, Options: opts}
}

// Match is how a reply relates to a question's choices.
type Match int

// Outcomes of ParseChoice.
const (
	// NoMatch: the reply names no choice; ask again (TextChooseNumber).
	NoMatch Match = iota
	// Matched: the reply names exactly one choice.
	Matched
	// Ambiguous: the reply could name more than one choice; ask again.
	Ambiguous
)

var (
	numberOnly    = regexp.MustCompile(`^(?:(?:option|choice|number|answer|no\.?|nr\.?|#)\s*)?#?\s*(\d{1,3})\s*[.)]?$`)
	numberAndText = regexp.MustCompile(`^(\d{1,2})(\s*[.):-]\s*|\s+)(.+)$`)
	courtesyTail  = regexp.MustCompile(`^(please|pls|plz|thanks|thank you|thx|ty)$`)
)

// ParseChoice reads a reply to a question with choices and returns the index (from 0) of the
// choice it names:
//
//   - by number: "2", "2.", "2)", "#2", "option 2", "choice 2" (also a WhatsApp button's
//     payload or list row's id, which are the numbers); "2. Evenings" when the words agree with
//     the number or name no choice; "2 please" ("2 years" is not a choice's number);
//   - by words: the choice's text, ignoring case, punctuation at either end and
//     repeated spaces, or a prefix of it that begins only one choice ("eve" for "Evenings").
//
// A reply that reads as a number of one choice and the words of another ("1" when the choices
// are "3 years" and "1 year") is Ambiguous, as is a prefix of several choices; a number out of
// range or words naming no choice is NoMatch. The index is -1 unless Matched.
func ParseChoice(reply string, choices []string) (int, Match) {
	r := normalizeChoice(reply)
	if r == "" || len(choices) == 0 {
		return -1, NoMatch
	}
	byText, textMatch := matchText(r, choices)
	if m := numberOnly.FindStringSubmatch(r); m != nil {
		n, _ := strconv.Atoi(m[1])
		byNumber := n - 1
		if n < 1 || n > len(choices) {
			byNumber = -1
		}
		switch {
		case byNumber < 0 && textMatch == Matched:
			return byText, Matched
		case byNumber < 0:
			return -1, textMatch
		case textMatch == NoMatch || byText == byNumber:
			return byNumber, Matched
		default:
			return -1, Ambiguous
		}
	}
	if m := numberAndText.FindStringSubmatch(r); m != nil && textMatch == NoMatch {
		n, _ := strconv.Atoi(m[1])
		if n >= 1 && n <= len(choices) {
			rest, restMatch := matchText(m[3], choices)
			spaceOnly := strings.TrimSpace(m[2]) == ""
			switch {
			case restMatch == Matched && rest == n-1, courtesyTail.MatchString(m[3]):
				return n - 1, Matched
			case spaceOnly:
				return -1, NoMatch // "2 years" is an amount, not choice 2
			case restMatch == NoMatch:
				return n - 1, Matched
			default:
				return -1, Ambiguous
			}
		}
	}
	if textMatch == Matched {
		return byText, Matched
	}
	return -1, textMatch
}

// matchText finds the choice whose normalized text is r, or the only one it prefixes.
func matchText(r string, choices []string) (int, Match) {
	prefixed, found := -1, 0
	for i, c := range choices {
		n := normalizeChoice(c)
		if n == "" {
			continue
		}
		if n == r {
			return i, Matched
		}
		if strings.HasPrefix(n, r) {
			prefixed, found = i, found+1
		}
	}
	switch found {
	case 0:
		return -1, NoMatch
	case 1:
		return prefixed, Matched
	}
	return -1, Ambiguous
}

// normalizeChoice lower-cases s, collapses white space and trims punctuation at either end.
func normalizeChoice(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (unicode.IsPunct(r) || unicode.IsSymbol(r)) && !strings.ContainsRune("#+€$£%", r)
	})
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func allWithin(ss []string, n int) bool {
	for _, s := range ss {
		if utf8.RuneCountInString(s) > n {
			return false
		}
	}
	return true
}

func unique(ss []string) bool {
	seen := map[string]bool{}
	for _, s := range ss {
		k := strings.ToLower(s)
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

// shorten cuts s to at most n characters, at a word when one ends past half of n, and marks
// the cut with "…".
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n-1])
	if i := strings.LastIndex(cut, " "); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRightFunc(cut, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) + "…"
}
