package aggsim

import (
	"fmt"
	"time"
)

// Candidate is a candidate of the simulated ATS.
type Candidate struct {
	RemoteID, FirstName, LastName, Email, Phone string
	changedAt                                   time.Time
}

// Application is an application of the simulated ATS: candidate CandidateRemoteID for job
// JobRemoteID. Stage is the name of its current stage ("Applied" when zero); Outcome is PENDING
// (when zero), HIRED or DECLINED.
type Application struct {
	RemoteID, CandidateRemoteID, JobRemoteID, Stage, Outcome string
	RemoteCreatedAt                                          time.Time
	changedAt                                                time.Time
	deletedAt                                                *time.Time
}

// PutCandidates adds or changes candidates (by RemoteID). Their applications are listed again
// as changed (the aggregator's updated_after covers a record's related models).
func (s *Server) PutCandidates(id string, cands ...Candidate) error {
	return s.with(id, func(in *integration) {
		for _, c := range cands {
			c.changedAt = s.tick()
			in.candidates[c.RemoteID] = &c
		}
	})
}

// PutApplications adds or changes applications (by RemoteID). A candidate they name that the
// integration does not have is created empty. Call DataChangedFor to tell.
func (s *Server) PutApplications(id string, apps ...Application) error {
	return s.with(id, func(in *integration) {
		for _, a := range apps {
			s.putApplication(in, a)
		}
	})
}

// putApplication stores a; the caller holds s.mu.
func (s *Server) putApplication(in *integration, a Application) {
	if a.Stage == "" {
		a.Stage = "Applied"
	}
	if a.Outcome == "" {
		a.Outcome = "PENDING"
	}
	a.changedAt = s.tick()
	if old, ok := in.applications[a.RemoteID]; ok && a.RemoteCreatedAt.IsZero() {
		a.RemoteCreatedAt = old.RemoteCreatedAt
	}
	if a.RemoteCreatedAt.IsZero() {
		a.RemoteCreatedAt = a.changedAt
	}
	if _, ok := in.candidates[a.CandidateRemoteID]; !ok {
		in.candidates[a.CandidateRemoteID] = &Candidate{RemoteID: a.CandidateRemoteID, changedAt: a.changedAt}
	}
	in.applications[a.RemoteID] = &a
}

// AddApplications adds n generated candidates (remote ids prefix "C" 000001 onwards, each with
// a name, an e-mail address and a US mobile number) and an application of each (prefix 000001
// onwards) to the jobs, in turn.
func (s *Server) AddApplications(id, prefix string, n int, jobRemoteIDs ...string) error {
	if len(jobRemoteIDs) == 0 {
		return fmt.Errorf("no job to apply to")
	}
	return s.with(id, func(in *integration) {
		for i := range n {
			cid := fmt.Sprintf("%sC%06d", prefix, i+1)
			in.candidates[cid] = &Candidate{RemoteID: cid, FirstName: "Alex", LastName: fmt.Sprintf("Tester %s%06d", prefix, i+1),
				Email: fmt.Sprintf("%s.%06d@example.com", lower(prefix), i+1), Phone: fmt.Sprintf("+1 (415) 555-%04d", i%10000), changedAt: s.tick()}
			s.putApplication(in, Application{RemoteID: fmt.Sprintf("%s%06d", prefix, i+1), CandidateRemoteID: cid, JobRemoteID: jobRemoteIDs[i%len(jobRemoteIDs)]})
		}
	})
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	if len(b) == 0 {
		return "candidate"
	}
	return string(b)
}

// ChangeApplication moves the application to stage and sets its outcome (either may be empty:
// unchanged).
func (s *Server) ChangeApplication(id, remoteID, stage, outcome string) error {
	return s.changeApplication(id, remoteID, func(a *Application) {
		if stage != "" {
			a.Stage = stage
		}
		if outcome != "" {
			a.Outcome = outcome
		}
	})
}

// DeleteApplication marks the application deleted (listed with remote_deleted_at).
func (s *Server) DeleteApplication(id, remoteID string) error {
	return s.changeApplication(id, remoteID, func(a *Application) { t := time.Now().UTC(); a.deletedAt = &t })
}

// EraseApplication removes the application without a trace, as an aggregator does some time
// after a deletion: only a full pass can notice it is gone.
func (s *Server) EraseApplication(id, remoteID string) error {
	var missing bool
	err := s.with(id, func(in *integration) {
		if _, ok := in.applications[remoteID]; !ok {
			missing = true
		}
		delete(in.applications, remoteID)
	})
	if err == nil && missing {
		err = fmt.Errorf("no application %s", remoteID)
	}
	return err
}

func (s *Server) changeApplication(id, remoteID string, f func(*Application)) error {
	var missing bool
	err := s.with(id, func(in *integration) {
		a, ok := in.applications[remoteID]
		if !ok {
			missing = true
			return
		}
		f(a)
		a.changedAt = s.tick()
	})
	if err == nil && missing {
		err = fmt.Errorf("no application %s", remoteID)
	}
	return err
}

// DataChangedFor sends data-changed naming models (for example ats_applications) times times
// with one event id.
func (s *Server) DataChangedFor(id string, times int, models ...string) error {
	return s.with(id, func(in *integration) {
		d := s.dataChanged(in, models...)
		for i := 1; i < times; i++ {
			s.queue <- d
		}
	})
}

