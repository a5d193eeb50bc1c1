package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/models"
)

// Interview measures the candidate page under load, against the local interviewer: --interviews
// simulated candidates (200) take their interviews at once over HTTP at a person's pace
// (--think between screens: the page p99, answer -> next question p50/p99); as many again at
// full speed (completed interviews per second, counted when each session's run has recorded
// its transcript final, as a ratio of the floor); the same two runs by text message (the SMS
// run, smsRun: candidates answering by signed Twilio webhook, inbound webhook -> next question
// handed to the provider); then --expiring sessions (1,000) with a one-minute expiry, timed
// from their deadline to EXPIRED.
func Interview(ctx context.Context, env Env, o Options) error {
	candidates, expiring := o.Interviews, o.Expiring
	if candidates <= 0 {
		candidates = 200
	}
	if expiring <= 0 {
		expiring = 1000
	}
	r, err := startRig(ctx, env, func(r *rig, _ *models.APIKey) error {
		r.cfg.InterviewAddrLimit = 0 // every simulated candidate comes from this machine's address
		r.cfg.TwilioAuthToken = smsAuthToken
		return nil
	})
	if err != nil {
		return err
	}
	defer r.close(ctx)
	out := r.out
	floor := r.floor(ctx, o.Burst, o.Concurrency)

	fmt.Fprintln(out, "a job with a generated interview…")
	if status, body, err := r.post(ctx, "/v1/api/createJob", fmt.Sprintf(`{"externalJobId":"iv-1","jobDescription":%q,"structuredAdditionalQuestions":[{"question":"Do you hold a work permit?","answers":["Yes","No"]}]}`, benchDescription)); err != nil || status != http.StatusOK {
		return fmt.Errorf("createJob: %d %s %v", status, body, err)
	}
	if err := bench.WaitFor(ctx, time.Minute, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		var j models.Job
		err := r.st.DB().WithContext(ctx).First(&j, "company_id = ? AND external_id = ?", r.co.ID, "iv-1").Error
		return j.Status == models.JobStatusActive, err
	}); err != nil {
		return fmt.Errorf("job generation: %w", err)
	}
	think := o.Think
	if think <= 0 {
		think = 5 * time.Second
	}
	var mu sync.Mutex
	var pages, answers bench.Latencies
	record := func(l *bench.Latencies, d time.Duration) { mu.Lock(); *l = append(*l, d); mu.Unlock() }
	c := &pageClient{hc: &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}

	// Latency: the candidates answer at a person's pace (think, jittered, between screens).
	links, err := r.invite(ctx, "bench-iv-1", candidates, o.Concurrency)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "latency: %d candidates take their interviews at once, about %s between screens…\n", candidates, think)
	pacedBegin := time.Now()
	failedPaced := bench.Burst(ctx, candidates, candidates, func(ctx context.Context, i int) error {
		return c.take(ctx, links[i], think, func(d time.Duration) { record(&pages, d) }, func(d time.Duration) { record(&answers, d) })
	})

	// Throughput: as many again, as fast as they can, timed until each run has recorded its
	// transcript final (the report and the integrity checks made).
	var done0 int64
	if err := r.st.DB().WithContext(ctx).Table("interview_events").
		Where("company_id = ? AND kind = ?", r.co.ID, models.EventTranscriptFinal).Count(&done0).Error; err != nil {
		return err
	}
	if links, err = r.invite(ctx, "bench-iv-1", candidates, o.Concurrency); err != nil {
		return err
	}
	// The invitations' own runs (their messages) finish before the clock starts: this phase
	// times the interviews.
	if err := bench.WaitFor(ctx, 5*time.Minute, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		var sent int64
		err := r.st.DB().WithContext(ctx).Model(&models.Message{}).
			Where("company_id = ? AND direction = ? AND status IN ?", r.co.ID, models.MessageDirectionOutbound,
				[]models.MessageStatus{models.MessageStatusSent, models.MessageStatusDelivered}).Count(&sent).Error
		return sent >= int64(2*candidates), err
	}); err != nil {
		return fmt.Errorf("invitations sent: %w", err)
	}
	fmt.Fprintf(out, "throughput: %d candidates at once, no pause, timed until every run recorded its transcript final…\n", candidates)
	r.statementsReset(ctx)
	cpu := bench.SampleCPU()
	begin := time.Now()
	failed := bench.Burst(ctx, candidates, candidates, func(ctx context.Context, i int) error {
		return c.take(ctx, links[i], 0, func(time.Duration) {}, func(time.Duration) {})
	})
	taken := time.Since(begin) // every candidate's last request answered
	var done int64
	if err := bench.WaitFor(ctx, 5*time.Minute, 20*time.Millisecond, func(ctx context.Context) (bool, error) {
		err := r.st.DB().WithContext(ctx).Table("interview_events").
			Where("company_id = ? AND kind = ?", r.co.ID, models.EventTranscriptFinal).Count(&done).Error
		return done-done0 >= int64(candidates-failed), err
	}); err != nil {
		return fmt.Errorf("interviews completed: %d of %d: %w", done-done0, candidates-failed, err)
	}
	done -= done0
	elapsed := time.Since(begin)
	web, err := completionToFinal(ctx, r, begin)
	if err != nil {
		return err
	}
	webCPU := bench.SampleCPU().Sub(cpu)
	r.statementsDump(ctx, "interview-web", done)
	perSec := float64(done) / elapsed.Seconds()

	// Each session's report: from its completion to the report stored, at a person's pace (the
	// latency phase, the target's) and at full speed (a saturated machine's queueing included).
	toReport := func(from, until time.Time) (bench.Latencies, int, error) {
		var rows []struct{ CompletedAt, ReportedAt time.Time }
		err := r.st.DB().WithContext(ctx).Raw(`
SELECT s.completed_at, r.created_at AS reported_at FROM interview_sessions s
JOIN interview_reports r ON r.company_id = s.company_id AND r.session_id = s.id
WHERE s.company_id = ? AND s.completed_at >= ? AND s.completed_at < ?`, r.co.ID, from, until).Scan(&rows).Error
		var l bench.Latencies
		for _, row := range rows {
			l = append(l, row.ReportedAt.Sub(row.CompletedAt))
		}
		return l, len(rows), err
	}
	pacedReport, _, err := toReport(pacedBegin, begin)
	if err != nil {
		return err
	}
	fullReport, nReports, err := toReport(begin, time.Now().Add(time.Hour))
	if err != nil {
		return err
	}
	reportRows := make([]struct{}, nReports)
	reportsPerSec := float64(len(reportRows)) / elapsed.Seconds()

	// The web run's figures now, so that a failure of the runs after it loses nothing.
	fmt.Fprintf(out, "  web: interviews completed %.1f /s (%d, %d failed), ratio %.2f of the floor (%.1f /s); answer -> next question p50 %s, p99 %s; %d requests answered 503\n",
		perSec, done, failed, perSec/floor, floor, answers.Percentile(50).Round(100*time.Microsecond), answers.Percentile(99).Round(100*time.Microsecond), c.unavailable.Load())

	sms, err := r.smsRun(ctx, "bench-iv-1", candidates, o.Concurrency, think)
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "%d sessions with a one-minute expiry…\n", expiring)
	if err := r.st.DB().WithContext(ctx).Model(&models.Company{}).Where("id = ?", r.co.ID).
		Updates(map[string]any{"interview_expiry_seconds": 60, "interview_reminders_enabled": false}).Error; err != nil {
		return err
	}
	if _, err := r.invite(ctx, "bench-iv-1", expiring, o.Concurrency); err != nil {
		return err
	}
	var late bench.Latencies
	var expired int64
	if err := bench.WaitFor(ctx, 5*time.Minute, 200*time.Millisecond, func(ctx context.Context) (bool, error) {
		err := r.st.DB().WithContext(ctx).Model(&models.InterviewSession{}).
			Where("company_id = ? AND status = ?", r.co.ID, models.SessionStatusExpired).Count(&expired).Error
		return expired >= int64(expiring), err
	}); err != nil {
		return fmt.Errorf("sessions expired: %d of %d: %w", expired, expiring, err)
	}
	var ends []struct{ ExpiresAt, EndedAt time.Time }
	if err := r.st.DB().WithContext(ctx).Model(&models.InterviewSession{}).Select("expires_at, ended_at").
		Where("company_id = ? AND status = ?", r.co.ID, models.SessionStatusExpired).Scan(&ends).Error; err != nil {
		return err
	}
	for _, e := range ends {
		late = append(late, e.EndedAt.Sub(e.ExpiresAt))
	}
	worst := late.Percentile(100)

	ratio := perSec / floor
	p99, a50, a99 := pages.Percentile(99), answers.Percentile(50), answers.Percentile(99)
	fmt.Fprintf(out, "\nscenario interview\n")
	fmt.Fprintf(out, "  page (GET) latency, %d candidates at once, %s pauses:   p50 %s, p99 %s (%d pages, %d candidates failed)\n",
		candidates, think, pages.Percentile(50).Round(100*time.Microsecond), p99.Round(100*time.Microsecond), len(pages), failedPaced)
	fmt.Fprintf(out, "  answer -> next question (POST + GET):      p50 %s, p99 %s (%d answers)   target p99 < 50ms: %s\n",
		a50.Round(100*time.Microsecond), a99.Round(100*time.Microsecond), len(answers), verdict(a99 < 50*time.Millisecond))
	fmt.Fprintf(out, "  floor (one-activity workflow):             %.1f workflows/s\n", floor)
	fmt.Fprintf(out, "  interviews completed (transcript final):   %.1f /s (%d, %d failed)\n", perSec, done, failed)
	fmt.Fprintf(out, "  ratio interviews/floor:                    %.2f   %s\n", ratio, ratioTarget(ratio))
	r.cpuLines("web interviews", webCPU, "interview", done)
	fmt.Fprintf(out, "  web phase: candidates' requests done at %s of %s; completion -> transcript final p50 %s, p99 %s, max %s\n",
		taken.Round(100*time.Millisecond), elapsed.Round(100*time.Millisecond), web.toFinal.Percentile(50).Round(time.Millisecond),
		web.toFinal.Percentile(99).Round(time.Millisecond), web.toFinal.Percentile(100).Round(time.Millisecond))
	fmt.Fprintf(out, "  web phase: the slowest session's events from its completion: %s\n", web.slowest)
	fmt.Fprintf(out, "  completion -> report stored, %s pauses:    p50 %s, p95 %s (%d reports)   target p95 < 2s: %s\n",
		think, pacedReport.Percentile(50).Round(time.Millisecond), pacedReport.Percentile(95).Round(time.Millisecond), len(pacedReport), verdict(pacedReport.Percentile(95) < 2*time.Second))
	fmt.Fprintf(out, "  completion -> report stored, full speed:   p50 %s, p95 %s (%d reports; the machine saturated on purpose)\n",
		fullReport.Percentile(50).Round(time.Millisecond), fullReport.Percentile(95).Round(time.Millisecond), len(fullReport))
	fmt.Fprintf(out, "  reports stored:                            %.1f /s, ratio reports/floor %.2f   %s\n",
		reportsPerSec, reportsPerSec/floor, ratioTarget(reportsPerSec/floor))
	smsRatio := sms.perSec / floor
	fmt.Fprintf(out, "  SMS: inbound webhook -> next question handed to the provider, %s pauses:   p50 %s, p99 %s (%d texts, %d candidates failed)   target p99 < %s: %s\n",
		think, sms.paced.Percentile(50).Round(100*time.Microsecond), sms.paced.Percentile(99).Round(100*time.Microsecond), len(sms.paced), sms.failedPaced,
		smsTurnP99Target, verdict(sms.paced.Percentile(99) < smsTurnP99Target && sms.failedPaced == 0))
	fmt.Fprintf(out, "  SMS: inbound webhook -> next question, full speed:   p50 %s, p99 %s (%d texts; the machine saturated on purpose)\n",
		sms.full.Percentile(50).Round(100*time.Microsecond), sms.full.Percentile(99).Round(100*time.Microsecond), len(sms.full))
	fmt.Fprintf(out, "  SMS interviews completed (transcript final): %.1f /s (%d, %d failed)\n", sms.perSec, sms.completed, sms.failed)
	fmt.Fprintf(out, "  SMS phase: candidates' texts done at %s of %s; completion -> transcript final p50 %s, p99 %s, max %s\n",
		sms.textsDone.Round(100*time.Millisecond), sms.elapsed.Round(100*time.Millisecond), sms.final.toFinal.Percentile(50).Round(time.Millisecond),
		sms.final.toFinal.Percentile(99).Round(time.Millisecond), sms.final.toFinal.Percentile(100).Round(time.Millisecond))
	fmt.Fprintf(out, "  SMS phase: the slowest session's events from its completion: %s\n", sms.final.slowest)
	fmt.Fprintf(out, "  ratio SMS interviews/floor:                %.2f   %s\n", smsRatio, ratioTarget(smsRatio))
	fmt.Fprintf(out, "  SMS interviews %s\n", sms.cpu.PerUnit("interview", sms.completed))
	fmt.Fprintf(out, "  requests answered 503 (load-independent):  %d of the page, %d of the SMS webhook   target 0: %s\n",
		c.unavailable.Load(), sms.unavailable, verdict(c.unavailable.Load() == 0 && sms.unavailable == 0))
	fmt.Fprintf(out, "  expiry: %d sessions EXPIRED, deadline -> EXPIRED p50 %s, p99 %s, max %s   target max < 10s: %s\n",
		len(late), late.Percentile(50).Round(time.Millisecond), late.Percentile(99).Round(time.Millisecond), worst.Round(time.Millisecond),
		verdict(worst < 10*time.Second && len(late) == expiring))
	r.historyCounts(ctx, kinds.Ping.Workflow, kinds.Invite.Workflow, kinds.Interview.Workflow)
	return nil
}

