package seed

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/bulkload"
	"github.com/recruitd/recruitd/internal/store"
)

// DefaultCandidatesPerJob is how many candidates a generated company has per job: 20,000 jobs at
// 10M candidates.
const DefaultCandidatesPerJob = 500

// ScaleOptions configures Scale.
type ScaleOptions struct {
	Companies            int    // companies in the data set; company 1 is the demo tenant
	Candidates           int    // candidates per company
	SessionsPerCandidate int    // mean interview sessions per candidate
	Seed                 uint64 // PRNG seed: the same options give the same rows, ids included
	// CandidatesPerJob sets a company's jobs: one per this many candidates, at least 20. 0
	// means DefaultCandidatesPerJob (`bench mcp` passes fewer to give a smaller pool the jobs
	// of a larger one).
	CandidatesPerJob int
	// AsOf is the data set's "now": every timestamp lies in the two years before it. Zero means
	// the start of the current UTC day, so the data looks current and stays reproducible all day.
	AsOf time.Time
	// APIKey is passed to Demo (see there).
	APIKey string
	// Progress receives progress lines (redrawn in place when it is a terminal); nil for none.
	Progress io.Writer
	// Checked loads everything through one connection in one transaction, with foreign keys
	// checked row by row. The default loads each big table through its own connection in
	// parallel with session_replication_role = replica (foreign-key triggers off: the generator
	// produces consistent rows by construction, and TestScale proves it by loading the same data
	// set checked). Scale falls back to Checked when the role may not set
	// session_replication_role (superusers may; others need GRANT SET ON PARAMETER).
	Checked bool
	// DropIndexesFrom is the candidate count from which a table's secondary indexes are dropped
	// before loading and re-created after, in the same transaction, provided the table does not
	// already hold more rows than the load adds. 0 means 50,000; tests use 1.
	DropIndexesFrom int
	// Workers is the number of generating goroutines; 0 means GOMAXPROCS.
	Workers int
}

// ScaleResult says what Scale did.
type ScaleResult struct {
	Demo      *DemoResult
	Companies []ScaleCompany
	Rows      []TableRows // rows loaded per table, in load order; empty when nothing was loaded
	Mode      string      // "parallel" or "checked"
	Load      time.Duration
	Rollups   time.Duration // computing the rollups after a parallel load (its triggers were off)
	Analyze   time.Duration
	Elapsed   time.Duration
}

// ScaleCompany is one company of the data set.
type ScaleCompany struct {
	Index   int
	ID      uuid.UUID
	Slug    string
	Name    string
	Skipped string // why the company was left alone; empty when it was generated
}

// TableRows is a row count.
type TableRows struct {
	Table string
	Rows  int64
}

