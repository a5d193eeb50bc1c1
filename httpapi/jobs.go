package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/jobs"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Bounds of createJob, documented in api/openapi.yaml.
const (
	maxExternalJobID     = 128
	maxDescription       = 50_000
	maxTitle             = 200
	maxContext           = 5_000
	maxQuestions         = 50
	maxQuestionText      = 1_000
	maxAnswers           = 20
	maxAnswerText        = 200
	maxTagName           = 100
	maxTagInstructions   = 2_000
	defaultInterviewPage = 50
	maxInterviewPage     = 200
)

// externalJobIDRE keeps ids safe inside interviewer ids, URLs and workflow ids.
var externalJobIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`)

// CreateJobRequest is the body of POST /v1/api/createJob (spec: "Job (interviewer)").
type CreateJobRequest struct {
	ExternalJobID                 *string                     `json:"externalJobId"`
	JobDescription                *string                     `json:"jobDescription"`
	JobTitle                      *string                     `json:"jobTitle"`
	ExternalJobTitle              *string                     `json:"externalJobTitle"`
	AdditionalQuestions           []string                    `json:"additionalQuestions"`
	StructuredAdditionalQuestions []StructuredQuestionRequest `json:"structuredAdditionalQuestions"`
	IntelligentlyOrderQuestions   bool                        `json:"intelligentlyOrderQuestions"`
	AdditionalGenerationContext   *string                     `json:"additionalGenerationContext"`
	Active                        *bool                       `json:"active"`
}

// StructuredQuestionRequest is one item of structuredAdditionalQuestions.
type StructuredQuestionRequest struct {
	Question        *string  `json:"question"`
	Answers         []string `json:"answers"`
	TagName         *string  `json:"tagName"`
	TagInstructions *string  `json:"tagInstructions"`
}

// CreateJobResponse answers createJob.
type CreateJobResponse struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Payload string `json:"payload"`
}

func (r *CreateJobRequest) validate() error {
	var missing []string
	if blank(r.ExternalJobID) {
		missing = append(missing, "externalJobId")
	}
	if blank(r.JobDescription) {
		missing = append(missing, "jobDescription")
	}
	if len(missing) > 0 {
		return newError(http.StatusBadRequest, "MISSING_REQUIRED_FIELDS", "missing required fields: "+strings.Join(missing, ", "))
	}
	var f fieldErrors
	id := deref(r.ExternalJobID)
	f.maxLen("externalJobId", id, maxExternalJobID)
	if !externalJobIDRE.MatchString(id) {
		f.add("externalJobId may hold only letters, digits, '.', '_', ':' and '-', starting with a letter or digit")
	}
	f.maxLen("jobDescription", deref(r.JobDescription), maxDescription)
	f.maxLen("jobTitle", deref(r.JobTitle), maxTitle)
	f.maxLen("externalJobTitle", deref(r.ExternalJobTitle), maxTitle)
	f.maxLen("additionalGenerationContext", deref(r.AdditionalGenerationContext), maxContext)
	f.maxItems("additionalQuestions", len(r.AdditionalQuestions), maxQuestions)
	for i, q := range r.AdditionalQuestions {
		if strings.TrimSpace(q) == "" {
			f.add("additionalQuestions[%d] is empty", i)
		}
		f.maxLen(fmt.Sprintf("additionalQuestions[%d]", i), q, maxQuestionText)
	}
	f.maxItems("structuredAdditionalQuestions", len(r.StructuredAdditionalQuestions), maxQuestions)
	for i, q := range r.StructuredAdditionalQuestions {
		at := fmt.Sprintf("structuredAdditionalQuestions[%d]", i)
		if blank(q.Question) {
			f.add("%s.question is required", at)
		}
		f.maxLen(at+".question", deref(q.Question), maxQuestionText)
		f.maxItems(at+".answers", len(q.Answers), maxAnswers)
		for j, a := range q.Answers {
			if strings.TrimSpace(a) == "" {
				f.add("%s.answers[%d] is empty", at, j)
			}
			f.maxLen(fmt.Sprintf("%s.answers[%d]", at, j), a, maxAnswerText)
		}
		f.maxLen(at+".tagName", deref(q.TagName), maxTagName)
		f.maxLen(at+".tagInstructions", deref(q.TagInstructions), maxTagInstructions)
		if !blank(q.TagInstructions) && blank(q.TagName) {
			f.add("%s.tagInstructions needs a tagName", at)
		}
	}
	if len(r.AdditionalQuestions)+len(r.StructuredAdditionalQuestions) > maxQuestions {
		f.add("additionalQuestions and structuredAdditionalQuestions hold %d questions together; at most %d are allowed", len(r.AdditionalQuestions)+len(r.StructuredAdditionalQuestions), maxQuestions)
	}
	return f.err()
}

func (r *CreateJobRequest) options() models.GenerationOptions {
	o := models.GenerationOptions{
		AdditionalQuestions:         r.AdditionalQuestions,
		IntelligentlyOrderQuestions: r.IntelligentlyOrderQuestions,
		AdditionalGenerationContext: deref(r.AdditionalGenerationContext),
		Active:                      r.Active,
	}
	for _, q := range r.StructuredAdditionalQuestions {
		o.StructuredAdditionalQuestions = append(o.StructuredAdditionalQuestions, models.StructuredQuestion{
			Question: deref(q.Question), Answers: q.Answers, TagName: deref(q.TagName), TagInstructions: deref(q.TagInstructions),
		})
	}
	return o
}

func (s *server) createJob(c *gin.Context) {
	var req CreateJobRequest
	if err := decodeJSON(c, &req); err != nil {
		s.fail(c, err)
		return
	}
	if err := req.validate(); err != nil {
		s.fail(c, err)
		return
	}
	job, err := s.Jobs.Create(c.Request.Context(), jobs.NewJob{
		Company: company(c), ExternalID: deref(req.ExternalJobID), Title: deref(req.JobTitle), ExternalTitle: deref(req.ExternalJobTitle),
		Description: deref(req.JobDescription), Options: req.options(),
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, CreateJobResponse{
		Success: true,
		Message: "Job created; the interview is being generated. Poll GET /v1/api/interviewers/" + job.InterviewerID + " until status is ACTIVE or PAUSED (or FAILED, with generation.failureReason).",
		Payload: job.InterviewerID,
	})
}

// Interviewer is a job as the interviewer listing shows it.
type Interviewer struct {
	InterviewerID    string           `json:"interviewerId"`
	JobID            string           `json:"jobId"`
	ExternalJobID    string           `json:"externalJobId"`
	JobTitle         string           `json:"jobTitle"`
	ExternalJobTitle string           `json:"externalJobTitle"`
	Status           models.JobStatus `json:"status"`
	IsOpen           bool             `json:"isOpen"`
	Generation       Generation       `json:"generation"`
	CreatedAt        time.Time        `json:"createdAt"`
	UpdatedAt        time.Time        `json:"updatedAt"`
	Guide            *GuideResponse   `json:"guide,omitempty"`
}

// Generation is the state of a job's interview generation.
type Generation struct {
	State         string     `json:"state"` // GENERATING, COMPLETED or FAILED
	FailureReason *string    `json:"failureReason"`
	GeneratedAt   *time.Time `json:"generatedAt"`
}

// GuideResponse is a job's full interview guide.
type GuideResponse struct {
	Skills             []string            `json:"skills"`
	Intro              string              `json:"intro"`
	Outro              string              `json:"outro"`
	LearningObjectives []string            `json:"learningObjectives"`
	Questions          []QuestionResponse  `json:"questions"`
	GradingCriteria    []CriterionResponse `json:"gradingCriteria"`
}

// QuestionResponse is one question of a guide, in interview order.
type QuestionResponse struct {
	Position        int      `json:"position"`
	Text            string   `json:"text"`
	Source          string   `json:"source"`
	Skill           *string  `json:"skill"`
	Answers         []string `json:"answers,omitempty"`
	TagName         *string  `json:"tagName,omitempty"`
	TagInstructions *string  `json:"tagInstructions,omitempty"`
}

// CriterionResponse is one grading criterion of a guide.
type CriterionResponse struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// InterviewersResponse is a page of the interviewer listing.
type InterviewersResponse struct {
	Success      bool          `json:"success"`
	Interviewers []Interviewer `json:"interviewers"`
	NextCursor   *string       `json:"nextCursor"`
}

// InterviewerResponse is one interviewer with its guide.
type InterviewerResponse struct {
	Success     bool        `json:"success"`
	Interviewer Interviewer `json:"interviewer"`
}

func interviewerOf(j *models.Job) Interviewer {
	g := Generation{State: "COMPLETED", FailureReason: j.FailureReason, GeneratedAt: j.GeneratedAt}
	switch j.Status {
	case models.JobStatusGenerating:
		g.State = "GENERATING"
	case models.JobStatusFailed:
		g.State = "FAILED"
	}
	return Interviewer{
		InterviewerID: j.InterviewerID, JobID: j.ID.String(), ExternalJobID: j.ExternalID, JobTitle: j.Title,
		ExternalJobTitle: j.ExternalTitle, Status: j.Status, IsOpen: j.IsOpen, Generation: g,
		CreatedAt: j.CreatedAt.UTC(), UpdatedAt: j.UpdatedAt.UTC(),
	}
}

func (s *server) listInterviewers(c *gin.Context) {
	f := store.JobFilter{Limit: defaultInterviewPage, Cursor: c.Query("cursor")}
	if v := c.Query("status"); v != "" {
		st, err := models.ParseJobStatus(v)
		if err != nil {
			s.fail(c, newError(http.StatusBadRequest, "INVALID_FIELD", "status: "+err.Error()))
			return
		}
		f.Status = &st
	}
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxInterviewPage {
			s.fail(c, newError(http.StatusBadRequest, "INVALID_FIELD", fmt.Sprintf("limit must be an integer from 1 to %d", maxInterviewPage)))
			return
		}
		f.Limit = n
	}
	list, next, err := s.Store.ListJobs(c.Request.Context(), company(c).ID, f)
	if errors.Is(err, store.ErrBadCursor) {
		s.fail(c, newError(http.StatusBadRequest, "INVALID_FIELD", "cursor is not one this listing returned"))
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	resp := InterviewersResponse{Success: true, Interviewers: make([]Interviewer, 0, len(list))}
	for i := range list {
		resp.Interviewers = append(resp.Interviewers, interviewerOf(&list[i]))
	}
	if next != "" {
		resp.NextCursor = &next
	}
	c.JSON(http.StatusOK, resp)
}

var errNoInterviewer = newError(http.StatusNotFound, "INTERVIEWER_NOT_FOUND", "no interviewer with this id in your company")

func (s *server) getInterviewer(c *gin.Context) {
	co := company(c)
	j, err := s.Store.JobByInterviewerID(c.Request.Context(), co.ID, c.Param("interviewerId"))
	if errors.Is(err, store.ErrNotFound) {
		s.fail(c, errNoInterviewer)
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	out := interviewerOf(j)
	g, err := s.Store.Guide(c.Request.Context(), co.ID, j.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		s.fail(c, err)
		return
	default:
		out.Guide = guideResponse(g)
	}
	c.JSON(http.StatusOK, InterviewerResponse{Success: true, Interviewer: out})
}

func guideResponse(g *store.GuideView) *GuideResponse {
	r := &GuideResponse{
		Skills: nonNil(g.Guide.Skills), Intro: g.Guide.Intro, Outro: g.Guide.Outro, LearningObjectives: nonNil(g.Guide.LearningObjectives),
		Questions: make([]QuestionResponse, 0, len(g.Questions)), GradingCriteria: make([]CriterionResponse, 0, len(g.Criteria)),
	}
	for _, q := range g.Questions {
		r.Questions = append(r.Questions, QuestionResponse{
			Position: q.Position, Text: q.Text, Source: string(q.Source), Skill: q.Skill,
			Answers: q.Answers, TagName: q.TagName, TagInstructions: q.TagInstructions,
		})
	}
	for _, cr := range g.Criteria {
		r.GradingCriteria = append(r.GradingCriteria, CriterionResponse{Name: cr.Name, Description: cr.Description})
	}
	return r
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
