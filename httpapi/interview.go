package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/httpapi/interviewpage"
	"github.com/recruitd/recruitd/internal/clientip"
	"github.com/recruitd/recruitd/internal/identity"
	"github.com/recruitd/recruitd/internal/interview"
	"github.com/recruitd/recruitd/internal/store"
)

// The candidate's interview page at the invitation's link (docs/interviews.md). The link token
// is the credential: the page is never cached, never framed, sends no referrer, runs only our
// own script, and the token never reaches a log (the access log names the route, not the path).
// Every form posts and is answered 303 to the page (a reload never sends an answer again).

// maxFormBytes bounds a page form's body: an answer of interview.MaxAnswerBytes, escaped.
const maxFormBytes = 4*interview.MaxAnswerBytes + 1024

// pageCSP allows the page's own stylesheet, script and forms, and nothing else.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// pageHeaders are the headers of every candidate-page answer.
func pageHeaders(h http.Header) {
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), interest-cohort=()")
}

// limitInterview spends one token of the client address's and of the link's buckets; over
// either, the candidate gets the busy screen with 429 and Retry-After.
func (s *server) limitInterview(c *gin.Context) {
	pageHeaders(c.Writer.Header())
	ctx := c.Request.Context()
	sum := sha256.Sum256([]byte(c.Param("token"))) // the bucket's key is not the credential itself
	// Per address, then per link, in one round trip to the fleet's buckets.
	ok, wait := s.interviewAddrLimits.AllowThen(ctx, clientip.Of(c.Request, s.proxies), s.interviewLimits, hex.EncodeToString(sum[:16]))
	if !ok {
		c.Header("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
		s.renderPage(c, http.StatusTooManyRequests, interviewpage.Data{Screen: interviewpage.ScreenBusy})
		c.Abort()
		return
	}
	c.Next()
}

// getInterview shows the session's current screen.
func (s *server) getInterview(c *gin.Context) {
	token := c.Param("token")
	p, err := s.Interviews.Open(c.Request.Context(), interview.ByToken(token))
	s.showInterview(c, token, p, err, interviewpage.Data{})
}

// postInterviewConsent accepts the notice and starts the interview.
func (s *server) postInterviewConsent(c *gin.Context) {
	if !s.readInterviewForm(c) {
		return
	}
	token := c.Param("token")
	s.afterPost(c, token, s.Interviews.Consent(c.Request.Context(), interview.ByToken(token)))
}

// postInterviewDecline declines the notice.
func (s *server) postInterviewDecline(c *gin.Context) {
	if !s.readInterviewForm(c) {
		return
	}
	token := c.Param("token")
	s.afterPost(c, token, s.Interviews.Decline(c.Request.Context(), interview.ByToken(token)))
}

// getInterviewVerify starts the identity check and sends the candidate to the provider's page
// (a link, not a form: the page's CSP lets forms post to this origin only), which sends them
// back to a single-use address that redirects to the interview once (getIdentityReturn).
func (s *server) getInterviewVerify(c *gin.Context) {
	token := c.Param("token")
	back := s.Config.Links().IdentityReturnBase()
	u, err := s.Interviews.VerifyIdentity(c.Request.Context(), interview.ByToken(token), back)
	switch {
	case err == nil && u != "":
		c.Redirect(http.StatusSeeOther, u)
	case err == nil || errors.Is(err, interview.ErrUnknownLink):
		s.afterPost(c, token, err)
	default:
		s.Log.WarnContext(c.Request.Context(), "identity check not started", "request_id", requestID(c), "err", err)
		p, oerr := s.Interviews.Open(c.Request.Context(), interview.ByToken(token))
		s.showInterview(c, token, p, oerr, interviewpage.Data{Notice: interviewpage.NoticeIdentityUnavailable}, http.StatusServiceUnavailable)
	}
}

// identityCheck adapts internal/identity to the interview's IdentityCheck.
type identityCheck struct{ v *identity.Verifications }

func (i identityCheck) Begin(ctx context.Context, companyID, sessionID uuid.UUID, returnURL string) (string, error) {
	st, err := i.v.Start(ctx, companyID, sessionID, returnURL)
	return st.URL, err
}

// postInterviewAnswer stores an answer: fields turn (the question it answers), answer, and
// signals (the page script's report on how the answer was written, internal/pagesignal).
func (s *server) postInterviewAnswer(c *gin.Context) {
	if !s.readInterviewForm(c) {
		return
	}
	token := c.Param("token")
	form := c.Request.PostForm
	seq, err := turnField(form.Get("turn"))
	if err != nil || seq < 1 || len(form["turn"]) != 1 || len(form["answer"]) > 1 || len(form["signals"]) > 1 {
		s.renderPage(c, http.StatusBadRequest, interviewpage.Data{Screen: interviewpage.ScreenFailed, Notice: interviewpage.NoticeFormTampered})
		return
	}
	answer := form.Get("answer")
	err = s.Interviews.Answer(c.Request.Context(), interview.ByToken(token), seq, answer, []byte(form.Get("signals")))
	var bad *interview.AnswerError
	switch {
	case errors.As(err, &bad):
		// The same question again, with the refusal and what was typed (when it is text).
		p, oerr := s.Interviews.Open(c.Request.Context(), interview.ByToken(token))
		draft := ""
		if !errors.Is(bad, interview.ErrInvalidText) && !errors.Is(bad, interview.ErrAnswerTooLong) {
			draft = answer
		}
		s.showInterview(c, token, p, oerr, interviewpage.Data{Error: refusal(bad), Draft: draft}, http.StatusUnprocessableEntity)
	case errors.Is(err, interview.ErrAnswerConflict):
		p, oerr := s.Interviews.Open(c.Request.Context(), interview.ByToken(token))
		s.showInterview(c, token, p, oerr, interviewpage.Data{Notice: interviewpage.NoticeAlreadyAnswered}, http.StatusConflict)
	case errors.Is(err, interview.ErrInterviewClosed):
		p, oerr := s.Interviews.Open(c.Request.Context(), interview.ByToken(token))
		notice := interviewpage.NoticeClosed
		if oerr == nil && p.Stage == interview.StageConsent {
			notice = interviewpage.NoticeConsentFirst
		}
		s.showInterview(c, token, p, oerr, interviewpage.Data{Notice: notice}, http.StatusConflict)
	default:
		s.afterPost(c, token, err)
	}
}

// turnField parses the answer form's turn as the OpenAPI has it: decimal digits only (no sign,
// no spaces), at most 9 of them.
func turnField(s string) (int, error) {
	if s == "" || len(s) > 9 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, strconv.ErrSyntax
	}
	return strconv.Atoi(s)
}

