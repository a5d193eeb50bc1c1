package interviewtools

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/integrity"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
)

// The evidence behind a cheating or fraud flag, as getCandidateVerification and the flaggedDetails
// of getCheatingDetectionStats and getFraudVerificationStats show it: what was measured, by whom
// (the page, which the candidate's browser composes, or the server), and what was not checked.

// maxSharedWith bounds the other candidates listed for a shared e-mail or phone.
const maxSharedWith = 10

// CandidateRef is another candidate of the company, with the deep link to them.
type CandidateRef struct {
	CandidateID string `json:"candidateId"`
	Link        string `json:"link"`
}

// AnswerEvidence is one answer's evidence in a cheating evaluation. The page's figures are null
// when the page reported nothing for the answer.
type AnswerEvidence struct {
	Seq                  int            `json:"seq" jsonschema:"the answer's turn in the transcript"`
	Score                *float64       `json:"score" jsonschema:"the answer's score 0-100"`
	Reasons              []string       `json:"reasons" jsonschema:"rules that fired: paste, away, fastTyping (page); fastArrival, identicalAnswer (server)"`
	PageReported         bool           `json:"pageReported" jsonschema:"the page sent its figures for the answer; they are composed by the candidate's browser"`
	PastedChars          *int           `json:"pastedChars" jsonschema:"page: characters pasted into the answer"`
	AwayMs               *int           `json:"awayMs" jsonschema:"page: milliseconds the page was hidden or unfocused while the question was shown"`
	TypingCharsPerSecond *float64       `json:"typingCharsPerSecond" jsonschema:"page: typed (not pasted) characters per second of active typing"`
	AnswerChars          int            `json:"answerChars" jsonschema:"server: the stored answer's length in characters"`
	ServerMs             int64          `json:"serverMs" jsonschema:"server: milliseconds from the question shown to the answer received (0 when unknown)"`
	ServerCharsPerSecond *float64       `json:"serverCharsPerSecond" jsonschema:"server: the answer's characters per second of the server's time"`
	IdenticalTo          []CandidateRef `json:"identicalTo" jsonschema:"server: other candidates of the company who gave the same answer"`
}

// CheatingEvidence is the evidence of a cheating evaluation.
type CheatingEvidence struct {
	Rules      string           `json:"rules" jsonschema:"the version of the rules the evaluation used"`
	Answers    []AnswerEvidence `json:"answers"`
	NotChecked []string         `json:"notChecked" jsonschema:"what this evaluation could not check, and why"`
}

// cheatingEvidence reads an evaluation's stored evidence (cheating_evaluations.evidence); nil
// for an evaluation made elsewhere, without evidence.
func cheatingEvidence(call *toolkit.Call, raw []byte) *CheatingEvidence {
	out := &CheatingEvidence{Answers: []AnswerEvidence{}, NotChecked: []string{
		"eye tracking, head tracking, voice and more than one person: a text interview has no video or audio"}}
	var ev integrity.CheatingEvidence
	if len(raw) == 0 || json.Unmarshal(raw, &ev) != nil || ev.Rules == "" {
		out.Rules = "none"
		out.NotChecked = append(out.NotChecked, "per-answer evidence: the evaluation was made without it (imported or seeded)")
		return out
	}
	out.Rules = ev.Rules
	var unreported []string
	for _, it := range ev.Items {
		a := AnswerEvidence{Seq: it.Seq, Score: it.Score, Reasons: it.Reasons, PageReported: it.Reported, IdenticalTo: []CandidateRef{}}
		if a.Reasons == nil {
			a.Reasons = []string{}
		}
		if m := it.Measure; m != nil {
			a.AnswerChars, a.ServerMs, a.ServerCharsPerSecond = m.AnswerChars, m.DurationMs, m.ArrivalCPS
			if it.Reported {
				a.PastedChars, a.AwayMs, a.TypingCharsPerSecond = ptr(m.PastedChars), ptr(m.AwayMs), m.CharsPerSecond
			}
			for _, id := range m.IdenticalTo {
				if u, err := uuid.Parse(id); err == nil {
					a.IdenticalTo = append(a.IdenticalTo, CandidateRef{CandidateID: u.String(), Link: call.Env.Links.Candidate(u)})
				}
			}
		}
		if !it.Reported {
			unreported = append(unreported, strconv.Itoa(it.Seq))
		}
		out.Answers = append(out.Answers, a)
	}
	if len(unreported) > 0 {
		out.NotChecked = append(out.NotChecked, fmt.Sprintf("paste, time away and typing pace of answer %s: the page reported nothing "+
			"(no JavaScript, an old page, or a request that did not arrive)", strings.Join(unreported, ", ")))
	}
	if ev.Rules == "page-signals/1" {
		out.NotChecked = append(out.NotChecked, "the server's arrival pace and identical answers: evaluated before these rules existed")
	}
	return out
}

