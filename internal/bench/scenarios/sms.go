package scenarios

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/twiliosim"
	"github.com/recruitd/recruitd/models"
)

// The bench's Twilio account: the webhook's signatures are made with smsAuthToken, which the
// rig's TWILIO_AUTH_TOKEN is set to; smsOurNumber is the number the candidates text.
const (
	smsAuthToken  = "bench-twilio-token"
	smsAccountSID = "AC00000000000000000000000000000b01"
	smsOurNumber  = "+15005550006"
	smsWebhook    = "/webhook/twilio/messages"
)

// smsClient is a candidate's phone without Twilio: each text is the signed webhook Twilio would
// POST, and the TwiML answer is what Twilio would send back in the thread.
type smsClient struct {
	hc       *http.Client
	endpoint string // where the webhook is POSTed
	signed   string // the public URL the signature covers (PUBLIC_BASE_URL + path)
	seq      atomic.Int64
	// unavailable counts the webhooks answered 503 (a statement or the pool past its timeout).
	unavailable atomic.Int64
}

// say texts body from the number and returns the texts the answer hands to the provider and how
// long the webhook took.
func (c *smsClient) say(ctx context.Context, from, body string) (string, time.Duration, error) {
	form := url.Values{
		"MessageSid": {fmt.Sprintf("SM%032x", c.seq.Add(1))}, "AccountSid": {smsAccountSID},
		"From": {from}, "To": {smsOurNumber}, "Body": {body}, "NumMedia": {"0"}, "SmsStatus": {"received"},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Twilio-Signature", twiliosim.Sign(smsAuthToken, c.signed, form))
	begin := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return "", 0, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(begin)
	if err != nil {
		return "", 0, err
	}
	if resp.StatusCode == http.StatusServiceUnavailable {
		c.unavailable.Add(1)
	}
	if resp.StatusCode != http.StatusOK {
		return "", 0, fmt.Errorf("webhook: %d %.80s", resp.StatusCode, b)
	}
	var twiml struct {
		Messages []string `xml:"Message"`
	}
	if err := xml.Unmarshal(b, &twiml); err != nil {
		return "", 0, fmt.Errorf("webhook answer: %w", err)
	}
	return strings.Join(twiml.Messages, "\n"), took, nil
}

// take answers a text interview from the number: YES, then every question (a numbered choice by
// its number, else benchAnswer), pausing about think (jittered by a half) before each text;
// turn receives each webhook's latency (inbound webhook -> next question handed to Twilio).
func (c *smsClient) take(ctx context.Context, from string, think time.Duration, turn func(time.Duration)) error {
	reply := "YES"
	for range 60 {
		if think > 0 {
			select {
			case <-time.After(think/2 + time.Duration(rand.Int64N(int64(think)))):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		got, took, err := c.say(ctx, from, reply)
		if err != nil {
			return err
		}
		turn(took)
		switch {
		case strings.Contains(got, "Thank") && !strings.Contains(got, "?"):
			return nil // the closing message
		case strings.Contains(got, "Sorry") || got == "":
			return fmt.Errorf("the thread answered %q to %q", got, reply)
		case strings.Contains(got, "\n1. "):
			reply = "1"
		default:
			reply = benchAnswer
		}
	}
	return fmt.Errorf("text interview not complete after 60 texts")
}

// smsResult is the SMS run's figures.
type smsResult struct {
	paced, full         bench.Latencies // webhook latencies at a person's pace and at full speed
	failedPaced, failed int
	unavailable         int64 // webhooks answered 503
	completed           int64
	perSec              float64
	cpu                 bench.CPU     // used by the full-speed run, by process
	textsDone, elapsed  time.Duration // the full-speed run: its candidates' last texts answered, and every run final
	final               finals        // the full-speed run's completion -> transcript final
}

// smsRun is the interview scenario's SMS run (issue 31): candidates invited by SMS to SMS
// interviews answer by webhook, all at once, first at a person's pace (think between texts:
// the webhook's latency), then as many again at full speed, timed until each run recorded its
// transcript final.
func (r *rig) smsRun(ctx context.Context, interviewerID string, candidates, concurrency int, think time.Duration) (smsResult, error) {
	var res smsResult
	c := &smsClient{
		hc:       &http.Client{Timeout: 30 * time.Second},
		endpoint: r.base + smsWebhook,
		signed:   strings.TrimRight(r.cfg.PublicBaseURL, "/") + smsWebhook,
	}
	var mu sync.Mutex
	record := func(l *bench.Latencies, d time.Duration) { mu.Lock(); *l = append(*l, d); mu.Unlock() }

	phones, err := r.inviteBySMS(ctx, interviewerID, 0, candidates, concurrency)
	if err != nil {
		return res, err
	}
	fmt.Fprintf(r.out, "sms latency: %d candidates answer by text at once, about %s between texts…\n", candidates, think)
	res.failedPaced = bench.Burst(ctx, candidates, candidates, func(ctx context.Context, i int) error {
		return c.take(ctx, phones[i], think, func(d time.Duration) { record(&res.paced, d) })
	})

	done0, err := r.transcriptsFinal(ctx)
	if err != nil {
		return res, err
	}
	if phones, err = r.inviteBySMS(ctx, interviewerID, candidates, candidates, concurrency); err != nil {
		return res, err
	}
	fmt.Fprintf(r.out, "sms throughput: %d candidates answer by text at once, no pause, timed until every run recorded its transcript final…\n", candidates)
	r.statementsReset(ctx)
	cpu := bench.SampleCPU()
	begin := time.Now()
	res.failed = bench.Burst(ctx, candidates, candidates, func(ctx context.Context, i int) error {
		return c.take(ctx, phones[i], 0, func(d time.Duration) { record(&res.full, d) })
	})
	res.textsDone = time.Since(begin)
	var done int64
	if err := bench.WaitFor(ctx, 5*time.Minute, 20*time.Millisecond, func(ctx context.Context) (bool, error) {
		n, err := r.transcriptsFinal(ctx)
		done = n - done0
		return done >= int64(candidates-res.failed), err
	}); err != nil {
		return res, fmt.Errorf("text interviews completed: %d of %d: %w", done, candidates-res.failed, err)
	}
	res.elapsed = time.Since(begin)
	res.completed, res.perSec = done, float64(done)/res.elapsed.Seconds()
	res.cpu = bench.SampleCPU().Sub(cpu)
	if res.final, err = completionToFinal(ctx, r, begin); err != nil {
		return res, err
	}
	r.statementsDump(ctx, "interview-sms", done)
	res.unavailable = c.unavailable.Load()
	return res, nil
}

// transcriptsFinal counts the bench company's interviews whose run recorded the transcript final.
func (r *rig) transcriptsFinal(ctx context.Context) (int64, error) {
	var n int64
	err := r.st.DB().WithContext(ctx).Table("interview_events").
		Where("company_id = ? AND kind = ?", r.co.ID, models.EventTranscriptFinal).Count(&n).Error
	return n, err
}

// inviteBySMS invites n new candidates, numbered from first, by SMS to SMS interviews of the
// interviewer, waits until every invitation is sent and returns their numbers.
func (r *rig) inviteBySMS(ctx context.Context, interviewerID string, first, n, concurrency int) ([]string, error) {
	phones := make([]string, n)
	for i := range phones {
		n := first + i
		phones[i] = fmt.Sprintf("+1415%03d%04d", 200+n/10_000, n%10_000) // a valid exchange (2xx)
	}
	fmt.Fprintf(r.out, "  inviting %d candidates by SMS…\n", n)
	var firstErr error
	var once sync.Once
	failed := bench.Burst(ctx, n, concurrency, func(ctx context.Context, i int) (err error) {
		defer func() {
			if err != nil {
				once.Do(func() { firstErr = err })
			}
		}()
		body, _ := json.Marshal(map[string]any{
			"interviewerId": interviewerID, "channels": []string{"sms"}, "mediumType": "SMS",
			"candidate": map[string]any{"firstName": "Bench", "phone": phones[i]},
		})
		status, b, err := r.postSetup(ctx, "/v1/api/inviteCandidate", string(body))
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("inviteCandidate: %d %s", status, b)
		}
		return err
	})
	if failed > 0 {
		return nil, fmt.Errorf("%d of %d SMS invitations failed, the first: %w", failed, n, firstErr)
	}
	err := bench.WaitFor(ctx, 5*time.Minute, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		var sent int64
		err := r.st.DB().WithContext(ctx).Model(&models.Message{}).
			Where("company_id = ? AND direction = ? AND channel = ? AND to_address IN ? AND status IN ?", r.co.ID, models.MessageDirectionOutbound,
				models.MessageChannelSMS, phones, []models.MessageStatus{models.MessageStatusSent, models.MessageStatusDelivered}).Count(&sent).Error
		return sent >= int64(n), err
	})
	if err != nil {
		return nil, fmt.Errorf("SMS invitations sent: %w", err)
	}
	return phones, nil
}