// ListingQueries returns how many application listings the integration answered with and
// without updated_after (incremental and full reads), first pages only.
func (s *Server) ListingQueries(id string) (incremental, full int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in, ok := s.integrations[id]; ok {
		return in.appReads[true], in.appReads[false]
	}
	return 0, 0
}

// effective is when an application or its candidate last changed: what updated_after filters
// and pages on.
func (in *integration) effective(a *Application) time.Time {
	t := a.changedAt
	if c, ok := in.candidates[a.CandidateRemoteID]; ok && c.changedAt.After(t) {
		t = c.changedAt
	}
	return t
}

type wireApplication struct {
	ID                  string         `json:"id"`
	RemoteID            string         `json:"remote_id"`
	Outcome             string         `json:"outcome"`
	RejectionReasonName *string        `json:"rejection_reason_name"`
	RejectedAt          *time.Time     `json:"rejected_at"`
	CurrentStageID      string         `json:"current_stage_id"`
	JobID               string         `json:"job_id"`
	CandidateID         string         `json:"candidate_id"`
	CustomFields        map[string]any `json:"custom_fields"`
	IntegrationFields   []any          `json:"integration_fields"`
	RemoteURL           *string        `json:"remote_url"`
	ChangedAt           time.Time      `json:"changed_at"`
	RemoteDeletedAt     *time.Time     `json:"remote_deleted_at"`
	RemoteCreatedAt     time.Time      `json:"remote_created_at"`
	RemoteUpdatedAt     time.Time      `json:"remote_updated_at"`
	RemoteData          any            `json:"remote_data"`
	Candidate           wireCandidate  `json:"candidate"`
	CurrentStage        wireStage      `json:"current_stage"`
	Job                 wireJobRef     `json:"job"`
	Interviews          []any          `json:"interviews"`
	Offers              []any          `json:"offers"`
}

type wireCandidate struct {
	ID             string          `json:"id"`
	RemoteID       string          `json:"remote_id"`
	FirstName      string          `json:"first_name"`
	LastName       string          `json:"last_name"`
	EmailAddresses []wireEmail     `json:"email_addresses"`
	PhoneNumbers   []wirePhone     `json:"phone_numbers"`
	SocialMedia    []any           `json:"social_media"`
	Source         *string         `json:"source"`
	RemoteURL      *string         `json:"remote_url"`
	Tags           []any           `json:"tags"`
	Applications   []wireAppOfCand `json:"applications,omitempty"`
}

type wireEmail struct {
	EmailAddress string `json:"email_address"`
	Type         string `json:"type"`
}

type wirePhone struct {
	PhoneNumber string `json:"phone_number"`
	Type        string `json:"type"`
}

type wireStage struct {
	ID       string `json:"id"`
	RemoteID string `json:"remote_id"`
	Name     string `json:"name"`
	Index    *int   `json:"index"`
}

type wireJobRef struct {
	ID       string `json:"id"`
	RemoteID string `json:"remote_id"`
	Name     string `json:"name"`
}

type wireAppOfCand struct {
	ID           string     `json:"id"`
	RemoteID     string     `json:"remote_id"`
	Outcome      string     `json:"outcome"`
	CurrentStage wireStage  `json:"current_stage"`
	Job          wireJobRef `json:"job"`
}

// candidateWire is c in Kombo's shape; the caller holds s.mu.
func candidateWire(c *Candidate) wireCandidate {
	w := wireCandidate{ID: "kmb_cand_" + c.RemoteID, RemoteID: c.RemoteID, FirstName: c.FirstName, LastName: c.LastName,
		EmailAddresses: []wireEmail{}, PhoneNumbers: []wirePhone{}, SocialMedia: []any{}, Tags: []any{}}
	if c.Email != "" {
		w.EmailAddresses = append(w.EmailAddresses, wireEmail{EmailAddress: c.Email, Type: "PRIVATE"})
	}
	if c.Phone != "" {
		w.PhoneNumbers = append(w.PhoneNumbers, wirePhone{PhoneNumber: c.Phone, Type: "MOBILE"})
	}
	return w
}

func stageWire(name string) wireStage {
	return wireStage{ID: "kmb_stage_" + name, RemoteID: name, Name: name}
}

func (in *integration) jobRef(remoteID string) wireJobRef {
	ref := wireJobRef{ID: "kmb_" + remoteID, RemoteID: remoteID}
	if j, ok := in.jobs[remoteID]; ok {
		ref.Name = j.Name
	}
	return ref
}

// applicationWire is a in Kombo's shape, candidate, stage and job expanded; the caller holds s.mu.
func (in *integration) applicationWire(a *Application) wireApplication {
	c := in.candidates[a.CandidateRemoteID]
	if c == nil {
		c = &Candidate{RemoteID: a.CandidateRemoteID}
	}
	return wireApplication{ID: "kmb_app_" + a.RemoteID, RemoteID: a.RemoteID, Outcome: a.Outcome, CurrentStageID: "kmb_stage_" + a.Stage,
		JobID: "kmb_" + a.JobRemoteID, CandidateID: "kmb_cand_" + a.CandidateRemoteID, CustomFields: map[string]any{}, IntegrationFields: []any{},
		ChangedAt: a.changedAt, RemoteDeletedAt: a.deletedAt, RemoteCreatedAt: a.RemoteCreatedAt, RemoteUpdatedAt: a.changedAt,
		Candidate: candidateWire(c), CurrentStage: stageWire(a.Stage), Job: in.jobRef(a.JobRemoteID), Interviews: []any{}, Offers: []any{}}
}
