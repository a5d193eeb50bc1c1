package ats

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// jobCandidateClient reads ATS-C person-on-job records, which exist only under their job:
//
//	GET {baseUrl}/v2/jobs/{jobId}/candidates/{id}      (HTTP basic auth username:password)
//	→ {"id":3001,"jobId":5001,"person":{"id":3001,"firstName":..,"lastName":..,
//	   "emails":[{"value":..,"primary":true}],"phones":[{"value":..,"type":"mobile"}]}}
//
// A missing job and a missing candidate both answer 404.
type jobCandidateClient struct{ *conn }

var _ Client = (*jobCandidateClient)(nil)

func (c *jobCandidateClient) Applicant(ctx context.Context, l Lookup) (*Applicant, error) {
	if err := checkLookup(l, true); err != nil {
		return nil, err
	}
	op := "ATS-C job " + l.JobID + " candidate " + l.ApplicantID
	body, err := c.get(ctx, op, nil, "v2", "jobs", l.JobID, "candidates", l.ApplicantID)
	if err != nil {
		return nil, err
	}
	id, _ := strconv.ParseInt(l.ApplicantID, 10, 64)
	job, _ := strconv.ParseInt(l.JobID, 10, 64)
	a, err := decodeJobCandidate(body, atsID(id), atsID(job))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return a, nil
}

type contactValue struct {
	Value   string `json:"value"`
	Type    string `json:"type"`
	Primary bool   `json:"primary"`
}

type jobCandidate struct {
	ID     atsID `json:"id"`
	JobID  atsID `json:"jobId"`
	Person *struct {
		ID        atsID          `json:"id"`
		FirstName string         `json:"firstName"`
		LastName  string         `json:"lastName"`
		Emails    []contactValue `json:"emails"`
		Phones    []contactValue `json:"phones"`
	} `json:"person"`
}

// decodeJobCandidate decodes the answer about candidate want on job wantJob. The e-mail is the
// primary one, else the first; the phone is the first mobile one, else the first. Its errors
// wrap ErrBadResponse.
func decodeJobCandidate(body []byte, want, wantJob atsID) (*Applicant, error) {
	var r jobCandidate
	if err := decodeObject(body, &r); err != nil {
		return nil, err
	}
	switch {
	case r.ID == 0:
		return nil, missing("id")
	case r.ID != want:
		return nil, mismatch("id", r.ID, want)
	case r.JobID == 0:
		return nil, missing("jobId")
	case r.JobID != wantJob:
		return nil, mismatch("jobId", r.JobID, wantJob)
	case r.Person == nil || r.Person.ID == 0:
		return nil, missing("person.id")
	}
	return &Applicant{
		ApplicantID: r.ID.String(),
		JobID:       r.JobID.String(),
		CandidateID: r.Person.ID.String(),
		FirstName:   clean(r.Person.FirstName),
		LastName:    clean(r.Person.LastName),
		Email:       pick(r.Person.Emails, func(v contactValue) bool { return v.Primary }),
		Phone:       pick(r.Person.Phones, func(v contactValue) bool { return strings.EqualFold(v.Type, "mobile") }),
	}, nil
}

// pick returns the first non-empty value that preferred accepts, else the first non-empty one.
func pick(vs []contactValue, preferred func(contactValue) bool) string {
	first := ""
	for _, v := range vs {
		s := clean(v.Value)
		if s == "" {
			continue
		}
		if preferred(v) {
			return s
		}
		if first == "" {
			first = s
		}
	}
	return first
}