// refusal is the text a refused answer shows.
func refusal(err *interview.AnswerError) interviewpage.Key {
	switch {
	case errors.Is(err, interview.ErrEmptyAnswer):
		return interviewpage.ErrorEmpty
	case errors.Is(err, interview.ErrAnswerTooLong):
		return interviewpage.ErrorTooLong
	case errors.Is(err, interview.ErrInvalidText):
		return interviewpage.ErrorInvalidText
	case errors.Is(err, interview.ErrNotAChoice):
		return interviewpage.ErrorNotAChoice
	default:
		return interviewpage.ErrorOther
	}
}

// readInterviewForm reads a page form (application/x-www-form-urlencoded, at most maxFormBytes)
// into c.Request.PostForm; a wrong type, a larger body or a malformed one gets its page and
// false. Nothing is stored from a refused form.
func (s *server) readInterviewForm(c *gin.Context) bool {
	ct := strings.ToLower(strings.TrimSpace(strings.Split(c.ContentType(), ";")[0]))
	if ct != "application/x-www-form-urlencoded" {
		s.renderPage(c, http.StatusUnsupportedMediaType, interviewpage.Data{Screen: interviewpage.ScreenFailed, Notice: interviewpage.NoticeFormType})
		return false
	}
	if c.Request.ContentLength > maxFormBytes {
		c.Header("Connection", "close")
		s.renderPage(c, http.StatusRequestEntityTooLarge, interviewpage.Data{Screen: interviewpage.ScreenFailed, Notice: interviewpage.NoticeTooLarge})
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxFormBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		c.Header("Connection", "close")
		s.renderPage(c, http.StatusRequestEntityTooLarge, interviewpage.Data{Screen: interviewpage.ScreenFailed, Notice: interviewpage.NoticeTooLarge})
		return false
	}
	form, perr := url.ParseQuery(string(body))
	if err != nil || perr != nil {
		s.renderPage(c, http.StatusBadRequest, interviewpage.Data{Screen: interviewpage.ScreenFailed, Notice: interviewpage.NoticeUnreadable})
		return false
	}
	c.Request.PostForm = form
	return true
}

// afterPost answers a form that was taken with 303 to the page; a link that opens nothing
// gets the unknown screen.
func (s *server) afterPost(c *gin.Context, token string, err error) {
	if err != nil {
		s.showInterview(c, token, nil, err, interviewpage.Data{})
		return
	}
	c.Redirect(http.StatusSeeOther, "/interview/"+url.PathEscape(token))
}

// showInterview renders the screen of prompt p (status 200 unless given), or the screen of err: 404 for a link that
// opens nothing (the same page whether or not the token exists), 503 with Retry-After while the
// database is unavailable, 500 for ours.
func (s *server) showInterview(c *gin.Context, token string, p *interview.Prompt, err error, d interviewpage.Data, status ...int) {
	switch {
	case errors.Is(err, interview.ErrUnknownLink):
		s.renderPage(c, http.StatusNotFound, interviewpage.Data{Screen: interviewpage.ScreenUnknown})
		return
	case store.Unavailable(c.Request.Context(), err):
		s.Log.WarnContext(c.Request.Context(), "interview page: database unavailable", "request_id", requestID(c), "err", err)
		c.Header("Retry-After", strconv.Itoa(errDatabaseDown.retryAfter))
		s.renderPage(c, http.StatusServiceUnavailable, interviewpage.Data{Screen: interviewpage.ScreenFailed, Notice: interviewpage.NoticeUnavailable})
		return
	case err != nil:
		s.Log.ErrorContext(c.Request.Context(), "interview page failed", "request_id", requestID(c), "err", err)
		s.renderPage(c, http.StatusInternalServerError, interviewpage.Data{Screen: interviewpage.ScreenFailed})
		return
	}
	d.Prompt, d.Token = p, token
	code := http.StatusOK
	if len(status) == 1 {
		code = status[0]
	}
	s.renderPage(c, code, d)
}

// renderPage writes one screen.
func (s *server) renderPage(c *gin.Context, status int, d interviewpage.Data) {
	pageHeaders(c.Writer.Header())
	c.Status(status)
	c.Header("Content-Type", "text/html; charset=utf-8")
	if err := s.Page.Render(c.Writer, d); err != nil {
		s.Log.ErrorContext(c.Request.Context(), "interview page not rendered", "request_id", requestID(c), "err", err)
	}
}

// interviewAsset serves the page's stylesheet and script under their hashed names.
func (s *server) interviewAsset(c *gin.Context) {
	a, ok := s.Page.Asset(c.Param("name"))
	if !ok {
		s.fail(c, errNoRoute)
		return
	}
	c.Header("Cache-Control", "public, max-age=31536000, immutable")
	c.Data(http.StatusOK, a.ContentType, a.Body)
}
