package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/models"
)

// send makes an authenticated JSON request over a real connection and checks the response
// against the contract.
func (f *fixture) send(t *testing.T, method, path, key string, body any) *http.Response {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, f.srv.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	f.api.Check(t, req, resp)
	return resp
}

func (f *fixture) createJob(t *testing.T, key string, body map[string]any) httpapi.CreateJobResponse {
	t.Helper()
	resp := f.send(t, http.MethodPost, "/v1/api/createJob", key, body)
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("createJob = %d %s", resp.StatusCode, b)
	}
	return decode[httpapi.CreateJobResponse](t, resp)
}

// awaitGenerated polls the interviewer until generation has finished.
func (f *fixture) awaitGenerated(t *testing.T, key, id string) httpapi.Interviewer {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		got := decode[httpapi.InterviewerResponse](t, f.send(t, http.MethodGet, "/v1/api/interviewers/"+id, key, nil)).Interviewer
		if got.Status != models.JobStatusGenerating {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("interviewer %s still GENERATING after 30s", id)
	return httpapi.Interviewer{}
}

const description = `We are hiring a Senior Backend Engineer to build APIs in Go on PostgreSQL.
Responsibilities:
- Design and build services used by thousands of customers
- Own reliability of what you ship
Requirements:
- 5+ years of backend experience
- Experience with Go, PostgreSQL and Kubernetes`

func TestCreateJobGeneratesAnInterview(t *testing.T) {
	f := newFixture(t)
	resp := f.createJob(t, f.acmeKey, map[string]any{
		"externalJobId": "J-100", "jobDescription": description,
		"additionalQuestions": []string{"Are you able to work from our Berlin office twice a week?"},
		"structuredAdditionalQuestions": []map[string]any{{
			"question": "Do you hold an EU work permit?", "answers": []string{"Yes", "No"},
			"tagName": "work_permit", "tagInstructions": "Tag yes when the candidate holds one",
		}},
	})
	if !resp.Success || resp.Payload != "acme-J-100" {
		t.Fatalf("createJob = %+v, want payload acme-J-100", resp)
	}
	got := f.awaitGenerated(t, f.acmeKey, resp.Payload)
	if got.Status != models.JobStatusActive || got.Generation.State != "COMPLETED" || got.Generation.GeneratedAt == nil {
		t.Fatalf("interviewer = %+v, want ACTIVE and generated", got)
	}
	if got.JobTitle == "" || got.ExternalJobTitle != got.JobTitle {
		t.Errorf("titles = %q / %q, want an inferred title used for both", got.JobTitle, got.ExternalJobTitle)
	}
	g := got.Guide
	if g == nil || len(g.Questions) < 3 || len(g.GradingCriteria) == 0 || g.Intro == "" || g.Outro == "" || len(g.Skills) == 0 || len(g.LearningObjectives) == 0 {
		t.Fatalf("guide = %+v, want a full guide", g)
	}
	last, prev := g.Questions[len(g.Questions)-1], g.Questions[len(g.Questions)-2]
	if prev.Text != "Are you able to work from our Berlin office twice a week?" || prev.Source != "additional" {
		t.Errorf("second to last question = %+v, want the additional question", prev)
	}
	if last.Source != "structured" || last.TagName == nil || *last.TagName != "work_permit" || len(last.Answers) != 2 {
		t.Errorf("last question = %+v, want the structured question verbatim", last)
	}

	list := decode[httpapi.InterviewersResponse](t, f.send(t, http.MethodGet, "/v1/api/interviewers?status=ACTIVE", f.acmeKey, nil))
	if len(list.Interviewers) != 1 || list.Interviewers[0].InterviewerID != "acme-J-100" || list.Interviewers[0].Guide != nil {
		t.Errorf("listing = %+v, want the one interviewer without its guide", list)
	}

	// Tenancy: another company sees nothing, and may use the same externalJobId.
	other := decode[httpapi.InterviewersResponse](t, f.send(t, http.MethodGet, "/v1/api/interviewers", f.otherKy, nil))
	if len(other.Interviewers) != 0 {
		t.Errorf("globex lists %+v", other.Interviewers)
	}
	if r := f.send(t, http.MethodGet, "/v1/api/interviewers/acme-J-100", f.otherKy, nil); r.StatusCode != 404 {
		t.Errorf("globex reads acme's interviewer: %d", r.StatusCode)
	}
	if r := f.createJob(t, f.otherKy, map[string]any{"externalJobId": "J-100", "jobDescription": description}); r.Payload != "globex-J-100" {
		t.Errorf("globex createJob = %+v", r)
	}
}

func TestCreateJobActiveFlagAndCompanyDefault(t *testing.T) {
	f := newFixture(t)
	paused := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "p1", "jobDescription": description, "active": false})
	if got := f.awaitGenerated(t, f.acmeKey, paused.Payload); got.Status != models.JobStatusPaused {
		t.Errorf("active:false → %s, want PAUSED", got.Status)
	}
	if err := f.st.DB().Model(&models.Company{}).Where("id = ?", f.other.ID).Update("default_job_status", models.JobStatusPaused).Error; err != nil {
		t.Fatal(err)
	}
	def := f.createJob(t, f.otherKy, map[string]any{"externalJobId": "d1", "jobDescription": description})
	if got := f.awaitGenerated(t, f.otherKy, def.Payload); got.Status != models.JobStatusPaused {
		t.Errorf("company default PAUSED → %s", got.Status)
	}
	act := f.createJob(t, f.otherKy, map[string]any{"externalJobId": "d2", "jobDescription": description, "active": true})
	if got := f.awaitGenerated(t, f.otherKy, act.Payload); got.Status != models.JobStatusActive {
		t.Errorf("active:true over a PAUSED default → %s", got.Status)
	}
}

