package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/pgtest"
)

// TestCreateJobRoundTrips counts what createJob and the job's generation send to Postgres, a
// figure the machine's load does not change (issue 32: jobs generated at the floor, createJob's
// accept p99 at 100 requests/s): the request authenticates (the key with its company in one
// statement, the key's request limit), writes the job with its start in one statement and marks
// the start taken; the generation reads the job and stores the guide in one transaction of four
// round trips: nine in all. Before, the request cost eight and the generation eleven (then the
// request five, when the key and its company were two statements).
func TestCreateJobRoundTrips(t *testing.T) {
	db := pgtest.New(t)
	pool, count := db.Counted(t)
	f := newFixture(t, withPool(pool))
	// The first request of a key records its use; the measured one comes within the minute after.
	warm := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "warm-up", "jobDescription": description})
	f.awaitGenerated(t, f.acmeKey, warm.Payload)

	count.Start()
	resp := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "J-1", "jobDescription": description,
		"additionalQuestions": []string{"Can you start in May?"}})
	if resp.Payload != "acme-J-1" {
		t.Fatalf("createJob = %+v", resp)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var status string
		if err := db.SQL.QueryRowContext(t.Context(), `SELECT status FROM jobs WHERE company_id = $1 AND external_id = 'J-1'`, f.acme.ID).Scan(&status); err != nil {
			t.Fatal(err)
		}
		if status != "GENERATING" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("J-1 not generated within 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	sqls := count.Stop()
	if len(sqls) > 9 {
		t.Errorf("createJob and the generation sent %d statements, want at most 9:\n%s", len(sqls), strings.Join(sqls, "\n"))
	}
	t.Logf("createJob and its generation: %d statements", len(sqls))
	got := f.awaitGenerated(t, f.acmeKey, resp.Payload)
	if got.Guide == nil || len(got.Guide.Questions) < 2 || got.Guide.Questions[len(got.Guide.Questions)-1].Text != "Can you start in May?" {
		t.Errorf("J-1's guide = %+v", got.Guide)
	}
}