// Scale generates a deterministic demo data set of o.Companies companies with o.Candidates
// candidates each, with their jobs, interview guides, applications, interview sessions, notes
// and integrity checks, and bulk-loads it with COPY. Company 1 is the demo tenant (made by Demo
// first, with an id derived from the seed when it does not exist yet); companies 2..N get
// generated names. A company that already holds seeded data (a job with external id 100001),
// or any other company with a generated company's slug, is skipped, so running Scale again is
// safe. Everything loaded commits together or not at all: cancelling ctx rolls it all back.
//
// Scale needs up to 10 connections and raises db's limit when it is lower.
func Scale(ctx context.Context, st *store.Store, o ScaleOptions) (*ScaleResult, error) {
	began := time.Now()
	switch {
	case o.Companies < 1:
		return nil, errors.New("companies must be at least 1")
	case o.Candidates < 0 || o.Candidates > 50_000_000:
		return nil, errors.New("candidates must be between 0 and 50,000,000")
	case o.SessionsPerCandidate < 0 || o.SessionsPerCandidate > 20:
		return nil, errors.New("sessions per candidate must be between 0 and 20")
	case o.CandidatesPerJob < 0 || o.CandidatesPerJob > 0 && o.CandidatesPerJob < 5:
		return nil, errors.New("candidates per job must be at least 5")
	case o.Companies > 10_000:
		return nil, errors.New("companies must be at most 10,000")
	}
	if o.AsOf.IsZero() {
		o.AsOf = time.Now().UTC().Truncate(24 * time.Hour)
	}
	if o.DropIndexesFrom <= 0 {
		o.DropIndexesFrom = 50_000
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	asOf := o.AsOf.UnixMicro()
	db := st.SQL()

	dr, err := demo(ctx, st, o.APIKey, demoCompanyID(o.Seed).UUID())
	if err != nil {
		return nil, err
	}
	res := &ScaleResult{Demo: dr}
	var load []*companyGen
	for idx := 1; idx <= o.Companies; idx++ {
		var c *companyGen
		if idx == 1 {
			c = planDemo(o.Seed, dr.Company, &o, asOf)
		} else {
			c = planCompany(o.Seed, idx, &o, asOf)
		}
		sc := ScaleCompany{Index: idx, ID: c.id.UUID(), Slug: c.slug, Name: c.name}
		existing := c.id.UUID()
		if idx > 1 {
			err := db.QueryRowContext(ctx, "SELECT id FROM companies WHERE slug = $1", c.slug).Scan(&existing)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				existing = uuid.Nil
			case err != nil:
				return nil, fmt.Errorf("look up company %s: %w", c.slug, err)
			}
		}
		if existing != uuid.Nil {
			sc.ID = existing
			seeded, err := hasSeededData(ctx, db, existing)
			if err != nil {
				return nil, err
			}
			switch {
			case seeded:
				sc.Skipped = "already holds seeded data"
			case idx > 1:
				sc.Skipped = "a company with this slug exists and was not seeded; left alone"
			}
		}
		res.Companies = append(res.Companies, sc)
		if sc.Skipped == "" {
			load = append(load, c)
		}
	}
	if len(load) == 0 {
		res.Elapsed = time.Since(began)
		return res, nil
	}
	for _, c := range load {
		c.buildCompany()
	}

	vocab, err := loadSearchVocab(ctx, db)
	if err != nil {
		return nil, err
	}
	l := &loader{db: db, o: &o, comps: load, bgIndex: bulkload.NewTurnstile(1), vocab: vocab}
	for _, c := range load {
		c.writeHead(&l.head)
		l.totalCands += int64(c.candidates)
	}
	if !o.Checked {
		ok, err := bulkload.CanDisableTriggers(ctx, db)
		if err != nil {
			return nil, err
		}
		o.Checked = !ok
	}
	res.Mode = "parallel"
	if o.Checked {
		res.Mode = "checked"
	}
	if err := l.planIndexes(ctx); err != nil {
		return nil, err
	}
	if need := numBig + 2; !o.Checked && db.Stats().MaxOpenConnections > 0 && db.Stats().MaxOpenConnections < need {
		db.SetMaxOpenConns(need)
	}

	l.prog = bulkload.NewProgress(o.Progress, bulkload.ProgressOptions{Label: "seed", Units: l.totalCands, Unit: "candidates", Known: "company tables"})
	for t := range numHead {
		l.headProg[t] = l.prog.Add(headTables[t].Name, int64(l.head[t].Rows()))
	}
	for t := range numBig {
		if t < numSource || !o.Checked {
			l.bigProg[t] = l.prog.Add(bigTables[t].Name, -1)
		}
	}
	l.prog.Start()
	loadStart := time.Now()
	if o.Checked {
		err = l.loadChecked(ctx)
	} else {
		err = l.loadParallel(ctx)
	}
	res.Load = time.Since(loadStart)
	if err != nil {
		if ctx.Err() != nil {
			l.prog.Finish("interrupted; rolled back")
		} else {
			l.prog.Finish("failed; rolled back")
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("seeding interrupted; nothing was committed: %w", ctx.Err())
		}
		return nil, err
	}
	if !o.Checked {
		// Triggers were off during the load: compute the statistics rollups in one pass each.
		l.prog.SetPhase("rollups")
		rollupsStart := time.Now()
		for _, c := range load {
			if err := l.rebuildRollups(ctx, c.id.UUID()); err != nil {
				l.prog.Finish("rollups failed")
				return nil, err
			}
		}
		res.Rollups = time.Since(rollupsStart)
	}
	analyzeStart := time.Now()
	l.prog.SetPhase("analyze")
	if err := l.analyze(ctx); err != nil {
		l.prog.Finish("analyze failed")
		return nil, err
	}
	res.Analyze = time.Since(analyzeStart)
	l.prog.Finish("done")
	for t := range numHead {
		res.Rows = append(res.Rows, TableRows{headTables[t].Name, l.headProg[t].Rows()})
	}
	for t := range numBig {
		if t < numSource || !o.Checked {
			res.Rows = append(res.Rows, TableRows{bigTables[t].Name, l.bigProg[t].Rows()})
		}
	}
	res.Elapsed = time.Since(began)
	return res, nil
}

// hasSeededData reports whether company id holds a data set of Scale.
func hasSeededData(ctx context.Context, db *sql.DB, id uuid.UUID) (bool, error) {
	var ok bool
	err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM jobs WHERE company_id = $1 AND external_id = $2)",
		id, strconv.Itoa(firstJobExternalID)).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look for seeded data: %w", err)
	}
	return ok, nil
}
