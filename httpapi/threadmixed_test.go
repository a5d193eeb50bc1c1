package httpapi_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/report"
	"github.com/recruitd/recruitd/models"
)

// longTextAnswer is a reply of about 450 characters: typed on a phone it takes minutes.
const longTextAnswer = "For example, at my last job I ran the on-call rotation for our payments team of six engineers. " +
	"When an outage hit during the holiday sale I coordinated the rollback, wrote the incident report the same night " +
	"and then moved our deploys behind feature flags, which reduced failed releases by sixty percent over the next quarter. " +
	"I also trained two new engineers on the runbooks and we cut the mean time to recovery from forty minutes to twelve."

// pendingTurn is the seq of the session's question awaiting an answer (0 when none).
func (f *fixture) pendingTurn(t *testing.T, session uuid.UUID) int {
	t.Helper()
	var seq int
	f.st.DB().Raw(`SELECT coalesce(max(seq), 0) FROM interview_turns WHERE company_id = ? AND session_id = ? AND answer IS NULL`, f.acme.ID, session).Scan(&seq)
	return seq
}

// textAnswerTo is what the candidate texts to the thread's last message: the first option of a
// numbered question, else a long answer.
func textAnswerTo(got string) string {
	if strings.Contains(got, "1. Yes") {
		return "1"
	}
	return longTextAnswer
}

