package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/atssim"
	"github.com/recruitd/recruitd/internal/devidp"
	"github.com/recruitd/recruitd/internal/twiliosim"
	"github.com/recruitd/recruitd/models"
)

// The fleet's ATS company: its job and the first ATS id of its applications, each a record of
// the ATS simulator.
const (
	fleetATSJob       = "7001"
	fleetATSApplicant = 500000
	fleetATSRecords   = 200
	fleetOIDCSecret   = "fleet-oidc-secret-fleet-oidc"
)

// fleetDecisionPairs are the ATS company's decision stages.
var fleetDecisionPairs = []models.SyncField{
	{Field: "status", Value: "Interview Passed", Decision: models.DecisionAccepted},
	{Field: "status", Value: "Rejected", Decision: models.DecisionRejected},
	{Field: "status", Value: "Hired", Decision: models.DecisionHired},
}

// fleetDecisionRuns are the decisions a recruiter takes on an ATS interview, by its number.
var fleetDecisionRuns = [][]models.Decision{
	{models.DecisionAccepted, models.DecisionRejected},
	{models.DecisionRejected, models.DecisionHired, models.DecisionAccepted},
	{models.DecisionHired},
}

func fleetStage(d models.Decision) string {
	p, _ := models.SyncFieldFor(fleetDecisionPairs, d)
	return p.Value
}

// fleetMix is the part of the fleet's mix that goes through the other simulators: interviews
// taken in the candidate's SMS thread (the Twilio simulator posting signed webhooks to the
// front), assessment links pushed for the partner's applications, and decisions on interviews
// of an ATS company written back to the ATS simulator. It records what each acknowledged, for
// the checks once the fleet settled.
type fleetMix struct {
	f   *fleet
	fx  *fleetFixture
	sim *twiliosim.Server
	ats *atssim.Server

	smsTaken, lostReplies, atsTaken, pushesAcked atomic.Int64
	nextPhone, nextATS, nextPush                 atomic.Int64
	smsActive, atsActive                         atomic.Int64 // interviews under way

	mu          sync.Mutex
	smsSessions []string
	acceptedSeq []string            // partner applicants acknowledged, in order
	pushed      map[string][]string // partner applicant -> links acknowledged, in order
	decided     map[int64][]models.Decision
	atsSessions map[int64]string // ATS applicant -> session
}

func newFleetMix(f *fleet, fx *fleetFixture, sim *twiliosim.Server, ats *atssim.Server) *fleetMix {
	return &fleetMix{f: f, fx: fx, sim: sim, ats: ats, pushed: map[string][]string{}, decided: map[int64][]models.Decision{}, atsSessions: map[int64]string{}}
}

// front is what a load balancer in front of the api replicas (PUBLIC_BASE_URL) does for the
// simulators' webhooks: each request goes to the next replica, a refused one to the one after,
// with its headers.
func (f *fleet) front() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h := map[string]string{}
		for k := range r.Header {
			switch k {
			case "Connection", "Content-Length", "Accept-Encoding", "Transfer-Encoding":
			default:
				h[k] = r.Header.Get(k)
			}
		}
		resp := f.send(f.pick(f.apis), r.Method, r.URL.RequestURI(), h, string(body))
		if resp.status == 0 {
			http.Error(w, resp.body, http.StatusBadGateway)
			return
		}
		for k := range resp.header {
			switch k {
			case "Connection", "Content-Length", "Transfer-Encoding":
			default:
				w.Header()[k] = resp.header[k]
			}
		}
		w.WriteHeader(resp.status)
		io.WriteString(w, resp.body)
	})
}

