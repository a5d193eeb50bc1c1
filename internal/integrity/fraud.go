package integrity

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/integrity/disposable"
	"github.com/recruitd/recruitd/internal/phone"
	"github.com/recruitd/recruitd/models"
)

// FraudRules names the rules below; it is stored with every verification's signals.
const FraudRules = "contact-signals/1"

// HighRiskBelow is the overall verification score under which a candidate is high risk (the
// spec's fixed report threshold).
const HighRiskBelow = 50

// Points each raised signal takes from 100 (docs/integrity-checks.md, "Fraud signals"); the
// overall verification score is what is left, at least 0. A disposable address alone makes a
// candidate high risk; any other signal needs a second one.
const (
	WeightDisposableEmail = 60
	WeightVoIPPhone       = 35
	WeightPhoneNotMobile  = 15
	WeightSharedEmail     = 25
	WeightSharedPhone     = 20
	WeightEmailChanged    = 15
	WeightPhoneChanged    = 15
)

// Status is the outcome of one signal.
type Status string

const (
	Raised     Status = "raised"
	Clear      Status = "clear"
	NotChecked Status = "notChecked" // recruitd lacks the data; Reason says which
)

// Reasons of the signals recruitd never checks.
const (
	noIPReputation = "recruitd has no IP-reputation source"
	noProfile      = "recruitd has no professional-profile source"
	noFootprint    = "recruitd has no digital-footprint source"
	noVoIPRanges   = "the numbering plan does not set VoIP numbers apart in this region (North American numbers are fixed-line-or-mobile), and recruitd has no carrier lookup"
)

// SourceKnownBefore is the source name of the contact a previous check of the candidate saw.
const SourceKnownBefore = "previousCheck"

// SourceContact is a candidate's contact as one source gave it (an invitation request, a
// partner's applicant record, an HR-suite or ATS record). Email is compared case-insensitively;
// Phone must be E.164, normalised with the source's region as the ingest does.
type SourceContact struct {
	Source       string // invitation, partner, hrsuite, ats, ...: named in the evidence
	Email, Phone string
}

// ContactPrints are fingerprints of the contact a check saw (a salted SHA-256, cut to 128 bits):
// the next check compares them to tell a changed contact without keeping the contact in the
// evidence. Empty when the contact was missing.
type ContactPrints struct {
	Email string `json:"email,omitempty"`
	Phone string `json:"phone,omitempty"`
}

// FraudFacts is what recruitd knows about a candidate's contact details.
type FraudFacts struct {
	CompanyID    uuid.UUID // salts the fingerprints
	Email, Phone string    // the candidate's stored contact (Phone in E.164 when it validated)
	// MobileExpected: the candidate is to be reached on a mobile (MobileExpected of the
	// session's medium, or an invitation by text message).
	MobileExpected bool
	// SameEmail and SamePhone count the company's other candidates with the same e-mail
	// address (case-insensitive) or phone number.
	SameEmail, SamePhone int64
	// Previous is what the candidate's latest earlier check saw; nil without one (or when it
	// recorded no fingerprints).
	Previous *ContactPrints
	// Observed are the contacts the sources gave, when the caller has them.
	Observed []SourceContact
}

// FraudSignal is one signal with its evidence: counts, a domain, a number type, source names;
// never an address or a number.
type FraudSignal struct {
	Status          Status   `json:"status"`
	Weight          int      `json:"weight"`           // points taken from 100 when raised
	Reason          string   `json:"reason,omitempty"` // why not checked
	Domain          string   `json:"domain,omitempty"`
	ListEntry       string   `json:"listEntry,omitempty"` // the listed domain that matched
	List            string   `json:"list,omitempty"`      // the list's source and version
	Kind            string   `json:"kind,omitempty"`      // the number's type (internal/phone)
	MobileExpected  *bool    `json:"mobileExpected,omitempty"`
	OtherCandidates *int64   `json:"otherCandidates,omitempty"`
	ComparedWith    []string `json:"comparedWith,omitempty"` // sources the contact was compared with
	ChangedIn       []string `json:"changedIn,omitempty"`    // sources whose contact differs
}

