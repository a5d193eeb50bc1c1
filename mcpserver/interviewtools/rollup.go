package interviewtools

import (
	"github.com/google/uuid"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// Company-wide figures read the rollups of migration 00007 (see internal/rollup), which the source
// tables' triggers keep exact, for the whole days or slots of a window and the source rows for its
// partial ends (toolkit.SplitUnion); job-scoped figures read the source rows (one job holds a few
// thousand sessions).

// filters are a call's optional job and medium filters, as placeholders of its query.
type filters struct {
	job, media string
	nMedia     int // how many media the media filter holds
}

func newFilters(q *toolkit.Query, job *uuid.UUID, media []models.MediumType) filters {
	var f filters
	if job != nil {
		f.job = q.Arg(*job)
	}
	if len(media) > 0 {
		f.media, f.nMedia = q.Arg(toolkit.Strings(media)), len(media)
	}
	return f
}

// on returns the filters as predicates on the table aliased a, each prefixed with " AND ". The
// rollups have medium_type but no job_id: they are read only without a job.
func (f filters) on(a string) string {
	var s string
	if f.job != "" {
		s += " AND " + a + ".job_id = " + f.job
	}
	if f.media != "" {
		s += " AND " + a + ".medium_type = ANY(" + f.media + "::text[])"
	}
	return s
}