// answerEvidenceText is one line per answer for the tools' text.
func answerEvidenceText(t *toolkit.Text, ev *CheatingEvidence) {
	if ev == nil {
		return
	}
	for _, a := range ev.Answers {
		page := "page reported nothing"
		if a.PageReported {
			page = fmt.Sprintf("page: pasted %d chars, away %s, typing %s chars/s", deref(a.PastedChars), seconds(deref(a.AwayMs)), num(a.TypingCharsPerSecond))
		}
		same := ""
		if len(a.IdenticalTo) > 0 {
			ids := make([]string, len(a.IdenticalTo))
			for i, c := range a.IdenticalTo {
				ids[i] = c.CandidateID
			}
			same = "; same answer as candidate " + strings.Join(ids, ", ")
		}
		t.Line("  - answer %d: score %s (%s); %s; server: %d chars in %s (%s chars/s)%s", a.Seq, num(a.Score), reasonsText(a.Reasons), page,
			a.AnswerChars, seconds(int(a.ServerMs)), num(a.ServerCharsPerSecond), same)
	}
	for _, n := range ev.NotChecked {
		t.Line("  - not checked: %s", n)
	}
}

// SharedContact is another candidate of the company with the same e-mail or phone.
type SharedContact struct {
	CandidateRef
	Via []string `json:"via" jsonschema:"email, phone or both"`
}

// ChangedContact is a contact that differs between sources.
type ChangedContact struct {
	Contact      string   `json:"contact" jsonschema:"email or phone"`
	ChangedIn    []string `json:"changedIn" jsonschema:"sources whose contact differs from the stored one"`
	ComparedWith []string `json:"comparedWith" jsonschema:"every source the contact was compared with"`
}

// NotCheckedSignal is a fraud signal that was not checked, with the reason.
type NotCheckedSignal struct {
	Signal string `json:"signal"`
	Reason string `json:"reason"`
}

// FraudEvidence is the evidence of a fraud verification.
type FraudEvidence struct {
	Raised              []string           `json:"raised" jsonschema:"every signal raised, also those without a column"`
	DisposableDomain    *string            `json:"disposableDomain" jsonschema:"the e-mail's domain, when on the disposable-domain list"`
	DisposableListEntry *string            `json:"disposableListEntry" jsonschema:"the list entry that matched"`
	PhoneType           *string            `json:"phoneType" jsonschema:"the phone number's type from the numbering plan"`
	SharedWith          []SharedContact    `json:"sharedWith" jsonschema:"other candidates of the company with the same e-mail or phone now (up to 10)"`
	Changed             []ChangedContact   `json:"changed" jsonschema:"contacts that differ between sources"`
	NotChecked          []NotCheckedSignal `json:"notChecked"`
}

// fraudEvidence reads a verification's signals (fraud_verifications.signals). Its SharedWith is
// the candidate's entry of sharedContacts.
func fraudEvidence(raw []byte, shared []SharedContact) *FraudEvidence {
	out := &FraudEvidence{Raised: []string{}, SharedWith: shared, Changed: []ChangedContact{}, NotChecked: []NotCheckedSignal{}}
	if out.SharedWith == nil {
		out.SharedWith = []SharedContact{}
	}
	var s integrity.FraudSignals
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil || s.Rules == "" {
		out.NotChecked = append(out.NotChecked, NotCheckedSignal{Signal: "all", Reason: "the verification was made without recruitd's evidence (imported or seeded)"})
		return out
	}
	out.Raised = append(out.Raised, s.Raised...)
	if s.DisposableEmail.Status == integrity.Raised {
		out.DisposableDomain, out.DisposableListEntry = nonEmpty(s.DisposableEmail.Domain), nonEmpty(s.DisposableEmail.ListEntry)
	}
	out.PhoneType = nonEmpty(s.VoIPPhone.Kind)
	for _, c := range []struct {
		name string
		sig  integrity.FraudSignal
	}{{"email", s.EmailChanged}, {"phone", s.PhoneChanged}} {
		if c.sig.Status == integrity.Raised {
			out.Changed = append(out.Changed, ChangedContact{Contact: c.name, ChangedIn: c.sig.ChangedIn, ComparedWith: c.sig.ComparedWith})
		}
	}
	for _, n := range []struct {
		key string
		sig integrity.FraudSignal
	}{{"disposableEmail", s.DisposableEmail}, {"voipPhone", s.VoIPPhone}, {"phoneNotMobile", s.PhoneNotMobile},
		{"sharedEmail", s.SharedEmail}, {"sharedPhone", s.SharedPhone}, {"emailChanged", s.EmailChanged}, {"phoneChanged", s.PhoneChanged},
		{"vpnProxyIp", s.VPNProxyIP}, {"thinProfile", s.ThinProfile}, {"footprintAnomaly", s.FootprintAnomaly}} {
		if n.sig.Status == integrity.NotChecked {
			out.NotChecked = append(out.NotChecked, NotCheckedSignal{Signal: n.key, Reason: n.sig.Reason})
		}
	}
	return out
}

