package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/api"
	"github.com/recruitd/recruitd/httpapi/interviewpage"
	"github.com/recruitd/recruitd/internal/health"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/models"
)

// routes is the whole REST surface. api/openapi.yaml documents exactly these routes (a test
// compares the two).
func (s *server) routes(r *gin.Engine) {
	r.GET("/healthz", gin.WrapF(health.Live))
	r.GET("/readyz", gin.WrapF(s.Health.Ready))
	r.GET("/openapi.yaml", func(c *gin.Context) { c.Data(http.StatusOK, "application/yaml", api.OpenAPI) })

	// Each route names the API key scope it needs (docs/authentication.md).
	v1 := r.Group("/v1/api", s.authenticate)
	v1.GET("/company", s.getCompany)
	v1.POST("/createJob", s.require(models.ScopeJobs), s.createJob)
	v1.GET("/interviewers", s.require(models.ScopeJobs), s.listInterviewers)
	v1.GET("/interviewers/:interviewerId", s.require(models.ScopeJobs), s.getInterviewer)
	v1.POST("/inviteCandidate", s.require(models.ScopeInvitations), s.inviteCandidate)
	v1.GET("/sessions/:sessionId/report", s.require(models.ScopeReports), s.getSessionReport)
	v1.PUT("/sessions/:sessionId/decision", s.require(models.ScopeDecisions), s.putSessionDecision)
	v1.POST("/sessions/:sessionId/cancel", s.require(models.ScopeInvitations), s.cancelSession)
	v1.GET("/workflows/:trigger", s.require(models.ScopeWorkflows), s.getFlow)
	v1.PUT("/workflows/:trigger", s.require(models.ScopeWorkflows), s.putFlow)
	v1.GET("/integrations/hrsuite", s.require(models.ScopeIntegrations), s.getIntegration)
	v1.POST("/integrations/hrsuite/connect", s.require(models.ScopeIntegrations), s.requireAggregatorAccount, s.connectIntegration)

	v2 := r.Group("/v2/api", s.authenticate)
	v2.POST("/partner-applications", s.require(models.ScopePartnerApplications), s.submitPartnerApplication)
	v2.POST("/assessment-links", s.require(models.ScopeAssessmentLinks), s.pushAssessmentLink)

	// The HR suite's report deliveries: the company's key, under a path with no version segment.
	r.POST(hrsuitePath, s.authenticate, s.require(models.ScopeHRSuiteWebhook), s.requireHRSuiteAccount, s.hrsuiteWebhook)

	// Support staff, with a platform admin's support token (not a company key).
	sup := r.Group("/v1/support", s.authenticateSupport)
	sup.GET("/hrsuite/deliveries", s.listHRSuiteDeliveries)
	sup.GET("/hrsuite/deliveries/:deliveryId", s.getHRSuiteDelivery)
	sup.POST("/hrsuite/replays", s.replayHRSuite)
	sup.GET("/hrsuite/replays/:replayId", s.getHRSuiteReplay)

	// The candidate's interview page: the link's token is the credential (httpapi/interview.go).
	r.GET("/interview/:token", s.limitInterview, s.getInterview)
	r.POST("/interview/:token/consent", s.limitInterview, s.postInterviewConsent)
	r.POST("/interview/:token/decline", s.limitInterview, s.postInterviewDecline)
	r.POST("/interview/:token/answer", s.limitInterview, s.postInterviewAnswer)
	r.GET("/interview/:token/verify", s.limitInterview, s.getInterviewVerify)
	r.GET("/interview/identity-return/:token", s.limitInterview, s.getIdentityReturn)
	r.GET(interviewpage.AssetPrefix+":name", s.interviewAsset)

	// Where recruiter links open while no web app is configured (APP_URL), and the documentation
	// the tool server cites (internal/links).
	r.GET(links.RecruiterPrefix+"/sessions/:id", s.recruiterLink(links.KindSession))
	r.GET(links.RecruiterPrefix+"/candidates/:id", s.recruiterLink(links.KindCandidate))
	r.GET(links.RecruiterPrefix+"/jobs/:id", s.recruiterLink(links.KindJob))
	r.GET("/docs/:name", s.doc)

	// Signed with the integration's Standard Webhooks secret, not an API key.
	r.POST("/webhook/aggregator", s.aggregatorWebhook)
	r.POST("/webhook/twilio/messages", s.twilioMessages) // signed with TWILIO_AUTH_TOKEN
	r.POST("/webhook/twilio/status", s.twilioStatus)     // signed with TWILIO_AUTH_TOKEN
	r.POST("/webhook/idverify", s.idverifyWebhook)       // signed with IDV_WEBHOOK_SECRET

	r.NoRoute(func(c *gin.Context) { s.fail(c, errNoRoute) })
	r.NoMethod(func(c *gin.Context) { s.fail(c, errNoMethod) })
}
