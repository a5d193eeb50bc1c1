// Package conversation provides the pure building blocks of an interview held in a message
// thread (SMS, WhatsApp): fitting a text to SMS segments, rendering and reading structured
// choices, recognising the opt-out, opt-in, help and consent keywords and free-text refusals,
// and the catalogue of the fixed texts a thread sends. It keeps no state and touches no store.
package conversation

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Encoding is the character encoding an SMS travels in.
type Encoding int

// The SMS encodings: GSM-7 (the GSM 03.38 default alphabet with its extension table) when
// every character of the text is in it, else UCS-2.
const (
	GSM7 Encoding = iota
	UCS2
)

func (e Encoding) String() string {
	if e == GSM7 {
		return "GSM-7"
	}
	return "UCS-2"
}

// Segment limits, in the encoding's units (septets for GSM-7, UTF-16 code units for UCS-2): a
// message within the single limit is one segment; a longer one is sent concatenated, each part
// carrying the part limit (the rest of the segment holds the concatenation header).
const (
	GSM7Single = 160
	GSM7Part   = 153
	UCS2Single = 70
	UCS2Part   = 67
)

// DefaultMaxParts is the most segments one message of Split takes unless told otherwise: three
// parts (459 GSM-7 or 201 UCS-2 units) hold any interview question we write in one message
// while keeping each message short enough to read on a phone's screen.
const DefaultMaxParts = 3

// gsmBasic is the GSM 03.38 default alphabet (one septet each; the escape to the extension
// table is not a character of its own).
const gsmBasic = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
	"¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"

// gsmExtension is the extension table: each character takes two septets (escape and code).
const gsmExtension = "\f^{}\\[~]|€"

var gsmWidth = func() map[rune]int {
	m := map[rune]int{}
	for _, r := range gsmBasic {
		m[r] = 1
	}
	for _, r := range gsmExtension {
		m[r] = 2
	}
	return m
}()

// EncodingOf returns GSM7 when every character of s is in the GSM-7 alphabet or its extension
// table, else UCS2: one emoji, curly quote or CJK character makes the whole message UCS-2.
func EncodingOf(s string) Encoding {
	for _, r := range s {
		if gsmWidth[r] == 0 {
			return UCS2
		}
	}
	return GSM7
}

// Size is how a text travels as one SMS.
type Size struct {
	Encoding Encoding
	// Units is the text's length in the encoding's units: septets (an extension character
	// counts 2) or UTF-16 code units (a character outside the Basic Multilingual Plane, such as
	// most emoji, counts 2).
	Units int
	// Parts is the number of segments: 1 within the single limit, else the concatenated parts
	// of at most the part limit, a character never split between two parts.
	Parts int
}

// Measure returns the encoding, length and segment count of text sent as one SMS.
func Measure(text string) Size {
	enc := EncodingOf(text)
	single, part := GSM7Single, GSM7Part
	width := func(r rune) int { return gsmWidth[r] }
	if enc == UCS2 {
		single, part = UCS2Single, UCS2Part
		width = func(r rune) int { return len(utf16.Encode([]rune{r})) }
	}
	units := 0
	for _, r := range text {
		units += width(r)
	}
	if units == 0 {
		return Size{Encoding: enc}
	}
	if units <= single {
		return Size{Encoding: enc, Units: units, Parts: 1}
	}
	parts, cur := 1, 0
	for _, r := range text {
		w := width(r)
		if cur+w > part {
			parts, cur = parts+1, 0
		}
		cur += w
	}
	return Size{Encoding: enc, Units: units, Parts: parts}
}

// Split cuts text into messages of at most maxParts segments each (DefaultMaxParts when
// maxParts < 1), so that a question takes as few segments as possible and reads naturally:
//
//   - A text that fits in maxParts segments goes as one message. Cutting it would never save a
//     segment, and the phone shows one message.
//   - A longer text is cut at sentence boundaries (after . ! ? or … followed by a space and a
//     capital, digit or symbol, not after a common abbreviation; and at line breaks), each
//     message holding as many whole sentences as fit in maxParts segments: for messages taken
//     in order, filling each one before starting the next gives the fewest messages.
//   - A sentence too long for one message is cut between words, and a word too long between
//     characters.
//
// Each message is measured in its own encoding: an emoji makes only the message it is in
// UCS-2. Messages are trimmed of surrounding white space; an empty text gives none.
func Split(text string, maxParts int) []string {
	if maxParts < 1 {
		maxParts = DefaultMaxParts
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	fits := func(s string) bool { return Measure(s).Parts <= maxParts }
	return pack(text, levelSentence, fits)
}

const (
	levelSentence = iota
	levelWord
	levelRune
)

// pack fills messages greedily with the pieces of s at level, packing a piece that does not
// fit alone at the next level.
func pack(s string, level int, fits func(string) bool) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if fits(s) {
		return []string{s}
	}
	var cuts []int
	switch level {
	case levelSentence:
		cuts = sentenceEnds(s)
	case levelWord:
		cuts = wordEnds(s)
	default:
		for i := range s {
			if i > 0 {
				cuts = append(cuts, i)
			}
		}
		cuts = append(cuts, len(s))
	}
	var out []string
	start := 0
	for start < len(s) {
		best := -1
		for _, c := range cuts {
			if c <= start {
				continue
			}
			piece := strings.TrimSpace(s[start:c])
			if piece == "" {
				continue
			}
			if !fits(piece) {
				break
			}
			best = c
		}
		if best < 0 {
			next := len(s)
			for _, c := range cuts {
				if c > start && strings.TrimSpace(s[start:c]) != "" {
					next = c
					break
				}
			}
			out = append(out, pack(s[start:next], level+1, fits)...)
			start = next
			continue
		}
		if piece := strings.TrimSpace(s[start:best]); piece != "" {
			out = append(out, piece)
		}
		start = best
	}
	return out
}