// FraudSignals is stored as fraud_verifications.signals.
type FraudSignals struct {
	Rules            string        `json:"rules"`
	Score            float64       `json:"score"`
	DisposableEmail  FraudSignal   `json:"disposableEmail"`
	VoIPPhone        FraudSignal   `json:"voipPhone"`
	PhoneNotMobile   FraudSignal   `json:"phoneNotMobile"`
	SharedEmail      FraudSignal   `json:"sharedEmail"`
	SharedPhone      FraudSignal   `json:"sharedPhone"`
	EmailChanged     FraudSignal   `json:"emailChanged"`
	PhoneChanged     FraudSignal   `json:"phoneChanged"`
	VPNProxyIP       FraudSignal   `json:"vpnProxyIp"`
	ThinProfile      FraudSignal   `json:"thinProfile"`
	FootprintAnomaly FraudSignal   `json:"footprintAnomaly"`
	Raised           []string      `json:"raised"`
	NotChecked       []string      `json:"notChecked"`
	Contact          ContactPrints `json:"contact"`
}

// FraudResult is a candidate's verification: the score, the columns the tools read and the
// signals with their evidence.
type FraudResult struct {
	Score           float64 // 0-100, lower is riskier
	HighRisk        bool    // Score < HighRiskBelow
	DisposableEmail bool    // fraud_verifications.disposable_email
	VoIPPhone       bool    // fraud_verifications.voip_phone (vpn_proxy_ip, thin_profile, footprint_anomaly stay false)
	Signals         FraudSignals
}

// MobileExpected reports whether an interview in medium reaches the candidate by text message
// on a mobile: SMS, PHONE_SMS and WHATSAPP.
func MobileExpected(medium models.MediumType) bool {
	switch medium {
	case models.MediumTypeSMS, models.MediumTypePhoneSMS, models.MediumTypeWhatsApp:
		return true
	}
	return false
}

// ScoreFraud checks a candidate's contact details against the rules, with list as the
// disposable domains (nil: the embedded list).
func ScoreFraud(f FraudFacts, list *disposable.List) FraudResult {
	if list == nil {
		list = disposable.Default()
	}
	email := strings.ToLower(strings.TrimSpace(f.Email))
	num := normalPhone(f.Phone)
	s := FraudSignals{Rules: FraudRules, Raised: []string{}, NotChecked: []string{}}
	s.Contact = ContactPrints{Email: fingerprint(f.CompanyID, "email", email), Phone: fingerprint(f.CompanyID, "phone", num)}

	var prev ContactPrints
	if f.Previous != nil {
		prev = *f.Previous
	}
	noEmail := FraudSignal{Status: NotChecked, Reason: "the candidate has no e-mail address"}
	noPhone := FraudSignal{Status: NotChecked, Reason: "the candidate has no phone number"}
	s.DisposableEmail, s.SharedEmail, s.EmailChanged = noEmail, noEmail, noEmail
	s.VoIPPhone, s.PhoneNotMobile, s.SharedPhone, s.PhoneChanged = noPhone, noPhone, noPhone, noPhone

	if email != "" {
		s.DisposableEmail = FraudSignal{Status: Clear, Domain: disposable.Domain(email), List: list.Provenance().Source}
		if entry, ok := list.Match(email); ok {
			s.DisposableEmail.Status, s.DisposableEmail.ListEntry = Raised, entry
		}
		s.SharedEmail = shared(f.SameEmail)
		s.EmailChanged = changed(email, s.Contact.Email, prev.Email, f.Observed, func(c SourceContact) string { return strings.ToLower(strings.TrimSpace(c.Email)) })
	}
	if num != "" {
		kind := phone.KindOf(num)
		expected := f.MobileExpected
		switch {
		case kind == phone.KindUnknown:
			invalid := FraudSignal{Status: NotChecked, Reason: "the phone number does not validate, so its type is unknown", Kind: string(kind)}
			s.VoIPPhone, s.PhoneNotMobile = invalid, invalid
			s.PhoneNotMobile.MobileExpected = &expected
		default:
			s.VoIPPhone = FraudSignal{Status: Clear, Kind: string(kind)}
			if kind == phone.KindVoIP {
				s.VoIPPhone.Status = Raised
			}
			// VoIP has its own signal; the others that are no mobile line count where one was expected.
			s.PhoneNotMobile = FraudSignal{Status: Clear, Kind: string(kind), MobileExpected: &expected}
			if expected && !kind.MaybeMobile() && kind != phone.KindVoIP {
				s.PhoneNotMobile.Status = Raised
			}
			if kind == phone.KindFixedLineOrMobile {
				// The numbering plan has no VoIP ranges apart there: a VoIP number looks like any other.
				s.VoIPPhone = FraudSignal{Status: NotChecked, Kind: string(kind), Reason: noVoIPRanges}
			}
		}
		s.SharedPhone = shared(f.SamePhone)
		s.PhoneChanged = changed(num, s.Contact.Phone, prev.Phone, f.Observed, func(c SourceContact) string { return normalPhone(c.Phone) })
	}
	s.VPNProxyIP = FraudSignal{Status: NotChecked, Reason: noIPReputation}
	s.ThinProfile = FraudSignal{Status: NotChecked, Reason: noProfile}
	s.FootprintAnomaly = FraudSignal{Status: NotChecked, Reason: noFootprint}

	score := 100
	for _, sig := range []struct {
		key    string
		s      *FraudSignal
		weight int
	}{
		{"disposableEmail", &s.DisposableEmail, WeightDisposableEmail},
		{"voipPhone", &s.VoIPPhone, WeightVoIPPhone},
		{"phoneNotMobile", &s.PhoneNotMobile, WeightPhoneNotMobile},
		{"sharedEmail", &s.SharedEmail, WeightSharedEmail},
		{"sharedPhone", &s.SharedPhone, WeightSharedPhone},
		{"emailChanged", &s.EmailChanged, WeightEmailChanged},
		{"phoneChanged", &s.PhoneChanged, WeightPhoneChanged},
		{"vpnProxyIp", &s.VPNProxyIP, 0},
		{"thinProfile", &s.ThinProfile, 0},
		{"footprintAnomaly", &s.FootprintAnomaly, 0},
	} {
		switch sig.s.Status {
		case Raised:
			sig.s.Weight = sig.weight
			score -= sig.weight
			s.Raised = append(s.Raised, sig.key)
		case NotChecked:
			s.NotChecked = append(s.NotChecked, sig.key)
		}
	}
	s.Score = float64(max(score, 0))
	return FraudResult{Score: s.Score, HighRisk: s.Score < HighRiskBelow, DisposableEmail: s.DisposableEmail.Status == Raised,
		VoIPPhone: s.VoIPPhone.Status == Raised, Signals: s}
}

