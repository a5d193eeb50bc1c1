package activities

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// PingResult is what the Ping activity read.
type PingResult struct {
	CompanySlug string
}

// Ping reads the company's slug: one Postgres round trip from a worker. It is the floor that
// benchmarks compare real workflows against, and the self-check of `recruitd dev`.
func (a *Activities) Ping(ctx context.Context, companyID uuid.UUID) (PingResult, error) {
	c, err := a.Store.Company(ctx, companyID)
	if err != nil {
		return PingResult{}, fmt.Errorf("ping: %w", err)
	}
	return PingResult{CompanySlug: c.Slug}, nil
}