// invite invites n new candidates to the interviewer and returns their interview links,
// rewritten to the bench's api (APP_URL may name another host).
func (r *rig) invite(ctx context.Context, interviewerID string, n, concurrency int) ([]string, error) {
	links := make([]string, n)
	stamp := time.Now().UnixNano()
	fmt.Fprintf(r.out, "  inviting %d candidates…\n", n)
	failed := bench.Burst(ctx, n, concurrency, func(ctx context.Context, i int) error {
		status, body, err := r.postSetup(ctx, "/v1/api/inviteCandidate", fmt.Sprintf(
			`{"interviewerId":%q,"candidate":{"firstName":"Bench","email":"iv-%d-%d@example.com"}}`, interviewerID, stamp, i))
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("inviteCandidate: %d %s", status, body)
		}
		var resp struct{ InterviewLink string }
		if err := json.Unmarshal(body, &resp); err != nil {
			return err
		}
		u, err := url.Parse(resp.InterviewLink)
		if err != nil {
			return err
		}
		links[i] = r.base + u.Path
		return nil
	})
	if failed > 0 {
		return nil, fmt.Errorf("%d of %d invitations failed", failed, n)
	}
	return links, nil
}

// pageClient is a candidate without a browser: GETs and form POSTs, redirects read by hand.
// unavailable counts the requests answered 503 (a statement or the pool past its timeout).
type pageClient struct {
	hc          *http.Client
	unavailable atomic.Int64
}

