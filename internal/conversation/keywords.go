package conversation

import (
	"strings"
	"unicode"
)

// Keyword is what a whole message means as a keyword.
type Keyword int

// Keywords. Stop, Start and Help hold in every state of a thread; Yes and No only answer the
// consent request (a "no" to a question is an answer, not a keyword).
const (
	KeywordNone Keyword = iota
	KeywordStop
	KeywordStart
	KeywordHelp
	KeywordYes
	KeywordNo
)

func (k Keyword) String() string {
	return [...]string{"none", "stop", "start", "help", "yes", "no"}[k]
}

// The keywords, as whole messages after normalization (case-folded, punctuation but the
// apostrophe read as space, white space collapsed and trimmed). StopWords are the carriers' opt-out keywords
// (CTIA; the TCPA revocation rules in force since April 2025 add REVOKE and OPTOUT).
var (
	StopWords  = []string{"stop", "stopall", "unsubscribe", "cancel", "end", "quit", "revoke", "optout"}
	StartWords = []string{"start", "unstop"}
	HelpWords  = []string{"help", "info"}
	YesWords   = []string{"yes", "y", "yes please", "yeah", "yep", "yup", "sure", "ok", "okay", "i agree", "agree", "yes i agree", "i consent", "go", "go ahead", "lets go", "let's go", "ready", "yes ready", "i'm ready", "im ready"}
	NoWords    = []string{"no", "n", "no thanks", "no thank you", "nope", "nah", "not now", "not interested", "no thx"}
)

var keywords = func() map[string]Keyword {
	m := map[string]Keyword{}
	for k, words := range map[Keyword][]string{KeywordStop: StopWords, KeywordStart: StartWords, KeywordHelp: HelpWords, KeywordYes: YesWords, KeywordNo: NoWords} {
		for _, w := range words {
			m[w] = k
		}
	}
	return m
}()

// ParseKeyword returns the keyword that the whole of text is, after normalization: "STOP",
// " stop! " and "Stop." are KeywordStop; "stop it now" and "I stopped" are not keywords (see
// IsRefusal for free-text opt-outs).
func ParseKeyword(text string) Keyword {
	return keywords[normalizeKeyword(text)]
}

// OptsOut reports whether text revokes consent to messages: a stop keyword or a free-text
// refusal.
func OptsOut(text string) bool {
	return ParseKeyword(text) == KeywordStop || IsRefusal(text)
}

func normalizeKeyword(s string) string {
	s = strings.NewReplacer("’", "'", "‘", "'").Replace(strings.ToLower(s))
	s = strings.Map(func(r rune) rune {
		if r != '\'' && (unicode.IsPunct(r) || unicode.IsSymbol(r)) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// MaxRefusalWords bounds the messages IsRefusal reads: a refusal is short, and a longer message
// is an answer that may quote one ("my manager told the caller to stop calling me").
const MaxRefusalWords = 20

// IsRefusal reports whether a free-text message asks us to stop messaging: a reasonable means
// of revoking consent, which the TCPA rules honour like STOP. The rules are few and
// deliberately narrow, so that an answer is not taken for an opt-out:
//
//  1. The message has at most MaxRefusalWords words; it is read clause by clause (split at
//     . , ; : ! ? and line breaks), each clause from its start, after leading courtesy words
//     (please, just, kindly, can/could/would/will you, i want/need you to, ...).
//  2. A clause is a refusal when it is:
//     - stop/quit/cease + a contacting verb (texting, messaging, contacting, calling, sending,
//     emailing, bothering, spamming), the rest only an object like "me", "this number",
//     "messages", "anymore": "please stop texting me", "stop sending me messages";
//     - don't/do not/never + a contacting verb (text, message, contact, call, email) + me or
//     this number, the rest as above: "don't text me", "do not contact me again";
//     - remove/take/delete/unsubscribe me (or my number) from/off a list or the like: "remove
//     me from this list", "take me off your list", "unsubscribe me";
//     - "leave me alone", "opt out", "opt me out", "wrong number" ("you have the wrong
//     number"), "no more texts/messages", "i don't want (any more|your) texts/messages";
//     - a stop keyword alone ("Stop, I'm not interested": its first clause is "stop").
//
// So "I stopped working there in 2020", "Don't call me before 9" (a time follows), "I had to
// stop calling customers" (not from the clause's start) and "No, I can't work nights" are not
// refusals.
func IsRefusal(text string) bool {
	words := strings.Fields(text)
	if len(words) == 0 || len(words) > MaxRefusalWords {
		return false
	}
	for _, clause := range clauses(text) {
		if refusalClause(clause) {
			return true
		}
	}
	return false
}

// clauses splits text at clause punctuation and returns each clause's words, lower-cased,
// apostrophes dropped ("don't" is "dont") and other punctuation removed.
func clauses(text string) [][]string {
	text = strings.NewReplacer("’", "'", "‘", "'").Replace(strings.ToLower(text))
	var out [][]string
	for _, part := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(".,;:!?\n()", r) }) {
		var words []string
		for _, w := range strings.Fields(part) {
			w = strings.Map(func(r rune) rune {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					return r
				}
				return -1
			}, w)
			if w != "" {
				words = append(words, w)
			}
		}
		if len(words) > 0 {
			out = append(out, words)
		}
	}
	return out
}

