package interviewpage

import (
	"fmt"
	"strings"
)

// Key names one text of the page's catalogue. The templates name theirs as string literals
// ({{.T "start.lead"}}); the Go code names its own through the constants below.
type Key string

// Texts the handlers and the page's Go code name (notices, refusals, titles, progress).
const (
	NoticeIdentityUnavailable Key = "notice.identity_unavailable"
	NoticeFormTampered        Key = "notice.form_tampered"
	NoticeAlreadyAnswered     Key = "notice.already_answered"
	NoticeClosed              Key = "notice.closed"
	NoticeConsentFirst        Key = "notice.consent_first"
	NoticeFormType            Key = "notice.form_type"
	NoticeTooLarge            Key = "notice.too_large"
	NoticeUnreadable          Key = "notice.unreadable"
	NoticeUnavailable         Key = "notice.unavailable"

	ErrorEmpty       Key = "error.empty"
	ErrorTooLong     Key = "error.too_long"
	ErrorInvalidText Key = "error.invalid_text"
	ErrorNotAChoice  Key = "error.not_a_choice"
	ErrorOther       Key = "error.other"

	keyProgress       Key = "progress"
	keyTitle          Key = "title.page"
	keyTitleAnonymous Key = "title.anonymous"
	keyTitleCompany   Key = "title.company"
	keyTitleError     Key = "title.error"
	keyTitleFollowUp  Key = "title.follow_up"
	keyTitleStart     Key = "title.start"
	keyTitleIdentity  Key = "title.identity"
	keyTitleCompleted Key = "title.completed"
	keyTitleDeclined  Key = "title.declined"
	keyTitleExpired   Key = "title.expired"
	keyTitleIncomp    Key = "title.incomplete"
	keyTitleCancelled Key = "title.cancelled"
	keyTitleNotReady  Key = "title.not_ready"
	keyTitleBusy      Key = "title.busy"
	keyTitleFailed    Key = "title.failed"
	keyTitleUnknown   Key = "title.unknown"
)

