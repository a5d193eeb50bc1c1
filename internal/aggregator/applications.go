package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ApplicationQuery selects a page: applications changed (or whose candidate changed) after
// UpdatedAfter (zero: all), from Cursor (the previous page's Next). Deleted applications are
// always included, so that a sync can close them.
type ApplicationQuery struct {
	UpdatedAfter time.Time
	Cursor       string
	PageSize     int
}

// ApplicationPage is one page of applications and the cursor of the next ("" on the last).
type ApplicationPage struct {
	Applications []Application
	Next         string
}

// Application is an ATS application as the aggregator reports it (Kombo's GET /ats/applications,
// with its candidate and job expanded). RemoteID is the ATS's own id (what an assessment order
// carries); ID the aggregator's. JobID is the aggregator's id of the job (the job import's
// aggregator_jobs.remote_id).
type Application struct {
	ID, RemoteID string
	// Outcome is PENDING, HIRED or DECLINED ("" when the ATS does not say).
	Outcome string
	// Stage is the current stage's name, StageID the aggregator's id of it.
	Stage, StageID  string
	JobID           string
	Candidate       Candidate
	RemoteCreatedAt *time.Time
	ChangedAt       time.Time
	RemoteDeletedAt *time.Time
}

// Candidate is an application's candidate. RemoteID is the ATS's own id; ID the aggregator's.
// Emails and Phones are as the ATS lists them, first the ones it marks primary when it does.
type Candidate struct {
	ID, RemoteID        string
	FirstName, LastName string
	Emails              []string
	Phones              []Phone
}

// Phone is one of a candidate's numbers with the ATS's type for it (MOBILE, HOME, WORK, ... or
// "").
type Phone struct {
	Number, Type string
}

// ExternalID is the id a service application carries: the ATS's own id, else the aggregator's.
func (a Application) ExternalID() string {
	if a.RemoteID != "" {
		return a.RemoteID
	}
	return a.ID
}

// ExternalID is the id a service candidate carries: the ATS's own id, else the aggregator's.
func (c Candidate) ExternalID() string {
	if c.RemoteID != "" {
		return c.RemoteID
	}
	return c.ID
}

// Bounds of a listed application: longer ids or texts make the page refused (ErrPermanent),
// longer lists are cut.
const (
	maxTextLen  = 500
	maxContacts = 10
)

type wireApplication struct {
	ID              string     `json:"id"`
	RemoteID        *string    `json:"remote_id"`
	Outcome         *string    `json:"outcome"`
	JobID           *string    `json:"job_id"`
	CandidateID     *string    `json:"candidate_id"`
	ChangedAt       time.Time  `json:"changed_at"`
	RemoteCreatedAt *time.Time `json:"remote_created_at"`
	RemoteDeletedAt *time.Time `json:"remote_deleted_at"`
	CurrentStageID  *string    `json:"current_stage_id"`
	CurrentStage    *struct {
		ID   *string `json:"id"`
		Name *string `json:"name"`
	} `json:"current_stage"`
	Job *struct {
		ID string `json:"id"`
	} `json:"job"`
	Candidate *struct {
		ID             string  `json:"id"`
		RemoteID       *string `json:"remote_id"`
		FirstName      *string `json:"first_name"`
		LastName       *string `json:"last_name"`
		EmailAddresses []struct {
			EmailAddress *string `json:"email_address"`
		} `json:"email_addresses"`
		PhoneNumbers []struct {
			PhoneNumber *string `json:"phone_number"`
			Type        *string `json:"type"`
		} `json:"phone_numbers"`
	} `json:"candidate"`
}

