// Package phone normalises phone numbers to E.164 and tells what kind of line a number is.
package phone

import (
	"slices"
	"strings"

	"github.com/nyaruka/phonenumbers/v2"
	"github.com/nyaruka/phonenumbers/v2/timezone"
)

// Normalize parses raw, written in any common format, with defaultRegion (an ISO 3166 code such
// as "US"; empty means "US") as the region of numbers without a country code, and returns the
// number in E.164.
//
// ok is false when raw is not a valid number. e164 is then the best-effort form the HR-suite
// rules ask for: a US-shaped number (10 digits, or 11 starting with 1, written without a leading
// +) in a North American default region still gains +1; a number written with a leading + and a
// country code loses its punctuation; anything else is passed through, trimmed.
func Normalize(raw, defaultRegion string) (e164 string, ok bool) {
	raw = strings.TrimSpace(raw)
	if defaultRegion == "" {
		defaultRegion = "US"
	}
	defaultRegion = strings.ToUpper(defaultRegion)
	if raw == "" {
		return "", false
	}
	num, err := phonenumbers.Parse(raw, defaultRegion)
	if err == nil && phonenumbers.IsValidNumber(num) {
		return phonenumbers.Format(num, phonenumbers.E164), true
	}
	international := strings.HasPrefix(raw, "+")
	if !international && phonenumbers.GetCountryCodeForRegion(defaultRegion) == 1 {
		switch d := digits(raw); {
		case len(d) == 10:
			return "+1" + d, false
		case len(d) == 11 && d[0] == '1':
			return "+" + d, false
		}
	}
	if international && err == nil {
		return phonenumbers.Format(num, phonenumbers.E164), false
	}
	return raw, false
}

// digits returns the ASCII digits of s, or "" when s holds anything but digits and the
// punctuation people write numbers with.
func digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case strings.ContainsRune(" .-()/", r):
		default:
			return ""
		}
	}
	return b.String()
}

// LooksLikeNumber reports whether raw is written the way people write phone numbers: ASCII
// digits (at least one), the punctuation " .-()/", a '+' before the first digit, and an optional
// extension at the end ("ext", "ext.", "extn", "extension", "x", "#" or ";ext=", then digits). It
// does not say the number is valid (Normalize does); it tells a phone cell from text that is no
// number at all, such as an e-mail address, a name or "n/a". Letters are refused, vanity numbers
// ("1-800-FLOWERS") included.
func LooksLikeNumber(raw string) bool {
	s := strings.ToLower(strings.TrimSpace(raw))
	main, ext := s, ""
	if i := strings.IndexAny(s, "abcdefghijklmnopqrstuvwxyz#;"); i >= 0 {
		main, ext = s[:i], s[i:]
	}
	seen := false // a digit in main
	for i := 0; i < len(main); i++ {
		switch c := main[i]; {
		case c >= '0' && c <= '9':
			seen = true
		case c == '+':
			if seen {
				return false
			}
		case strings.IndexByte(" \t.-()/", c) >= 0:
		default:
			return false
		}
	}
	if !seen {
		return false
	}
	if ext == "" {
		return true
	}
	for _, marker := range []string{";ext=", "extension", "extn", "ext", "x", "#"} {
		if rest, ok := strings.CutPrefix(ext, marker); ok {
			rest = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(rest, "."), ":"), " ")
			return rest != "" && strings.Trim(rest, "0123456789") == ""
		}
	}
	return false
}

// Kind is the kind of line a number belongs to.
type Kind string

const (
	KindMobile            Kind = "mobile"
	KindFixedLine         Kind = "fixed_line"
	KindFixedLineOrMobile Kind = "fixed_line_or_mobile" // regions (the US among them) whose numbering does not tell the two apart
	KindVoIP              Kind = "voip"
	KindTollFree          Kind = "toll_free"
	KindPremiumRate       Kind = "premium_rate"
	KindSharedCost        Kind = "shared_cost"
	KindPersonal          Kind = "personal" // a personal number that forwards to any line (the UK's 070)
	KindPager             Kind = "pager"
	KindUAN               Kind = "uan" // a universal access number of a company
	KindVoicemail         Kind = "voicemail"
	KindOther             Kind = "other" // a type phonenumbers adds later
	KindUnknown           Kind = "unknown"
)

// MaybeMobile reports whether a number of kind k may be a mobile line: mobile, and
// fixed-line-or-mobile (regions whose numbering does not tell the two apart, the US among them,
// get the benefit of the doubt).
func (k Kind) MaybeMobile() bool { return k == KindMobile || k == KindFixedLineOrMobile }

// KindOf reports the kind of the E.164 number e164; KindUnknown when it is not a valid number.
func KindOf(e164 string) Kind {
	num, err := phonenumbers.Parse(e164, "")
	if err != nil || !phonenumbers.IsValidNumber(num) {
		return KindUnknown
	}
	switch phonenumbers.GetNumberType(num) {
	case phonenumbers.MOBILE:
		return KindMobile
	case phonenumbers.FIXED_LINE:
		return KindFixedLine
	case phonenumbers.FIXED_LINE_OR_MOBILE:
		return KindFixedLineOrMobile
	case phonenumbers.VOIP:
		return KindVoIP
	case phonenumbers.TOLL_FREE:
		return KindTollFree
	case phonenumbers.PREMIUM_RATE:
		return KindPremiumRate
	case phonenumbers.SHARED_COST:
		return KindSharedCost
	case phonenumbers.PERSONAL_NUMBER:
		return KindPersonal
	case phonenumbers.PAGER:
		return KindPager
	case phonenumbers.UAN:
		return KindUAN
	case phonenumbers.VOICEMAIL:
		return KindVoicemail
	case phonenumbers.UNKNOWN:
		return KindUnknown
	default:
		return KindOther
	}
}

// CanReceiveSMS reports whether the E.164 number e164 may take text messages: mobile, VoIP, and
// fixed-line-or-mobile numbers (which is how US numbers are reported). Invalid numbers cannot.
func CanReceiveSMS(e164 string) bool {
	switch KindOf(e164) {
	case KindMobile, KindFixedLineOrMobile, KindVoIP:
		return true
	}
	return false
}

// TimeZones returns the IANA time zones of the E.164 number e164, judged from its region and,
// where the numbering plan tells (North American area codes, most geographic numbers), its
// prefix: one zone for most numbers, several for a prefix that spans zones (a mobile range of a
// country with several zones). None for an invalid number, one the data does not place, and a
// number that is no one's place (toll-free, premium rate, shared cost, universal access,
// personal, pager and voicemail numbers: "+1 800" spans the whole North American plan).
func TimeZones(e164 string) []string {
	num, err := phonenumbers.Parse(e164, "")
	if err != nil || !phonenumbers.IsValidNumber(num) {
		return nil
	}
	switch phonenumbers.GetNumberType(num) {
	case phonenumbers.TOLL_FREE, phonenumbers.PREMIUM_RATE, phonenumbers.SHARED_COST, phonenumbers.UAN,
		phonenumbers.PERSONAL_NUMBER, phonenumbers.PAGER, phonenumbers.VOICEMAIL:
		return nil
	}
	zones, err := timezone.GetTimeZonesForNumber(num)
	if err != nil {
		return nil
	}
	var out []string
	for _, z := range zones {
		if z != "" && z != timezone.Unknown && !slices.Contains(out, z) {
			out = append(out, z)
		}
	}
	return out
}
