package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/flow"
	"github.com/recruitd/recruitd/internal/jsontext"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// FlowDefinitionResponse is the definition in force of a company's customer flow for a trigger.
type FlowDefinitionResponse struct {
	Success    bool            `json:"success"`
	Trigger    string          `json:"trigger"`
	Version    int             `json:"version"`
	Enabled    bool            `json:"enabled"`
	Definition json.RawMessage `json:"definition"`
	UpdatedAt  time.Time       `json:"updatedAt"`
}

func (s *server) flowTrigger(c *gin.Context) (models.FlowTrigger, bool) {
	t, err := models.ParseFlowTrigger(c.Param("trigger"))
	if err != nil {
		s.fail(c, newError(http.StatusNotFound, "NOT_FOUND", "no such workflow trigger: "+err.Error()))
		return "", false
	}
	return t, true
}

func definitionResponse(d *models.FlowDefinition) FlowDefinitionResponse {
	return FlowDefinitionResponse{Success: true, Trigger: string(d.Trigger), Version: d.Version, Enabled: d.Enabled, Definition: d.Definition, UpdatedAt: d.CreatedAt.UTC()}
}

func (s *server) getFlow(c *gin.Context) {
	t, ok := s.flowTrigger(c)
	if !ok {
		return
	}
	d, err := s.Store.FlowDefinition(c.Request.Context(), company(c).ID, t)
	if errors.Is(err, store.ErrNotFound) {
		s.fail(c, newError(http.StatusNotFound, "WORKFLOW_NOT_CONFIGURED", "no "+string(t)+" workflow is configured; PUT one to this URL"))
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, definitionResponse(d))
}

func (s *server) putFlow(c *gin.Context) {
	t, ok := s.flowTrigger(c)
	if !ok {
		return
	}
	body, err := readJSONBody(c)
	if err != nil {
		s.fail(c, err)
		return
	}
	// A repeated name is left to flow.ParseFor, which names it as a problem of the definition.
	var repeated *jsontext.Repeated
	if err := jsontext.CheckContext(c.Request.Context(), body); !errors.As(err, &repeated) {
		if err := bodyError(c.Request.Context(), err); err != nil {
			s.fail(c, err)
			return
		}
	}
	def, canonical, err := flow.ParseFor(body, t)
	if err != nil {
		s.fail(c, newError(http.StatusBadRequest, "INVALID_WORKFLOW", err.Error()))
		return
	}
	saved, err := s.Store.SaveFlowDefinition(c.Request.Context(), company(c).ID, t, canonical, def.Enabled, flow.Hash(def))
	if err != nil {
		s.fail(c, err)
		return
	}
	c.JSON(http.StatusOK, definitionResponse(saved))
}
