package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/models"
)

// Assessment measures the 200 latency of assessment-link pushes under a steady rate, each for
// another managed application, and the time from each push to its message being sent, against
// the floor.
func Assessment(ctx context.Context, env Env, o Options) error {
	n := int(o.Rate*o.Duration.Seconds()) + 10
	r, err := startRig(ctx, env, func(r *rig, _ *models.APIKey) error {
		job := &models.Job{CompanyID: r.co.ID, ExternalID: "5001", InterviewerID: "bench-5001", Title: "Nurse", ExternalTitle: "Nurse", Description: "d", Status: models.JobStatusActive, IsOpen: true}
		db := r.st.DB().WithContext(ctx)
		if err := db.Create(job).Error; err != nil {
			return err
		}
		if err := db.Exec(`INSERT INTO candidates (company_id, first_name, email, external_id)
SELECT ?, 'Bench', 'bench' || i || '@example.com', 'C-' || i FROM generate_series(1, ?) AS i`, r.co.ID, n).Error; err != nil {
			return err
		}
		return db.Exec(`INSERT INTO applications (company_id, candidate_id, job_id, external_id, source)
SELECT company_id, id, ?, 'AD-' || substr(external_id, 3), 'ats' FROM candidates WHERE company_id = ?`, job.ID, r.co.ID).Error
	})
	if err != nil {
		return err
	}
	defer r.close(ctx)
	out := r.out
	floor := r.floor(ctx, o.Burst, o.Concurrency)

	var mu sync.Mutex
	next := 0
	pushed := map[string]time.Time{} // link → when its push was sent
	push := func(ctx context.Context) error {
		mu.Lock()
		next++
		i := next
		mu.Unlock()
		link := fmt.Sprintf("https://assess.example.com/t/bench-%d", i)
		begin := time.Now()
		status, body, err := r.post(ctx, "/v2/api/assessment-links", fmt.Sprintf(`{"applicationId":"AD-%d","assessmentUrl":%q,"orderId":"ORD-%d"}`, i, link, i))
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("push: %d %s", status, body)
		}
		mu.Lock()
		pushed[link] = begin
		mu.Unlock()
		return nil
	}
	_ = push(ctx) // warm-up

	fmt.Fprintf(out, "200 latency: assessment-link pushes at %.0f/s for %s, one per application…\n", o.Rate, o.Duration)
	lat, failedReq := bench.OpenLoop(ctx, o.Rate, o.Duration, out, push)
	mu.Lock()
	want := len(pushed)
	mu.Unlock()
	type sent struct {
		URL    string `gorm:"column:assessment_url"`
		SentAt time.Time
	}
	var rows []sent
	if err := bench.WaitFor(ctx, 5*time.Minute, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		rows = rows[:0]
		err := r.st.DB().WithContext(ctx).Table("assessment_links").Select("assessment_url, sent_at").
			Where("company_id = ? AND sent_at IS NOT NULL", r.co.ID).Scan(&rows).Error
		return len(rows) >= want, err
	}); err != nil {
		return fmt.Errorf("assessment messages: %w", err)
	}
	var toMessage bench.Latencies
	mu.Lock()
	for _, s := range rows {
		if at, ok := pushed[s.URL]; ok {
			toMessage = append(toMessage, s.SentAt.Sub(at))
		}
	}
	mu.Unlock()
	p99 := lat.Percentile(99)
	fmt.Fprintf(out, "\nscenario assessment\n")
	fmt.Fprintf(out, "  200 latency at %.0f req/s:          p50 %s, p99 %s (%d pushes, %d failed)   target p99 < 50ms: %s\n",
		o.Rate, lat.Percentile(50).Round(100*time.Microsecond), p99.Round(100*time.Microsecond), len(lat)+failedReq, failedReq, verdict(p99 < 50*time.Millisecond))
	fmt.Fprintf(out, "  push → message sent:              p50 %s, p99 %s (%d messages)   target p50 < 1s: %s\n",
		toMessage.Percentile(50).Round(time.Millisecond), toMessage.Percentile(99).Round(time.Millisecond), len(toMessage), verdict(toMessage.Percentile(50) < time.Second))
	fmt.Fprintf(out, "  floor (one-activity workflow):    %.1f workflows/s (%.0f ms per workflow)\n", floor, 1000/floor)
	return nil
}