// abbreviations end with a period that does not end a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "mr": true, "mrs": true, "ms": true, "dr": true,
	"st": true, "no": true, "approx": true, "incl": true, "dept": true, "jr": true, "sr": true,
}

// sentenceEnds returns the byte offsets just after each sentence of s (the last is len(s)).
func sentenceEnds(s string) []int {
	var cuts []int
	for i, r := range s {
		if r == '\n' {
			cuts = append(cuts, i)
			continue
		}
		if r != '.' && r != '!' && r != '?' && r != '…' {
			continue
		}
		end := i + utf8.RuneLen(r)
		for end < len(s) {
			c, n := utf8.DecodeRuneInString(s[end:])
			if !strings.ContainsRune(`.!?…"')]”’`, c) {
				break
			}
			end += n
		}
		if end >= len(s) {
			continue
		}
		next, _ := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsSpace(next) {
			continue
		}
		rest := strings.TrimLeftFunc(s[end:], unicode.IsSpace)
		first, _ := utf8.DecodeRuneInString(rest)
		if rest == "" || unicode.IsLower(first) {
			continue
		}
		if r == '.' {
			word := s[:i]
			if j := strings.LastIndexFunc(word, unicode.IsSpace); j >= 0 {
				word = word[j+1:]
			}
			if abbreviations[strings.ToLower(strings.TrimLeft(word, `("'`))] {
				continue
			}
			if line := s[strings.LastIndex(s[:i], "\n")+1 : i]; line != "" && strings.Trim(line, "0123456789") == "" {
				continue // a numbered list's "7." at a line's start
			}
		}
		cuts = append(cuts, end)
	}
	return append(cuts, len(s))
}

// wordEnds returns the byte offsets where each run of white space in s starts, and len(s).
func wordEnds(s string) []int {
	var cuts []int
	prevSpace := true
	for i, r := range s {
		sp := unicode.IsSpace(r)
		if sp && !prevSpace {
			cuts = append(cuts, i)
		}
		prevSpace = sp
	}
	return append(cuts, len(s))
}

// lookalikes are characters outside GSM-7 that have a GSM-7 equivalent.
var lookalikes = strings.NewReplacer(
	"‘", "'", "’", "'", "‚", "'", "′", "'", "“", `"`, "”", `"`, "„", `"`, "″", `"`,
	"–", "-", "—", "-", "‐", "-", "‑", "-", "−", "-", "…", "...", "•", "-",
	"\u00a0", " ", "\u2007", " ", "\u2009", " ", "\u202f", " ", "\u200b", "",
)

// SmartEncode replaces the typographic characters that have a plain equivalent in GSM-7
// (curly quotes, dashes, the ellipsis, special spaces) with it, so that our own texts are not
// sent in UCS-2, at twice the segments, for a quotation mark. Never apply it to a candidate's
// words.
func SmartEncode(s string) string { return lookalikes.Replace(s) }

// SMSMessages renders a question, with its choices if any, as the SMS messages to send, each
// of at most maxParts segments (DefaultMaxParts when maxParts < 1): the question and its
// numbered options (NumberedOptions) in one message when they fit, else the question cut by
// Split with the options joined to its last message when they fit there, or following in
// messages of their own, cut between options. The question and choices are ours, so they pass
// through SmartEncode.
func SMSMessages(question string, choices []string, maxParts int) []string {
	if maxParts < 1 {
		maxParts = DefaultMaxParts
	}
	question = SmartEncode(question)
	encoded := make([]string, len(choices))
	for i, c := range choices {
		encoded[i] = SmartEncode(c)
	}
	whole := strings.TrimSpace(NumberedOptions(question, encoded))
	if whole == "" {
		return nil
	}
	if Measure(whole).Parts <= maxParts {
		return []string{whole}
	}
	msgs := Split(question, maxParts)
	if len(choices) == 0 {
		return msgs
	}
	options := strings.TrimSpace(NumberedOptions("", encoded))
	if n := len(msgs); n > 0 {
		if joined := msgs[n-1] + "\n" + options; Measure(joined).Parts <= maxParts {
			msgs[n-1] = joined
			return msgs
		}
	}
	cur := ""
	for _, line := range strings.Split(options, "\n") {
		switch {
		case cur == "":
			cur = line
		case Measure(cur+"\n"+line).Parts <= maxParts:
			cur += "\n" + line
		default:
			msgs = append(msgs, Split(cur, maxParts)...)
			cur = line
		}
	}
	return append(msgs, Split(cur, maxParts)...)
}
