package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/recruitd/recruitd/internal/atssim"
	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// callbackClock records when each application's first callback arrived.
type callbackClock struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (c *callbackClock) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var p struct{ ApplicationID string }
	_ = json.NewDecoder(req.Body).Decode(&p)
	now := time.Now()
	c.mu.Lock()
	if _, seen := c.at[p.ApplicationID]; !seen {
		c.at[p.ApplicationID] = now
	}
	c.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (c *callbackClock) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.at)
}

// Partner measures the 202 latency of partner submissions under a steady rate and the time to
// their callbacks, then how fast a burst of submissions settles, against the floor.
func Partner(ctx context.Context, env Env, o Options) error {
	n := int(o.Rate*warmUp.Seconds()+(o.Rate+callbackRate)*o.Duration.Seconds()) + o.Burst + 10 // an ATS record per submission
	records := make([]atssim.Record, n)
	for i := range records {
		records[i] = atssim.Record{ATSType: models.ATSTypeA, ApplicantID: int64(100000 + i), JobID: 5001, CandidateID: int64(200000 + i),
			FirstName: "Bench", LastName: fmt.Sprint(i), Email: fmt.Sprintf("bench%d@example.com", i)}
	}
	creds := atssim.Credentials{RestToken: "bench-token"}
	sim := httptest.NewServer(atssim.New(records, creds).Handler())
	defer sim.Close()
	clock := &callbackClock{at: map[string]time.Time{}}
	recv := httptest.NewServer(clock)
	defer recv.Close()

	r, err := startRig(ctx, env, func(r *rig, key *models.APIKey) error {
		r.cfg.CallbackAllowPrivate, r.cfg.PartnerRateLimit, r.cfg.PartnerRateBurst = true, 10000, 10000
		k, err := r.cfg.EncryptionKeyBytes()
		if err != nil {
			return err
		}
		b, err := secretbox.New(k)
		if err != nil {
			return err
		}
		ats := models.ATSTypeA
		if err := r.st.DB().WithContext(ctx).Model(r.co).Update("ats_type", ats).Error; err != nil {
			return err
		}
		if err := r.st.SetATSCredentials(ctx, r.co.ID, b, map[string]string{"baseUrl": sim.URL, "restToken": creds.RestToken}); err != nil {
			return err
		}
		p := &models.Partner{CompanyID: r.co.ID, Name: "bench", CallbackURL: recv.URL}
		if err := r.st.CreatePartner(ctx, b, p, store.PartnerSecrets{CallbackSecret: "cbs_bench", SigningSecret: "whsec_bench"}); err != nil {
			return err
		}
		if err := r.st.BindAPIKey(ctx, r.co.ID, key.ID, p.ID); err != nil {
			return err
		}
		job := &models.Job{CompanyID: r.co.ID, ExternalID: "5001", InterviewerID: "bench-5001", Title: "Nurse", ExternalTitle: "Nurse", Description: "d", Status: models.JobStatusActive, IsOpen: true}
		if err := r.st.DB().WithContext(ctx).Create(job).Error; err != nil {
			return err
		}
		if err := r.interviewReady(ctx, job); err != nil {
			return err
		}
		def := flow.Defaults()[models.TriggerPartnerApplication]
		raw, _ := json.Marshal(def)
		_, err = r.st.SaveFlowDefinition(ctx, r.co.ID, models.TriggerPartnerApplication, raw, true, flow.Hash(def))
		return err
	})
	if err != nil {
		return err
	}
	defer r.close(ctx)
	out := r.out
	floor := r.floor(ctx, o.Burst, o.Concurrency)

	var mu sync.Mutex
	next := 0
	accepted := map[string]time.Time{}
	submit := func(ctx context.Context) error {
		mu.Lock()
		id := 100000 + next
		next++
		mu.Unlock()
		status, body, err := r.post(ctx, "/v2/api/partner-applications", fmt.Sprintf(`{"atsApplicantId":"%d","atsJobId":"5001"}`, id))
		if err != nil {
			return err
		}
		if status != http.StatusAccepted {
			return fmt.Errorf("submit: %d %s", status, body)
		}
		var resp struct{ ApplicationID string }
		_ = json.Unmarshal(body, &resp)
		mu.Lock()
		accepted[resp.ApplicationID] = time.Now()
		mu.Unlock()
		return nil
	}
	// phase submits at rate for d and waits for every callback: the 202 latencies and the times
	// from 202 to callback received.
	phase := func(rate float64, d time.Duration) (lat bench.Latencies, failed int, toCallback bench.Latencies, err error) {
		mu.Lock()
		clear(accepted)
		mu.Unlock()
		lat, failed = bench.OpenLoop(ctx, rate, d, out, submit)
		mu.Lock()
		ids := make(map[string]time.Time, len(accepted))
		maps.Copy(ids, accepted)
		mu.Unlock()
		if err := bench.WaitFor(ctx, 5*time.Minute, 20*time.Millisecond, func(context.Context) (bool, error) {
			clock.mu.Lock()
			defer clock.mu.Unlock()
			for id := range ids {
				if _, ok := clock.at[id]; !ok {
					return false, nil
				}
			}
			return true, nil
		}); err != nil {
			return nil, 0, nil, fmt.Errorf("callbacks of the %.0f/s phase: %w", rate, err)
		}
		clock.mu.Lock()
		for id, t202 := range ids {
			toCallback = append(toCallback, clock.at[id].Sub(t202))
		}
		clock.mu.Unlock()
		return lat, failed, toCallback, nil
	}
	fmt.Fprintf(out, "warm-up: partner submissions at %.0f/s for %s, not measured…\n", o.Rate, warmUp)
	cold, _, _, err := phase(o.Rate, warmUp)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "202 latency: partner submissions at %.0f/s for %s…\n", o.Rate, o.Duration)
	waits := r.poolWaits()
	lat, failedReq, toCallbackLoaded, err := phase(o.Rate, o.Duration)
	waited := waitsLine(waits, r.poolWaits())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "202 → callback: partner submissions at %.0f/s (a rate the pipeline settles) for %s…\n", callbackRate, o.Duration)
	_, failedPaced, toCallback, err := phase(callbackRate, o.Duration)
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "settlement throughput: %d submissions, %d in flight, timed until every callback arrived…\n", o.Burst, o.Concurrency)
	before := clock.count()
	mu.Lock()
	clear(accepted)
	mu.Unlock()
	r.statementsReset(ctx)
	cpu := bench.SampleCPU()
	begin := time.Now()
	failedBurst := bench.Burst(ctx, o.Burst, o.Concurrency, func(ctx context.Context, _ int) error { return submit(ctx) })
	if err := bench.WaitFor(ctx, 10*time.Minute, 20*time.Millisecond, func(context.Context) (bool, error) {
		return clock.count() >= before+o.Burst-failedBurst, nil
	}); err != nil {
		return fmt.Errorf("burst callbacks: %w", err)
	}
	perSec := float64(o.Burst-failedBurst) / time.Since(begin).Seconds()
	used, settledN := bench.SampleCPU().Sub(cpu), clock.count()-before
	r.statementsDump(ctx, "partner", int64(settledN))
	ratio := perSec / floor
	fmt.Fprintf(out, "\nscenario partner\n")
	fmt.Fprintf(out, "  202 latency at %.0f req/s:          p50 %s, p99 %s (%d submissions, %d failed)   %s\n",
		o.Rate, lat.Percentile(50).Round(100*time.Microsecond), lat.Percentile(99).Round(100*time.Microsecond), len(lat)+failedReq, failedReq, acceptTarget(o.Rate, lat.Percentile(99)))
	fmt.Fprintf(out, "  202 latency in the warm-up:        %s\n", coldLine(cold))
	fmt.Fprintf(out, "  202 → callback received at %.0f/s:  p50 %s, p99 %s (%d callbacks, %d failed to submit)   target p50 < %s: %s\n",
		callbackRate, toCallback.Percentile(50).Round(time.Millisecond), toCallback.Percentile(99).Round(time.Millisecond), len(toCallback), failedPaced, callbackP50Target, verdict(toCallback.Percentile(50) < callbackP50Target))
	fmt.Fprintf(out, "  202 → callback received at %.0f/s: p50 %s, p99 %s (%d callbacks; arrivals above the settle rate queue)   target p50 < %s: %s\n",
		o.Rate, toCallbackLoaded.Percentile(50).Round(time.Millisecond), toCallbackLoaded.Percentile(99).Round(time.Millisecond), len(toCallbackLoaded), callbackP50Target, verdict(toCallbackLoaded.Percentile(50) < callbackP50Target))
	fmt.Fprintf(out, "  pool waits for a connection at %.0f/s: %s\n", o.Rate, waited)
	fmt.Fprintf(out, "  floor (one-activity workflow):    %.1f workflows/s\n", floor)
	fmt.Fprintf(out, "  applications settled:             %.1f/s (%d failed to submit)\n", perSec, failedBurst)
	fmt.Fprintf(out, "  ratio settled/floor:              %.2f   %s\n", ratio, ratioTarget(ratio))
	// Per callback received: a submission whose client gave up may still have been accepted and run.
	r.cpuLines("settlement", used, "application", int64(settledN))
	// A burst is timed to its last callback: one slow straggler (a first attempt that failed
	// and waited for its retry) moves the ratio as much as a slower pipeline.
	var burst bench.Latencies
	mu.Lock()
	clock.mu.Lock()
	for id, t202 := range accepted {
		if at, ok := clock.at[id]; ok {
			burst = append(burst, at.Sub(t202))
		}
	}
	clock.mu.Unlock()
	mu.Unlock()
	fmt.Fprintf(out, "  settlement 202 → callback:        p50 %s, p99 %s, max %s; %s\n", burst.Percentile(50).Round(time.Millisecond),
		burst.Percentile(99).Round(time.Millisecond), burst.Percentile(100).Round(time.Millisecond), r.callbackRetries(ctx))
	r.historyCounts(ctx, kinds.Ping.Workflow, kinds.PartnerApplication.Workflow, kinds.Interview.Workflow)
	return nil
}

// callbackRetries says how many callbacks of the run needed more than one attempt, by what
// their first attempt met (the error class or the status code).
func (r *rig) callbackRetries(ctx context.Context) string {
	rows, err := r.st.SQL().QueryContext(ctx, `SELECT coalesce(error_class, 'HTTP ' || status_code::text, 'none'), count(*)
		FROM callback_attempts a WHERE a.company_id = $1 AND a.number = 1
		AND EXISTS (SELECT 1 FROM callback_attempts b WHERE b.callback_id = a.callback_id AND b.number = 2)
		GROUP BY 1 ORDER BY 2 DESC`, r.co.ID)
	if err != nil {
		return "callbacks retried: not read (" + err.Error() + ")"
	}
	defer rows.Close()
	var parts []string
	total := 0
	for rows.Next() {
		var class string
		var n int
		if err := rows.Scan(&class, &n); err != nil {
			return "callbacks retried: not read (" + err.Error() + ")"
		}
		total += n
		parts = append(parts, fmt.Sprintf("%s %d", class, n))
	}
	if total == 0 {
		return "callbacks retried in the run: 0"
	}
	return fmt.Sprintf("callbacks retried in the run: %d (first attempt: %s)", total, strings.Join(parts, ", "))
}
