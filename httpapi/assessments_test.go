package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/outbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// managed creates a job and an ATS application with the external id ext for a candidate with
// the given contacts (either may be empty); it returns the application.
func (f *fixture) managed(t *testing.T, ext, email, phone string) *models.Application {
	t.Helper()
	job, err := f.st.JobByExternalID(t.Context(), f.acme.ID, "J-100")
	if err != nil {
		job = &models.Job{CompanyID: f.acme.ID, ExternalID: "J-100", InterviewerID: f.acme.Slug + "-J-100", Title: "Nurse", ExternalTitle: "Registered Nurse", Description: "d", Status: models.JobStatusActive, IsOpen: true}
		if err := f.st.DB().Create(job).Error; err != nil {
			t.Fatal(err)
		}
	}
	_, app, err := f.st.CreateApplication(t.Context(), f.acme.ID, job.ID, store.CandidateInput{
		FirstName: "Dana", LastName: "Vale", Email: email, Phone: phone, ExternalID: "C-" + ext,
	}, models.ApplicationSourceATS, ext)
	if err != nil {
		t.Fatal(err)
	}
	return app
}

func (f *fixture) push(t *testing.T, key string, body any) (int, string) {
	t.Helper()
	resp := f.send(t, http.MethodPost, "/v2/api/assessment-links", key, body)
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// links returns the application's assessment links, oldest received first.
func (f *fixture) links(t *testing.T, appID uuid.UUID) []models.AssessmentLink {
	t.Helper()
	ls, err := f.st.AssessmentLinks(t.Context(), f.acme.ID, appID)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// sentBodies returns the bodies of the application's sent messages, oldest first, with their
// channels.
func (f *fixture) sentMessages(t *testing.T, appID uuid.UUID) []models.Message {
	t.Helper()
	var ms []models.Message
	if err := f.st.DB().Where("company_id = ? AND application_id = ? AND status = ?", f.acme.ID, appID, models.MessageStatusSent).
		Order("created_at, id").Find(&ms).Error; err != nil {
		t.Fatal(err)
	}
	return ms
}

// awaitSent waits until the application's current link is sent and returns the sent messages.
func (f *fixture) awaitSent(t *testing.T, appID uuid.UUID) (models.AssessmentLink, []models.Message) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, l := range f.links(t, appID) {
			if l.ReplacedAt == nil && l.SentAt != nil {
				return l, f.sentMessages(t, appID)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("current assessment link of %s not sent after 30s: %+v", appID, f.links(t, appID))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tablesHolding lists the tables of the test database with a row whose text holds s.
func (f *fixture) tablesHolding(t *testing.T, s string) []string {
	t.Helper()
	var tables []string
	if err := f.st.DB().Raw("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'").
		Scan(&tables).Error; err != nil || len(tables) < 10 {
		t.Fatalf("tables = %v, %v", tables, err)
	}
	var out []string
	for _, tb := range tables {
		var n int64
		q := fmt.Sprintf(`SELECT count(*) FROM %q AS r WHERE strpos(r::text, ?) > 0`, tb)
		if err := f.st.DB().Raw(q, s).Scan(&n).Error; err != nil {
			t.Fatalf("scan %s: %v", tb, err)
		}
		if n > 0 {
			out = append(out, tb)
		}
	}
	return out
}

func TestAssessmentLinkRejects(t *testing.T) {
	f := newFixture(t)
	app := f.managed(t, "58213", "dana@example.com", "")
	const url = "https://assess.example.com/t/rejtoken"
	tests := []struct {
		name string
		body string
		code string
	}{
		{"empty object", `{}`, "MISSING_REQUIRED_FIELDS"},
		{"no applicationId", `{"assessmentUrl":"` + url + `"}`, "MISSING_REQUIRED_FIELDS"},
		{"blank applicationId", `{"applicationId":"  ","assessmentUrl":"` + url + `"}`, "MISSING_REQUIRED_FIELDS"},
		{"null assessmentUrl", `{"applicationId":"58213","assessmentUrl":null}`, "MISSING_REQUIRED_FIELDS"},
		{"empty assessmentUrl", `{"applicationId":"58213","assessmentUrl":""}`, "MISSING_REQUIRED_FIELDS"},
		{"number applicationId", `{"applicationId":58213,"assessmentUrl":"` + url + `"}`, "INVALID_FIELD"},
		{"object orderId", `{"applicationId":"58213","assessmentUrl":"` + url + `","orderId":{}}`, "INVALID_FIELD"},
		{"long applicationId", `{"applicationId":"` + strings.Repeat("9", 129) + `","assessmentUrl":"` + url + `"}`, "INVALID_FIELD"},
		{"long orderId", `{"applicationId":"58213","assessmentUrl":"` + url + `","orderId":"` + strings.Repeat("o", 129) + `"}`, "INVALID_FIELD"},
		{"control in applicationId", `{"applicationId":"582\u000713","assessmentUrl":"` + url + `"}`, "INVALID_FIELD"},
		{"http", `{"applicationId":"58213","assessmentUrl":"http://assess.example.com/t/rejtoken"}`, "INVALID_FIELD"},
		{"ftp", `{"applicationId":"58213","assessmentUrl":"ftp://assess.example.com/t/rejtoken"}`, "INVALID_FIELD"},
		{"javascript", `{"applicationId":"58213","assessmentUrl":"javascript:alert('rejtoken')"}`, "INVALID_FIELD"},
		{"relative", `{"applicationId":"58213","assessmentUrl":"/t/rejtoken"}`, "INVALID_FIELD"},
		{"no host", `{"applicationId":"58213","assessmentUrl":"https:///t/rejtoken"}`, "INVALID_FIELD"},
		{"opaque", `{"applicationId":"58213","assessmentUrl":"https:assess.example.com/t/rejtoken"}`, "INVALID_FIELD"},
		{"user info", `{"applicationId":"58213","assessmentUrl":"https://user:pw@assess.example.com/t/rejtoken"}`, "INVALID_FIELD"},
		{"user only", `{"applicationId":"58213","assessmentUrl":"https://user@assess.example.com/t/rejtoken"}`, "INVALID_FIELD"},
		{"space", `{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/rej token"}`, "INVALID_FIELD"},
		{"newline", `{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/rejtoken\n"}`, "INVALID_FIELD"},
		{"too long", `{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/rejtoken` + strings.Repeat("a", 2048) + `"}`, "INVALID_FIELD"},
		{"e-mail field", `{"applicationId":"58213","assessmentUrl":"` + url + `","email":"dana@example.com"}`, "UNKNOWN_FIELDS"},
		{"personal data", `{"applicationId":"58213","assessmentUrl":"` + url + `","firstName":"Dana","phone":"+14155550123","score":87,"report":{}}`, "UNKNOWN_FIELDS"},
		{"array", `[{"applicationId":"58213","assessmentUrl":"` + url + `"}]`, "INVALID_JSON"},
		{"not JSON", `applicationId=58213`, "INVALID_JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := f.push(t, f.acmeKey, tt.body)
			if status != http.StatusBadRequest || !strings.Contains(body, `"code":"`+tt.code+`"`) {
				t.Fatalf("push(%s) = %d %s, want 400 %s", tt.name, status, body, tt.code)
			}
			if strings.Contains(body, "dana@example.com") || strings.Contains(body, "4155550123") {
				t.Errorf("push(%s) answer echoes personal data: %s", tt.name, body)
			}
		})
	}
	t.Run("unknown fields are named", func(t *testing.T) {
		_, body := f.push(t, f.acmeKey, `{"applicationId":"58213","assessmentUrl":"`+url+`","email":"x@example.com","lastName":"V"}`)
		if !strings.Contains(body, `\"email\"`) || !strings.Contains(body, `\"lastName\"`) {
			t.Errorf("answer = %s, want it to name email and lastName", body)
		}
	})
	t.Run("401", func(t *testing.T) {
		if status, body := f.push(t, "", `{"applicationId":"58213","assessmentUrl":"`+url+`"}`); status != http.StatusUnauthorized {
			t.Errorf("push without key = %d %s, want 401", status, body)
		}
		if status, body := f.push(t, "rk_"+strings.Repeat("x", 40), `{"applicationId":"58213","assessmentUrl":"`+url+`"}`); status != http.StatusUnauthorized {
			t.Errorf("push with unknown key = %d %s, want 401", status, body)
		}
	})
	t.Run("403 without the scope", func(t *testing.T) {
		k, _ := apikey.Generate()
		if _, err := f.st.CreateAPIKey(t.Context(), f.acme.ID, "jobs only", k, models.ScopeJobs); err != nil {
			t.Fatal(err)
		}
		if status, body := f.push(t, k, `{"applicationId":"58213","assessmentUrl":"`+url+`"}`); status != http.StatusForbidden {
			t.Errorf("push with a jobs-only key = %d %s, want 403", status, body)
		}
	})
	t.Run("415", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, f.srv.URL+"/v2/api/assessment-links", strings.NewReader(`{}`))
		req.Header.Set("X-API-Key", f.acmeKey)
		req.Header.Set("Content-Type", "text/plain")
		resp, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		f.api.Check(t, req, resp)
		if resp.StatusCode != http.StatusUnsupportedMediaType {
			t.Errorf("push as text/plain = %d, want 415", resp.StatusCode)
		}
	})
	if got := f.links(t, app.ID); len(got) != 0 {
		t.Errorf("links after rejected pushes = %+v, want none", got)
	}
	if got := f.tablesHolding(t, "rejtoken"); len(got) != 0 {
		t.Errorf("tables holding a rejected link: %v", got)
	}
}

func TestAssessmentLinkUnmanagedIsHeldMismatchedLeavesNothing(t *testing.T) {
	f := newFixture(t)
	app := f.managed(t, "58213", "dana@example.com", "")
	for _, body := range []string{
		`{"applicationId":"99999","assessmentUrl":"https://assess.example.com/t/unmanagedtok","orderId":"ORD-1"}`,
		`{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/unmanagedtok","candidateId":"C-other","orderId":"ORD-2"}`,
		`{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/unmanagedtok","jobId":"J-other","orderId":"ORD-3"}`,
	} {
		status, resp := f.push(t, f.acmeKey, body)
		if status != http.StatusOK || resp != `{"success":true}` {
			t.Errorf("push(%s) = %d %s, want 200 {\"success\":true}", body, status, resp)
		}
	}
	// Another company's application with the id is not this key's to reach.
	_, otherResp := f.push(t, f.otherKy, `{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/unmanagedtok"}`)
	if otherResp != `{"success":true}` {
		t.Errorf("push with another company's key = %s", otherResp)
	}
	// The unmanaged ids' links are held for 15 minutes in case their application is ingested,
	// where nothing shows them; the mismatched ones are gone.
	if got := f.tablesHolding(t, "unmanagedtok"); len(got) != 1 || got[0] != "assessment_link_holds" {
		t.Errorf("tables holding the pushed links: %v, want assessment_link_holds only", got)
	}
	var held []string
	f.st.DB().Model(&store.AssessmentHold{}).Order("application_ref").Pluck("application_ref", &held)
	if len(held) != 2 || held[0] != "58213" || held[1] != "99999" {
		t.Errorf("held application ids = %v, want globex's 58213 and acme's 99999", held)
	}
	if got := f.links(t, app.ID); len(got) != 0 {
		t.Errorf("links = %+v, want none", got)
	}
	metrics := f.metrics(t)
	for _, want := range []string{`recruitd_assessment_links_total{outcome="held"} 2`, `recruitd_assessment_links_total{outcome="discarded_mismatch"} 2`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// Matching cross-check ids are accepted.
	if status, _ := f.push(t, f.acmeKey, `{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/matchtok","candidateId":"C-58213","jobId":"J-100"}`); status != http.StatusOK {
		t.Fatalf("push with matching ids = %d", status)
	}
	if cur, _ := f.awaitSent(t, app.ID); cur.URL != "https://assess.example.com/t/matchtok" {
		t.Errorf("current link = %s, want the matching push's", cur.URL)
	}
}

func TestAssessmentLinkSamePayloadTwiceSendsOnce(t *testing.T) {
	f := newFixture(t)
	app := f.managed(t, "58213", "dana@example.com", "")
	body := `{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/twicetok?lang=en&x=1","orderId":"ORD-7731"}`
	begin := time.Now()
	if status, resp := f.push(t, f.acmeKey, body); status != http.StatusOK {
		t.Fatalf("push = %d %s", status, resp)
	}
	awaitText(t, f.outbox, "https://assess.example.com/t/twicetok?lang=en&x=1")
	t.Logf("push to outbox: %s", time.Since(begin))
	if status, _ := f.push(t, f.acmeKey, body); status != http.StatusOK {
		t.Fatalf("second push = %d", status)
	}
	cur, msgs := f.awaitSent(t, app.ID)
	time.Sleep(time.Second) // a second message, if any, would go out now
	msgs = f.sentMessages(t, app.ID)
	if len(msgs) != 1 || msgs[0].Channel != models.MessageChannelEmail || !strings.Contains(msgs[0].Body, cur.URL) {
		t.Fatalf("messages = %+v, want one e-mail with the link", msgs)
	}
	if n := strings.Count(f.outbox.String(), "twicetok"); n != 1 {
		t.Errorf("outbox holds the link %d times, want 1", n)
	}
	if ls := f.links(t, app.ID); len(ls) != 1 || ls[0].OrderID == nil || *ls[0].OrderID != "ORD-7731" || *ls[0].MessageID != msgs[0].ID {
		t.Errorf("links = %+v, want one, with its orderId and message", ls)
	}
}

func TestAssessmentLinkNewerReplacesOlder(t *testing.T) {
	f := newFixture(t)
	app := f.managed(t, "58213", "", "+14155550142")
	link := func(s string) string { return "https://assess.example.com/t/" + s }
	push := func(u string) {
		t.Helper()
		if status, body := f.push(t, f.acmeKey, fmt.Sprintf(`{"applicationId":"58213","assessmentUrl":%q}`, u)); status != http.StatusOK {
			t.Fatalf("push(%s) = %d %s", u, status, body)
		}
	}
	// Before the first was sent: no worker runs while both arrive.
	f.worker.Stop()
	push(link("first"))
	push(link("second"))
	f.worker = f.startWorker()
	cur, msgs := f.awaitSent(t, app.ID)
	if cur.URL != link("second") || len(msgs) != 1 || !strings.Contains(msgs[0].Body, link("second")) || msgs[0].Channel != models.MessageChannelSMS {
		t.Fatalf("current = %s, messages = %+v; want one SMS with the second link", cur.URL, msgs)
	}
	ls := f.links(t, app.ID)
	if len(ls) != 2 || ls[0].SentAt != nil || ls[0].ReplacedAt == nil {
		t.Errorf("links = %+v, want the first replaced unsent", ls)
	}
	// After it was sent: one more message, with the new link.
	push(link("third"))
	deadline := time.Now().Add(30 * time.Second)
	for len(f.sentMessages(t, app.ID)) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	msgs = f.sentMessages(t, app.ID)
	if len(msgs) != 2 || !strings.Contains(msgs[1].Body, link("third")) {
		t.Fatalf("messages = %+v, want the second link then the third", msgs)
	}
	if strings.Contains(f.outbox.String(), link("first")) {
		t.Error("the replaced first link was sent")
	}
}

func TestTwentyConcurrentAssessmentLinks(t *testing.T) {
	f := newFixture(t)
	app := f.managed(t, "58213", "dana@example.com", "")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			status, body := f.push(t, f.acmeKey, fmt.Sprintf(`{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/race-%02d","orderId":"ORD-%d"}`, i, i))
			if status != http.StatusOK {
				t.Errorf("push %d = %d %s", i, status, body)
			}
		})
	}
	wg.Wait()
	cur, msgs := f.awaitSent(t, app.ID)
	ls := f.links(t, app.ID)
	if len(ls) != 20 {
		t.Fatalf("links = %d, want 20", len(ls))
	}
	latest := ls[len(ls)-1] // oldest received first
	current := 0
	for _, l := range ls {
		if l.ReplacedAt == nil {
			current++
		}
	}
	if current != 1 || cur.ID != latest.ID {
		t.Errorf("current links = %d, current = %s (received %s), want exactly the last received %s (received %s)",
			current, cur.URL, cur.ReceivedAt, latest.URL, latest.ReceivedAt)
	}
	// Last write wins: the delivery ends on the latest link (a busy machine may send an
	// earlier one first, which the latest replaces).
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if msgs = f.sentMessages(t, app.ID); strings.Contains(msgs[len(msgs)-1].Body, latest.URL) {
			break
		}
	}
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Body, latest.URL) {
		t.Errorf("last message = %q, want it to carry %s", last.Body, latest.URL)
	}
	time.Sleep(500 * time.Millisecond) // nothing more may follow
	if again := f.sentMessages(t, app.ID); len(again) != len(msgs) {
		t.Errorf("%d messages after the latest link's, want none", len(again)-len(msgs))
	}
	t.Logf("20 concurrent pushes: %d messages sent, the last with %s", len(msgs), latest.URL)
}