// ParseApplicationPage reads the data of a GET /ats/applications answer ({"next": …,
// "results": […]}). Every application has its aggregator id, a job and a candidate id, ids of
// at most maxIDLen and texts of at most maxTextLen bytes of valid UTF-8 without NUL; anything
// else refuses the page with ErrPermanent (the page is the aggregator's, and one bad record
// means it answers something else than we read). Fields recruitd does not use are ignored.
func ParseApplicationPage(data []byte) (ApplicationPage, error) {
	var out struct {
		Next    *string           `json:"next"`
		Results []wireApplication `json:"results"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&out); err != nil {
		return ApplicationPage{}, fmt.Errorf("%w: decode applications: %v", ErrPermanent, err)
	}
	page := ApplicationPage{Applications: make([]Application, 0, len(out.Results))}
	if out.Next != nil {
		page.Next = *out.Next
		if !okText(page.Next, 4096) {
			return ApplicationPage{}, fmt.Errorf("%w: an unreadable cursor", ErrPermanent)
		}
	}
	for i, w := range out.Results {
		a, err := w.application()
		if err != nil {
			return ApplicationPage{}, fmt.Errorf("%w: application %d of the page: %v", ErrPermanent, i, err)
		}
		page.Applications = append(page.Applications, a)
	}
	return page, nil
}

func (w wireApplication) application() (Application, error) {
	a := Application{ID: w.ID, RemoteID: str(w.RemoteID), Outcome: strings.ToUpper(str(w.Outcome)), JobID: str(w.JobID),
		RemoteCreatedAt: w.RemoteCreatedAt, ChangedAt: w.ChangedAt, RemoteDeletedAt: w.RemoteDeletedAt}
	if a.JobID == "" && w.Job != nil {
		a.JobID = w.Job.ID
	}
	a.StageID = str(w.CurrentStageID)
	if w.CurrentStage != nil {
		a.Stage = str(w.CurrentStage.Name)
		if a.StageID == "" {
			a.StageID = str(w.CurrentStage.ID)
		}
	}
	if c := w.Candidate; c != nil {
		a.Candidate = Candidate{ID: c.ID, RemoteID: str(c.RemoteID), FirstName: str(c.FirstName), LastName: str(c.LastName)}
		for _, e := range c.EmailAddresses {
			if v := strings.TrimSpace(str(e.EmailAddress)); v != "" && len(a.Candidate.Emails) < maxContacts {
				a.Candidate.Emails = append(a.Candidate.Emails, v)
			}
		}
		for _, p := range c.PhoneNumbers {
			if v := strings.TrimSpace(str(p.PhoneNumber)); v != "" && len(a.Candidate.Phones) < maxContacts {
				a.Candidate.Phones = append(a.Candidate.Phones, Phone{Number: v, Type: strings.ToUpper(str(p.Type))})
			}
		}
	}
	if a.Candidate.ID == "" {
		a.Candidate.ID = str(w.CandidateID)
	}
	switch {
	case a.ID == "":
		return a, fmt.Errorf("no id")
	case a.JobID == "":
		return a, fmt.Errorf("no job")
	case a.Candidate.ID == "":
		return a, fmt.Errorf("no candidate")
	}
	for _, id := range []string{a.ID, a.RemoteID, a.JobID, a.Candidate.ID, a.Candidate.RemoteID, a.Outcome} {
		if !okText(id, maxIDLen) {
			return a, fmt.Errorf("an id is too long or not text")
		}
	}
	texts := []string{a.Stage, a.StageID, a.Candidate.FirstName, a.Candidate.LastName}
	texts = append(texts, a.Candidate.Emails...)
	for _, p := range a.Candidate.Phones {
		texts = append(texts, p.Number, p.Type)
	}
	for _, s := range texts {
		if !okText(s, maxTextLen) {
			return a, fmt.Errorf("a name or contact is too long or not text")
		}
	}
	return a, nil
}

// okText: at most max bytes of valid UTF-8 without NUL.
func okText(s string, max int) bool {
	return len(s) <= max && utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// ListApplications implements Client (GET /v1/ats/applications, deleted applications
// included).
func (k *Kombo) ListApplications(ctx context.Context, integrationID string, q ApplicationQuery) (ApplicationPage, error) {
	v := url.Values{"include_deleted": {"true"}}
	if !q.UpdatedAfter.IsZero() {
		v.Set("updated_after", q.UpdatedAfter.UTC().Format(time.RFC3339Nano))
	}
	if q.Cursor != "" {
		v.Set("cursor", q.Cursor)
	}
	if q.PageSize > 0 {
		v.Set("page_size", strconv.Itoa(q.PageSize))
	}
	var raw json.RawMessage
	if err := k.do(ctx, http.MethodGet, "/v1/ats/applications", v, integrationID, nil, &raw); err != nil {
		return ApplicationPage{}, fmt.Errorf("list applications of %s: %w", integrationID, err)
	}
	page, err := ParseApplicationPage(raw)
	if err != nil {
		return ApplicationPage{}, fmt.Errorf("list applications of %s: %w", integrationID, err)
	}
	return page, nil
}
