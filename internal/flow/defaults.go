package flow

import (
	"fmt"

	"github.com/recruitd/recruitd/models"
)

// defaultDefinitions are the JSON documents of Defaults, written as a tenant would.
var defaultDefinitions = map[models.FlowTrigger]string{
	// Screen, invite, tell the partner, then keep the run open while the candidate interviews.
	models.TriggerPartnerApplication: `{
  "trigger": "partner_application",
  "enabled": true,
  "name": "Partner applicants: screen, invite, call back",
  "steps": [
    {"id": "contact", "type": "condition", "condition": {
      "any": [{"field": "candidate.email", "op": "exists"}, {"field": "candidate.phone", "op": "exists"}],
      "onFalse": {"outcome": "not_eligible", "reason": "no_contact_details"}}},
    {"id": "job-open", "type": "condition", "condition": {
      "all": [{"field": "job.isOpen", "op": "eq", "value": true}, {"field": "job.status", "op": "eq", "value": "ACTIVE"}],
      "onFalse": {"outcome": "not_eligible", "reason": "job_not_open"}}},
    {"id": "invite", "type": "invite", "invite": {"channels": ["email", "sms"], "mediumType": "VIDEO", "template": "default"}},
    {"id": "callback", "type": "partner_callback", "partner_callback": {"status": "invited"}},
    {"id": "interview", "type": "wait_for_session", "wait_for_session": {"timeout": "72h", "onTimeout": {"outcome": "stop"}}}
  ]
}`,
	// The webhook already drops do-not-hire applications; the condition keeps that rule visible
	// and enforced when the definition is edited. SMS first: report rows usually carry a mobile.
	models.TriggerNewApplicationWebhook: `{
  "trigger": "new_application_webhook",
  "enabled": true,
  "name": "HR-suite applications: invite by SMS, then e-mail",
  "steps": [
    {"id": "hireable", "type": "condition", "condition": {
      "all": [{"field": "application.doNotHire", "op": "eq", "value": false}],
      "onFalse": {"outcome": "stop", "reason": "do_not_hire"}}},
    {"id": "job-open", "type": "condition", "condition": {
      "all": [{"field": "job.isOpen", "op": "eq", "value": true}],
      "onFalse": {"outcome": "stop", "reason": "job_not_open"}}},
    {"id": "invite", "type": "invite", "invite": {"channels": ["sms", "email"], "mediumType": "VIDEO", "template": "default"}}
  ]
}`,
	// An application synced from the ATS: invite only while the ATS still has it in process
	// (not hired, declined or deleted there) and the job is open; e-mail first, as ATS records
	// usually carry one.
	models.TriggerNewApplicationATS: `{
  "trigger": "new_application_ats",
  "enabled": true,
  "name": "ATS applications: invite by e-mail, then SMS",
  "steps": [
    {"id": "in-process", "type": "condition", "condition": {
      "all": [{"field": "application.status", "op": "eq", "value": "new"}],
      "onFalse": {"outcome": "stop", "reason": "decided_in_ats"}}},
    {"id": "job-open", "type": "condition", "condition": {
      "all": [{"field": "job.isOpen", "op": "eq", "value": true}],
      "onFalse": {"outcome": "stop", "reason": "job_not_open"}}},
    {"id": "invite", "type": "invite", "invite": {"channels": ["email", "sms"], "mediumType": "VIDEO", "template": "default"}}
  ]
}`,
	// A recruiter asked for this invite: no screening.
	models.TriggerManualInvite: `{
  "trigger": "manual_invite",
  "enabled": true,
  "name": "Manual invite",
  "steps": [
    {"id": "invite", "type": "invite", "invite": {"channels": ["email", "sms"], "mediumType": "VIDEO", "template": "default"}}
  ]
}`,
	// Open jobs keep the company's default job status; a job imported closed for applications
	// is paused so that nobody is invited to it.
	models.TriggerNewJobFromATS: `{
  "trigger": "new_job_from_ats",
  "enabled": true,
  "name": "ATS jobs: pause closed jobs",
  "steps": [
    {"id": "closed", "type": "condition", "condition": {
      "all": [{"field": "job.isOpen", "op": "eq", "value": false}],
      "onFalse": {"outcome": "stop", "reason": "job_open"}}},
    {"id": "pause", "type": "set_status", "set_status": {"target": "job", "status": "PAUSED"}}
  ]
}`,
}

// Defaults returns a new enabled definition for every trigger, the workflows of the demo tenant
// and a starting point for others:
//
//   - partner_application: not_eligible without an e-mail address or phone number, or when the
//     job is not open and ACTIVE; invite by e-mail then SMS to a VIDEO interview; callback
//     "invited"; wait up to 72h for the session.
//   - new_application_webhook: stop for do-not-hire applications and closed jobs; invite by SMS
//     then e-mail to a VIDEO interview.
//   - manual_invite: invite by e-mail then SMS to a VIDEO interview.
//   - new_application_ats: stop unless the application is still in process at the ATS (status
//     new) and the job is open; invite by e-mail then SMS to a VIDEO interview.
//   - new_job_from_ats: pause a job imported closed for applications (open ones keep the
//     company's default job status).
func Defaults() map[models.FlowTrigger]*Definition {
	out := make(map[models.FlowTrigger]*Definition, len(models.AllFlowTriggers()))
	for _, t := range models.AllFlowTriggers() {
		d, err := Parse([]byte(defaultDefinitions[t]))
		if err != nil {
			panic(fmt.Sprintf("flow: default %s definition: %v", t, err))
		}
		out[t] = d
	}
	return out
}