// catalogue is every candidate-facing text of the page, in English. Placeholders, filled by
// the page: {company} the company's name, {role} the job's title, {minutes} the estimate,
// {questions} the number of questions, {deadline} the deadline (a <time> element the script
// shows in the browser's zone), {n} and {total} the question's place, {max} the longest answer,
// {screen} and {title} parts of the document's title.
var catalogue = map[Key]string{
	"page.skip":             "Skip to content",
	"page.footer":           "Interview by recruitd for {company}.",
	"page.footer_anonymous": "Interview by recruitd for the hiring company.",

	keyProgress:       "Question {n} of {total}",
	keyTitle:          "{screen} | {title}",
	keyTitleAnonymous: "Interview",
	keyTitleCompany:   "{company} interview",
	keyTitleError:     "Error: {screen}",
	keyTitleFollowUp:  "Question {n} of {total}, follow-up",
	keyTitleStart:     "Welcome",
	keyTitleIdentity:  "Identity check",
	keyTitleCompleted: "Complete",
	keyTitleDeclined:  "Declined",
	keyTitleExpired:   "Link expired",
	keyTitleIncomp:    "Not finished in time",
	keyTitleCancelled: "Withdrawn",
	keyTitleNotReady:  "Not ready yet",
	keyTitleBusy:      "Too many requests",
	keyTitleFailed:    "Something went wrong",
	keyTitleUnknown:   "Link not valid",

	"start.lead":            "{company} invites you to a short written interview for this role.",
	"start.length":          "About {minutes} minutes",
	"start.length_detail":   ": {questions} questions, answered in your own words, one at a time.",
	"start.resume":          "Your answers are saved as you send each one: you can stop and come back to this link, on this or another device.",
	"start.resume_until":    "Your answers are saved as you send each one: you can stop and come back to this link until {deadline}, on this or another device.",
	"start.sharing":         "Your answers are shared only with the hiring team at {company}, who decide on next steps.",
	"start.consent_heading": "Automated evaluation",
	"start.consent":         "Your answers will be evaluated with automated tools, including software that scores answers against the job's criteria. The hiring team reviews the results. By starting, you agree to this.",
	"start.monitored":       "To keep interviews fair, the page also notes whether text is pasted into an answer, when you leave the page, and your typing pace. This never stops you from answering.",
	"start.accept":          "Accept and start",
	"start.decline":         "Decline",

	"question.intro_label":    "Introduction",
	"question.follow_up":      "Follow-up question",
	"question.hint":           "Answer in your own words. Examples from your own experience help.",
	"question.label":          "Your answer",
	"question.chars_left":     "{left} characters left",
	"question.draft_restored": "Your unsent answer was restored from this browser.",
	"question.send":           "Send answer",

	"identity.heading":  "Verify your identity",
	"identity.lead":     "{company} asks candidates for {role} to confirm their identity before the questions.",
	"identity.provider": "Our verification provider asks for a photo of an identity document and a selfie; it takes a few minutes.",
	"identity.result":   "The provider tells {company} only whether the check passed. Afterwards you come back here to answer the questions.",
	"identity.start":    "Start the identity check",

	"completed.heading": "Interview complete",
	"completed.sent":    "Your answers were sent to {company}. You can close this page.",

	"declined.heading": "You declined this interview",
	"declined.lead":    "Nothing was recorded except that you declined. If you would like to be considered another way, please contact the hiring team at {company}, who sent you this invitation.",

	"expired.heading": "This interview link has expired",
	"expired.lead":    "The time to take this interview has passed. If you are still interested in the role, please contact the hiring team at {company}.",

	"incomplete.heading": "This interview was not finished in time",
	"incomplete.lead":    "The answers you sent are kept. The time to finish the interview has passed; please contact the hiring team at {company} if you would like to continue.",

	"cancelled.heading": "This interview was withdrawn",
	"cancelled.lead":    "{company} withdrew this interview, so it can no longer be taken, and there is nothing more to do here. If you have questions about your application, please contact the hiring team at {company}, who sent you this invitation.",

	"not_ready.heading": "This interview is not ready yet",
	"not_ready.lead":    "{company} is still preparing the questions for {role}. Please open this link again a little later.",

	"unknown.heading": "This link does not open an interview",
	"unknown.lead":    "Please check that you opened the whole link from your invitation. If it still does not work, contact the company that invited you.",

	"busy.heading": "Too many requests",
	"busy.lead":    "Please wait a few seconds, then reload this page. Your answers so far are saved.",

	"failed.heading": "Something went wrong on our side",
	"failed.lead":    "Your answers so far are saved. Please reload this page in a moment.",

	NoticeIdentityUnavailable: "The identity check could not be started just now. Please try again in a minute.",
	NoticeFormTampered:        "The form was not sent as the page wrote it. Please reload the page and answer again.",
	NoticeAlreadyAnswered:     "This question was already answered, perhaps in another window. Here is the current question.",
	NoticeClosed:              "This interview takes no more answers.",
	NoticeConsentFirst:        "Please read the notice and choose \u201cAccept and start\u201d before answering the questions.",
	NoticeFormType:            "The page sends its forms as application/x-www-form-urlencoded.",
	NoticeTooLarge:            "This answer is far too long. Please go back, shorten it and send it again.",
	NoticeUnreadable:          "The form could not be read. Please reload the page and try again.",
	NoticeUnavailable:         "The interview is briefly unavailable. Your answers so far are saved; please reload this page in a few seconds.",

	ErrorEmpty:       "Please write an answer before sending it.",
	ErrorTooLong:     "This answer is longer than {max} characters. Please shorten it.",
	ErrorInvalidText: "This answer holds characters that are not text. Please type it again.",
	ErrorNotAChoice:  "Please choose one of the answers.",
	ErrorOther:       "This answer could not be taken. Please try again.",
}

// errUnknownKey: a text the catalogue does not have (a test keeps every key used present).
type errUnknownKey Key

func (e errUnknownKey) Error() string {
	return fmt.Sprintf("interview page: no text %q in the catalogue", string(e))
}

// fill returns the text of key with its placeholders replaced by vars' values, each passed
// through esc (the identity for plain text, the HTML escaper for markup); raw values (the
// deadline's element) go in as they are.
func fill(key Key, vars map[string]string, raw map[string]string, esc func(string) string) (string, error) {
	t, ok := catalogue[key]
	if !ok {
		return "", errUnknownKey(key)
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(t, '{')
		j := strings.IndexByte(t[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(esc(t))
			return b.String(), nil
		}
		j += i
		name := t[i+1 : j]
		b.WriteString(esc(t[:i]))
		if v, ok := raw[name]; ok {
			b.WriteString(v)
		} else if v, ok := vars[name]; ok {
			b.WriteString(esc(v))
		} else {
			return "", fmt.Errorf("interview page: text %q has no value for {%s}", string(key), name)
		}
		t = t[j+1:]
	}
}

// htmlText escapes text for an element's content or a quoted attribute's value.
var htmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;").Replace

func plain(s string) string { return s }