// say sends body from phone to our number through the simulator and returns the texts of the
// TwiML answer.
func (m *fleetMix) say(phone, body string) (string, error) {
	res, err := m.sim.Reply(twiliosim.Reply{From: phone, To: twiliosimFrom, Body: body})
	if err != nil {
		return "", err
	}
	if res.Delivery.HTTPStatus != http.StatusOK {
		return "", fmt.Errorf("the webhook of %q answered %d %s", body, res.Delivery.HTTPStatus, res.Delivery.Error)
	}
	var out []string
	for _, r := range res.Replies {
		out = append(out, r.Body)
	}
	return strings.Join(out, "\n"), nil
}

// smsInterview invites a new candidate to the partner's job by SMS (mediumType SMS) and takes the
// whole interview in the thread: YES, then an answer to each question (a choice's number), until
// the closing text. A text that got no answer (a replica died with it) is sent again, as a
// candidate would.
func (m *fleetMix) smsInterview() (string, error) {
	m.smsActive.Add(1)
	defer m.smsActive.Add(-1)
	n := m.nextPhone.Add(1)
	phone := fmt.Sprintf("+1628555%04d", 100+n)
	r := m.f.api("POST", "/v1/api/inviteCandidate", m.fx.key, fmt.Sprintf(`{"interviewerId":%q,"channels":["sms"],"mediumType":"SMS",
		"candidate":{"firstName":"Tex","lastName":"Fleet %d","phone":%q}}`, "fleet-"+fleetPartnerJob, n, phone))
	var inv struct{ SessionID string }
	if r.status != 200 || json.Unmarshal([]byte(r.body), &inv) != nil || inv.SessionID == "" {
		return "", fmt.Errorf("inviteCandidate by SMS: %d %.200s", r.status, r.body)
	}
	// The thread is the invitation's: the candidate answers once it went out.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var sent int
		m.fx.st.SQL().QueryRow(`SELECT count(*) FROM messages WHERE company_id = $1 AND session_id = $2 AND channel = 'sms'
			AND direction = 'outbound' AND status IN ('sent', 'delivered')`, m.fx.co.ID, inv.SessionID).Scan(&sent)
		if sent > 0 {
			break
		}
		if time.Now().After(deadline) {
			return inv.SessionID, errors.New("the SMS invitation was not sent within 2 minutes")
		}
		time.Sleep(100 * time.Millisecond)
	}
	text := "YES"
	for range 40 {
		got, err := m.say(phone, text)
		if err != nil {
			return inv.SessionID, err
		}
		if got == "" {
			m.lostReplies.Add(1)
			continue
		}
		switch {
		case strings.Contains(got, "Thank") && !strings.Contains(got, "?"):
			return inv.SessionID, nil
		case strings.Contains(got, "1. ") || strings.Contains(got, "Reply with a number"):
			text = "1"
		case strings.Contains(got, "Reply YES"):
			text = "YES"
		default:
			text = fleetAnswer
		}
	}
	return inv.SessionID, errors.New("no closing text after 40 messages")
}

// accepted records a partner applicant whose submission was acknowledged.
func (m *fleetMix) accepted(applicant string) {
	m.mu.Lock()
	m.acceptedSeq = append(m.acceptedSeq, applicant)
	m.mu.Unlock()
}

// pushNext pushes the next assessment link: three links, one after the other, for each partner
// applicant acknowledged, in order (its application stored, or on its way: a push that comes
// first is held until it is).
func (m *fleetMix) pushNext() (response, bool) {
	m.mu.Lock()
	c := m.nextPush.Load()
	i, k := int(c/3), int(c%3)+1
	if i >= len(m.acceptedSeq) {
		m.mu.Unlock()
		return response{}, true
	}
	applicant := m.acceptedSeq[i]
	m.mu.Unlock()
	m.nextPush.Add(1)
	link := fmt.Sprintf("https://assess.example.com/t/%s/v%d/go", applicant, k)
	r := m.f.api("POST", "/v2/api/assessment-links", m.fx.key, fmt.Sprintf(`{"applicationId":%q,"assessmentUrl":%q,"orderId":"ORD-%s-%d"}`, applicant, link, applicant, k))
	if r.status != 200 || r.body != `{"success":true}` {
		return r, false
	}
	m.mu.Lock()
	m.pushed[applicant] = append(m.pushed[applicant], link)
	m.mu.Unlock()
	m.pushesAcked.Add(1)
	return r, true
}

