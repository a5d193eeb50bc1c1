package ats

import (
	"context"
	"fmt"
	"strconv"
)

// opportunityResourceClient reads ATS-B opportunity-resource records (a resource, the
// candidate, attached to an opportunity, the job):
//
//	GET {baseUrl}/api/v1/opportunity-resources/{id}
//	Authorization: Bearer {apiKey}
//	→ {"id":2001,"opportunityId":5001,"resource":{"id":8001,"firstName":..,"lastName":..,"email":..,"mobile":..}}
type opportunityResourceClient struct{ *conn }

var _ Client = (*opportunityResourceClient)(nil)

func (c *opportunityResourceClient) Applicant(ctx context.Context, l Lookup) (*Applicant, error) {
	if err := checkLookup(l, false); err != nil {
		return nil, err
	}
	op := "ATS-B opportunity resource " + l.ApplicantID
	body, err := c.get(ctx, op, nil, "api", "v1", "opportunity-resources", l.ApplicantID)
	if err != nil {
		return nil, err
	}
	id, _ := strconv.ParseInt(l.ApplicantID, 10, 64)
	a, err := decodeOpportunityResource(body, atsID(id))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return a, nil
}

type opportunityResource struct {
	ID            atsID `json:"id"`
	OpportunityID atsID `json:"opportunityId"`
	Resource      *struct {
		ID        atsID  `json:"id"`
		FirstName string `json:"firstName"`
		LastName  string `json:"lastName"`
		Email     string `json:"email"`
		Mobile    string `json:"mobile"`
		Phone     string `json:"phone"`
	} `json:"resource"`
}

// decodeOpportunityResource decodes the answer about opportunity resource want. The phone is
// the resource's mobile number, else its phone. Its errors wrap ErrBadResponse.
func decodeOpportunityResource(body []byte, want atsID) (*Applicant, error) {
	var r opportunityResource
	if err := decodeObject(body, &r); err != nil {
		return nil, err
	}
	switch {
	case r.ID == 0:
		return nil, missing("id")
	case r.ID != want:
		return nil, mismatch("id", r.ID, want)
	case r.OpportunityID == 0:
		return nil, missing("opportunityId")
	case r.Resource == nil || r.Resource.ID == 0:
		return nil, missing("resource.id")
	}
	phone := clean(r.Resource.Mobile)
	if phone == "" {
		phone = clean(r.Resource.Phone)
	}
	return &Applicant{
		ApplicantID: r.ID.String(),
		JobID:       r.OpportunityID.String(),
		CandidateID: r.Resource.ID.String(),
		FirstName:   clean(r.Resource.FirstName),
		LastName:    clean(r.Resource.LastName),
		Email:       clean(r.Resource.Email),
		Phone:       phone,
	}, nil
}
