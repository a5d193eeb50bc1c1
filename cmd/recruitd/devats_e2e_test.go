package main

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// devATS follows the README's ATS path on `recruitd dev`'s demo ATS company: its key is printed
// with the demo key; its card reads Connected with the simulator's three jobs imported; its three
// applications are synced from the aggregator with their candidates, and 'New Application from
// ATS' invites each applicant (the e-mail, link included, in dev's outbox); `applications list`
// shows them with their sessions; the demo tenant's key reaches none of its sessions; an
// assessment link pushed with Maya's ATS application id reaches her; a decision on her session
// is written to the ATS as the stage move its pair names, which the simulator's /sim/writes lists.
func devATS(t *testing.T, p *proc, base, demoKey, temporalAddr string) {
	t.Helper()
	out := p.output()
	key := regexp.MustCompile(`(?m)^demo-ats API key: (\S+)`).FindStringSubmatch(out)
	agg := regexp.MustCompile(`Aggregator simulator \([^)]*\): (\S+)`).FindStringSubmatch(out)
	if key == nil || agg == nil {
		t.Fatalf("dev did not print the demo-ats API key and the aggregator simulator's URL:\n%s", out)
	}
	h := map[string]string{"X-API-Key": key[1], "Content-Type": "application/json"}

	var card struct {
		Connection struct {
			State  string
			Counts struct{ JobsImported, OpenJobs int }
		}
	}
	r := call(t, "GET", base+"/v1/api/integrations/hrsuite", h, "")
	if err := json.Unmarshal([]byte(r.body), &card); r.status != 200 || err != nil || card.Connection.State != "connected" || card.Connection.Counts.JobsImported != 3 {
		t.Errorf("demo-ats card = %d %s, want connected with 3 jobs imported", r.status, r.body)
	}
	r = call(t, "GET", base+"/v1/api/interviewers/demo-ats-7101", h, "")
	if r.status != 200 || !strings.Contains(r.body, "Medical Assistant") {
		t.Errorf("imported job demo-ats-7101 = %d %.300s", r.status, r.body)
	}

	// 'New Application from ATS' invites every synced applicant by e-mail.
	for _, to := range []string{"maya.lopez@example.com", "omar.haddad@example.com", "priya.natarajan@example.com"} {
		p.await(t, `outbox · email → `+regexp.QuoteMeta(to)+`[^\n]*\n(?:[^\n]*\n)*?[^\n]*/interview/[A-Za-z0-9_-]+`, 60*time.Second)
	}

	var port string
	for _, kv := range p.cmd.Env {
		if v, ok := strings.CutPrefix(kv, "DEV_POSTGRES_PORT="); ok {
			port = v
		}
	}
	env := []string{"DATABASE_URL=postgres://recruitd@127.0.0.1:" + port + "/recruitd?sslmode=disable", "TEMPORAL_ADDRESS=" + temporalAddr}
	list := runCmd(t, env, "applications", "list", "--company", "demo-ats")
	var maya string
	for _, ext := range []string{"70001", "70002", "70003"} {
		row := regexp.MustCompile(`(?m)^\S+\s+ats\s+` + ext + `\s+\S+\s+.*\s([0-9a-f-]{36})\s+(INVITED|STARTED)\s`).FindStringSubmatch(list)
		if row == nil {
			t.Fatalf("applications list --company demo-ats has no synced application %s with an invited session:\n%s", ext, list)
		}
		if ext == "70001" {
			maya = row[1]
		}
	}
	if !strings.Contains(list, "Maya Lopez") || !strings.Contains(list, "7101 Medical Assistant") {
		t.Errorf("applications list does not name Maya and her job:\n%s", list)
	}

	// Each company's list holds its own applications only.
	if strings.Contains(list, "lin@example.com") || strings.Contains(list, "Ada Quinn") {
		t.Errorf("applications list --company demo-ats shows the demo tenant's applications:\n%s", list)
	}
	if demoList := runCmd(t, env, "applications", "list", "--company", "demo"); !strings.Contains(demoList, "lin@example.com") || strings.Contains(demoList, "maya.lopez@example.com") {
		t.Errorf("applications list --company demo = %s; want Lin's invitation and none of demo-ats", demoList)
	}
	// Another company's key reaches nothing of demo-ats.
	if r := call(t, "PUT", base+"/v1/api/sessions/"+maya+"/decision", map[string]string{"X-API-Key": demoKey, "Content-Type": "application/json"}, `{"decision":"REJECTED"}`); r.status != 404 {
		t.Errorf("decision on demo-ats's session with the demo key = %d %s, want 404", r.status, r.body)
	}

	r = call(t, "POST", base+"/v2/api/assessment-links", h, `{"applicationId":"70001","assessmentUrl":"https://assess.example.com/t/maya-70001","candidateId":"C-8801","jobId":"7101"}`)
	if r.status != 200 || !strings.Contains(r.body, `"success":true`) {
		t.Errorf("assessment link for 70001 = %d %s", r.status, r.body)
	}
	p.await(t, `outbox · \w+ → maya\.lopez@example\.com[\s\S]*https://assess\.example\.com/t/maya-70001`, 30*time.Second)

	// Maya takes her interview at the invitation's link (as a browser without script would);
	// her report is written and its note, with a link that resolves, goes back to the ATS.
	link := p.await(t, `outbox · email → maya\.lopez@example\.com[^\n]*\n(?:[^\n]*\n){0,12}?[^\n]*?(http://\S+/interview/[A-Za-z0-9_-]+)`, 10*time.Second)
	takeInterviewOverHTTP(t, link)
	deadline := time.Now().Add(60 * time.Second)
	for r = call(t, "GET", base+"/v1/api/sessions/"+maya+"/report", h, ""); r.status != 200; r = call(t, "GET", base+"/v1/api/sessions/"+maya+"/report", h, "") {
		if time.Now().After(deadline) {
			t.Fatalf("Maya's report = %d %s after 60s", r.status, r.body)
		}
		time.Sleep(200 * time.Millisecond)
	}

	r = call(t, "PUT", base+"/v1/api/sessions/"+maya+"/decision", h, `{"decision":"ACCEPTED","note":"Great with patients"}`)
	if r.status != 200 {
		t.Fatalf("decision on Maya's session = %d %s", r.status, r.body)
	}
	type write struct{ RemoteID, Kind, Stage, Text string }
	// The report's note and the decision's stage are written by separate runs, so either may
	// land first: wait for both.
	has := func(ws []write, kind string) bool {
		return slices.ContainsFunc(ws, func(w write) bool { return w.Kind == kind })
	}
	deadline = time.Now().Add(30 * time.Second)
	for {
		var got struct{ Data []write }
		r := call(t, "GET", agg[1]+"/sim/writes", nil, "")
		if err := json.Unmarshal([]byte(r.body), &got); err == nil && has(got.Data, "stage") && has(got.Data, "note") {
			kinds := map[string]int{}
			for _, w := range got.Data {
				kinds[w.Kind]++
				if w.RemoteID != "70001" {
					t.Errorf("a write to %s, want only Maya's application 70001", w.RemoteID)
				}
				if w.Kind == "stage" && w.Stage != "Interview Passed" {
					t.Errorf("stage write %+v, want Interview Passed", w)
				}
				if w.Kind == "note" {
					noteLink := regexp.MustCompile(`https?://\S+/sessions/[0-9a-f-]{36}`).FindString(w.Text)
					if r := call(t, "GET", noteLink, nil, ""); noteLink == "" || r.status != 200 {
						t.Errorf("the note's link %q = %d, want a page", noteLink, r.status)
					}
				}
			}
			if kinds["note"] != 1 || kinds["stage"] != 1 {
				t.Errorf("the simulator received %v, want one note and one stage write", kinds)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the simulator did not receive both the note and the stage within 30s: %d %s\n%s", r.status, r.body, runCmd(t, env, "ats", "writes", "list", "--company", "demo-ats"))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if w := runCmd(t, env, "ats", "writes", "list", "--company", "demo-ats"); !regexp.MustCompile(`stage\s.*70001\s+stage=kmb_stage_Interview Passed\s+done`).MatchString(w) {
		t.Errorf("ats writes list --company demo-ats = %q, want the stage write done", w)
	}
	t.Logf("demo-ats: 3 applications synced and invited, Maya's assessment link delivered, her decision's stage written to the ATS")
}

// takeInterviewOverHTTP takes the interview at link as a browser without script does: plain
// GETs and form POSTs, redirects not followed, the first choice of a structured question and an
// answer in words to the others.
func takeInterviewOverHTTP(t *testing.T, link string) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func() string {
		t.Helper()
		resp, err := client.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s = %d", link, resp.StatusCode)
		}
		return string(b)
	}
	post := func(verb string, form url.Values) {
		t.Helper()
		resp, err := client.PostForm(link+"/"+verb, form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST %s = %d, want 303", verb, resp.StatusCode)
		}
	}
	if page := get(); !strings.Contains(page, "/consent") || strings.Contains(page, "not ready") {
		t.Fatalf("the link opens no start screen:\n%.800s", page)
	}
	post("consent", url.Values{})
	turnRE, choiceRE := regexp.MustCompile(`name="turn" value="(\d+)"`), regexp.MustCompile(`id="choice-0" value="([^"]*)"`)
	for i := 0; ; i++ {
		page := get()
		if strings.Contains(page, "Interview complete") {
			return
		}
		turn := turnRE.FindStringSubmatch(page)
		if turn == nil || i == 40 {
			t.Fatalf("screen %d has no question:\n%.800s", i, page)
		}
		answer := "For example, I cared for twelve patients a shift on a surgical ward and kept every record current, because safety depends on it."
		if c := choiceRE.FindStringSubmatch(page); c != nil {
			answer = html.UnescapeString(c[1])
		}
		post("answer", url.Values{"turn": {turn[1]}, "answer": {answer}})
	}
}
