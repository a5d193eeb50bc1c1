package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

const ctxSupportUser = "recruitd.support_user"

var errSupportToken = newError(http.StatusUnauthorized, "INVALID_SUPPORT_TOKEN",
	"send a platform admin's support token as Authorization: Bearer <token> (recruitd support token create); company API keys are not accepted here")

// authenticateSupport resolves Authorization: Bearer <support token> to a platform admin. A
// company's API key is refused: support reaches across companies. Failures are refused through
// refuse, like company keys.
func (s *server) authenticateSupport(c *gin.Context) {
	token, ok := strings.CutPrefix(c.GetHeader("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		s.fail(c, errSupportToken)
		return
	}
	u, err := s.Store.AuthenticateSupport(c.Request.Context(), strings.TrimSpace(token))
	if errors.Is(err, store.ErrUnknownKey) {
		s.refuse(c, errSupportToken)
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	c.Set(ctxSupportUser, u)
	c.Next()
}

func supportUser(c *gin.Context) *models.User { return c.MustGet(ctxSupportUser).(*models.User) }
