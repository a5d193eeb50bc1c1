package oauth

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxDisplayRunes bounds a client-supplied string on the consent page.
const maxDisplayRunes = 100

// displayText is how the consent page shows a string a client chose (its name, a metadata
// document's URL, a redirect host): without the characters that hide or reorder text (format
// characters such as the bidirectional overrides U+202A-U+202E and isolates U+2066-U+2069,
// zero-width spaces and joiners, tag characters; other default-ignorable code points, variation
// selectors and Hangul fillers; controls and private-use characters), whitespace runs collapsed
// to one space, and at most maxDisplayRunes runes. "Goo\u202Egle" cannot show as another name,
// nor "Claude\u200B" pass for Claude.
func displayText(s string) string {
	var b strings.Builder
	n, space := 0, false
	for _, r := range strings.ToValidUTF8(s, "") {
		switch {
		case invisible(r):
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space && n < maxDisplayRunes {
			b.WriteByte(' ')
			n++
		}
		space = false
		if n == maxDisplayRunes {
			b.WriteRune('…')
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// invisible reports the runes displayText drops.
func invisible(r rune) bool {
	return r == utf8.RuneError || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs, unicode.Zl, unicode.Zp,
		unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector, unicode.Bidi_Control, unicode.Join_Control) ||
		r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0 // Hangul fillers: blank, yet letters
}
