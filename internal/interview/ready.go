package interview

import (
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// Readiness is whether an invitation to a job may go out now.
type Readiness string

// Readiness values (JobReady).
const (
	// ReadyNow: the job's interview exists; the invitation goes out.
	ReadyNow Readiness = "ready"
	// ReadyLater: the interview is being generated, or could not be (no description, a failed
	// generation that a new description may fix): the invitation waits.
	ReadyLater Readiness = "wait"
	// ReadyNever: the job is deleted, closed, or was paused while the invitation waited: nothing
	// is sent.
	ReadyNever Readiness = "stop"
)

// Reasons an invitation is not sent (an application's status, a run's outcome reason, a partner
// callback's reason).
const (
	NotSentJobNotReady = "job_not_ready"
	NotSentJobClosed   = "job_closed"
	NotSentJobPaused   = "job_paused"
	NotSentJobDeleted  = "job_deleted"
)

// JobReady decides whether an invitation to r's job may be sent: code is one of the NotSent
// reasons (or "" when ready) and detail says why in words. waited says the invitation has
// waited already: a job paused while it waited stops it, while a job that was paused and ready
// when the invitation first looked keeps today's rule (the customer's flow decides).
func JobReady(r *store.JobReadiness, waited bool) (state Readiness, code, detail string) {
	j := &r.Job
	switch {
	case j.IsDeleted:
		return ReadyNever, NotSentJobDeleted, "the job was deleted"
	case !j.IsOpen:
		return ReadyNever, NotSentJobClosed, "the job is closed for applications"
	case r.Questions > 0 && j.Status == models.JobStatusPaused && waited:
		return ReadyNever, NotSentJobPaused, "the job was paused while the invitation waited for its interview"
	case r.Questions > 0 && (j.Status == models.JobStatusActive || j.Status == models.JobStatusPaused):
		return ReadyNow, "", ""
	case j.Status == models.JobStatusFailed && j.FailureReason != nil:
		return ReadyLater, NotSentJobNotReady, "the job's interview could not be generated: " + *j.FailureReason
	case j.Status == models.JobStatusGenerating:
		return ReadyLater, NotSentJobNotReady, "the job's interview is being generated"
	}
	return ReadyLater, NotSentJobNotReady, "the job has no interview questions"
}
