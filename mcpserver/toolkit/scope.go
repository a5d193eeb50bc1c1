package toolkit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// ScopeArg is the job scope every job-scoped tool accepts; embed it in inputs and pass it to
// Call.Scope.
type ScopeArg struct {
	PositionID  string `json:"positionId,omitempty" jsonschema:"a job UUID to limit the figures to; omitted means the job open in the client (job context), if any. Not together with companyWide"`
	CompanyWide bool   `json:"companyWide,omitempty" jsonschema:"true for company-wide figures even when a job is open in the client. Not together with positionId"`
}

// Scope sources: how a call's job scope was chosen.
const (
	ScopeCompanyWide = "companyWide"
	ScopePositionID  = "positionId"
	ScopeJobContext  = "jobContext"
	// ScopeCompanyDefault is a job a tool chose itself when given none (getInterviewGuideDetails:
	// the most recently updated active job with a guide).
	ScopeCompanyDefault = "companyDefault"
)

// Scope is the job scope of an answer, as applied.
type Scope struct {
	Source string  `json:"source" jsonschema:"how the scope was chosen: positionId (the argument), jobContext (the job open in the client), companyWide, or companyDefault (no job given; the tool chose one, as it says)"`
	Job    *JobRef `json:"job" jsonschema:"the job the figures are limited to; null means company-wide"`
}

// JobRef is the short form of a job in outputs.
type JobRef struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	ExternalID string `json:"externalId" jsonschema:"the ATS job id"`
	Status     string `json:"status"`
	IsOpen     bool   `json:"isOpen"`
	Deleted    bool   `json:"deleted" jsonschema:"true when the job is soft-deleted"`
	Link       string `json:"link" jsonschema:"deep link to the job's page"`
}

// JobID is the scope's job, nil when company-wide.
func (s Scope) JobID() *uuid.UUID {
	if s.Job == nil {
		return nil
	}
	id := uuid.MustParse(s.Job.ID)
	return &id
}

// String describes the scope for output text.
func (s Scope) String() string {
	if s.Job == nil {
		return "company-wide"
	}
	how := map[string]string{ScopeJobContext: "the job open in the client", ScopeCompanyDefault: "the tool's company-level default"}[s.Source]
	if how == "" {
		how = s.Source
	}
	return fmt.Sprintf("job %q (%s, from %s) %s", s.Job.Title, s.Job.ID, how, s.Job.Link)
}

// Scope resolves a job scope, the one rule of every tool: positionId and companyWide: true
// together are a tool error (they ask for two different scopes); companyWide: true is the whole
// company even when a job is open in the client; an explicit positionId must be a job of the
// call's company; otherwise the request's job context (_meta JobContextMetaKey) applies when it
// names a job of the company, and is ignored with a notice when it does not. The job is loaded
// once, in the call's snapshot.
func (c *Call) Scope(ctx context.Context, a ScopeArg) (Scope, error) {
	positionID := strings.TrimSpace(a.PositionID)
	switch {
	case a.CompanyWide && positionID != "":
		return Scope{}, Errorf("pass either positionId (one job) or companyWide: true (the whole company), not both")
	case a.CompanyWide:
		return Scope{Source: ScopeCompanyWide}, nil
	case positionID != "":
		id, err := ParseJobID("positionId", positionID)
		if err != nil {
			return Scope{}, err
		}
		j, err := c.Job(ctx, id)
		if err != nil {
			return Scope{}, err
		}
		if j == nil {
			return Scope{}, Errorf("positionId %s is not a job of this company; getJobsSummary lists job ids", id)
		}
		return Scope{Source: ScopePositionID, Job: j}, nil
	}
	if c.jobContext == "" {
		return Scope{Source: ScopeCompanyWide}, nil
	}
	id, err := uuid.Parse(c.jobContext)
	if err != nil {
		c.Notice("ignored the job context %s %q: not a UUID", JobContextMetaKey, c.jobContext)
		return Scope{Source: ScopeCompanyWide}, nil
	}
	j, err := c.Job(ctx, id)
	if err != nil {
		return Scope{}, err
	}
	if j == nil {
		c.Notice("ignored the job context %s: not a job of this company", id)
		return Scope{Source: ScopeCompanyWide}, nil
	}
	return Scope{Source: ScopeJobContext, Job: j}, nil
}

// Job loads one job of the call's company, deleted or not, in the call's snapshot; nil when
// there is none.
func (c *Call) Job(ctx context.Context, id uuid.UUID) (*JobRef, error) {
	var j JobRef
	var jid uuid.UUID
	err := c.DB.QueryRowContext(ctx,
		`SELECT id, title, external_id, status, is_open, is_deleted FROM jobs WHERE company_id = $1 AND id = $2`,
		c.Company.ID, id).Scan(&jid, &j.Title, &j.ExternalID, &j.Status, &j.IsOpen, &j.Deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load job %s: %w", id, err)
	}
	j.ID, j.Link = jid.String(), c.Env.Links.Job(jid)
	return &j, nil
}

// ParseID parses a UUID argument; the tool error names the argument.
func ParseID(name, v string) (uuid.UUID, error) {
	id, err := uuid.Parse(strings.TrimSpace(v))
	if err != nil {
		return uuid.Nil, Errorf("%s %q is not a UUID", name, v)
	}
	return id, nil
}

// ParseJobID parses a job UUID argument; the tool error says where job ids come from.
func ParseJobID(name, v string) (uuid.UUID, error) {
	id, err := uuid.Parse(strings.TrimSpace(v))
	if err != nil {
		return uuid.Nil, Errorf("%s %q is not a job UUID; getJobsSummary lists job ids (or use getJobDetails with jobName)", name, v)
	}
	return id, nil
}
