package hrsuite

import (
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/hrsuitereport"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// pendingOutcomes are the row outcomes a replay may still change: a job imported later, a
// trigger enabled later. A delivery with none of them is final.
var pendingOutcomes = []hrsuitereport.Outcome{hrsuitereport.UnknownJob, hrsuitereport.NoTrigger}

// chunk is a part of a delivery's applications to process in one transaction.
type chunk struct {
	Company    *models.Company
	DeliveryID uuid.UUID
	// TriggerEnabled: the company has saved an enabled 'New Applications via Webhook'
	// definition; otherwise applications are recorded no_trigger.
	TriggerEnabled bool
	Applications   []hrsuitereport.Application
}

// chunkResult is what a chunk did: each application's outcome (by Job Posting Application Id)
// and the applications it accepted, whose workflow starts the caller writes in the same
// transaction.
type chunkResult struct {
	Outcomes map[string]hrsuitereport.Outcome
	Accepted []accepted
}

// accepted is an application a chunk accepted, with the rows its workflow works on.
type accepted struct {
	JobID, CandidateID, ApplicationID uuid.UUID
	InterviewerID                     string // the job's
}

// applyChunk applies a chunk of a delivery's applications in the transaction, with a fixed
// number of statements whatever its size:
//
//   - an application recorded (other than no_trigger) by another delivery is a duplicate and
//     changes nothing; one recorded by this delivery keeps its outcome (a retried or replayed
//     chunk gives the same result and invites nobody twice);
//   - do-not-hire applications are recorded and create nothing;
//   - applications whose Job Req Id is not one of the company's jobs imported from the HR
//     suite (through the aggregator, not deleted) are unknown_job and not recorded, so a replay
//     after the job is imported picks them up;
//   - the rest create or update their candidate (by Candidate Id; the chunk's latest
//     application of a candidate gives its contact details) and application (by Job Posting
//     Application Id), and are recorded accepted (listed in Accepted: the caller writes the
//     start of their workflow before the commit), or no_trigger when the company has no saved,
//     enabled workflow for the trigger.
//
// Recording claims an application: of two deliveries processing the same id at once, the one
// whose record lands first accepts it, the other sees a duplicate. Every row's outcome is
// written in the same transaction.
func applyChunk(tx *store.Tx, c chunk) (*chunkResult, error) {
	res := &chunkResult{Outcomes: make(map[string]hrsuitereport.Outcome, len(c.Applications))}
	if len(c.Applications) == 0 {
		return res, nil
	}
	companyID := c.Company.ID
	refs := make([]string, 0, len(c.Applications))
	jobRefs := make([]string, 0, len(c.Applications))
	for _, a := range c.Applications {
		refs = append(refs, a.ExternalID)
		jobRefs = append(jobRefs, a.JobReqID)
	}
	known, err := tx.LockHRSuiteRecords(companyID, refs)
	if err != nil {
		return nil, err
	}
	jobs, err := tx.HRSuiteJobs(companyID, jobRefs)
	if err != nil {
		return nil, err
	}
	jobByRef := make(map[string]store.HRSuiteJob, len(jobs))
	for _, j := range jobs {
		jobByRef[j.ExternalID] = j
	}

	appIDs := make(map[string]uuid.UUID, len(c.Applications))
	var claims []store.HRSuiteClaim
	var create []int // indexes into c.Applications of applications that create rows
	for i, a := range c.Applications {
		if r, ok := known[a.ExternalID]; ok && r.Outcome != hrsuitereport.NoTrigger {
			if r.ApplicationID != nil {
				appIDs[a.ExternalID] = *r.ApplicationID
			}
			if r.DeliveryID == c.DeliveryID {
				res.Outcomes[a.ExternalID] = r.Outcome
			} else {
				res.Outcomes[a.ExternalID] = hrsuitereport.Duplicate
			}
			continue
		}
		switch _, hasJob := jobByRef[a.JobReqID]; {
		case a.DoNotHire:
			res.Outcomes[a.ExternalID] = hrsuitereport.DoNotHire
		case !hasJob:
			res.Outcomes[a.ExternalID] = hrsuitereport.UnknownJob
			continue
		case c.TriggerEnabled:
			res.Outcomes[a.ExternalID] = hrsuitereport.Accepted
			create = append(create, i)
		default:
			res.Outcomes[a.ExternalID] = hrsuitereport.NoTrigger
			create = append(create, i)
		}
		claims = append(claims, store.HRSuiteClaim{Ref: a.ExternalID, Outcome: res.Outcomes[a.ExternalID]})
	}
	// A no_trigger record is claimed again once the trigger is enabled.
	won, err := tx.ClaimHRSuiteApplications(companyID, c.DeliveryID, claims, hrsuitereport.NoTrigger)
	if err != nil {
		return nil, err
	}
	if len(won) < len(claims) {
		// Another delivery recorded some of them first: they are its, not this delivery's.
		kept := create[:0]
		for _, i := range create {
			if won[c.Applications[i].ExternalID] {
				kept = append(kept, i)
			}
		}
		create = kept
		for _, cl := range claims {
			if !won[cl.Ref] {
				res.Outcomes[cl.Ref] = hrsuitereport.Duplicate
			}
		}
	}
	if len(create) > 0 {
		created, err := tx.CreateHRSuiteApplications(companyID, candidatesOf(c.Applications, create), applicationsOf(c.Applications, create, jobByRef))
		if err != nil {
			return nil, err
		}
		interviewer := make(map[uuid.UUID]string, len(jobs))
		for _, j := range jobs {
			interviewer[j.ID] = j.InterviewerID
		}
		for _, a := range created {
			appIDs[a.Ref] = a.ID
			if res.Outcomes[a.Ref] == hrsuitereport.Accepted {
				res.Accepted = append(res.Accepted, accepted{JobID: a.JobID, CandidateID: a.CandidateID, ApplicationID: a.ID, InterviewerID: interviewer[a.JobID]})
			}
		}
	}
	var rows []store.HRSuiteRowOutcome
	for _, a := range c.Applications {
		for _, idx := range a.Rows {
			rows = append(rows, store.HRSuiteRowOutcome{Index: idx, ApplicationRef: a.ExternalID, Outcome: res.Outcomes[a.ExternalID], ApplicationID: appIDs[a.ExternalID]})
		}
	}
	if err := tx.RecordHRSuiteRows(companyID, c.DeliveryID, rows); err != nil {
		return nil, err
	}
	return res, nil
}

// candidatesOf gives one candidate per Candidate Id of the applications at create: the latest
// application of a candidate that has a name gives the name, and likewise the e-mail and phone.
func candidatesOf(apps []hrsuitereport.Application, create []int) []store.HRSuiteCandidate {
	at := map[string]int{}
	var out []store.HRSuiteCandidate
	for _, i := range create {
		a := apps[i]
		k, ok := at[a.CandidateID]
		if !ok {
			k = len(out)
			at[a.CandidateID] = k
			out = append(out, store.HRSuiteCandidate{Ref: a.CandidateID})
		}
		if a.FirstName != "" || a.LastName != "" {
			out[k].FirstName, out[k].LastName = a.FirstName, a.LastName
		}
		if a.Email != "" {
			out[k].Email = a.Email
		}
		if a.Phone != "" {
			out[k].Phone = a.Phone
		}
	}
	return out
}

// applicationsOf gives the applications at create with their jobs.
func applicationsOf(apps []hrsuitereport.Application, create []int, jobByRef map[string]store.HRSuiteJob) []store.HRSuiteApplication {
	out := make([]store.HRSuiteApplication, 0, len(create))
	for _, i := range create {
		a := apps[i]
		out = append(out, store.HRSuiteApplication{Ref: a.ExternalID, CandidateRef: a.CandidateID, JobID: jobByRef[a.JobReqID].ID})
	}
	return out
}