// atsInterview invites a candidate of the ATS company, gives the application its ATS id, takes
// the interview over HTTP, then takes the run's decisions one after the other, each once its
// write to the ATS is done.
func (m *fleetMix) atsInterview(ctx context.Context) error {
	n := m.nextATS.Add(1) - 1
	if n >= fleetATSRecords {
		<-ctx.Done()
		return nil
	}
	applicant := int64(fleetATSApplicant) + n
	m.atsActive.Add(1)
	defer m.atsActive.Add(-1)
	r := m.f.api("POST", "/v1/api/inviteCandidate", m.fx.atsKey, fmt.Sprintf(`{"interviewerId":%q,"candidate":{"firstName":"Ada","lastName":"Fleet %d","email":"ats-%d@example.com"}}`,
		"fleet-ats-"+fleetATSJob, n, applicant))
	var inv struct{ SessionID, InterviewLink string }
	if r.status != 200 || json.Unmarshal([]byte(r.body), &inv) != nil || inv.SessionID == "" {
		return fmt.Errorf("inviteCandidate of the ATS company: %d %.200s", r.status, r.body)
	}
	sid := uuid.MustParse(inv.SessionID)
	sess, err := m.fx.st.Session(context.WithoutCancel(ctx), m.fx.atsCo.ID, sid)
	if err != nil || sess.ApplicationID == nil {
		return fmt.Errorf("the ATS company's session %s: %v (application %v)", sid, err, sess)
	}
	if err := m.fx.st.SetApplicationExternalID(context.WithoutCancel(ctx), m.fx.atsCo.ID, *sess.ApplicationID, fmt.Sprint(applicant)); err != nil {
		return err
	}
	u, err := url.Parse(inv.InterviewLink)
	if err != nil {
		return err
	}
	if err := m.f.takeInterview(context.WithoutCancel(ctx), u.Path, nil); err != nil {
		return fmt.Errorf("ATS interview: %w", err)
	}
	m.mu.Lock()
	m.atsSessions[applicant] = inv.SessionID
	m.mu.Unlock()
	m.atsTaken.Add(1)
	for _, d := range fleetDecisionRuns[n%int64(len(fleetDecisionRuns))] {
		r := m.f.send(m.f.pick(m.f.apis), "PUT", "/v1/api/sessions/"+inv.SessionID+"/decision",
			map[string]string{"X-API-Key": m.fx.atsKey, "Content-Type": "application/json"}, fmt.Sprintf(`{"decision":%q,"note":"fleet decision %s"}`, d, d))
		var resp struct {
			Changed  bool
			ATSWrite *struct{ ID string }
		}
		if r.status != 200 || json.Unmarshal([]byte(r.body), &resp) != nil || resp.ATSWrite == nil {
			return fmt.Errorf("decision %s on %s: %d %.300s", d, inv.SessionID, r.status, r.body)
		}
		m.mu.Lock()
		m.decided[applicant] = append(m.decided[applicant], d)
		m.mu.Unlock()
		deadline := time.Now().Add(2 * time.Minute)
		for {
			var status string
			m.fx.st.SQL().QueryRow(`SELECT status FROM ats_writes WHERE company_id = $1 AND id = $2`, m.fx.atsCo.ID, resp.ATSWrite.ID).Scan(&status)
			if status == models.ATSWriteDone {
				break
			}
			if status == models.ATSWriteFailed || status == models.ATSWriteSuperseded || time.Now().After(deadline) {
				return fmt.Errorf("the ATS write of decision %s on %s is %q", d, inv.SessionID, status)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// checkSMS: every interview taken in the thread is COMPLETED, with its answers by SMS, its
// transcript final once and one report.
func (m *fleetMix) checkSMS(t *testing.T) {
	for _, id := range m.smsSessions {
		var status string
		var finals, reports, smsAnswers, otherAnswers int
		mustScan(t, m.fx.st.SQL().QueryRow(`SELECT status FROM interview_sessions WHERE company_id = $1 AND id = $2`, m.fx.co.ID, id).Scan(&status))
		mustScan(t, m.fx.st.SQL().QueryRow(`SELECT count(*) FROM interview_events WHERE company_id = $1 AND session_id = $2 AND kind = $3`,
			m.fx.co.ID, id, models.EventTranscriptFinal).Scan(&finals))
		mustScan(t, m.fx.st.SQL().QueryRow(`SELECT count(*) FROM interview_reports WHERE company_id = $1 AND session_id = $2`, m.fx.co.ID, id).Scan(&reports))
		mustScan(t, m.fx.st.SQL().QueryRow(`SELECT count(*) FILTER (WHERE channel = 'sms'), count(*) FILTER (WHERE channel <> 'sms')
			FROM interview_turns WHERE company_id = $1 AND session_id = $2 AND answer IS NOT NULL`, m.fx.co.ID, id).Scan(&smsAnswers, &otherAnswers))
		if status != string(models.SessionStatusCompleted) || finals != 1 || reports != 1 || smsAnswers < 3 || otherAnswers != 0 {
			t.Errorf("SMS interview %s: %s, %d transcripts final, %d reports, %d answers by SMS and %d otherwise; want COMPLETED, 1, 1, the whole interview by SMS",
				id, status, finals, reports, smsAnswers, otherAnswers)
		}
	}
}

// checkAssessments: for every applicant with acknowledged pushes, the current link is the last
// acknowledged one and was sent; no link went twice on one channel, and the last went once.
func (m *fleetMix) checkAssessments(t *testing.T) {
	m.mu.Lock()
	pushed := make(map[string][]string, len(m.pushed))
	for k, v := range m.pushed {
		pushed[k] = slices.Clone(v)
	}
	m.mu.Unlock()
	current := func(applicant string) (string, bool) {
		var u string
		var sent bool
		err := m.fx.st.SQL().QueryRow(`SELECT l.assessment_url, l.sent_at IS NOT NULL FROM assessment_links l JOIN applications a ON a.company_id = l.company_id AND a.id = l.application_id
			WHERE l.company_id = $1 AND a.external_id = $2 AND l.replaced_at IS NULL`, m.fx.co.ID, applicant).Scan(&u, &sent)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			t.Fatal(err)
		}
		return u, sent
	}
	m.f.waitFor(m.fx, 2*time.Minute, "every applicant's last assessment link sent", func() bool {
		for applicant, links := range pushed {
			if u, sent := current(applicant); u != links[len(links)-1] || !sent {
				return false
			}
		}
		return true
	}, func() string {
		var b strings.Builder
		for applicant, links := range pushed {
			if u, sent := current(applicant); u == links[len(links)-1] && sent {
				continue
			}
			var state, holds sql.NullString
			if err := m.fx.st.SQL().QueryRow(`SELECT string_agg(format('%s received %s sent %s replaced %s failed %s', l.assessment_url, l.received_at, l.sent_at, l.replaced_at, l.failed_at), '; ' ORDER BY l.received_at)
				FROM assessment_links l JOIN applications a ON a.company_id = l.company_id AND a.id = l.application_id WHERE l.company_id = $1 AND a.external_id = $2`,
				m.fx.co.ID, applicant).Scan(&state); err != nil {
				return err.Error()
			}
			if err := m.fx.st.SQL().QueryRow(`SELECT string_agg(to_jsonb(h)::text, '; ') FROM assessment_link_holds h WHERE h.company_id = $1 AND h.application_ref = $2`,
				m.fx.co.ID, applicant).Scan(&holds); err != nil {
				return err.Error()
			}
			fmt.Fprintf(&b, "applicant %s pushed %q: links [%s], holds [%s]\n", applicant, links, state.String, holds.String)
		}
		return b.String()
	})
	time.Sleep(time.Second) // a second message, if any, would go out now
	for applicant, links := range pushed {
		rows, err := m.fx.st.SQL().Query(`SELECT m.channel, m.body FROM messages m JOIN applications a ON a.company_id = m.company_id AND a.id = m.application_id
			WHERE m.company_id = $1 AND a.external_id = $2 AND m.direction = 'outbound' AND m.status IN ('sent', 'delivered')`, m.fx.co.ID, applicant)
		if err != nil {
			t.Fatal(err)
		}
		sent := map[string]int{} // link and channel -> messages
		for rows.Next() {
			var ch, body string
			rows.Scan(&ch, &body)
			for _, l := range links {
				if strings.Contains(body, l) {
					sent[l+" by "+ch]++
				}
			}
		}
		rows.Close()
		last, lastSent := links[len(links)-1], 0
		for k, n := range sent {
			if n != 1 {
				t.Errorf("applicant %s: %s sent %d times, want at most once", applicant, k, n)
			}
			if strings.HasPrefix(k, last+" by ") {
				lastSent += n
			}
		}
		if lastSent != 1 {
			t.Errorf("applicant %s: the last link pushed (%d pushes) was sent %d times, want once; sent: %v", applicant, len(links), lastSent, sent)
		}
	}
}

// checkATS: every decision is written to the ATS once, in order, the ATS ends on the last, and
// every interview's report note is written once.
func (m *fleetMix) checkATS(t *testing.T) {
	m.mu.Lock()
	decided := make(map[int64][]models.Decision, len(m.decided))
	for k, v := range m.decided {
		decided[k] = slices.Clone(v)
	}
	sessions := make(map[int64]string, len(m.atsSessions))
	for k, v := range m.atsSessions {
		sessions[k] = v
	}
	m.mu.Unlock()
	waitFor(t, 2*time.Minute, "every ATS write of the ATS company settled", func() bool {
		var open, notes int
		mustScan(t, m.fx.st.SQL().QueryRow(`SELECT count(*) FILTER (WHERE status NOT IN ('done', 'failed', 'superseded')), count(*) FILTER (WHERE op = 'note')
			FROM ats_writes WHERE company_id = $1`, m.fx.atsCo.ID).Scan(&open, &notes))
		return open == 0 && notes >= len(sessions)
	})
	var failed int
	mustScan(t, m.fx.st.SQL().QueryRow(`SELECT count(*) FROM ats_writes WHERE company_id = $1 AND status <> 'done'`, m.fx.atsCo.ID).Scan(&failed))
	if failed != 0 {
		t.Errorf("%d writes to the ATS not done", failed)
	}
	time.Sleep(time.Second) // a late repeat would arrive now
	writes := m.ats.Writes()
	for applicant, id := range sessions {
		var notes []string
		var stages []string
		for _, w := range writes {
			if w.ATSType != models.ATSTypeA || w.ApplicantID != applicant {
				continue
			}
			if w.Field == "" {
				notes = append(notes, w.Note)
			} else {
				stages = append(stages, w.Value)
			}
		}
		var want []string
		for _, d := range decided[applicant] {
			want = append(want, fleetStage(d))
		}
		if len(notes) != 1 {
			t.Errorf("ATS applicant %d (session %s): %d notes written, want the report's once", applicant, id, len(notes))
		}
		if !slices.Equal(stages, want) {
			t.Errorf("ATS applicant %d (session %s): stages written %q, want each decision once, in order: %q", applicant, id, stages, want)
		}
		last := decided[applicant][len(decided[applicant])-1]
		if v, _ := m.ats.Field(models.ATSTypeA, applicant, "status"); v != fleetStage(last) {
			t.Errorf("ATS applicant %d: the ATS holds %q, the last decision is %s (%q)", applicant, v, last, fleetStage(last))
		}
		var stored string
		mustScan(t, m.fx.st.SQL().QueryRow(`SELECT decision FROM interview_sessions WHERE company_id = $1 AND id = $2`, m.fx.atsCo.ID, id).Scan(&stored))
		if stored != string(last) {
			t.Errorf("ATS applicant %d: recruitd holds decision %s, the last taken is %s", applicant, stored, last)
		}
	}
}

// setUpATSCompany adds the fleet's ATS company: ATS-A on the simulator at atsURL, not an HR
// suite, with decision stages, and the API key that drives it.
func setUpATSCompany(t *testing.T, fx *fleetFixture, atsURL, atsToken string) {
	t.Helper()
	ctx := t.Context()
	atsA := models.ATSTypeA
	fx.atsCo = &models.Company{Slug: "fleet-ats", Name: "Fleet ATS Co", ATSType: &atsA, DefaultJobStatus: models.JobStatusActive}
	if err := fx.st.CreateCompany(ctx, fx.atsCo); err != nil {
		t.Fatal(err)
	}
	if err := fx.st.DB().Model(fx.atsCo).Updates(map[string]any{"hr_suite_account": false, "decision_sync_fields": models.NewJSON(fleetDecisionPairs)}).Error; err != nil {
		t.Fatal(err)
	}
	if err := fx.st.SetATSCredentials(ctx, fx.atsCo.ID, fx.box, map[string]string{"baseUrl": atsURL, "restToken": atsToken}); err != nil {
		t.Fatal(err)
	}
	fx.atsKey, _ = apikey.Generate()
	if _, err := fx.st.CreateAPIKey(ctx, fx.atsCo.ID, "fleet-ats", fx.atsKey); err != nil {
		t.Fatal(err)
	}
}

// fleetIDP serves the identity provider the mcp replicas sign users in with; its client's
// callback is the mcp front's.
func fleetIDP(t *testing.T, mcpFront string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String()
	idp := &httptest.Server{Listener: ln, Config: &http.Server{Handler: devidp.New(issuer,
		devidp.Client{ID: "recruitd-mcp", Secret: fleetOIDCSecret, RedirectURIs: []string{mcpFront + "/oauth/callback"}}, devidp.DemoIdentities()),
		ReadHeaderTimeout: 10 * time.Second}}
	idp.Start()
	t.Cleanup(idp.Close)
	return issuer
}

// oauthToken makes the fleet company's recruiter (devidp.Member) and signs them in the way an
// MCP client does: registered and authorized through the front (mcp replica 0), the code
// exchanged on replica 1. It returns the access token.
func (f *fleet) oauthToken(fx *fleetFixture) string {
	t := f.t
	u, err := fx.st.EnsureUser(t.Context(), devidp.Member.Email, devidp.Member.Name, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := fx.st.EnsureMembership(t.Context(), fx.co.ID, u.ID, models.MembershipRoleRecruiter); err != nil {
		t.Fatal(err)
	}
	front, other := "http://127.0.0.1:"+f.mcps[0].port, "http://127.0.0.1:"+f.mcps[1].port
	clientID, code, verifier := oauthCode(t, front, "fleet")
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {oauthRedirect},
		"code_verifier": {verifier}, "resource": {front + "/mcp"}, "client_id": {clientID}}
	r := call(t, "POST", other+"/oauth/token", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, form.Encode())
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if r.status != 200 || json.Unmarshal([]byte(r.body), &tok) != nil || tok.AccessToken == "" {
		t.Fatalf("code exchange on mcp replica 1 = %d %s", r.status, r.body)
	}
	return tok.AccessToken
}

// decisions counts the decisions taken.
func (m *fleetMix) decisions() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, ds := range m.decided {
		n += len(ds)
	}
	return n
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mustScan ends the test when a check's query failed, so a query that cannot run never passes.
func mustScan(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
