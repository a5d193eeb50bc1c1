package ats

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// MaxNotesRead bounds the notes a write's retry reads to look for its marker (the newest ones).
const MaxNotesRead = 200

// The reads a write's retry makes first, so that a write whose answer was lost is not made twice
// at an ATS that ignores Idempotency-Key (see Writer):
//
//	ATS-A  GET /entity/JobSubmission/{id}?fields={field}              → {"data": {"id": …, field: "value"}}
//	       GET /query/Note?where=jobSubmission.id={id}&fields=id,comments&orderBy=-dateAdded&count=200
//	                                                                  → {"data": [{"id": …, "comments": "…"}]}
//	ATS-B  GET /api/v1/opportunity-resources/{id}                     → {"id": …, field: "value", …}
//	       GET /api/v1/opportunity-resources/{id}/notes?limit=200     → {"data": [{"text": "…"}]}
//	ATS-C  GET /v2/jobs/{job}/candidates/{id}                         → {"id": …, "fields": {field: "value"}, …}
//	       GET /v2/jobs/{job}/candidates/{id}/comments?per_page=200   → {"data": [{"body": "…"}]}

// FieldValue implements Writer for ATS-A.
func (c *jobSubmissionClient) FieldValue(ctx context.Context, r Record, field string) (string, bool, error) {
	if err := parseID("applicant id", r.ID); err != nil {
		return "", false, err
	}
	op := "ATS-A read of job submission " + r.ID
	body, err := c.get(ctx, op, url.Values{"fields": {"id," + field}}, "entity", "JobSubmission", r.ID)
	if err != nil {
		return "", false, err
	}
	var out struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := decodeObject(body, &out); err != nil {
		return "", false, fmt.Errorf("%s: %w", op, err)
	}
	return fieldOf(op, out.Data, field)
}

// HasNote implements Writer for ATS-A.
func (c *jobSubmissionClient) HasNote(ctx context.Context, r Record, marker string) (bool, error) {
	if err := parseID("applicant id", r.ID); err != nil {
		return false, err
	}
	op := "ATS-A notes of job submission " + r.ID
	body, err := c.get(ctx, op, url.Values{"where": {"jobSubmission.id=" + r.ID}, "fields": {"id,comments"},
		"orderBy": {"-dateAdded"}, "count": {strconv.Itoa(MaxNotesRead)}}, "query", "Note")
	if err != nil {
		return false, err
	}
	return listHas(op, body, "comments", marker)
}

// FieldValue implements Writer for ATS-B.
func (c *opportunityResourceClient) FieldValue(ctx context.Context, r Record, field string) (string, bool, error) {
	if err := parseID("applicant id", r.ID); err != nil {
		return "", false, err
	}
	op := "ATS-B read of opportunity resource " + r.ID
	body, err := c.get(ctx, op, nil, "api", "v1", "opportunity-resources", r.ID)
	if err != nil {
		return "", false, err
	}
	var out map[string]json.RawMessage
	if err := decodeObject(body, &out); err != nil {
		return "", false, fmt.Errorf("%s: %w", op, err)
	}
	return fieldOf(op, out, field)
}

// HasNote implements Writer for ATS-B.
func (c *opportunityResourceClient) HasNote(ctx context.Context, r Record, marker string) (bool, error) {
	if err := parseID("applicant id", r.ID); err != nil {
		return false, err
	}
	op := "ATS-B notes of opportunity resource " + r.ID
	body, err := c.get(ctx, op, url.Values{"limit": {strconv.Itoa(MaxNotesRead)}}, "api", "v1", "opportunity-resources", r.ID, "notes")
	if err != nil {
		return false, err
	}
	return listHas(op, body, "text", marker)
}

// FieldValue implements Writer for ATS-C.
func (c *jobCandidateClient) FieldValue(ctx context.Context, r Record, field string) (string, bool, error) {
	if err := checkLookup(Lookup{ApplicantID: r.ID, JobID: r.JobID}, true); err != nil {
		return "", false, err
	}
	op := "ATS-C read of candidate " + r.ID
	body, err := c.get(ctx, op, nil, "v2", "jobs", r.JobID, "candidates", r.ID)
	if err != nil {
		return "", false, err
	}
	var out struct {
		Fields map[string]json.RawMessage `json:"fields"`
	}
	if err := decodeObject(body, &out); err != nil {
		return "", false, fmt.Errorf("%s: %w", op, err)
	}
	return fieldOf(op, out.Fields, field)
}

// HasNote implements Writer for ATS-C.
func (c *jobCandidateClient) HasNote(ctx context.Context, r Record, marker string) (bool, error) {
	if err := checkLookup(Lookup{ApplicantID: r.ID, JobID: r.JobID}, true); err != nil {
		return false, err
	}
	op := "ATS-C comments of candidate " + r.ID
	body, err := c.get(ctx, op, url.Values{"per_page": {strconv.Itoa(MaxNotesRead)}}, "v2", "jobs", r.JobID, "candidates", r.ID, "comments")
	if err != nil {
		return false, err
	}
	return listHas(op, body, "body", marker)
}

// fieldOf returns the string value of field in obj: absent or null is not set; another type is a
// bad response.
func fieldOf(op string, obj map[string]json.RawMessage, field string) (string, bool, error) {
	raw, ok := obj[field]
	if !ok || string(raw) == "null" {
		return "", false, nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false, fmt.Errorf("%s: %w: field is not a string", op, ErrBadResponse)
	}
	return v, true, nil
}

// listHas reports whether a {"data": [...]} list holds an item whose text property contains
// marker.
func listHas(op string, body []byte, text, marker string) (bool, error) {
	var out struct {
		Data []map[string]json.RawMessage `json:"data"`
	}
	if err := decodeObject(body, &out); err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	for _, item := range out.Data {
		var s string
		if raw, ok := item[text]; ok && json.Unmarshal(raw, &s) == nil && strings.Contains(s, marker) {
			return true, nil
		}
	}
	return false, nil
}
