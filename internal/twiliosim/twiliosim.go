// Package twiliosim simulates Twilio's Programmable Messaging for tests, `recruitd dev` and
// `recruitd twiliosim`, in Twilio's own shapes:
//
//   - the Messages API (POST /2010-04-01/Accounts/{AccountSid}/Messages.json with basic auth
//     and the form fields To, From, Body, ContentSid, ContentVariables, StatusCallback; GET of
//     one message), answering 201 with the message resource (sid, status queued, ...) or
//     Twilio's error body ({code, message, more_info, status}); Calls.json is recorded too;
//   - status callbacks to a message's StatusCallback: queued, sent, delivered (or undelivered
//     or failed on request), form-encoded and signed in X-Twilio-Signature with the auth
//     token; duplicated and out of order on request (SetFaults);
//   - WhatsApp's 24-hour window, tracked per thread (our number and the candidate's): a
//     free-form message (Body without ContentSid) outside the window the candidate's last
//     message opened is accepted, then fails with error 63016, as at Twilio; a template
//     (ContentSid) always goes;
//   - a candidate's replies (Reply, the page, POST /sim/reply, `recruitd twiliosim reply`)
//     posted to the inbound URL as Twilio's Messaging webhook, signed the same way; a TwiML
//     <Message> in the answer is sent back as Twilio would.
//
// It keeps everything in memory. It is written from the wire shapes, independently of
// internal/channels, so the adapter's tests check the contract rather than shared code.
package twiliosim

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
)

// Options configure a Server.
type Options struct {
	// AccountSID and AuthToken are the credentials the API accepts; the token also signs the
	// webhooks.
	AccountSID string
	AuthToken  string
	// InboundURL receives the candidates' messages; empty: replies are recorded only.
	InboundURL string
	// StatusStep is the wait before each status callback of a message (default 20ms).
	StatusStep time.Duration
	// Templates gives the text of content templates by ContentSid, with {{1}}, {{2}}...
	// placeholders, to show what a template message said; an unknown ContentSid is shown as
	// its id and variables.
	Templates map[string]string
	// Client posts the webhooks (default: 10 s timeout).
	Client *http.Client
}

// WindowLength is how long a WhatsApp candidate's message keeps the window open.
const WindowLength = 24 * time.Hour

// Twilio error codes the simulator answers with.
const (
	ErrorAuthenticate       = 20003
	ErrorNotFound           = 20404
	ErrorBodyRequired       = 21602
	ErrorFromRequired       = 21603
	ErrorToRequired         = 21604
	ErrorInvalidTo          = 21211
	ErrorInvalidCallback    = 21609
	ErrorBodyTooLong        = 21617
	ErrorInvalidContentSID  = 21655
	ErrorInvalidContentVars = 21656
	ErrorChannelMismatch    = 21910
	ErrorUnreachable        = 30003
	ErrorUnknown            = 30008
	ErrorOutsideWindow      = 63016
)

// Message is a message the simulator carried, either way.
type Message struct {
	SID       string `json:"sid"`
	Direction string `json:"direction"` // "outbound-api", "outbound-reply" (TwiML) or "inbound"
	Channel   string `json:"channel"`   // "sms", "whatsapp" or "phone" (a call)
	// From and To as Twilio shows them: E.164, "whatsapp:" prefixed on WhatsApp.
	From             string    `json:"from"`
	To               string    `json:"to"`
	Body             string    `json:"body"`
	ContentSID       string    `json:"content_sid,omitempty"`
	ContentVariables string    `json:"content_variables,omitempty"`
	Status           string    `json:"status"`
	ErrorCode        int       `json:"error_code,omitempty"`
	StatusCallback   string    `json:"status_callback,omitempty"`
	NumSegments      int       `json:"num_segments"`
	CreatedAt        time.Time `json:"created_at"`
	// An inbound WhatsApp interactive reply.
	ButtonPayload string `json:"button_payload,omitempty"`
	ButtonText    string `json:"button_text,omitempty"`
	ListID        string `json:"list_id,omitempty"`
	ListTitle     string `json:"list_title,omitempty"`
	// WebhookStatus is recruitd's HTTP answer to an inbound message's last webhook (0: none,
	// or no answer).
	WebhookStatus int `json:"webhook_status,omitempty"`

	params url.Values // an inbound message's webhook parameters
}

