package toolkit

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestCallerCompany(t *testing.T) {
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	user := &Caller{Kind: "user", CompanyIDs: []uuid.UUID{a, b}}
	admin := &Caller{Kind: "user", CompanyIDs: []uuid.UUID{a}, PlatformAdmin: true}
	tests := []struct {
		caller    *Caller
		requested string
		want      uuid.UUID
		err       string
	}{
		{user, "", a, ""},
		{user, b.String(), b, ""},
		{user, c.String(), uuid.Nil, "companyId is not in your accessible companies"},
		{user, "acme", uuid.Nil, "not a UUID"},
		{admin, c.String(), c, ""},
		{&Caller{Kind: "user"}, "", uuid.Nil, "no accessible companies"},
		{&Caller{Kind: "user", PlatformAdmin: true}, "", uuid.Nil, "as a platform admin, pass companyId"},
		{&Caller{Kind: "user", PlatformAdmin: true}, c.String(), c, ""},
	}
	for _, tt := range tests {
		got, err := tt.caller.Company(tt.requested)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Company(%q) err = %v, want %q", tt.requested, err, tt.err)
			}
			if strings.Contains(tt.err, "not in your accessible") && (!errors.Is(err, ErrForeignCompany) || !strings.Contains(err.Error(), "listCompanies")) {
				t.Errorf("Company(%q) err = %v, want ErrForeignCompany pointing at listCompanies", tt.requested, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Company(%q) = %v, %v; want %v", tt.requested, got, err, tt.want)
		}
	}
}
