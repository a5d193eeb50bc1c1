package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// Writer writes results back to an ATS connected through the aggregator, on the aggregator's
// application id. Each call carries key as its Idempotency-Key. Errors wrap the package's
// sentinels (ErrPermanent for a refusal such as an unknown stage).
type Writer interface {
	// AddNote adds a plain-text note to the application.
	AddNote(ctx context.Context, integrationID, applicationID, text, key string) error
	// AddResultLink attaches a labelled link (the report) with display attributes.
	AddResultLink(ctx context.Context, integrationID, applicationID string, link ResultLink, key string) error
	// MoveStage moves the application to the stage with the aggregator's stage id.
	MoveStage(ctx context.Context, integrationID, applicationID, stageID, key string) error
	// StageOf reads the application's current stage id.
	StageOf(ctx context.Context, integrationID, applicationID string) (stageID string, found bool, err error)
}

// ResultLink is an assessment result link: its label, URL and attributes shown beside it.
type ResultLink struct {
	Label, URL string
	Attributes [][2]string
}

var _ Writer = (*Kombo)(nil)

// AddNote implements Writer (POST /v1/ats/applications/{id}/notes).
func (k *Kombo) AddNote(ctx context.Context, integrationID, applicationID, text, key string) error {
	body, _ := json.Marshal(map[string]any{"content": text, "content_type": "PLAIN_TEXT", "remote_fields": map[string]any{}})
	var out json.RawMessage
	return k.doKeyed(ctx, http.MethodPost, "/v1/ats/applications/"+url.PathEscape(applicationID)+"/notes", nil, integrationID, key, body, &out)
}

// AddResultLink implements Writer (POST /v1/ats/applications/{id}/result-links).
func (k *Kombo) AddResultLink(ctx context.Context, integrationID, applicationID string, link ResultLink, key string) error {
	attrs := make([]map[string]string, 0, len(link.Attributes))
	for _, a := range link.Attributes {
		attrs = append(attrs, map[string]string{"key": a[0], "value": a[1]})
	}
	body, _ := json.Marshal(map[string]any{"label": link.Label, "url": link.URL,
		"details": map[string]any{"custom_field_name_prefix": "recruitd", "attributes": attrs}})
	var out json.RawMessage
	return k.doKeyed(ctx, http.MethodPost, "/v1/ats/applications/"+url.PathEscape(applicationID)+"/result-links", nil, integrationID, key, body, &out)
}

// StageOf reads the application's current stage id (GET /v1/ats/applications?ids={id});
// found is false when the aggregator does not list it.
func (k *Kombo) StageOf(ctx context.Context, integrationID, applicationID string) (stageID string, found bool, err error) {
	v := url.Values{"ids": {applicationID}, "include_deleted": {"true"}, "page_size": {"1"}}
	var raw json.RawMessage
	if err := k.do(ctx, http.MethodGet, "/v1/ats/applications", v, integrationID, nil, &raw); err != nil {
		return "", false, fmt.Errorf("read application %s: %w", applicationID, err)
	}
	page, err := ParseApplicationPage(raw)
	if err != nil {
		return "", false, fmt.Errorf("read application %s: %w", applicationID, err)
	}
	for _, a := range page.Applications {
		if a.ID == applicationID {
			return a.StageID, true, nil
		}
	}
	return "", false, nil
}

// MoveStage implements Writer (PUT /v1/ats/applications/{id}/stage).
func (k *Kombo) MoveStage(ctx context.Context, integrationID, applicationID, stageID, key string) error {
	body, _ := json.Marshal(map[string]any{"stage_id": stageID, "remote_fields": map[string]any{}})
	var out json.RawMessage
	return k.doKeyed(ctx, http.MethodPut, "/v1/ats/applications/"+url.PathEscape(applicationID)+"/stage", nil, integrationID, key, body, &out)
}