// Delivery is one webhook the simulator posted.
type Delivery struct {
	Kind       string    `json:"kind"` // "inbound" or "status"
	URL        string    `json:"url"`
	MessageSID string    `json:"message_sid"`
	Status     string    `json:"status,omitempty"` // a status callback's MessageStatus
	ErrorCode  int       `json:"error_code,omitempty"`
	Duplicate  bool      `json:"duplicate,omitempty"`
	Redelivery bool      `json:"redelivery,omitempty"`
	HTTPStatus int       `json:"http_status"` // 0: no answer
	Error      string    `json:"error,omitempty"`
	At         time.Time `json:"at"`
}

// Faults change how later messages' status callbacks go.
type Faults struct {
	// Duplicate posts every status callback twice.
	Duplicate bool `json:"duplicate"`
	// OutOfOrder posts a message's callbacks in reverse order, after its last status.
	OutOfOrder bool `json:"out_of_order"`
	// Fail ends messages "undelivered" (error 30003, after sent) or "failed" (error 30008)
	// instead of delivered; "" delivers.
	Fail string `json:"fail"`
}

// Server is the simulator; safe for concurrent use.
type Server struct {
	opts Options
	hc   *http.Client

	mu         sync.Mutex
	messages   []*Message
	bySID      map[string]*Message
	windows    map[string]time.Time // thread key -> when the candidate's last WhatsApp message came
	deliveries []Delivery
	faults     Faults
	offset     time.Duration
	closed     chan struct{}
	closeOnce  sync.Once
	sending    sync.WaitGroup
}

// New returns a simulator; Close stops its callbacks.
func New(o Options) *Server {
	if o.StatusStep <= 0 {
		o.StatusStep = 20 * time.Millisecond
	}
	s := &Server{opts: o, hc: o.Client, bySID: map[string]*Message{}, windows: map[string]time.Time{}, closed: make(chan struct{})}
	if s.hc == nil {
		s.hc = &http.Client{Timeout: 10 * time.Second}
	}
	return s
}

// Close stops sending callbacks and waits for the senders.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closed) })
	s.sending.Wait()
}

// SetInboundURL sends every later reply to u.
func (s *Server) SetInboundURL(u string) {
	s.mu.Lock()
	s.opts.InboundURL = u
	s.mu.Unlock()
}

// SetFaults applies f to the messages sent from now on.
func (s *Server) SetFaults(f Faults) error {
	if f.Fail != "" && f.Fail != "undelivered" && f.Fail != "failed" {
		return fmt.Errorf("fail %q: want undelivered, failed or empty", f.Fail)
	}
	s.mu.Lock()
	s.faults = f
	s.mu.Unlock()
	return nil
}

// Faults returns the faults in force.
func (s *Server) Faults() Faults {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults
}

// Advance moves the simulator's clock forward by d (WhatsApp windows close as if d had
// passed).
func (s *Server) Advance(d time.Duration) {
	s.mu.Lock()
	s.offset += d
	s.mu.Unlock()
}

// now is the simulator's clock; the caller holds s.mu.
func (s *Server) now() time.Time { return time.Now().Add(s.offset).UTC() }

// Messages returns every message, oldest first; with number set, only those to or from it
// ("+1...", with or without "whatsapp:").
func (s *Server) Messages(number string) []Message {
	number = strings.TrimPrefix(number, "whatsapp:")
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Message{}
	for _, m := range s.messages {
		if number == "" || bare(m.From) == number || bare(m.To) == number {
			out = append(out, *m)
		}
	}
	return out
}

// Message returns the message with sid.
func (s *Server) Message(sid string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.bySID[sid]
	if !ok {
		return Message{}, false
	}
	return *m, true
}

// Deliveries returns every webhook posted so far, in order.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Delivery{}, s.deliveries...)
}

// WindowOpen reports whether a free-form WhatsApp message from our number to the candidate
// would be delivered now.
func (s *Server) WindowOpen(ours, candidate string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.windowOpen(ours, candidate)
}

func (s *Server) windowOpen(ours, candidate string) bool {
	at, ok := s.windows[thread(ours, candidate)]
	return ok && s.now().Sub(at) < WindowLength
}

func thread(ours, candidate string) string { return bare(ours) + "|" + bare(candidate) }

func bare(n string) string { return strings.TrimPrefix(n, "whatsapp:") }