// TestTextInterviewPartlyOnThePage: one session taken partly in the SMS thread (signed webhooks
// through the Twilio simulator) and partly on the web page of the same session's link. It ends
// COMPLETED with one report whose transcript records each answer's channel; a question answered
// by text while the page showed it counts once (the page's later answer is a conflict). The
// thread's timings are its integrity signals: a long reply seconds after its question is
// flagged, the same reply minutes after is not, and the report's integrity section counts them.
// The histories of the runs hold no text of the thread and no phone number.
func TestTextInterviewPartlyOnThePage(t *testing.T) {
	f, sim := smsFixture(t)
	if err := f.st.DB().Model(f.acme).Update("model_cheat_detection_enabled", true).Error; err != nil {
		t.Fatal(err)
	}
	const phone = "+14155550142"
	session := f.inviteByText(t, "sms-mixed", phone)
	await(t, 30*time.Second, "the SMS invitation", func() bool { return len(sim.Messages(phone)) > 0 })
	sess, err := f.st.Session(t.Context(), f.acme.ID, session)
	if err != nil {
		t.Fatal(err)
	}
	page := &candidate{f: f, path: "/interview/" + sess.LinkToken}

	if got := say(t, sim, phone, "YES"); !strings.Contains(got, "Question 1") {
		t.Fatalf("after YES: %q, want the first question", got)
	}
	// Question 1 by text, a long reply at once.
	fast := f.pendingTurn(t, session)
	got := say(t, sim, phone, longTextAnswer)
	// Question 2 by text, the same length after the candidate thought for three minutes (the
	// question's send moves back in time).
	normal := f.pendingTurn(t, session)
	if normal <= fast {
		t.Fatalf("after the first answer the pending turn is %d: %q", normal, got)
	}
	if n := f.st.DB().Exec(`UPDATE interview_thread_signals SET sent_at = sent_at - interval '3 minutes'
		WHERE company_id = ? AND session_id = ? AND seq = ? AND received_at IS NULL`, f.acme.ID, session, normal).RowsAffected; n != 1 {
		t.Fatalf("the thread recorded no send of question %d (%d rows)", normal, n)
	}
	say(t, sim, phone, textAnswerTo(got))

	// The next question on the page.
	p := page.get(t)
	onPage, _ := strconv.Atoi(turnOf(t, p))
	answer := "I would start by asking the team what slows them down, then fix the biggest problem first."
	if m := choiceRE.FindStringSubmatch(p.body); m != nil {
		answer = m[1]
	}
	if p = page.post(t, "answer", url.Values{"turn": {strconv.Itoa(onPage)}, "answer": {answer}}); p.status != http.StatusOK {
		t.Fatalf("the page's answer = %d", p.status)
	}
	// The page shows the next question; the candidate answers it by text, then sends the page's
	// form too: the text counts, the page's answer is refused as answered already.
	both, _ := strconv.Atoi(turnOf(t, page.get(t)))
	got = say(t, sim, phone, longTextAnswer)
	if r := page.post(t, "answer", url.Values{"turn": {strconv.Itoa(both)}, "answer": {"Yes"}}); r.status != http.StatusConflict {
		t.Errorf("the page's answer to a question answered by text = %d, want 409", r.status)
	}

	// The rest by text.
	for i := 0; !(strings.Contains(got, "Thank") && !strings.Contains(got, "?")); i++ {
		if i == 30 {
			t.Fatalf("no end after 30 messages; last: %q", got)
		}
		got = say(t, sim, phone, textAnswerTo(got))
	}
	f.completedWithOneReport(t, f.acme, f.acmeKey, session)

	var stored []models.InterviewTurn
	f.st.DB().Where("company_id = ? AND session_id = ?", f.acme.ID, session).Order("seq").Find(&stored)
	channelOf := map[int]models.AnswerChannel{}
	for _, tu := range stored {
		if tu.Answer == nil || tu.Channel == nil {
			t.Fatalf("turn %d: answer %v channel %v, want both", tu.Seq, tu.Answer != nil, tu.Channel)
		}
		channelOf[tu.Seq] = *tu.Channel
		if tu.Seq == both && (*tu.Answer != longTextAnswer || *tu.Channel != models.AnswerChannelSMS) {
			t.Errorf("turn %d answered on both surfaces holds %q by %s, want the text's answer once", tu.Seq, *tu.Answer, *tu.Channel)
		}
	}

	// The report: the transcript's channels, and the integrity section once the evaluation is in.
	var rep *report.Report
	await(t, 30*time.Second, "the report's integrity section", func() bool {
		r := f.send(t, http.MethodGet, "/v1/api/sessions/"+session.String()+"/report", f.acmeKey, nil)
		if r.StatusCode != http.StatusOK {
			r.Body.Close()
			return false
		}
		rep = decode[httpapi.SessionReportResponse](t, r).Report
		return rep.Integrity != nil
	})
	if len(rep.Transcript) != len(stored) {
		t.Fatalf("the report's transcript has %d turns, the session %d", len(rep.Transcript), len(stored))
	}
	for _, tu := range rep.Transcript {
		want := models.AnswerChannelSMS
		if tu.Seq == onPage {
			want = models.AnswerChannelWeb
		}
		if !tu.Answered || tu.Channel == nil || *tu.Channel != want || *tu.Channel != channelOf[tu.Seq] || tu.AnsweredAt == nil {
			t.Errorf("transcript turn %d: answered %v channel %v, want %s", tu.Seq, tu.Answered, tu.Channel, want)
		}
		thread := slices.Contains(tu.Signals, "fastThreadReply")
		switch {
		case tu.Seq == fast && !thread:
			t.Errorf("the long reply seconds after question %d raised %v, want fastThreadReply", tu.Seq, tu.Signals)
		case tu.Seq == normal && len(tu.Signals) > 0:
			t.Errorf("the long reply minutes after question %d raised %v, want nothing", tu.Seq, tu.Signals)
		}
	}
	in := rep.Integrity
	if in.Signals["fastThreadReply"] < 1 || in.FlaggedAnswers[models.AnswerChannelSMS] < 1 || in.Answers[models.AnswerChannelWeb] != 1 ||
		in.Answers[models.AnswerChannelSMS] != len(stored)-1 || in.CheatingScore <= 0 || in.Rules != "answer-signals/3" {
		t.Errorf("integrity = %+v, want the fast text reply counted and %d answers by text, 1 on the page", in, len(stored)-1)
	}
	// The MCP tools read the same evaluation.
	var score float64
	f.st.DB().Raw(`SELECT cheating_score FROM cheating_evaluations WHERE company_id = ? AND session_id = ?`, f.acme.ID, session).Scan(&score)
	if score != in.CheatingScore {
		t.Errorf("cheating_evaluations holds %v, the report %v", score, in.CheatingScore)
	}
	// Another company reaches neither the report nor its sections.
	if r := f.send(t, http.MethodGet, "/v1/api/sessions/"+session.String()+"/report", f.otherKy, nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("another company's report request = %d, want 404", r.StatusCode)
	} else {
		r.Body.Close()
	}
	f.scanThreadHistories(t, sim, phone, session, 3)
}