var (
	benchTurnRE   = regexp.MustCompile(`name="turn" value="(\d+)"`)
	benchChoiceRE = regexp.MustCompile(`type="radio" name="answer" id="choice-\d+" value="([^"]*)"`)
)

// benchAnswer needs no follow-up from the local interviewer: long, with an example.
const benchAnswer = "For example, last year I led the migration of our billing service to Go and PostgreSQL; " +
	"I designed the schema, wrote the backfill and cut the p99 latency by forty percent for our customers."

// take answers every question of the interview at link, pausing about think (jittered by a
// half either way) before each answer as a person reads and writes; page and answer receive
// the latency of each GET and of each answer (its POST and the GET of the next screen).
func (c *pageClient) take(ctx context.Context, link string, think time.Duration, page, answer func(time.Duration)) error {
	begin := time.Now()
	body, err := c.do(ctx, http.MethodGet, link, "")
	if err != nil {
		return err
	}
	page(time.Since(begin))
	if _, err := c.do(ctx, http.MethodPost, link+"/consent", ""); err != nil {
		return err
	}
	if body, err = c.do(ctx, http.MethodGet, link, ""); err != nil {
		return err
	}
	for range 60 {
		if strings.Contains(body, "Interview complete") {
			return nil
		}
		m := benchTurnRE.FindStringSubmatch(body)
		if m == nil {
			return fmt.Errorf("no question on the page")
		}
		a := benchAnswer
		if ch := benchChoiceRE.FindStringSubmatch(body); ch != nil {
			a = html.UnescapeString(ch[1])
		}
		if think > 0 {
			select {
			case <-time.After(think/2 + time.Duration(rand.Int64N(int64(think)))):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		begin := time.Now()
		if _, err := c.do(ctx, http.MethodPost, link+"/answer", url.Values{"turn": {m[1]}, "answer": {a}}.Encode()); err != nil {
			return err
		}
		got := time.Now()
		if body, err = c.do(ctx, http.MethodGet, link, ""); err != nil {
			return err
		}
		answer(time.Since(begin))
		page(time.Since(got))
	}
	return fmt.Errorf("interview not complete after 60 answers")
}

// do sends one request; a form POST must be answered 303, a GET 200.
func (c *pageClient) do(ctx context.Context, method, u, form string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, strings.NewReader(form))
	if err != nil {
		return "", err
	}
	want := http.StatusOK
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		want = http.StatusSeeOther
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode == http.StatusServiceUnavailable {
		c.unavailable.Add(1)
	}
	if resp.StatusCode != want {
		return "", fmt.Errorf("%s %s: %d", method, req.URL.Path[:min(len(req.URL.Path), 12)], resp.StatusCode)
	}
	return string(b), nil
}

// finals is a throughput phase's time from each session's completion to its run's record that
// the transcript is final (where the phase's time goes once the candidates are done), and the
// events of the slowest session, each kind with its time from the completion (kinds and times
// only), so that a straggler that holds the phase says where it waited.
type finals struct {
	toFinal bench.Latencies
	slowest string
}

// completionToFinal is the finals of the sessions completed since begin.
func completionToFinal(ctx context.Context, r *rig, begin time.Time) (finals, error) {
	var f finals
	var rows []struct {
		ID                   uuid.UUID
		CompletedAt, FinalAt time.Time
	}
	db := r.st.DB().WithContext(ctx)
	if err := db.Raw(`
SELECT s.id, s.completed_at, min(e.at) AS final_at FROM interview_sessions s
JOIN interview_events e ON e.company_id = s.company_id AND e.session_id = s.id AND e.kind = ?
WHERE s.company_id = ? AND s.status = ? AND s.completed_at >= ? GROUP BY s.id, s.completed_at`, models.EventTranscriptFinal, r.co.ID, models.SessionStatusCompleted, begin).Scan(&rows).Error; err != nil {
		return f, err
	}
	slowest := -1
	for i, row := range rows {
		f.toFinal = append(f.toFinal, row.FinalAt.Sub(row.CompletedAt))
		if slowest < 0 || f.toFinal[i] > f.toFinal[slowest] {
			slowest = i
		}
	}
	if slowest < 0 {
		return f, nil
	}
	var events []struct {
		Kind string
		At   time.Time
	}
	if err := db.Raw(`SELECT kind, at FROM interview_events WHERE company_id = ? AND session_id = ? ORDER BY at, id`,
		r.co.ID, rows[slowest].ID).Scan(&events).Error; err != nil {
		return f, err
	}
	parts := make([]string, 0, len(events))
	for _, e := range events {
		parts = append(parts, fmt.Sprintf("%s %+.1fs", e.Kind, e.At.Sub(rows[slowest].CompletedAt).Seconds()))
	}
	f.slowest = strings.Join(parts, ", ")
	return f, nil
}