func TestAssessmentLinkChannels(t *testing.T) {
	f := newFixture(t)
	email := f.managed(t, "A-1", "erin@example.com", "")
	sms := f.managed(t, "A-2", "", "+14155550143")
	// A candidate reachable both ways whose conversation is by SMS gets the link by SMS.
	both := f.managed(t, "A-3", "finn@example.com", "+14155550144")
	if err := f.st.CreateMessage(t.Context(), &models.Message{CompanyID: f.acme.ID, CandidateID: both.CandidateID, Direction: models.MessageDirectionInbound,
		Channel: models.MessageChannelSMS, Status: models.MessageStatusDelivered, ToAddress: "+14155550144", Body: "yes, interested"}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		app  *models.Application
		want models.MessageChannel
		to   string
	}{
		{email, models.MessageChannelEmail, "erin@example.com"},
		{sms, models.MessageChannelSMS, "+14155550143"},
		{both, models.MessageChannelSMS, "+14155550144"},
	} {
		u := "https://assess.example.com/t/ch-" + *tt.app.ExternalID
		if status, _ := f.push(t, f.acmeKey, fmt.Sprintf(`{"applicationId":%q,"assessmentUrl":%q}`, *tt.app.ExternalID, u)); status != http.StatusOK {
			t.Fatalf("push = %d", status)
		}
		_, msgs := f.awaitSent(t, tt.app.ID)
		if len(msgs) != 1 || msgs[0].Channel != tt.want || msgs[0].ToAddress != tt.to || !strings.Contains(msgs[0].Body, u) {
			t.Errorf("messages of %s = %+v, want one %s to %s with the link", *tt.app.ExternalID, msgs, tt.want, tt.to)
		}
	}
	awaitText(t, f.outbox, "── outbox · sms → +14155550143")
	awaitText(t, f.outbox, "── outbox · email → erin@example.com")
}