// sharedContacts finds, for each of the company's candidates in ids, the other candidates that
// share its e-mail or phone now, in one statement whatever the number of ids. For each candidate,
// it takes the first maxSharedWith sharing the e-mail and the first sharing the phone. Each is a
// walk of its index in (created_at, id) order (migration 00052) that stops at the limit: a common
// address or number is shared by a number of candidates that grows with the pool.
func sharedContacts(ctx context.Context, call *toolkit.Call, db toolkit.Querier, ids []uuid.UUID) (map[uuid.UUID][]SharedContact, error) {
	rows, err := db.QueryContext(ctx, `SELECT c.id, s.id, s.email, s.phone
		FROM (SELECT DISTINCT unnest($2::uuid[]) AS id) x
		JOIN candidates c ON c.company_id = $1 AND c.id = x.id
		CROSS JOIN LATERAL (
			SELECT o.id, o.created_at, coalesce(lower(o.email) = lower(c.email), false) AS email, coalesce(o.phone = c.phone, false) AS phone
			FROM ((SELECT o.id, o.created_at, o.email, o.phone FROM candidates o
			       WHERE o.company_id = $1 AND lower(o.email) = lower(c.email) AND o.id <> c.id
			       ORDER BY o.created_at, o.id LIMIT $3)
			      UNION
			      (SELECT o.id, o.created_at, o.email, o.phone FROM candidates o
			       WHERE o.company_id = $1 AND o.phone = c.phone AND o.id <> c.id
			       ORDER BY o.created_at, o.id LIMIT $3)) o
			ORDER BY o.created_at, o.id LIMIT $3) s
		ORDER BY c.id, s.created_at, s.id`, call.Company.ID, ids, maxSharedWith)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[uuid.UUID][]SharedContact{}
	for rows.Next() {
		var of, id uuid.UUID
		var email, phone bool
		if err := rows.Scan(&of, &id, &email, &phone); err != nil {
			return nil, err
		}
		sc := SharedContact{CandidateRef: CandidateRef{CandidateID: id.String(), Link: call.Env.Links.Candidate(id)}, Via: []string{}}
		if email {
			sc.Via = append(sc.Via, "email")
		}
		if phone {
			sc.Via = append(sc.Via, "phone")
		}
		out[of] = append(out[of], sc)
	}
	return out, rows.Err()
}

// fraudEvidenceText is the evidence's lines for the tools' text.
func fraudEvidenceText(t *toolkit.Text, ev *FraudEvidence) {
	if ev == nil {
		return
	}
	if ev.DisposableDomain != nil {
		t.Line("  - disposable e-mail domain: %s (list entry %s)", *ev.DisposableDomain, toolkit.Str(ev.DisposableListEntry))
	}
	if ev.PhoneType != nil {
		t.Line("  - phone type: %s", *ev.PhoneType)
	}
	for _, s := range ev.SharedWith {
		t.Line("  - shares %s with candidate %s %s", strings.Join(s.Via, " and "), s.CandidateID, s.Link)
	}
	for _, c := range ev.Changed {
		t.Line("  - %s differs in: %s (compared with %s)", c.Contact, strings.Join(c.ChangedIn, ", "), strings.Join(c.ComparedWith, ", "))
	}
	for _, n := range ev.NotChecked {
		t.Line("  - not checked: %s (%s)", n.Signal, n.Reason)
	}
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func num(v *float64) string {
	if v == nil {
		return "unknown"
	}
	return toolkit.Num(v)
}

func seconds(ms int) string { return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s" }

func reasonsText(r []string) string {
	if len(r) == 0 {
		return "no rule fired"
	}
	return strings.Join(r, ", ")
}

// nullBytes is a nullable jsonb column as bytes.
func nullBytes(s sql.NullString) []byte {
	if !s.Valid {
		return nil
	}
	return []byte(s.String)
}
