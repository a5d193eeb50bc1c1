package ats

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
)

// jobSubmissionClient reads ATS-A job-submission records (a candidate submitted to a job order):
//
//	GET {baseUrl}/entity/JobSubmission/{id}?fields=id,candidate,jobOrder
//	BhRestToken: {restToken}
//	→ {"data":{"id":1001,"candidate":{"id":7001,"firstName":..,"lastName":..,"email":..,"phone":..},"jobOrder":{"id":5001}}}
type jobSubmissionClient struct{ *conn }

var _ Client = (*jobSubmissionClient)(nil)

func (c *jobSubmissionClient) Applicant(ctx context.Context, l Lookup) (*Applicant, error) {
	if err := checkLookup(l, false); err != nil {
		return nil, err
	}
	op := "ATS-A job submission " + l.ApplicantID
	body, err := c.get(ctx, op, url.Values{"fields": {"id,candidate,jobOrder"}}, "entity", "JobSubmission", l.ApplicantID)
	if err != nil {
		return nil, err
	}
	id, _ := strconv.ParseInt(l.ApplicantID, 10, 64)
	a, err := decodeJobSubmission(body, atsID(id))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return a, nil
}

type jobSubmission struct {
	ID        atsID `json:"id"`
	Candidate *struct {
		ID        atsID  `json:"id"`
		FirstName string `json:"firstName"`
		LastName  string `json:"lastName"`
		Email     string `json:"email"`
		Phone     string `json:"phone"`
	} `json:"candidate"`
	JobOrder *struct {
		ID atsID `json:"id"`
	} `json:"jobOrder"`
}

// decodeJobSubmission decodes the answer about job submission want. A "data" that is missing,
// null, {} or [] means the record does not exist (ErrNotFound); any other problem is
// ErrBadResponse.
func decodeJobSubmission(body []byte, want atsID) (*Applicant, error) {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := decodeObject(body, &env); err != nil {
		return nil, err
	}
	data := bytes.TrimSpace(env.Data)
	if len(data) > 0 && data[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(data, &list); err != nil {
			return nil, fmt.Errorf("%w: data: %s", ErrBadResponse, jsonProblem(err))
		}
		if len(list) > 1 {
			return nil, fmt.Errorf("%w: data holds %d records, want one", ErrBadResponse, len(list))
		}
		data = nil
		if len(list) == 1 {
			data = bytes.TrimSpace(list[0])
		}
	}
	if len(data) == 0 || string(data) == "null" {
		return nil, ErrNotFound
	}
	var fields map[string]json.RawMessage
	if err := decodeObject(data, &fields); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if len(fields) == 0 {
		return nil, ErrNotFound
	}
	var s jobSubmission
	if err := decodeObject(data, &s); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	switch {
	case s.ID == 0:
		return nil, missing("data.id")
	case s.ID != want:
		return nil, mismatch("data.id", s.ID, want)
	case s.Candidate == nil || s.Candidate.ID == 0:
		return nil, missing("data.candidate.id")
	case s.JobOrder == nil || s.JobOrder.ID == 0:
		return nil, missing("data.jobOrder.id")
	}
	return &Applicant{
		ApplicantID: s.ID.String(),
		JobID:       s.JobOrder.ID.String(),
		CandidateID: s.Candidate.ID.String(),
		FirstName:   clean(s.Candidate.FirstName),
		LastName:    clean(s.Candidate.LastName),
		Email:       clean(s.Candidate.Email),
		Phone:       clean(s.Candidate.Phone),
	}, nil
}
