package conversation

import (
	"strconv"
	"strings"
)

// TextKey names one of the fixed texts a thread sends.
type TextKey string

// The fixed texts. Each is written in GSM-7 (plain quotes, no dashes or emoji) and, with the
// placeholders filled by names of usual length, fits one SMS segment; a test checks both.
const (
	// TextConsentRequest opens a thread: who writes, why, and how to start, get help or stop.
	TextConsentRequest TextKey = "consent_request"
	// TextConsentDeclined answers NO to the consent request; nothing else is sent.
	TextConsentDeclined TextKey = "consent_declined"
	// TextHelp answers HELP or INFO: the company, how to reach it, how to stop.
	TextHelp TextKey = "help"
	// TextOptOutConfirmation is the one message after an opt-out; then silence.
	TextOptOutConfirmation TextKey = "opt_out_confirmation"
	// TextOptInConfirmation answers START or UNSTOP after an opt-out.
	TextOptInConfirmation TextKey = "opt_in_confirmation"
	// TextUnknownNumber answers a message from a number with no open interview. It names no
	// company: the sender may be anyone.
	TextUnknownNumber TextKey = "unknown_number"
	// TextSessionClosed answers a message in a thread whose interview has ended.
	TextSessionClosed TextKey = "session_closed"
	// TextChooseNumber asks again for a choice, after a reply that named none or several.
	TextChooseNumber TextKey = "choose_number"
)

// Catalogue is every fixed text, with its placeholders: {company} the company's name, {role}
// the job's title, {contact} how to reach the company (an e-mail address or a phone number),
// {n} a number of choices. Fill replaces them.
var Catalogue = map[TextKey]string{
	TextConsentRequest:     "{company} invites you to a text interview for {role}. Reply YES to start, HELP for help, STOP to opt out. Msg&data rates may apply.",
	TextConsentDeclined:    "{company}: OK, we won't start the interview. Reply YES if you change your mind, or use the link in your invitation.",
	TextHelp:               "{company} interviews by text. Questions? Contact {contact}. Reply STOP to opt out. Msg&data rates may apply.",
	TextOptOutConfirmation: "{company}: you're unsubscribed and will get no more messages from us. Reply START to resubscribe.",
	TextOptInConfirmation:  "{company}: you're subscribed again. Reply HELP for help, STOP to opt out.",
	TextUnknownNumber:      "This number only sends interview messages and has no open interview for you. Reply STOP to opt out.",
	TextSessionClosed:      "{company}: this interview has ended, so your message was not recorded. Thank you for your time.",
	TextChooseNumber:       "Reply with a number from 1 to {n}.",
}

// Vars are the values of a text's placeholders.
type Vars struct {
	Company string
	Role    string
	Contact string
	N       int
}

// Fill returns the text of key with v's values in its placeholders, each value on one line
// and made GSM-7 where it has plain equivalents (SmartEncode). An unknown key gives "".
func Fill(key TextKey, v Vars) string {
	t, ok := Catalogue[key]
	if !ok {
		return ""
	}
	clean := func(s string) string { return SmartEncode(oneLine(s)) }
	return strings.NewReplacer("{company}", clean(v.Company), "{role}", clean(v.Role), "{contact}", clean(v.Contact),
		"{n}", strconv.Itoa(v.N)).Replace(t)
}
