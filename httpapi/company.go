package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// CompanyResponse answers GET /v1/api/company, so a partner can check which company a key is for.
type CompanyResponse struct {
	Success bool        `json:"success"`
	Company CompanyInfo `json:"company"`
}

// CompanyInfo identifies a company.
type CompanyInfo struct {
	ID   string `json:"id"`
	Slug string `json:"slug"`
	Name string `json:"name"`
}

func (s *server) getCompany(c *gin.Context) {
	co := company(c)
	c.JSON(http.StatusOK, CompanyResponse{Success: true, Company: CompanyInfo{ID: co.ID.String(), Slug: co.Slug, Name: co.Name}})
}
