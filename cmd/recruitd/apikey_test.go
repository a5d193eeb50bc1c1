package main

import (
	"slices"
	"testing"

	"github.com/recruitd/recruitd/models"
)

func TestKeyScopes(t *testing.T) {
	tests := []struct {
		names   []string
		partner bool
		want    []models.Scope
		err     bool
	}{
		{nil, false, models.AllScopes(), false},
		{nil, true, []models.Scope{models.ScopePartnerApplications}, false},
		{[]string{"mcp:read", "JOBS", "mcp:read"}, false, []models.Scope{models.ScopeMCPRead, models.ScopeJobs}, false},
		{[]string{"partner-applications", "invitations"}, true, []models.Scope{models.ScopePartnerApplications, models.ScopeInvitations}, false},
		{[]string{"admin"}, false, nil, true},
	}
	for _, tt := range tests {
		got, err := keyScopes(tt.names, tt.partner)
		if (err != nil) != tt.err || !slices.Equal(got, tt.want) {
			t.Errorf("keyScopes(%q, %v) = %v, %v; want %v (error %v)", tt.names, tt.partner, got, err, tt.want, tt.err)
		}
	}
}
