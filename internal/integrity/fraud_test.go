package integrity

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/integrity/disposable"
	"github.com/recruitd/recruitd/models"
)

var testCompany = uuid.MustParse("00000000-0000-4000-8000-000000000001")

// Numbers of each type (internal/phone's table).
const (
	ukMobile  = "+447400123456"
	usNumber  = "+14155552671" // fixed line or mobile: US numbering does not tell
	ukVoIP    = "+445612345678"
	ukFixed   = "+442079460958"
	ukPersonl = "+447012345678"
	invalid   = "+11234567890"
)

func prints(email, phone string) *ContactPrints {
	return &ContactPrints{Email: fingerprint(testCompany, "email", email), Phone: fingerprint(testCompany, "phone", phone)}
}

func TestScoreFraud(t *testing.T) {
	list := disposable.Default()
	clean := func(f FraudFacts) FraudFacts {
		f.CompanyID = testCompany
		return f
	}
	tests := []struct {
		name       string
		f          FraudFacts
		score      float64
		highRisk   bool
		columns    [2]bool // disposable_email, voip_phone
		raised     []string
		notChecked []string
	}{
		{"clean", clean(FraudFacts{Email: "ada@gmail.com", Phone: ukMobile, MobileExpected: true}), 100, false, [2]bool{},
			[]string{}, []string{"emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"disposable e-mail", clean(FraudFacts{Email: "b@mailinator.com", Phone: usNumber}), 40, true, [2]bool{true, false},
			[]string{"disposableEmail"}, []string{"voipPhone", "emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"disposable subdomain, any case", clean(FraudFacts{Email: "B@Inbox.Mailinator.COM"}), 40, true, [2]bool{true, false},
			[]string{"disposableEmail"}, []string{"voipPhone", "phoneNotMobile", "sharedPhone", "emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"VoIP, no mobile expected", clean(FraudFacts{Email: "ada@gmail.com", Phone: ukVoIP}), 65, false, [2]bool{false, true},
			[]string{"voipPhone"}, []string{"emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"VoIP where a mobile was expected counts once", clean(FraudFacts{Email: "ada@gmail.com", Phone: ukVoIP, MobileExpected: true}), 65, false,
			[2]bool{false, true}, []string{"voipPhone"}, []string{"emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"fixed line where a mobile was expected", clean(FraudFacts{Email: "ada@gmail.com", Phone: ukFixed, MobileExpected: true}), 85, false,
			[2]bool{}, []string{"phoneNotMobile"}, []string{"emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"fixed line, no mobile expected", clean(FraudFacts{Email: "ada@gmail.com", Phone: ukFixed}), 100, false, [2]bool{},
			[]string{}, []string{"emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"personal number where a mobile was expected", clean(FraudFacts{Email: "ada@gmail.com", Phone: ukPersonl, MobileExpected: true}), 85, false,
			[2]bool{}, []string{"phoneNotMobile"}, []string{"emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"US number where a mobile was expected", clean(FraudFacts{Email: "ada@gmail.com", Phone: usNumber, MobileExpected: true}), 100, false,
			[2]bool{}, []string{}, []string{"voipPhone", "emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"invalid number", clean(FraudFacts{Email: "ada@gmail.com", Phone: invalid, MobileExpected: true}), 100, false, [2]bool{},
			[]string{}, []string{"voipPhone", "phoneNotMobile", "emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"shared e-mail and phone", clean(FraudFacts{Email: "ada@gmail.com", Phone: ukMobile, SameEmail: 2, SamePhone: 1}), 55, false, [2]bool{},
			[]string{"sharedEmail", "sharedPhone"}, []string{"emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"VoIP shared with another candidate", clean(FraudFacts{Email: "ada@gmail.com", Phone: ukVoIP, SamePhone: 1}), 45, true, [2]bool{false, true},
			[]string{"voipPhone", "sharedPhone"}, []string{"emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"e-mail changed since the last check", clean(FraudFacts{Email: "ada@gmail.com", Phone: ukMobile, Previous: prints("ada@old.example", ukMobile)}),
			85, false, [2]bool{}, []string{"emailChanged"}, []string{"vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"same contact as the last check", clean(FraudFacts{Email: "ada@gmail.com", Phone: ukMobile, Previous: prints("ada@gmail.com", ukMobile)}),
			100, false, [2]bool{}, []string{}, []string{"vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"a source gave another phone", clean(FraudFacts{Email: "ada@gmail.com", Phone: ukMobile, Observed: []SourceContact{
			{Source: "invitation", Email: "ADA@gmail.com "}, {Source: "partner", Phone: "+44 7400 999999"}}}),
			85, false, [2]bool{}, []string{"phoneChanged"}, []string{"vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"every signal", clean(FraudFacts{Email: "b@mailinator.com", Phone: ukVoIP, SameEmail: 1, SamePhone: 3, Previous: prints("b@yopmail.com", ukMobile)}),
			0, true, [2]bool{true, true}, []string{"disposableEmail", "voipPhone", "sharedEmail", "sharedPhone", "emailChanged", "phoneChanged"},
			[]string{"vpnProxyIp", "thinProfile", "footprintAnomaly"}},
		{"no contact details", clean(FraudFacts{}), 100, false, [2]bool{}, []string{},
			[]string{"disposableEmail", "voipPhone", "phoneNotMobile", "sharedEmail", "sharedPhone", "emailChanged", "phoneChanged", "vpnProxyIp", "thinProfile", "footprintAnomaly"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ScoreFraud(tt.f, list)
			if r.Score != tt.score || r.HighRisk != tt.highRisk || r.DisposableEmail != tt.columns[0] || r.VoIPPhone != tt.columns[1] {
				t.Errorf("score %v high risk %v disposable %v voip %v; want %v %v %v", r.Score, r.HighRisk, r.DisposableEmail, r.VoIPPhone,
					tt.score, tt.highRisk, tt.columns)
			}
			if !slices.Equal(r.Signals.Raised, tt.raised) || !slices.Equal(r.Signals.NotChecked, tt.notChecked) {
				t.Errorf("raised %v not checked %v; want %v %v", r.Signals.Raised, r.Signals.NotChecked, tt.raised, tt.notChecked)
			}
			if r.Signals.Score != r.Score || r.Signals.Rules != FraudRules {
				t.Errorf("signals score %v rules %q", r.Signals.Score, r.Signals.Rules)
			}
			b, _ := json.Marshal(r.Signals)
			for _, contact := range []string{tt.f.Email, tt.f.Phone, strings.TrimPrefix(tt.f.Phone, "+")} {
				if contact != "" && strings.Contains(strings.ToLower(string(b)), strings.ToLower(contact)) {
					t.Errorf("the evidence holds the contact %q: %s", contact, b)
				}
			}
		})
	}
}

// TestFraudEvidence pins the stored signals of one verification, field by field.
func TestFraudEvidence(t *testing.T) {
	r := ScoreFraud(FraudFacts{CompanyID: testCompany, Email: "b@mailinator.com", Phone: usNumber, MobileExpected: true, SamePhone: 2,
		Observed: []SourceContact{{Source: "invitation", Email: "b@mailinator.com"}}}, disposable.Default())
	list := disposable.Default().Provenance().Source
	want := `{"rules":"contact-signals/1","score":20,` +
		`"disposableEmail":{"status":"raised","weight":60,"domain":"mailinator.com","listEntry":"mailinator.com","list":"` + list + `"},` +
		`"voipPhone":{"status":"notChecked","weight":0,"reason":"the numbering plan does not set VoIP numbers apart in this region (North American numbers are fixed-line-or-mobile), and recruitd has no carrier lookup","kind":"fixed_line_or_mobile"},` +
		`"phoneNotMobile":{"status":"clear","weight":0,"kind":"fixed_line_or_mobile","mobileExpected":true},` +
		`"sharedEmail":{"status":"clear","weight":0,"otherCandidates":0},` +
		`"sharedPhone":{"status":"raised","weight":20,"otherCandidates":2},` +
		`"emailChanged":{"status":"clear","weight":0,"comparedWith":["invitation"]},` +
		`"phoneChanged":{"status":"notChecked","weight":0,"reason":"nothing to compare with: no earlier check and no other source's contact"},` +
		`"vpnProxyIp":{"status":"notChecked","weight":0,"reason":"recruitd has no IP-reputation source"},` +
		`"thinProfile":{"status":"notChecked","weight":0,"reason":"recruitd has no professional-profile source"},` +
		`"footprintAnomaly":{"status":"notChecked","weight":0,"reason":"recruitd has no digital-footprint source"},` +
		`"raised":["disposableEmail","sharedPhone"],"notChecked":["voipPhone","phoneChanged","vpnProxyIp","thinProfile","footprintAnomaly"],` +
		`"contact":{"email":"bbc1be0364926d9be1346e5f6cb9db84","phone":"278b81c175e0da7300810e67f58802d3"}}`
	if b, _ := json.Marshal(r.Signals); string(b) != want {
		t.Errorf("signals\n got %s\nwant %s", b, want)
	}
	other := ScoreFraud(FraudFacts{CompanyID: uuid.New(), Email: "b@mailinator.com", Phone: usNumber}, disposable.Default())
	if other.Signals.Contact == r.Signals.Contact {
		t.Error("another company's fingerprints are the same")
	}
}

func TestMobileExpected(t *testing.T) {
	for _, m := range models.AllMediumTypes() {
		want := m == models.MediumTypeSMS || m == models.MediumTypePhoneSMS || m == models.MediumTypeWhatsApp
		if got := MobileExpected(m); got != want {
			t.Errorf("MobileExpected(%s) = %v, want %v", m, got, want)
		}
	}
}
