package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/assessments"
)

// AssessmentLinkResponse answers an accepted push, whether or not the application is managed.
type AssessmentLinkResponse struct {
	Success bool `json:"success"`
}

// Bounds of an assessment-link push (docs/assessment-links.md).
const (
	maxAssessmentID  = 128
	maxAssessmentURL = 2048
)

// assessmentFields are the fields of the draft contract; anything else is refused, so that an
// integration sending personal data or report fields learns it at once.
var assessmentFields = []string{"applicationId", "assessmentUrl", "candidateId", "jobId", "orderId"}

// assessmentPush is a validated push.
type assessmentPush struct {
	applicationID, url, candidateID, jobID, orderID string
}

// parseAssessmentPush validates a push body: an object of the contract's fields only, each a
// string (null counts as absent); applicationId and assessmentUrl present. Messages name fields,
// never values: a rejected body may hold personal data and is neither stored nor logged.
func parseAssessmentPush(body map[string]json.RawMessage) (*assessmentPush, error) {
	var unknown []string
	for k := range body {
		if !slices.Contains(assessmentFields, k) {
			unknown = append(unknown, fieldName(k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		if len(unknown) > 10 {
			unknown = append(unknown[:10], fmt.Sprintf("and %d more", len(unknown)-10))
		}
		return nil, newError(http.StatusBadRequest, "UNKNOWN_FIELDS", "fields outside the contract: "+strings.Join(unknown, ", ")+
			"; send only "+strings.Join(assessmentFields, ", ")+", and no names, contacts, scores or report data")
	}
	var f fieldErrors
	str := func(name string) string {
		raw, ok := body[name]
		if !ok || string(raw) == "null" {
			return ""
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			f.add("%s must be a string", name)
			return ""
		}
		return v
	}
	p := &assessmentPush{
		applicationID: strings.TrimSpace(str("applicationId")), url: str("assessmentUrl"),
		candidateID: strings.TrimSpace(str("candidateId")), jobID: strings.TrimSpace(str("jobId")), orderID: strings.TrimSpace(str("orderId")),
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	var missing []string
	if p.applicationID == "" {
		missing = append(missing, "applicationId")
	}
	if strings.TrimSpace(p.url) == "" {
		missing = append(missing, "assessmentUrl")
	}
	if len(missing) > 0 {
		return nil, newError(http.StatusBadRequest, "MISSING_REQUIRED_FIELDS", "missing required fields: "+strings.Join(missing, ", "))
	}
	for _, fv := range []struct{ name, v string }{
		{"applicationId", p.applicationID}, {"candidateId", p.candidateID}, {"jobId", p.jobID}, {"orderId", p.orderID},
	} {
		f.maxLen(fv.name, fv.v, maxAssessmentID)
		if hasControl(fv.v) {
			f.add("%s may not contain control characters", fv.name)
		}
	}
	if problem := checkAssessmentURL(p.url); problem != "" {
		f.add("assessmentUrl %s", problem)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	return p, nil
}

// checkAssessmentURL says what is wrong with a link ("" when nothing): it must be an absolute
// https URL with a host and without user info, at most maxAssessmentURL bytes, with no spaces,
// control or invisible formatting characters such as bidi overrides (it is delivered verbatim,
// in e-mail and SMS, where those could disguise it).
func checkAssessmentURL(s string) string {
	if len(s) > maxAssessmentURL {
		return fmt.Sprintf("is longer than %d bytes", maxAssessmentURL)
	}
	if strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError
	}) >= 0 {
		return "may not contain spaces, control or invisible formatting characters"
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || !u.IsAbs():
		return "must be an absolute https URL"
	case u.Scheme != "https":
		return "must use https"
	case u.Opaque != "" || u.Hostname() == "":
		return "must be an absolute https URL with a host"
	case u.User != nil:
		return "may not carry user info (user:password@)"
	}
	return ""
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) >= 0
}

// fieldName shows an unknown field's name in a message, cut short: it is the caller's text.
func fieldName(k string) string {
	k = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, k)
	if utf8.RuneCountInString(k) > 40 {
		k = string([]rune(k)[:40]) + "…"
	}
	return fmt.Sprintf("%q", k)
}

// pushAssessmentLink validates the push (400) and records it (internal/assessments): found in
// the key's company and recorded for delivery, held in case its application is ingested, or
// discarded; each is answered 200, as the draft contract asks.
func (s *server) pushAssessmentLink(c *gin.Context) {
	received := time.Now().UTC()
	var body map[string]json.RawMessage
	if err := decodeJSON(c, &body); err != nil {
		s.fail(c, err)
		return
	}
	push, err := parseAssessmentPush(body)
	if err != nil {
		s.fail(c, err)
		return
	}
	if _, err := s.Assessments.Record(c.Request.Context(), assessments.Push{
		Company: company(c), ApplicationID: push.applicationID, URL: push.url, CandidateID: push.candidateID, JobID: push.jobID,
		OrderID: push.orderID, ReceivedAt: received, RequestID: requestID(c),
	}); err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, AssessmentLinkResponse{Success: true})
}
