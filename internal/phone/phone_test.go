package phone

import (
	"slices"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		raw, region string
		want        string
		ok          bool
	}{
		{"(415) 555-2671", "US", "+14155552671", true},
		{"4155552671", "US", "+14155552671", true},
		{"1-415-555-2671", "US", "+14155552671", true},
		{"+1 415.555.2671", "US", "+14155552671", true},
		{"  415 555 2671  ", "", "+14155552671", true}, // empty region means US
		{"+44 20 7946 0958", "US", "+442079460958", true},
		{"020 7946 0958", "GB", "+442079460958", true},
		{"07400 123456", "gb", "+447400123456", true},
		{"1-800-FLOWERS", "US", "+18003569377", true},

		// Not valid: passed through, US-shaped ones still gain +1.
		{"(123) 456-7890", "US", "+11234567890", false},
		{"11234567890", "US", "+11234567890", false},
		{"1234567890", "CA", "+11234567890", false},
		{"+1 123 456 7890", "US", "+11234567890", false},
		{"2345678901", "GB", "2345678901", false}, // not US-shaped outside North America
		{"+44 20 7946", "US", "+44207946", false},
		{"+1 (123) 456-789", "US", "+1123456789", false},
		{"555-1234", "US", "555-1234", false},
		{"911", "US", "911", false},
		{"12", "US", "12", false},
		{"not a number", "US", "not a number", false},
		{"", "US", "", false},
	}
	for _, tt := range tests {
		got, ok := Normalize(tt.raw, tt.region)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Normalize(%q, %q) = %q, %v, want %q, %v", tt.raw, tt.region, got, ok, tt.want, tt.ok)
		}
	}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		e164 string
		want Kind
		sms  bool
	}{
		{"+447400123456", KindMobile, true},
		{"+442079460958", KindFixedLine, false},
		{"+14155552671", KindFixedLineOrMobile, true},
		{"+18005551234", KindTollFree, false},
		{"+445612345678", KindVoIP, true},
		{"+447012345678", KindPersonal, false},
		{"+15002345678", KindPersonal, false},
		{"+447640123456", KindPager, false},
		{"+445512345678", KindUAN, false},
		{"+449012345678", KindPremiumRate, false},
		{"+33884012345", KindSharedCost, false},
		{"+49177991234567", KindVoicemail, false},
		{"+11234567890", KindUnknown, false},
		{"garbage", KindUnknown, false},
		{"", KindUnknown, false},
	}
	for _, tt := range tests {
		if got := KindOf(tt.e164); got != tt.want {
			t.Errorf("KindOf(%q) = %q, want %q", tt.e164, got, tt.want)
		}
		if got := CanReceiveSMS(tt.e164); got != tt.sms {
			t.Errorf("CanReceiveSMS(%q) = %v, want %v", tt.e164, got, tt.sms)
		}
	}
}

func TestMaybeMobile(t *testing.T) {
	for k, want := range map[Kind]bool{KindMobile: true, KindFixedLineOrMobile: true, KindFixedLine: false, KindVoIP: false,
		KindTollFree: false, KindPersonal: false, KindPager: false, KindOther: false, KindUnknown: false} {
		if got := k.MaybeMobile(); got != want {
			t.Errorf("%s.MaybeMobile() = %v, want %v", k, got, want)
		}
	}
}

// TestNormalizeMalformedRFC3966: "tel:" after the phone-context made phonenumbers panic before
// v2.0.4 and v1.8.1 (GHSA-374v-j3m9-frpm); these are the library's own regression inputs.
func TestNormalizeMalformedRFC3966(t *testing.T) {
	for _, raw := range []string{"5;phone-context=+1;tel:x", "5;phone-context=+49;foo=tel:"} {
		if got, ok := Normalize(raw, "US"); ok {
			t.Errorf("Normalize(%q) = %q, true, want not valid", raw, got)
		}
	}
}

func TestTimeZones(t *testing.T) {
	for _, tt := range []struct {
		e164 string
		want []string
	}{
		{"+12125551234", []string{"America/New_York"}},
		{"+14155552671", []string{"America/Los_Angeles"}},
		{"+16025550100", []string{"America/Phoenix"}},
		{"+19155550100", []string{"America/Denver"}}, // El Paso: a Texas area code on Mountain time
		{"+4915112345678", []string{"Europe/Berlin"}},
		{"+34612345678", []string{"Atlantic/Canary", "Europe/Madrid"}}, // a Spanish mobile: mainland or the Canaries
		{"+18005551234", nil},                                          // toll-free: no one's place
		{"+449012345678", nil},                                         // premium rate
		{"+11234567890", nil},                                          // not a valid number
		{"garbage", nil},
		{"", nil},
	} {
		if got := TimeZones(tt.e164); !slices.Equal(got, tt.want) {
			t.Errorf("TimeZones(%q) = %v, want %v", tt.e164, got, tt.want)
		}
	}
}
