package httpapi

import (
	"net/http"
	"path"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/docs"
	"github.com/recruitd/recruitd/httpapi/interviewpage"
)

// recruiterLink serves the page a recruiter link of kind opens while APP_URL is not set
// (links.Builder): how to read the record, nothing of it. Any well-formed id gets the same page,
// whether or not it exists, so the page tells nobody what exists.
func (s *server) recruiterLink(kind string) gin.HandlerFunc {
	return func(c *gin.Context) {
		id, err := uuid.Parse(c.Param("id"))
		if err != nil {
			s.fail(c, errNoRoute)
			return
		}
		pageHeaders(c)
		c.Status(http.StatusOK)
		c.Header("Content-Type", "text/html; charset=utf-8")
		l := interviewpage.RecruiterLink{Kind: kind, ID: id, APIBase: strings.TrimRight(s.Config.PublicBaseURL, "/")}
		if err := s.Page.RenderRecruiterLink(c.Writer, l); err != nil {
			s.Log.ErrorContext(c.Request.Context(), "recruiter link page not rendered", "request_id", requestID(c), "err", err)
		}
	}
}

// doc serves a page of the documentation (docs/*.md) as Markdown: the links of the
// searchDocumentation tool's citations (links.Builder.Doc).
func (s *server) doc(c *gin.Context) {
	name := c.Param("name")
	if path.Base(name) != name || path.Ext(name) != ".md" {
		name = path.Base(name) + ".md"
	}
	b, err := docs.FS.ReadFile(name)
	if err != nil {
		s.fail(c, errNoRoute)
		return
	}
	c.Header("Cache-Control", "public, max-age=300")
	c.Data(http.StatusOK, "text/plain; charset=utf-8", b) // Markdown, shown as text by every browser
}
