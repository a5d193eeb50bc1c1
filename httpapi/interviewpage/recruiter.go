package interviewpage

import (
	"bytes"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/links"
)

// RecruiterLink is the page a recruiter link (links.Builder Candidate, Job, Session) opens while
// no web app is configured: what the record is and how to read it through the API, the CLI and
// the tools. It shows nothing of the record, so it needs no credential.
type RecruiterLink struct {
	Kind    string // links.KindCandidate, KindJob or KindSession
	ID      uuid.UUID
	APIBase string // the REST base the calls are shown against
}

// way is one way of reading the record.
type way struct{ Label, Code string }

type recruiterRender struct {
	RecruiterLink
	What, Noun string
	Ways       []way
	page       *Page
}

func (r recruiterRender) CSS() string  { return AssetPrefix + r.page.css.Name }
func (r recruiterRender) Icon() string { return AssetPrefix + r.page.icon.Name }

// RenderRecruiterLink writes the page of l; an unknown kind is an error.
func (p *Page) RenderRecruiterLink(w io.Writer, l RecruiterLink) error {
	r := recruiterRender{RecruiterLink: l, page: p}
	id := l.ID.String()
	key := `-H "X-API-Key: $KEY"`
	switch l.Kind {
	case links.KindSession:
		r.What, r.Noun = "Interview session", "session"
		r.Ways = []way{
			{"Its report (JSON, scope reports)", "curl " + key + " " + l.APIBase + "/v1/api/sessions/" + id + "/report"},
			{"Its status and transcript (operators)", "recruitd sessions show --session " + id + " --transcript"},
			{"In an MCP client", `getCandidateVerification {"sessionId": "` + id + `"}`},
		}
	case links.KindCandidate:
		r.What, r.Noun = "Candidate", "candidate"
		r.Ways = []way{
			{"Integrity picture, latest session (MCP)", `getCandidateVerification {"candidateId": "` + id + `"}`},
			{"Reports by name or e-mail (MCP)", `getCandidateReport {"name": "…"}`},
		}
	case links.KindJob:
		r.What, r.Noun = "Job", "job"
		r.Ways = []way{
			{"The job, its interview and recent sessions (MCP)", `getJobDetails {"positionId": "` + id + `"}`},
			{"Jobs and their interview status (JSON, scope jobs)", "curl " + key + " " + l.APIBase + "/v1/api/interviewers"},
		}
	default:
		return fmt.Errorf("recruiter link of kind %q", l.Kind)
	}
	var buf bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&buf, "recruiter", r); err != nil {
		return fmt.Errorf("render recruiter link page: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