func TestCreateJobDuplicateRace(t *testing.T) {
	f := newFixture(t)
	const n = 20
	codes := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"externalJobId":"race-1","jobDescription":%q}`, description)
			req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/v1/api/createJob", strings.NewReader(body))
			req.Header.Set("X-API-Key", f.acmeKey)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				codes[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			var e httpapi.ErrorBody
			b, _ := io.ReadAll(resp.Body)
			_ = json.Unmarshal(b, &e)
			codes[i] = fmt.Sprintf("%d %s", resp.StatusCode, e.Code)
		}()
	}
	wg.Wait()
	count := map[string]int{}
	for _, c := range codes {
		count[c]++
	}
	if count["200 "] != 1 || count["400 DUPLICATE_EXTERNAL_JOB_ID"] != n-1 {
		t.Errorf("20 identical createJob calls gave %v, want one 200 and 19 DUPLICATE_EXTERNAL_JOB_ID", count)
	}
	var jobs int64
	f.st.DB().Model(&models.Job{}).Where("external_id = ?", "race-1").Count(&jobs)
	if jobs != 1 {
		t.Errorf("%d job rows, want 1", jobs)
	}
	if got := f.awaitGenerated(t, f.acmeKey, "acme-race-1"); got.Status != models.JobStatusActive {
		t.Errorf("the winner's job = %s", got.Status)
	}
}

func TestCreateJobRejectsBadInput(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("x", 201)
	tests := []struct {
		name   string
		body   any
		code   string
		phrase string
	}{
		{"empty object", map[string]any{}, "MISSING_REQUIRED_FIELDS", "externalJobId, jobDescription"},
		{"no description", map[string]any{"externalJobId": "a"}, "MISSING_REQUIRED_FIELDS", "jobDescription"},
		{"blank id", map[string]any{"externalJobId": "  ", "jobDescription": "d"}, "MISSING_REQUIRED_FIELDS", "externalJobId"},
		{"id with slash", map[string]any{"externalJobId": "a/b", "jobDescription": "d"}, "INVALID_FIELD", "externalJobId may hold only"},
		{"long title", map[string]any{"externalJobId": "a", "jobDescription": "d", "jobTitle": long}, "INVALID_FIELD", "jobTitle is longer than 200"},
		{"too many questions", map[string]any{"externalJobId": "a", "jobDescription": "d", "additionalQuestions": make([]string, 51)}, "INVALID_FIELD", "additionalQuestions has 51 items"},
		{"empty additional question", map[string]any{"externalJobId": "a", "jobDescription": "d", "additionalQuestions": []string{"ok?", " "}}, "INVALID_FIELD", "additionalQuestions[1] is empty"},
		{"structured without question", map[string]any{"externalJobId": "a", "jobDescription": "d", "structuredAdditionalQuestions": []map[string]any{{"question": "q"}, {"answers": []string{"y"}}}}, "INVALID_FIELD", "structuredAdditionalQuestions[1].question is required"},
		{"structured empty answer", map[string]any{"externalJobId": "a", "jobDescription": "d", "structuredAdditionalQuestions": []map[string]any{{"question": "q", "answers": []string{"y", ""}}}}, "INVALID_FIELD", "structuredAdditionalQuestions[0].answers[1] is empty"},
		{"tag instructions without name", map[string]any{"externalJobId": "a", "jobDescription": "d", "structuredAdditionalQuestions": []map[string]any{{"question": "q", "tagInstructions": "i"}}}, "INVALID_FIELD", "tagInstructions needs a tagName"},
		{"wrong type", `{"externalJobId": 7, "jobDescription": "d"}`, "INVALID_JSON", "externalJobId must be a string"},
		{"malformed", `{"externalJobId": "a",`, "INVALID_JSON", "malformed JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := f.send(t, http.MethodPost, "/v1/api/createJob", f.acmeKey, tt.body)
			body := decode[httpapi.ErrorBody](t, resp)
			if resp.StatusCode != 400 || body.Code != tt.code || !strings.Contains(body.Message, tt.phrase) {
				t.Errorf("status %d body %+v, want 400 %s with %q", resp.StatusCode, body, tt.code, tt.phrase)
			}
		})
	}
	var jobs int64
	f.st.DB().Model(&models.Job{}).Count(&jobs)
	if jobs != 0 {
		t.Errorf("rejected requests created %d jobs", jobs)
	}
}

func TestInterviewerPagination(t *testing.T) {
	f := newFixture(t)
	for i := range 5 {
		r := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": fmt.Sprintf("pg-%d", i), "jobDescription": description})
		f.awaitGenerated(t, f.acmeKey, r.Payload)
	}
	seen := map[string]bool{}
	cursor := ""
	for pages := 0; ; pages++ {
		path := "/v1/api/interviewers?limit=2"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		page := decode[httpapi.InterviewersResponse](t, f.send(t, http.MethodGet, path, f.acmeKey, nil))
		for _, it := range page.Interviewers {
			if seen[it.InterviewerID] {
				t.Errorf("%s listed twice", it.InterviewerID)
			}
			seen[it.InterviewerID] = true
		}
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
	}
	if len(seen) != 5 {
		t.Errorf("paged through %d interviewers, want 5", len(seen))
	}
	for _, bad := range []string{"?limit=0", "?limit=201", "?status=DONE", "?cursor=zzz"} {
		if r := f.send(t, http.MethodGet, "/v1/api/interviewers"+bad, f.acmeKey, nil); r.StatusCode != 400 {
			t.Errorf("listing%s = %d, want 400", bad, r.StatusCode)
		}
	}
}

// TestInterviewerListingShowsGeneratedJobs: a job appears in the listing when its generation has
// completed (spec "Job creation"); GENERATING and FAILED jobs are found by an explicit status
// filter and by id.
func TestInterviewerListingShowsGeneratedJobs(t *testing.T) {
	f := newFixture(t)
	done := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "done-1", "jobDescription": description}).Payload
	f.awaitGenerated(t, f.acmeKey, done)
	pausedJob := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "paused-1", "jobDescription": description, "active": false}).Payload
	f.awaitGenerated(t, f.acmeKey, pausedJob)

	f.worker.Stop() // generation waits: the next jobs stay GENERATING
	generating := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "gen-1", "jobDescription": description}).Payload
	failed := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "fail-1", "jobDescription": description}).Payload
	fj, err := f.st.JobByInterviewerID(t.Context(), f.acme.ID, failed)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.FailJob(t.Context(), f.acme.ID, fj.ID, "generator unavailable"); err != nil {
		t.Fatal(err)
	}

	ids := func(query string) []string {
		t.Helper()
		resp := f.send(t, http.MethodGet, "/v1/api/interviewers"+query, f.acmeKey, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("listing%s = %d", query, resp.StatusCode)
		}
		var out []string
		for _, it := range decode[httpapi.InterviewersResponse](t, resp).Interviewers {
			out = append(out, it.InterviewerID)
		}
		return out
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"", []string{pausedJob, done}},
		{"?limit=1", []string{pausedJob}},
		{"?status=GENERATING", []string{generating}},
		{"?status=failed", []string{failed}},
		{"?status=ACTIVE", []string{done}},
		{"?status=PAUSED", []string{pausedJob}},
	} {
		if got := ids(tt.query); !slices.Equal(got, tt.want) {
			t.Errorf("listing%s = %v, want %v", tt.query, got, tt.want)
		}
	}
	// The default listing pages through generated jobs only.
	first := decode[httpapi.InterviewersResponse](t, f.send(t, http.MethodGet, "/v1/api/interviewers?limit=1", f.acmeKey, nil))
	if first.NextCursor == nil {
		t.Fatal("first page of one has no nextCursor")
	}
	last := decode[httpapi.InterviewersResponse](t, f.send(t, http.MethodGet, "/v1/api/interviewers?limit=1&cursor="+*first.NextCursor, f.acmeKey, nil))
	if len(last.Interviewers) != 1 || last.Interviewers[0].InterviewerID != done || last.NextCursor != nil {
		t.Errorf("second page = %+v, want %s and no cursor", last, done)
	}
	for id, want := range map[string]string{generating: "GENERATING", failed: "FAILED"} {
		got := decode[httpapi.InterviewerResponse](t, f.send(t, http.MethodGet, "/v1/api/interviewers/"+id, f.acmeKey, nil)).Interviewer
		if string(got.Status) != want || got.Generation.State != want {
			t.Errorf("%s by id = %s/%s, want %s", id, got.Status, got.Generation.State, want)
		}
	}
}

// smtpSink is a real SMTP server that keeps what it receives.
type smtpSink struct {
	mu   sync.Mutex
	msgs []string
	rcpt []string
}

func (s *smtpSink) NewSession(*smtp.Conn) (smtp.Session, error) { return &smtpSession{sink: s}, nil }

type smtpSession struct {
	sink *smtpSink
	to   string
}

func (s *smtpSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = to
	return nil
}
func (s *smtpSession) Data(r io.Reader) error {
	b, _ := io.ReadAll(r)
	s.sink.mu.Lock()
	defer s.sink.mu.Unlock()
	s.sink.msgs = append(s.sink.msgs, string(b))
	s.sink.rcpt = append(s.sink.rcpt, s.to)
	return nil
}
func (s *smtpSession) Reset()        {}
func (s *smtpSession) Logout() error { return nil }

func startSMTP(t *testing.T) (*smtpSink, int) {
	t.Helper()
	sink := &smtpSink{}
	srv := smtp.NewServer(sink)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return sink, ln.Addr().(*net.TCPAddr).Port
}

func TestInviteCandidateByEmailWithSMSFallback(t *testing.T) {
	sink, port := startSMTP(t)
	var smsCalls int
	var mu sync.Mutex
	twilio := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		smsCalls++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"code": 21610, "message": "Attempt to send to unsubscribed recipient"}`)
	}))
	t.Cleanup(twilio.Close)
	f := newFixture(t, withMessaging(channels.Config{
		Mode:   channels.ModeLive,
		SMTP:   channels.SMTPConfig{Host: "127.0.0.1", Port: port, TLS: "none", From: "Acme Interviews <jobs@acme.test>"},
		Twilio: channels.TwilioConfig{BaseURL: twilio.URL, AccountSID: "AC123", AuthToken: "secret-token", From: "+15005550006"},
	}))
	f.setQuietHours(t, "00:00", "00:00") // the SMS is tried at once, whatever the hour
	job := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "inv-1", "jobDescription": description, "jobTitle": "Backend Engineer"})
	f.awaitGenerated(t, f.acmeKey, job.Payload)

	resp := f.send(t, http.MethodPost, "/v1/api/inviteCandidate", f.acmeKey, map[string]any{
		"interviewerId": job.Payload,
		"candidate":     map[string]any{"firstName": "Ada", "lastName": "Quinn", "email": "ada@example.com", "phone": "(415) 555-2671"},
		"channels":      []string{"sms", "email"},
	})
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("inviteCandidate = %d %s", resp.StatusCode, b)
	}
	inv := decode[httpapi.InviteCandidateResponse](t, resp)
	if base := f.srv.URL + "/interview/"; !strings.HasPrefix(inv.InterviewLink, base) || len(inv.InterviewLink) < len(base)+24 {
		t.Errorf("interviewLink = %q, want an unguessable link under the candidate pages' base %s", inv.InterviewLink, base)
	}

	deadline := time.Now().Add(20 * time.Second)
	for {
		sink.mu.Lock()
		n := len(sink.msgs)
		sink.mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	sink.mu.Lock()
	if len(sink.msgs) != 1 || sink.rcpt[0] != "ada@example.com" || !strings.Contains(sink.msgs[0], inv.InterviewLink) || !strings.Contains(sink.msgs[0], "Backend Engineer") {
		t.Fatalf("SMTP server received %d messages %q to %v, want one to ada@example.com with the link", len(sink.msgs), sink.msgs, sink.rcpt)
	}
	sink.mu.Unlock()
	mu.Lock()
	if smsCalls != 1 {
		t.Errorf("Twilio was called %d times, want once (a permanent refusal is not retried)", smsCalls)
	}
	mu.Unlock()

	// The SMTP server has the message; its outcome is recorded once the client hears it back.
	var msgs []models.Message
	await(t, 20*time.Second, "the e-mail's outcome recorded", func() bool {
		msgs = nil
		if err := f.st.DB().Where("candidate_id = ?", inv.CandidateID).Order("created_at").Find(&msgs).Error; err != nil {
			t.Fatal(err)
		}
		return len(msgs) == 2 && msgs[1].Status != models.MessageStatusQueued
	})
	if len(msgs) != 2 || msgs[0].Channel != models.MessageChannelSMS || msgs[0].Status != models.MessageStatusFailed || msgs[0].Error == nil ||
		msgs[1].Channel != models.MessageChannelEmail || msgs[1].Status != models.MessageStatusSent || msgs[1].ProviderMessageID == nil {
		t.Fatalf("conversation = %+v, want a failed SMS then a sent e-mail", msgs)
	}
	if strings.Contains(*msgs[0].Error, "secret-token") || msgs[0].ToAddress != "+14155552671" {
		t.Errorf("sms attempt = to %s, error %q", msgs[0].ToAddress, *msgs[0].Error)
	}

	// The same contact invited again reuses the candidate.
	again := decode[httpapi.InviteCandidateResponse](t, f.send(t, http.MethodPost, "/v1/api/inviteCandidate", f.acmeKey, map[string]any{
		"interviewerId": job.Payload, "candidate": map[string]any{"email": "ADA@example.com"}, "channels": []string{"email"},
	}))
	if again.CandidateID != inv.CandidateID || again.SessionID == inv.SessionID {
		t.Errorf("second invite = %+v, want the same candidate and a new session", again)
	}
}