var (
	courtesy = set("please", "pls", "plz", "kindly", "just", "so", "ok", "okay", "now", "hey", "hi", "hello", "seriously", "but",
		"can", "could", "would", "will", "you", "u", "i", "want", "need", "ask", "asking", "to", "and", "then", "sorry", "thanks", "thank")
	stopVerbs    = set("stop", "quit", "cease")
	contacting   = set("texting", "txting", "messaging", "msging", "contacting", "calling", "sending", "emailing", "bothering", "spamming", "harassing", "writing")
	contactVerbs = set("text", "txt", "message", "msg", "contact", "call", "email", "sms", "write", "bother", "spam")
	negations    = set("dont", "never")
	removeVerbs  = set("remove", "take", "delete", "unsubscribe", "drop", "erase")
	objects      = set("me", "us", "this", "that", "my", "number", "phone", "cell", "mobile", "these", "those", "the", "your", "all",
		"any", "more", "anymore", "again", "ever", "messages", "message", "texts", "text", "sms", "emails", "calls", "please", "pls",
		"thanks", "thank", "you", "now", "ok", "of", "with", "stuff", "things", "here", "at", "to", "from", "list", "lists", "mailing",
		"contact", "contacts", "database", "system", "off", "out", "whatsapp", "anything", "else", "immediately", "asap", "right", "away", "sorry")
)

// refusalPhrases are refusals when a clause starts with one (after courtesy words) and
// continues with objects only.
var refusalPhrases = [][]string{
	{"leave", "me", "alone"}, {"opt", "out"}, {"opt", "me", "out"}, {"optout"}, {"stop", "all"},
	{"wrong", "number"}, {"wrong", "person"}, {"have", "the", "wrong", "number"}, {"have", "the", "wrong", "person"},
	{"got", "the", "wrong", "number"}, {"this", "is", "the", "wrong", "number"}, {"this", "is", "a", "wrong", "number"},
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// onlyObjects reports whether every word names what not to send or is a courtesy.
func onlyObjects(ws []string) bool {
	for _, w := range ws {
		if !objects[w] {
			return false
		}
	}
	return true
}

func refusalClause(ws []string) bool {
	if len(ws) == 1 && keywords[ws[0]] == KeywordStop {
		return true
	}
	i := 0
	for i < len(ws) && courtesy[ws[i]] && !stopVerbs[ws[i]] {
		i++
	}
	ws = ws[i:]
	for _, phrase := range refusalPhrases {
		if len(ws) >= len(phrase) && strings.Join(ws[:len(phrase)], " ") == strings.Join(phrase, " ") {
			return onlyObjects(ws[len(phrase):])
		}
	}
	if len(ws) < 2 {
		return false
	}
	switch {
	case stopVerbs[ws[0]] && contacting[ws[1]]:
		return onlyObjects(ws[2:])
	case ws[0] == "do" && len(ws) >= 4 && ws[1] == "not" && contactVerbs[ws[2]]:
		return targetsMe(ws[3:])
	case negations[ws[0]] && len(ws) >= 3 && contactVerbs[ws[1]]:
		return targetsMe(ws[2:])
	case removeVerbs[ws[0]] && (ws[1] == "me" || ws[1] == "my" || ws[1] == "us"):
		return onlyObjects(ws[2:])
	case ws[0] == "no" && ws[1] == "more" && len(ws) >= 3 && (ws[2] == "texts" || ws[2] == "messages" || ws[2] == "texting" || ws[2] == "messaging" || ws[2] == "sms"):
		return onlyObjects(ws[3:])
	case (ws[0] == "dont" || ws[0] == "do" && len(ws) > 2 && ws[1] == "not") && wantsNoMessages(ws):
		return true
	}
	return false
}

// targetsMe reports whether ws ("me again", "this number") names the recipient and nothing
// else: "don't call me before 9" names a time and is a preference, not a refusal.
func targetsMe(ws []string) bool {
	if len(ws) == 0 || ws[0] != "me" && ws[0] != "us" && ws[0] != "this" && ws[0] != "my" {
		return false
	}
	return onlyObjects(ws[1:])
}

// wantsNoMessages matches "don't want (any more|more|your|these)? texts/messages".
func wantsNoMessages(ws []string) bool {
	j := 1
	if ws[0] == "do" {
		j = 2
	}
	if j >= len(ws) || ws[j] != "want" {
		return false
	}
	rest := ws[j+1:]
	for len(rest) > 0 && (rest[0] == "any" || rest[0] == "more" || rest[0] == "your" || rest[0] == "these" || rest[0] == "to" || rest[0] == "get" || rest[0] == "receive" || rest[0] == "anymore") {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return false
	}
	switch rest[0] {
	case "texts", "messages", "sms", "text", "message", "calls", "emails":
		return onlyObjects(rest[1:])
	}
	return false
}