func shared(others int64) FraudSignal {
	n := max(others, 0)
	sig := FraudSignal{Status: Clear, OtherCandidates: &n}
	if n > 0 {
		sig.Status = Raised
	}
	return sig
}

// changed compares the current contact value (and its fingerprint now) with the previous check's
// fingerprint and with each source's value. Missing values on either side compare with nothing.
func changed(current, currentPrint, previousPrint string, observed []SourceContact, value func(SourceContact) string) FraudSignal {
	var compared, differ []string
	if previousPrint != "" {
		compared = append(compared, SourceKnownBefore)
		if previousPrint != currentPrint {
			differ = append(differ, SourceKnownBefore)
		}
	}
	for _, c := range observed {
		v := value(c)
		if v == "" {
			continue
		}
		name := strings.TrimSpace(c.Source)
		if name == "" {
			name = "source"
		}
		if !slices.Contains(compared, name) {
			compared = append(compared, name)
		}
		if v != current && !slices.Contains(differ, name) {
			differ = append(differ, name)
		}
	}
	if len(compared) == 0 {
		return FraudSignal{Status: NotChecked, Reason: "nothing to compare with: no earlier check and no other source's contact"}
	}
	sig := FraudSignal{Status: Clear, ComparedWith: compared}
	if len(differ) > 0 {
		sig.Status, sig.ChangedIn = Raised, differ
	}
	return sig
}

// normalPhone is raw in E.164 when it validates, else trimmed as given.
func normalPhone(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	if e164, ok := phone.Normalize(raw, ""); ok {
		return e164
	}
	return raw
}

// fingerprint is the salted SHA-256 of a contact value, cut to 128 bits; "" for no value.
func fingerprint(company uuid.UUID, kind, value string) string {
	if value == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("recruitd contact v1\x00" + company.String() + "\x00" + kind + "\x00" + value))
	return hex.EncodeToString(sum[:16])
}
