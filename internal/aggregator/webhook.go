package aggregator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recruitd/recruitd/internal/webhooksig"
)

// Webhook event types.
const (
	EventIntegrationCreated      = "integration-created"
	EventIntegrationStateChanged = "integration-state-changed"
	EventDataChanged             = "data-changed"
)

// Event is an aggregator webhook, reduced to what recruitd acts on.
type Event struct {
	ID   string
	Type string
	// IntegrationID is the aggregator's integration; OriginID recruitd's company id as given in
	// the link request (integration events only).
	IntegrationID, OriginID string
	// State and SetupStatus are set for integration-state-changed (and integration-created when
	// the aggregator includes them).
	State, SetupStatus string
	// ChangedModels are the models of a data-changed event (for example ats_jobs).
	ChangedModels []string
}

// Models a data-changed event names that recruitd reads.
const (
	ModelJobs         = "ats_jobs"
	ModelCandidates   = "ats_candidates"
	ModelApplications = "ats_applications"
)

// Touches reports whether a data-changed event concerns one of models. An event that names no
// model is taken to concern everything.
func (e Event) Touches(models ...string) bool {
	if len(e.ChangedModels) == 0 {
		return true
	}
	for _, m := range e.ChangedModels {
		for _, want := range models {
			if m == want {
				return true
			}
		}
	}
	return false
}

// ErrBadEvent means a body is not an aggregator event recruitd understands.
var ErrBadEvent = errors.New("invalid aggregator event")

const maxIDLen = 200

type wireEvent struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data struct {
		IntegrationID string `json:"integration_id"`
		ID            string `json:"id"` // integration-created names the integration "id"
		EndUser       *struct {
			OriginID string `json:"origin_id"`
		} `json:"end_user"`
		State         string `json:"state"`
		SetupStatus   string `json:"setup_status"`
		ChangedModels []struct {
			Name string `json:"name"`
		} `json:"changed_models"`
	} `json:"data"`
}

// ParseEvent reads an aggregator webhook body. It checks shape only: the signature is
// VerifySignature's job, and it needs the integration's secret, which the event's ids find.
func ParseEvent(body []byte) (Event, error) {
	var w wireEvent
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&w); err != nil {
		return Event{}, fmt.Errorf("%w: %v", ErrBadEvent, err)
	}
	if dec.More() {
		return Event{}, fmt.Errorf("%w: more than one JSON value", ErrBadEvent)
	}
	e := Event{ID: w.ID, Type: w.Type, IntegrationID: w.Data.IntegrationID, State: w.Data.State, SetupStatus: w.Data.SetupStatus}
	if e.IntegrationID == "" && w.Type == EventIntegrationCreated {
		e.IntegrationID = w.Data.ID
	}
	if w.Data.EndUser != nil {
		e.OriginID = w.Data.EndUser.OriginID
	}
	for _, m := range w.Data.ChangedModels {
		e.ChangedModels = append(e.ChangedModels, m.Name)
	}
	for name, v := range map[string]string{"id": e.ID, "type": e.Type, "integration id": e.IntegrationID} {
		if v == "" {
			return Event{}, fmt.Errorf("%w: no %s", ErrBadEvent, name)
		}
	}
	for _, v := range []string{e.ID, e.Type, e.IntegrationID, e.OriginID, e.State, e.SetupStatus} {
		if len(v) > maxIDLen || !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
			return Event{}, fmt.Errorf("%w: a field is too long or not text", ErrBadEvent)
		}
	}
	return e, nil
}

// Errors of VerifySignature; none carries a secret or a header value.
var (
	ErrNoSignature  = webhooksig.ErrMissingHeader
	ErrTimestamp    = webhooksig.ErrTimestamp
	ErrBadSignature = webhooksig.ErrSignature
)

// VerifySignature checks a Standard Webhooks delivery: webhook-id, webhook-timestamp (unix
// seconds, within webhooksig.Tolerance of now) and one matching "v1," signature of the raw body
// under secret, compared in constant time. It returns the signed timestamp.
func VerifySignature(h http.Header, body []byte, secret string, now time.Time) (time.Time, error) {
	if secret == "" {
		return time.Time{}, fmt.Errorf("%w: no webhook secret configured", ErrNoSignature)
	}
	return webhooksig.Verify(h, body, secret, now)
}