// APIError is an error in Twilio's shape.
type APIError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	// MoreInfo and Status complete Twilio's body.
	MoreInfo string `json:"more_info"`
	Status   int    `json:"status"`
}

func (e *APIError) Error() string { return fmt.Sprintf("twilio error %d: %s", e.Code, e.Message) }

func apiError(status, code int, format string, args ...any) *APIError {
	return &APIError{Code: code, Message: fmt.Sprintf(format, args...), MoreInfo: "https://www.twilio.com/docs/errors/" + strconv.Itoa(code), Status: status}
}

// send validates and records a Messages API request and starts its callbacks.
func (s *Server) send(form url.Values) (Message, *APIError) {
	to, from := strings.TrimSpace(form.Get("To")), strings.TrimSpace(form.Get("From"))
	body, contentSID, vars := form.Get("Body"), form.Get("ContentSid"), form.Get("ContentVariables")
	callback := form.Get("StatusCallback")
	switch {
	case to == "":
		return Message{}, apiError(400, ErrorToRequired, "A 'To' phone number is required.")
	case from == "":
		return Message{}, apiError(400, ErrorFromRequired, "A 'From' phone number is required.")
	case strings.HasPrefix(to, "whatsapp:") != strings.HasPrefix(from, "whatsapp:"):
		return Message{}, apiError(400, ErrorChannelMismatch, "Invalid From and To pair. From and To should be of the same channel")
	case !e164(bare(to)):
		return Message{}, apiError(400, ErrorInvalidTo, "The 'To' number %s is not a valid phone number.", to)
	case body == "" && contentSID == "":
		return Message{}, apiError(400, ErrorBodyRequired, "Message body is required.")
	case len([]rune(body)) > 1600:
		return Message{}, apiError(400, ErrorBodyTooLong, "The concatenated message body exceeds the 1600 character limit.")
	case contentSID != "" && !sid(contentSID, "HX"):
		return Message{}, apiError(400, ErrorInvalidContentSID, "The ContentSid is Invalid.")
	case callback != "" && !httpURL(callback):
		return Message{}, apiError(400, ErrorInvalidCallback, "The StatusCallback URL %s is not a valid URL.", callback)
	}
	var variables map[string]string
	if vars != "" {
		if contentSID == "" || json.Unmarshal([]byte(vars), &variables) != nil {
			return Message{}, apiError(400, ErrorInvalidContentVars, "The ContentVariables Parameter is invalid.")
		}
	}
	channel := "sms"
	if strings.HasPrefix(to, "whatsapp:") {
		channel = "whatsapp"
	}
	if contentSID != "" {
		body = s.render(contentSID, variables)
	}
	s.mu.Lock()
	m := &Message{SID: newSID("SM"), Direction: "outbound-api", Channel: channel, From: from, To: to, Body: body,
		ContentSID: contentSID, ContentVariables: vars, Status: "queued", StatusCallback: callback, NumSegments: segments(body),
		CreatedAt: s.now()}
	statuses := []string{"queued", "sent", "delivered"}
	code := 0
	switch {
	case channel == "whatsapp" && contentSID == "" && !s.windowOpen(from, to):
		statuses, code = []string{"queued", "failed"}, ErrorOutsideWindow
	case s.faults.Fail == "undelivered":
		statuses, code = []string{"queued", "sent", "undelivered"}, ErrorUnreachable
	case s.faults.Fail == "failed":
		statuses, code = []string{"queued", "failed"}, ErrorUnknown
	}
	s.add(m)
	out := *m
	faults := s.faults
	s.mu.Unlock()
	s.progress(m.SID, statuses, code, faults)
	return out, nil
}

