// Package idvsim simulates a hosted identity-verification provider (government ID plus selfie)
// for tests, `recruitd dev` and `recruitd idvsim`, in Stripe Identity's shape: an API that
// creates VerificationSessions (an id and the URL of a hosted page), the hosted page, where the
// verification is passed or failed with a reason, and Stripe events of the outcome
// (identity.verification_session.verified, or .requires_input with last_error) to one
// configured URL, signed in a Stripe-Signature header and retried with backoff, under the same
// event id, until the receiver answers 2xx.
//
// The hosted page collects no document or photo. Its controls, for people and for a browser
// test: the button #pass ("Pass verification"); the select #reason (a labelled list of common
// failure reasons, or "Other") with the text field #reason-other, and the button #fail ("Fail
// verification"). After a decision the page shows the outcome (role=status) and, when the
// verification was created with a return URL, the link #return back to it.
//
// Controls, from Go or over HTTP under /sim/: list verifications and deliveries, pass or fail a
// verification without the page, and redeliver a verification's last webhook with its
// event id (a retry of a delivery already taken).
//
// It is written from the wire shapes, independently of internal/idverify, so the adapter's tests
// check the contract rather than shared code.
package idvsim

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Statuses of a simulated verification.
const (
	StatusPending  = "pending"
	StatusVerified = "verified"
	StatusFailed   = "failed"
)

// Options configure a Server.
type Options struct {
	// APIKey is the bearer key the API accepts.
	APIKey string
	// WebhookURL receives the outcome webhooks; empty: none are sent.
	WebhookURL string
	// WebhookSecret signs them (the endpoint's signing secret, used as given).
	WebhookSecret string
	// PublicURL is the base of the hosted pages' URLs; empty: http:// and the Host of the
	// create request.
	PublicURL string
	// Attempts is how many times a webhook is posted before the simulator gives up (default 6);
	// RetryBase the first wait between attempts, doubled after each (default 200ms).
	Attempts  int
	RetryBase time.Duration
	// PageLifetime is how long a created verification's page takes a decision
	// (DefaultPageLifetime when zero).
	PageLifetime time.Duration
	// Client posts the webhooks (default: 5 s timeout).
	Client *http.Client
}

// DefaultPageLifetime is how long a hosted page takes a decision unless Options.PageLifetime
// says otherwise (Stripe's session URLs are short-lived too; recruitd keeps its own expiry).
const DefaultPageLifetime = 48 * time.Hour

// Verification is a simulated verification.
type Verification struct {
	ID            string    `json:"id"`
	Reference     string    `json:"reference"`
	Status        string    `json:"status"`
	FailureReason string    `json:"failure_reason,omitempty"`
	URL           string    `json:"url"`
	ReturnURL     string    `json:"return_url,omitempty"`
	ExpiresAt     time.Time `json:"expires_at"`
	CreatedAt     time.Time `json:"created_at"`
	token         string
	lastWebhook   *webhook
}

// Delivery is the record of one webhook and its attempts.
type Delivery struct {
	WebhookID      string `json:"webhook_id"`
	VerificationID string `json:"verification_id"`
	Type           string `json:"type"`
	// Attempts made so far; LastStatus the receiver's last HTTP status (0: no answer).
	Attempts   int  `json:"attempts"`
	LastStatus int  `json:"last_status"`
	Delivered  bool `json:"delivered"`
	// Replay marks a redelivery of an earlier webhook-id.
	Replay bool `json:"replay"`
}

type webhook struct {
	id, verificationID, typ string
	body                    []byte
}

// Server is the simulator; safe for concurrent use.
type Server struct {
	opts Options
	hc   *http.Client

	mu          sync.Mutex
	byID        map[string]*Verification
	byToken     map[string]*Verification
	byReference map[string]*Verification
	deliveries  []*Delivery
	closed      chan struct{}
	closeOnce   sync.Once
	sending     sync.WaitGroup
}

// New returns a simulator; Close stops its webhook senders.
func New(o Options) *Server {
	if o.Attempts <= 0 {
		o.Attempts = 6
	}
	if o.RetryBase <= 0 {
		o.RetryBase = 200 * time.Millisecond
	}
	s := &Server{opts: o, hc: o.Client, byID: map[string]*Verification{}, byToken: map[string]*Verification{},
		byReference: map[string]*Verification{}, closed: make(chan struct{})}
	if s.hc == nil {
		s.hc = &http.Client{Timeout: 5 * time.Second}
	}
	return s
}

// Close stops retrying webhooks and waits for the senders.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closed) })
	s.sending.Wait()
}

// SetWebhookURL sends every later webhook to u.
func (s *Server) SetWebhookURL(u string) {
	s.mu.Lock()
	s.opts.WebhookURL = u
	s.mu.Unlock()
}

// ErrUnknown means no verification has the id or token.
var ErrUnknown = errors.New("no such verification")

// ErrConcluded means the verification was already passed or failed.
var ErrConcluded = errors.New("the verification is already concluded")

// ErrExpired means the verification's page has expired.
var ErrExpired = errors.New("the verification has expired")

// create adds a verification, or returns the one created earlier with the same reference.
func (s *Server) create(reference, returnURL string, expiresAt time.Time, base string) (Verification, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.byReference[reference]; ok {
		return *v, false
	}
	v := &Verification{ID: "vs_" + randomHex(12), Reference: reference, Status: StatusPending, ReturnURL: returnURL,
		ExpiresAt: expiresAt.UTC(), CreatedAt: time.Now().UTC(), token: randomHex(16)}
	if s.opts.PublicURL != "" {
		base = strings.TrimRight(s.opts.PublicURL, "/")
	}
	v.URL = base + "/verify/" + v.token
	s.byID[v.ID], s.byToken[v.token], s.byReference[reference] = v, v, v
	return *v, true
}