// TestAssessmentLinkCrashBeforeSignal: the process dies after the commit and before the
// signal-with-start. The reconciler takes the outbox row; an earlier push's late "started" mark
// does not hide the newer push's row.
func TestAssessmentLinkCrashBeforeSignal(t *testing.T) {
	f := newFixture(t)
	app := f.managed(t, "58213", "dana@example.com", "")
	push := func(u string) *store.PushResult {
		res, err := f.st.PushAssessmentLink(t.Context(), store.AssessmentPush{
			CompanyID: f.acme.ID, ApplicationID: app.ID, URL: u, ReceivedAt: time.Now().UTC(),
			Start: kinds.AssessmentLinkStart(f.acme.Slug, f.acme.ID, app.ID),
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := push("https://assess.example.com/t/crash-1")
	second := push("https://assess.example.com/t/crash-2")
	if first.Start.ID == second.Start.ID || first.Start.WorkflowID != second.Start.WorkflowID {
		t.Fatalf("starts %s and %s: want one workflow, a new row id per push", first.Start.ID, second.Start.ID)
	}
	// The first request's late mark touches nothing: its row id is gone.
	if err := f.st.MarkStarted(t.Context(), first.Start.ID); err != nil {
		t.Fatal(err)
	}
	ws, err := f.st.WorkflowStart(t.Context(), f.acme.ID, second.Start.WorkflowID)
	if err != nil || ws.StartedAt != nil || ws.ID != second.Start.ID {
		t.Fatalf("start row = %+v, %v; want the second push's, pending", ws, err)
	}
	l := &outbox.Launcher{Store: f.launcher.Store, Starter: f.launcher.Starter, Log: f.launcher.Log, Grace: time.Millisecond}
	time.Sleep(5 * time.Millisecond)
	if n, err := l.Reconcile(t.Context(), 100); err != nil || n < 1 {
		t.Fatalf("Reconcile() = %d, %v; want the delivery started", n, err)
	}
	cur, msgs := f.awaitSent(t, app.ID)
	if cur.URL != "https://assess.example.com/t/crash-2" || len(msgs) != 1 {
		t.Errorf("current = %s, messages = %d; want the second link sent once", cur.URL, len(msgs))
	}
}

// TestAssessmentLinkWhileTemporalIsDown: a push that arrives before the launcher knows Temporal
// is away is answered 200 and delivered once Temporal is back (the launcher's retry); once it
// knows, a push's link is stored but its delivery not started, so it answers 503 with
// Retry-After, and the provider's retry of the same payload delivers it once.
func TestAssessmentLinkWhileTemporalIsDown(t *testing.T) {
	f := newFixture(t)
	accepted := f.managed(t, "58212", "cleo@example.com", "")
	app := f.managed(t, "58213", "dana@example.com", "")
	g := f.gateTemporal(0)
	g.down.Store(true)
	first := `{"applicationId":"58212","assessmentUrl":"https://assess.example.com/t/firsttok","orderId":"ORD-8"}`
	if status, b := f.push(t, f.acmeKey, first); status != http.StatusOK {
		t.Fatalf("push before the launcher knows Temporal is away = %d %s, want 200", status, b)
	}
	deadline := time.Now().Add(10 * time.Second)
	for f.launcher.Healthy() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	body := `{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/downtok","orderId":"ORD-9"}`
	resp := f.send(t, http.MethodPost, "/v2/api/assessment-links", f.acmeKey, body)
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "TEMPORARILY_UNAVAILABLE") {
		t.Fatalf("push while Temporal is down = %d %s (Retry-After %q), want 503 TEMPORARILY_UNAVAILABLE", resp.StatusCode, b, resp.Header.Get("Retry-After"))
	}
	if ls := f.links(t, app.ID); len(ls) != 1 || !ls[0].Pending() {
		t.Fatalf("links = %+v, want the link stored, waiting", ls)
	}
	g.down.Store(false)
	if _, msgs := f.awaitSent(t, accepted.ID); len(msgs) != 1 {
		t.Errorf("messages of the push answered 200 = %d, want 1", len(msgs))
	}
	if status, b := f.push(t, f.acmeKey, body); status != http.StatusOK {
		t.Fatalf("retry = %d %s", status, b)
	}
	_, msgs := f.awaitSent(t, app.ID)
	if len(msgs) != 1 {
		t.Errorf("messages = %d, want 1", len(msgs))
	}
}

// TestAssessmentLinkBeforeItsApplication: a link pushed before its application is ingested is
// held, seen nowhere but its own table, and delivered once an HR-suite delivery ingests the
// application.
func TestAssessmentLinkBeforeItsApplication(t *testing.T) {
	f := hrsuiteFixture(t)
	status, resp := f.push(t, f.acmeKey, `{"applicationId":"APP-77","assessmentUrl":"https://assess.example.com/t/earlytok","orderId":"ORD-77"}`)
	if status != http.StatusOK || resp != `{"success":true}` {
		t.Fatalf("push = %d %s", status, resp)
	}
	if got := f.tablesHolding(t, "earlytok"); len(got) != 1 || got[0] != "assessment_link_holds" {
		t.Errorf("tables holding the held link: %v, want assessment_link_holds only", got)
	}
	began := time.Now()
	_, d, raw := f.deliver(t, f.acmeKey, []map[string]any{
		row("APP-77", "C-77", "REQ-1", "(201) 555-0177", "Mobile"),
		row("APP-77", "C-77", "REQ-1", "c77@example.com", "Personal Email"),
	})
	if got := f.awaitProcessed(t, d.DeliveryID, began.Add(-time.Second)); got[0] != "accepted" {
		t.Fatalf("delivery %s: outcomes %v", raw, got)
	}
	var app models.Application
	if err := f.st.DB().First(&app, "company_id = ? AND external_id = ? AND source = ?", f.acme.ID, "APP-77", models.ApplicationSourceHRSuiteWebhook).Error; err != nil {
		t.Fatal(err)
	}
	cur, msgs := f.awaitSent(t, app.ID)
	if cur.URL != "https://assess.example.com/t/earlytok" || deref(cur.OrderID) != "ORD-77" {
		t.Errorf("sent link = %s (order %s), want the held one", cur.URL, deref(cur.OrderID))
	}
	carried := 0
	for _, m := range msgs {
		if strings.Contains(m.Body, "https://assess.example.com/t/earlytok") {
			carried++
		}
	}
	if carried != 1 {
		t.Errorf("%d messages carry the link, want 1", carried)
	}
	if got := f.tablesHolding(t, "earlytok"); slices.Contains(got, "assessment_link_holds") {
		t.Errorf("the hold is still there after delivery: %v", got)
	}
	if !strings.Contains(f.metrics(t), `recruitd_assessment_links_total{outcome="held"} 1`) {
		t.Error(`metrics lack recruitd_assessment_links_total{outcome="held"} 1`)
	}
}