// render is a template's text with its variables, or its id and variables when unknown.
func (s *Server) render(contentSID string, vars map[string]string) string {
	if t, ok := s.opts.Templates[contentSID]; ok {
		for k, v := range vars {
			t = strings.ReplaceAll(t, "{{"+k+"}}", v)
		}
		return t
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("[template " + contentSID + "]")
	for _, k := range keys {
		fmt.Fprintf(&b, " {{%s}}=%s", k, vars[k])
	}
	return b.String()
}

// add records m; the caller holds s.mu.
func (s *Server) add(m *Message) {
	s.messages = append(s.messages, m)
	s.bySID[m.SID] = m
}

// call records a Calls API request.
func (s *Server) call(form url.Values) (Message, *APIError) {
	to, from := form.Get("To"), form.Get("From")
	switch {
	case to == "":
		return Message{}, apiError(400, ErrorToRequired, "A 'To' phone number is required.")
	case from == "":
		return Message{}, apiError(400, ErrorFromRequired, "A 'From' phone number is required.")
	case !e164(to):
		return Message{}, apiError(400, ErrorInvalidTo, "The 'To' number %s is not a valid phone number.", to)
	case form.Get("Twiml") == "" && form.Get("Url") == "":
		return Message{}, apiError(400, 21205, "Url or Twiml is required.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &Message{SID: newSID("CA"), Direction: "outbound-api", Channel: "phone", From: from, To: to,
		Body: form.Get("Twiml") + form.Get("Url"), Status: "queued", CreatedAt: s.now()}
	s.add(m)
	return *m, nil
}

// progress moves a message through statuses in the background, posting a callback for each
// when it has a StatusCallback; code is the last status's error code.
func (s *Server) progress(msgSID string, statuses []string, code int, f Faults) {
	s.sending.Add(1)
	go func() {
		defer s.sending.Done()
		type cb struct {
			status string
			code   int
		}
		var pending []cb
		for i, st := range statuses {
			if i > 0 {
				select {
				case <-s.closed:
					return
				case <-time.After(s.opts.StatusStep):
				}
			}
			c := 0
			if i == len(statuses)-1 {
				c = code
			}
			s.mu.Lock()
			m := s.bySID[msgSID]
			m.Status, m.ErrorCode = st, c
			s.mu.Unlock()
			if f.OutOfOrder {
				pending = append([]cb{{st, c}}, pending...)
				continue
			}
			s.statusCallback(msgSID, st, c, f.Duplicate)
		}
		for _, p := range pending {
			s.statusCallback(msgSID, p.status, p.code, f.Duplicate)
		}
	}()
}

// statusCallback posts one status of a message to its StatusCallback (twice when dup).
func (s *Server) statusCallback(msgSID, status string, code int, dup bool) {
	s.mu.Lock()
	m := *s.bySID[msgSID]
	s.mu.Unlock()
	if m.StatusCallback == "" {
		return
	}
	form := url.Values{"MessageSid": {m.SID}, "SmsSid": {m.SID}, "AccountSid": {s.opts.AccountSID}, "From": {m.From}, "To": {m.To},
		"MessageStatus": {status}, "SmsStatus": {status}, "ApiVersion": {"2010-04-01"}}
	if m.Channel == "whatsapp" {
		form.Set("ChannelPrefix", "whatsapp")
	}
	if code != 0 {
		form.Set("ErrorCode", strconv.Itoa(code))
	}
	for i := 0; i < 1+btoi(dup); i++ {
		d := Delivery{Kind: "status", URL: m.StatusCallback, MessageSID: m.SID, Status: status, ErrorCode: code, Duplicate: i > 0}
		s.post(&d, form)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// post sends a signed webhook and records it; it returns the answer's body (bounded).
func (s *Server) post(d *Delivery, form url.Values) []byte {
	s.mu.Lock()
	d.At = s.now()
	s.mu.Unlock()
	var answer []byte
	req, err := http.NewRequest(http.MethodPost, d.URL, strings.NewReader(form.Encode()))
	if err == nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Twilio-Signature", Sign(s.opts.AuthToken, d.URL, form))
		req.Header.Set("User-Agent", "TwilioProxy/1.1")
		var resp *http.Response
		resp, err = s.hc.Do(req)
		if err == nil {
			d.HTTPStatus = resp.StatusCode
			answer, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
	}
	if err != nil {
		d.Error = err.Error()
	}
	s.mu.Lock()
	s.deliveries = append(s.deliveries, *d)
	s.mu.Unlock()
	return answer
}

// Sign is the X-Twilio-Signature of a POST of params to fullURL: base64 of the HMAC-SHA1
// under the auth token of the URL followed by each parameter's name and value, sorted by
// name.
func Sign(authToken, fullURL string, params url.Values) string {
	m := hmac.New(sha1.New, []byte(authToken))
	m.Write([]byte(fullURL))
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		vs := append([]string(nil), params[n]...)
		sort.Strings(vs)
		for _, v := range vs {
			m.Write([]byte(n + v))
		}
	}
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Reply is a message a candidate sends.
type Reply struct {
	// From is the candidate's number, E.164; "whatsapp:+1..." sends on WhatsApp.
	From string `json:"from"`
	// To is our number; empty: the number that last wrote to From (on From's channel, or on
	// any channel when From has no prefix, whose channel the reply then takes).
	To   string `json:"to"`
	Body string `json:"body"`
	// A WhatsApp interactive reply: a button's payload and title, or a list row's id and title.
	ButtonPayload string `json:"button_payload,omitempty"`
	ButtonText    string `json:"button_text,omitempty"`
	ListID        string `json:"list_id,omitempty"`
	ListTitle     string `json:"list_title,omitempty"`
}

// ErrNoThread means a reply named no To and no message was ever sent to its From.
var ErrNoThread = errors.New("no message was sent to this number: give the number to reply to")

// ReplyResult is what became of a reply.
type ReplyResult struct {
	Message  Message  `json:"message"`
	Delivery Delivery `json:"delivery"`
	// Replies are the messages sent back in the webhook's TwiML answer.
	Replies []Message `json:"replies,omitempty"`
}

// Reply records the candidate's message, opens the WhatsApp window, posts it to the inbound
// URL as Twilio's Messaging webhook and sends the TwiML <Message> replies of the answer.
func (s *Server) Reply(r Reply) (ReplyResult, error) {
	from, to := strings.TrimSpace(r.From), strings.TrimSpace(r.To)
	if !e164(bare(from)) {
		return ReplyResult{}, fmt.Errorf("from %q: want an E.164 number, optionally whatsapp: prefixed", r.From)
	}
	if r.Body == "" && r.ButtonPayload == "" && r.ListID == "" {
		return ReplyResult{}, errors.New("the reply has no body")
	}
	if len([]rune(r.Body)) > 1600 {
		return ReplyResult{}, errors.New("the body is over 1600 characters")
	}
	s.mu.Lock()
	if to == "" {
		for i := len(s.messages) - 1; i >= 0; i-- {
			m := s.messages[i]
			if m.Direction != "inbound" && m.Channel != "phone" && bare(m.To) == bare(from) &&
				(!strings.HasPrefix(from, "whatsapp:") || m.Channel == "whatsapp") {
				to = m.From
				if m.Channel == "whatsapp" {
					from = "whatsapp:" + bare(from)
				}
				break
			}
		}
		if to == "" {
			s.mu.Unlock()
			return ReplyResult{}, ErrNoThread
		}
	}
	to = bare(to)
	if strings.HasPrefix(from, "whatsapp:") {
		to = "whatsapp:" + to
	}
	if !e164(bare(to)) && !shortCode(bare(to)) {
		s.mu.Unlock()
		return ReplyResult{}, fmt.Errorf("to %q: want our number, E.164", r.To)
	}
	channel := "sms"
	if strings.HasPrefix(from, "whatsapp:") {
		channel = "whatsapp"
		s.windows[thread(to, from)] = s.now()
	}
	m := &Message{SID: newSID("SM"), Direction: "inbound", Channel: channel, From: from, To: to, Body: r.Body, Status: "received",
		NumSegments: segments(r.Body), CreatedAt: s.now(), ButtonPayload: r.ButtonPayload, ButtonText: r.ButtonText, ListID: r.ListID, ListTitle: r.ListTitle}
	p := url.Values{"MessageSid": {m.SID}, "SmsMessageSid": {m.SID}, "SmsSid": {m.SID}, "AccountSid": {s.opts.AccountSID},
		"From": {from}, "To": {to}, "Body": {r.Body}, "NumMedia": {"0"}, "NumSegments": {strconv.Itoa(m.NumSegments)},
		"SmsStatus": {"received"}, "ApiVersion": {"2010-04-01"}, "ToCountry": {"US"}, "FromCountry": {"US"}}
	if channel == "whatsapp" {
		p.Set("WaId", strings.TrimPrefix(bare(from), "+"))
		p.Set("ProfileName", "Candidate")
		p.Set("MessageType", "text")
		for k, v := range map[string]string{"ButtonPayload": r.ButtonPayload, "ButtonText": r.ButtonText, "ListId": r.ListID, "ListTitle": r.ListTitle} {
			if v != "" {
				p.Set(k, v)
				p.Set("MessageType", "interactive")
			}
		}
	}
	m.params = p
	s.add(m)
	inbound := s.opts.InboundURL
	s.mu.Unlock()
	res := ReplyResult{Message: *m}
	if inbound == "" {
		return res, nil
	}
	res.Delivery = Delivery{Kind: "inbound", URL: inbound, MessageSID: m.SID}
	answer := s.post(&res.Delivery, p)
	s.mu.Lock()
	m.WebhookStatus = res.Delivery.HTTPStatus
	res.Message = *m
	s.mu.Unlock()
	if res.Delivery.HTTPStatus/100 == 2 {
		res.Replies = s.twimlReplies(answer, to, from)
	}
	return res, nil
}

// Redeliver posts an inbound message's webhook again, unchanged but for a fresh signature:
// what Twilio's retry of a webhook it believes lost looks like.
func (s *Server) Redeliver(msgSID string) (Delivery, error) {
	s.mu.Lock()
	m, ok := s.bySID[msgSID]
	inbound := s.opts.InboundURL
	if !ok || m.Direction != "inbound" {
		s.mu.Unlock()
		return Delivery{}, fmt.Errorf("%s: no such inbound message", msgSID)
	}
	p := m.params
	s.mu.Unlock()
	d := Delivery{Kind: "inbound", URL: inbound, MessageSID: msgSID, Redelivery: true}
	if inbound == "" {
		return d, errors.New("no inbound URL is set")
	}
	s.post(&d, p)
	s.mu.Lock()
	m.WebhookStatus = d.HTTPStatus
	s.mu.Unlock()
	return d, nil
}

// twimlReplies sends the <Message> elements of a webhook's TwiML answer from ours to the
// candidate.
func (s *Server) twimlReplies(answer []byte, ours, candidate string) []Message {
	var doc struct {
		Messages []struct {
			Body  string `xml:"Body"`
			Inner string `xml:",chardata"`
		} `xml:"Message"`
	}
	if len(bytes.TrimSpace(answer)) == 0 || xml.Unmarshal(answer, &doc) != nil {
		return nil
	}
	var out []Message
	for _, x := range doc.Messages {
		body := strings.TrimSpace(x.Body + x.Inner)
		if body == "" {
			continue
		}
		channel := "sms"
		if strings.HasPrefix(ours, "whatsapp:") {
			channel = "whatsapp"
		}
		s.mu.Lock()
		m := &Message{SID: newSID("SM"), Direction: "outbound-reply", Channel: channel, From: ours, To: candidate, Body: body,
			Status: "delivered", NumSegments: segments(body), CreatedAt: s.now()}
		s.add(m)
		s.mu.Unlock()
		out = append(out, *m)
	}
	return out
}

func (s *Server) authorized(r *http.Request) bool {
	user, pass, ok := r.BasicAuth()
	return ok && s.opts.AuthToken != "" &&
		subtle.ConstantTimeCompare([]byte(user), []byte(s.opts.AccountSID)) == 1 &&
		subtle.ConstantTimeCompare([]byte(pass), []byte(s.opts.AuthToken)) == 1 &&
		r.PathValue("account") == s.opts.AccountSID
}

func e164(s string) bool {
	if len(s) < 9 || len(s) > 16 || s[0] != '+' || s[1] == '0' {
		return false
	}
	return strings.Trim(s[1:], "0123456789") == ""
}

func shortCode(s string) bool {
	return len(s) >= 3 && len(s) <= 8 && strings.Trim(s, "0123456789") == ""
}

func sid(s, prefix string) bool {
	if len(s) != 34 || !strings.HasPrefix(s, prefix) {
		return false
	}
	_, err := hex.DecodeString(s[2:])
	return err == nil
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func newSID(prefix string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// segments counts a body's SMS segments roughly as Twilio reports num_segments: GSM-7 when
// the text is plain ASCII, else UCS-2.
func segments(body string) int {
	single, part, n := 160, 153, len(body)
	for _, r := range body {
		if r > 0x7e || r < 0x20 && r != '\n' && r != '\r' {
			single, part, n = 70, 67, len(utf16.Encode([]rune(body)))
			break
		}
	}
	switch {
	case n == 0:
		return 1
	case n <= single:
		return 1
	}
	return (n + part - 1) / part
}