func TestInviteCandidateErrors(t *testing.T) {
	f := newFixture(t)
	job := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "e-1", "jobDescription": description})
	f.awaitGenerated(t, f.acmeKey, job.Payload)
	paused := f.createJob(t, f.acmeKey, map[string]any{"externalJobId": "e-2", "jobDescription": description, "active": false})
	f.awaitGenerated(t, f.acmeKey, paused.Payload)
	ada := map[string]any{"email": "ada@example.com"}
	tests := []struct {
		name   string
		key    string
		body   map[string]any
		status int
		code   string
	}{
		{"missing fields", f.acmeKey, map[string]any{}, 400, "MISSING_REQUIRED_FIELDS"},
		{"unknown interviewer", f.acmeKey, map[string]any{"interviewerId": "acme-nope", "candidate": ada}, 404, "INTERVIEWER_NOT_FOUND"},
		{"foreign interviewer", f.otherKy, map[string]any{"interviewerId": job.Payload, "candidate": ada}, 404, "INTERVIEWER_NOT_FOUND"},
		{"paused job", f.acmeKey, map[string]any{"interviewerId": paused.Payload, "candidate": ada}, 409, "JOB_NOT_ACTIVE"},
		{"no contact", f.acmeKey, map[string]any{"interviewerId": job.Payload, "candidate": map[string]any{"firstName": "Ada"}}, 400, "NO_USABLE_CONTACT"},
		{"sms without phone", f.acmeKey, map[string]any{"interviewerId": job.Payload, "candidate": ada, "channels": []string{"sms"}}, 400, "NO_USABLE_CONTACT"},
		{"bad email", f.acmeKey, map[string]any{"interviewerId": job.Payload, "candidate": map[string]any{"email": "not-an-email"}}, 400, "INVALID_FIELD"},
		{"bad phone", f.acmeKey, map[string]any{"interviewerId": job.Payload, "candidate": map[string]any{"phone": "12"}}, 400, "INVALID_FIELD"},
		{"bad channel", f.acmeKey, map[string]any{"interviewerId": job.Payload, "candidate": ada, "channels": []string{"fax"}}, 400, "INVALID_FIELD"},
		{"bad medium", f.acmeKey, map[string]any{"interviewerId": job.Payload, "candidate": ada, "mediumType": "HOLOGRAM"}, 400, "INVALID_FIELD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := f.send(t, http.MethodPost, "/v1/api/inviteCandidate", tt.key, tt.body)
			body := decode[httpapi.ErrorBody](t, resp)
			if resp.StatusCode != tt.status || body.Code != tt.code {
				t.Errorf("= %d %+v, want %d %s", resp.StatusCode, body, tt.status, tt.code)
			}
		})
	}
	var sessions int64
	f.st.DB().Model(&models.InterviewSession{}).Count(&sessions)
	if sessions != 0 {
		t.Errorf("rejected invitations created %d sessions", sessions)
	}
}
