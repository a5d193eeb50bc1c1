package ats

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/recruitd/recruitd/models"
)

// ErrRejected means the ATS refused a write for good (400, 409, 422: an unknown field or
// stage value, a closed record). Retrying does not help; the write is recorded failed.
var ErrRejected = errors.New("ats: write refused")

// Record names the ATS record a write goes to: the applicant id an application carries (a job
// submission, an opportunity resource, an ATS-C candidate) and, for ATS-C, its job.
type Record struct {
	ID, JobID string
}

// Writer writes results back to one company's ATS. Each write sends one request with an
// Idempotency-Key header (key): an ATS that honours it records a repeated call once. For an ATS
// that ignores the header, a retried write reads first (FieldValue, HasNote) and is not made
// again when the ATS holds it already.
type Writer interface {
	// AddNote adds a note to the record.
	AddNote(ctx context.Context, r Record, text, key string) error
	// SetField sets one field of the record (the company's decision-stage pair).
	SetField(ctx context.Context, r Record, field, value, key string) error
	// FieldValue reads one field of the record: its value, and whether it is set.
	FieldValue(ctx context.Context, r Record, field string) (value string, set bool, err error)
	// HasNote reports whether one of the record's newest MaxNotesRead notes contains marker.
	HasNote(ctx context.Context, r Record, marker string) (bool, error)
}

// NewWriter returns the writer of ATS type t (ATS-A, ATS-B, ATS-C), configured like New.
func NewWriter(t models.ATSType, c Config) (Writer, error) {
	cl, err := New(t, c)
	if err != nil {
		return nil, err
	}
	switch v := cl.(type) {
	case *jobSubmissionClient:
		return v, nil
	case *opportunityResourceClient:
		return v, nil
	case *jobCandidateClient:
		return v, nil
	}
	return nil, fmt.Errorf("%w: ATS type %q has no writer", ErrUnsupported, t)
}

// AddNote implements Writer for ATS-A: PUT /entity/Note with the job submission.
func (c *jobSubmissionClient) AddNote(ctx context.Context, r Record, text, key string) error {
	if err := parseID("applicant id", r.ID); err != nil {
		return err
	}
	return c.send(ctx, "ATS-A note on job submission "+r.ID, http.MethodPut, key,
		map[string]any{"action": "Interview result", "comments": text, "jobSubmission": map[string]any{"id": json.Number(r.ID)}},
		"entity", "Note")
}

// SetField implements Writer for ATS-A: POST /entity/JobSubmission/{id} with the field.
func (c *jobSubmissionClient) SetField(ctx context.Context, r Record, field, value, key string) error {
	if err := parseID("applicant id", r.ID); err != nil {
		return err
	}
	return c.send(ctx, "ATS-A update of job submission "+r.ID, http.MethodPost, key, map[string]string{field: value}, "entity", "JobSubmission", r.ID)
}

// AddNote implements Writer for ATS-B: POST /api/v1/opportunity-resources/{id}/notes.
func (c *opportunityResourceClient) AddNote(ctx context.Context, r Record, text, key string) error {
	if err := parseID("applicant id", r.ID); err != nil {
		return err
	}
	return c.send(ctx, "ATS-B note on opportunity resource "+r.ID, http.MethodPost, key, map[string]string{"text": text},
		"api", "v1", "opportunity-resources", r.ID, "notes")
}

// SetField implements Writer for ATS-B: PATCH /api/v1/opportunity-resources/{id}.
func (c *opportunityResourceClient) SetField(ctx context.Context, r Record, field, value, key string) error {
	if err := parseID("applicant id", r.ID); err != nil {
		return err
	}
	return c.send(ctx, "ATS-B update of opportunity resource "+r.ID, http.MethodPatch, key, map[string]string{field: value},
		"api", "v1", "opportunity-resources", r.ID)
}

// AddNote implements Writer for ATS-C: POST /v2/jobs/{job}/candidates/{id}/comments.
func (c *jobCandidateClient) AddNote(ctx context.Context, r Record, text, key string) error {
	if err := checkLookup(Lookup{ApplicantID: r.ID, JobID: r.JobID}, true); err != nil {
		return err
	}
	return c.send(ctx, "ATS-C comment on candidate "+r.ID, http.MethodPost, key, map[string]string{"body": text},
		"v2", "jobs", r.JobID, "candidates", r.ID, "comments")
}

// SetField implements Writer for ATS-C: PATCH /v2/jobs/{job}/candidates/{id} with
// {"fields": {field: value}}.
func (c *jobCandidateClient) SetField(ctx context.Context, r Record, field, value, key string) error {
	if err := checkLookup(Lookup{ApplicantID: r.ID, JobID: r.JobID}, true); err != nil {
		return err
	}
	return c.send(ctx, "ATS-C update of candidate "+r.ID, http.MethodPatch, key, map[string]any{"fields": map[string]string{field: value}},
		"v2", "jobs", r.JobID, "candidates", r.ID)
}

// send sends one write and classifies its answer: 2xx is done; 400, 409 and 422 ErrRejected;
// the rest as statusError.
func (c *conn) send(ctx context.Context, op, method, key string, body any, segments ...string) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: %w: %v", op, ErrBadResponse, err)
	}
	u := c.base.JoinPath(segments...)
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, method, u.String(), bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%s: %w: %v", op, ErrMisconfigured, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "recruitd-ats/1")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	c.auth(req)
	resp, err := c.client.Do(req)
	if err != nil {
		return c.transportError(ctx, op, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusBadRequest || code == http.StatusConflict || code == http.StatusUnprocessableEntity:
		return fmt.Errorf("%s: %w (status %d)", op, ErrRejected, code)
	}
	return statusError(op, resp)
}