// Get returns the verification with the provider id.
func (s *Server) Get(id string) (Verification, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.byID[id]
	if !ok {
		return Verification{}, false
	}
	return *v, true
}

// ByReference returns the verification created for reference.
func (s *Server) ByReference(reference string) (Verification, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.byReference[reference]
	if !ok {
		return Verification{}, false
	}
	return *v, true
}

// Verifications returns every verification, oldest first.
func (s *Server) Verifications() []Verification {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Verification, 0, len(s.byID))
	for _, v := range s.byID {
		out = append(out, *v)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].CreatedAt.Before(out[b].CreatedAt) })
	return out
}

// Deliveries returns a copy of every webhook record, in the order they were queued.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Delivery, len(s.deliveries))
	for i, d := range s.deliveries {
		out[i] = *d
	}
	return out
}

// Pass concludes the verification as verified and sends the webhook.
func (s *Server) Pass(id string) error {
	return s.conclude(func() (*Verification, bool) { v, ok := s.byID[id]; return v, ok }, StatusVerified, "")
}

// Fail concludes the verification as failed with reason and sends the webhook.
func (s *Server) Fail(id, reason string) error {
	return s.conclude(func() (*Verification, bool) { v, ok := s.byID[id]; return v, ok }, StatusFailed, reason)
}

func (s *Server) conclude(find func() (*Verification, bool), status, reason string) error {
	s.mu.Lock()
	v, ok := find()
	switch {
	case !ok:
		s.mu.Unlock()
		return ErrUnknown
	case v.Status != StatusPending:
		s.mu.Unlock()
		return ErrConcluded
	case time.Now().After(v.ExpiresAt):
		s.mu.Unlock()
		return ErrExpired
	}
	v.Status, v.FailureReason = status, reason
	typ := "identity.verification_session.verified"
	if status == StatusFailed {
		typ = "identity.verification_session.requires_input"
	}
	body, _ := json.Marshal(map[string]any{"id": "evt_" + randomHex(12), "object": "event", "api_version": "2025-06-30.basil",
		"created": time.Now().Unix(), "livemode": false, "type": typ, "data": map[string]any{"object": v.session()}})
	var ev struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(body, &ev)
	w := &webhook{id: ev.ID, verificationID: v.ID, typ: typ, body: body}
	v.lastWebhook = w
	d := s.queue(w, false)
	s.mu.Unlock()
	s.send(w, d)
	return nil
}

// Redeliver posts the verification's last webhook again with the same event id, newly signed:
// what a provider's retry of a delivery it believes lost looks like to the receiver.
func (s *Server) Redeliver(id string) error {
	s.mu.Lock()
	v, ok := s.byID[id]
	if !ok || v.lastWebhook == nil {
		s.mu.Unlock()
		return ErrUnknown
	}
	w := v.lastWebhook
	d := s.queue(w, true)
	s.mu.Unlock()
	s.send(w, d)
	return nil
}

// queue records a delivery; the caller holds s.mu.
func (s *Server) queue(w *webhook, replay bool) *Delivery {
	d := &Delivery{WebhookID: w.id, VerificationID: w.verificationID, Type: w.typ, Replay: replay}
	s.deliveries = append(s.deliveries, d)
	return d
}

// send posts w in the background until the receiver takes it, retrying with doubling waits.
func (s *Server) send(w *webhook, d *Delivery) {
	s.sending.Add(1)
	go func() {
		defer s.sending.Done()
		wait := s.opts.RetryBase
		for attempt := 0; attempt < s.opts.Attempts; attempt++ {
			if attempt > 0 {
				select {
				case <-s.closed:
					return
				case <-time.After(wait):
				}
				wait *= 2
			}
			status, done := s.post(w)
			s.mu.Lock()
			d.Attempts, d.LastStatus, d.Delivered = d.Attempts+1, status, done
			s.mu.Unlock()
			if done {
				return
			}
		}
	}()
}

// post sends one attempt; done when the receiver answered 2xx.
func (s *Server) post(w *webhook) (int, bool) {
	s.mu.Lock()
	url, secret := s.opts.WebhookURL, s.opts.WebhookSecret
	s.mu.Unlock()
	if url == "" {
		return 0, true
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(string(w.body)))
	if err != nil {
		return 0, true
	}
	ts := time.Now().Unix()
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Stripe-Signature", Sign(secret, ts, w.body))
	resp, err := s.hc.Do(req)
	if err != nil {
		return 0, false
	}
	resp.Body.Close()
	return resp.StatusCode, resp.StatusCode/100 == 2
}

// Sign is the Stripe-Signature header of body: "t=<ts>,v1=<hex HMAC-SHA256 of "<ts>.<body>"
// under secret>". Tests use it to forge and to sign deliveries themselves.
func Sign(secret string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "%d.", ts)
	m.Write(body)
	return "t=" + strconv.FormatInt(ts, 10) + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// session is v as Stripe's VerificationSession object.
func (v Verification) session() map[string]any {
	status := map[string]string{StatusPending: "requires_input", StatusVerified: "verified", StatusFailed: "requires_input"}[v.Status]
	var lastError any
	if v.Status == StatusFailed {
		lastError = map[string]any{"code": "document_unverified_other", "reason": v.FailureReason}
	}
	return map[string]any{"id": v.ID, "object": "identity.verification_session", "client_reference_id": v.Reference,
		"created": v.CreatedAt.Unix(), "last_error": lastError, "livemode": false, "metadata": map[string]string{"reference": v.Reference},
		"options": map[string]any{"document": map[string]any{"require_matching_selfie": true}}, "status": status, "type": "document",
		"url": v.URL}
}

func (s *Server) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && s.opts.APIKey != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.APIKey)) == 1
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
