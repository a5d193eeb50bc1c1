package seed

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"golang.org/x/sync/errgroup"

	"github.com/recruitd/recruitd/internal/rollup"
	"github.com/recruitd/recruitd/internal/store"
)

// ScaleOptions configures Scale.
type ScaleOptions struct {
	Companies            int    // companies in the data set; company 1 is the demo tenant
	Candidates           int    // candidates per company
	SessionsPerCandidate int    // mean interview sessions per candidate
	Seed                 uint64 // PRNG seed: the same options give the same rows, ids included
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

	l := &loader{db: db, o: &o, comps: load, bgIndex: newTurnstile(1)}
	for _, c := range load {
		c.writeHead(&l.head)
		l.totalCands += int64(c.candidates)
	}
	if !o.Checked {
		ok, err := canDisableTriggers(ctx, db)
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

	l.prog = newProgress(o.Progress, l.totalCands)
	for t := range numHead {
		l.headProg[t] = l.prog.add(headTables[t].name, int64(l.head[t].rows))
	}
	for t := range numBig {
		l.bigProg[t] = l.prog.add(bigTables[t].name, -1)
	}
	l.prog.start()
	loadStart := time.Now()
	if o.Checked {
		err = l.loadChecked(ctx)
	} else {
		err = l.loadParallel(ctx)
	}
	res.Load = time.Since(loadStart)
	if err != nil {
		if ctx.Err() != nil {
			l.prog.finish("interrupted; rolled back")
		} else {
			l.prog.finish("failed; rolled back")
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("seeding interrupted; nothing was committed: %w", ctx.Err())
		}
		return nil, err
	}
	if !o.Checked {
		// Triggers were off during the load: compute the statistics rollups in one pass each.
		l.prog.phase("rollups")
		for _, c := range load {
			if err := l.rebuildRollups(ctx, c.id.UUID()); err != nil {
				l.prog.finish("rollups failed")
				return nil, err
			}
		}
	}
	analyzeStart := time.Now()
	l.prog.phase("analyze")
	if err := l.analyze(ctx); err != nil {
		l.prog.finish("analyze failed")
		return nil, err
	}
	res.Analyze = time.Since(analyzeStart)
	l.prog.finish("done")
	for t := range numHead {
		res.Rows = append(res.Rows, TableRows{headTables[t].name, l.headProg[t].rows.Load()})
	}
	for t := range numBig {
		res.Rows = append(res.Rows, TableRows{bigTables[t].name, l.bigProg[t].rows.Load()})
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

// canDisableTriggers reports whether this role may set session_replication_role.
func canDisableTriggers(ctx context.Context, db *sql.DB) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica")
	return err == nil, nil
}

// loader loads the generated companies.
type loader struct {
	db         *sql.DB
	o          *ScaleOptions
	comps      []*companyGen
	totalCands int64
	head       [numHead]copyBuf
	drop       [numBig]bool
	prog       *progress
	headProg   [numHead]*tableProgress
	bigProg    [numBig]*tableProgress
	pools      [numBig]sync.Pool
	bgIndex    *turnstile // orders the index builds of the tables other than candidates
}

// batchSize is the number of candidates per generated batch.
const batchSize = 1000

// batch is the rows of candidates [from, to) of one company, one buffer per table.
type batch struct {
	c        *companyGen
	from, to int
	bufs     [numBig]*copyBuf
	done     chan struct{}
}

// planIndexes decides which tables get their secondary indexes dropped during the load and
// re-created after it. Maintaining them row by row costs far more than building them once
// (measured: the candidates' GiST index 100 µs per row against 25 µs; interview_sessions with
// all its indexes 54 µs per row against 5.6 µs with its keys only, random keys missing the
// buffer cache), but a build reads the whole table, so it pays when the load is large and at
// least as big as what the table holds.
func (l *loader) planIndexes(ctx context.Context) error {
	if l.totalCands < int64(l.o.DropIndexesFrom) {
		return nil
	}
	s := float64(l.o.SessionsPerCandidate)
	factor := [numBig]float64{1, s, s, 0.2, 0.5 * s, 0.5, 0.1 * s}
	for t := range numBig {
		var existing int64
		err := l.db.QueryRowContext(ctx, "SELECT reltuples::bigint FROM pg_class WHERE oid = $1::regclass", bigTables[t].name).Scan(&existing)
		if err != nil {
			return fmt.Errorf("size of %s: %w", bigTables[t].name, err)
		}
		if existing < 0 { // never analysed
			q := "SELECT count(*) FROM (SELECT 1 FROM " + bigTables[t].name + " LIMIT 10000000) t"
			if err := l.db.QueryRowContext(ctx, q).Scan(&existing); err != nil {
				return fmt.Errorf("size of %s: %w", bigTables[t].name, err)
			}
		}
		l.drop[t] = float64(existing) <= factor[t]*float64(l.totalCands)
	}
	return nil
}

func (l *loader) getBuf(t int) *copyBuf {
	if b, ok := l.pools[t].Get().(*copyBuf); ok {
		b.reset()
		return b
	}
	return &copyBuf{}
}

// generate streams the batches of every company, in order, to the sinks of the tables in mask,
// and closes those sinks when done. On error it returns without closing them: the consumers
// watch ctx.
func (l *loader) generate(ctx context.Context, mask [numBig]bool, sinks *[numBig]chan *batch) error {
	g, gctx := errgroup.WithContext(ctx)
	workers := l.o.Workers
	work := make(chan *batch, 4*workers)
	ordered := make(chan *batch, 4*workers)
	g.Go(func() error {
		defer close(work)
		defer close(ordered)
		for _, c := range l.comps {
			for from := 0; from < c.candidates; from += batchSize {
				b := &batch{c: c, from: from, to: min(from+batchSize, c.candidates), done: make(chan struct{})}
				for t := range numBig {
					if mask[t] {
						b.bufs[t] = l.getBuf(t)
					}
				}
				select {
				case ordered <- b:
				case <-gctx.Done():
					return gctx.Err()
				}
				select {
				case work <- b:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
		}
		return nil
	})
	for range workers {
		g.Go(func() error {
			w := newWorker()
			for b := range work {
				for i := b.from; i < b.to; i++ {
					w.candidate(b.c, i, &b.bufs)
					if i&255 == 0 && gctx.Err() != nil {
						return gctx.Err()
					}
				}
				close(b.done)
			}
			return nil
		})
	}
	g.Go(func() error {
		for b := range ordered {
			select {
			case <-b.done:
			case <-gctx.Done():
				return gctx.Err()
			}
			for t := range numBig {
				if !mask[t] {
					continue
				}
				select {
				case sinks[t] <- b:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
		}
		if gctx.Err() != nil {
			return gctx.Err()
		}
		for t := range numBig {
			if mask[t] {
				close(sinks[t])
			}
		}
		return nil
	})
	return g.Wait()
}

// copyStream is the binary COPY data of one table: the header, the table's buffer of each
// batch as it arrives, the trailer.
type copyStream struct {
	ctx     context.Context
	t       int
	in      <-chan *batch
	prog    *tableProgress
	pool    *sync.Pool
	cur     []byte
	held    *copyBuf
	started bool
	ended   bool
}

func (s *copyStream) Read(p []byte) (int, error) {
	for len(s.cur) == 0 {
		if s.held != nil {
			s.pool.Put(s.held)
			s.held = nil
		}
		switch {
		case !s.started:
			s.started, s.cur = true, copyHeader
			continue
		case s.ended:
			return 0, io.EOF
		}
		select {
		case <-s.ctx.Done():
			return 0, s.ctx.Err()
		case b, ok := <-s.in:
			if !ok {
				s.ended, s.cur = true, copyTrailer
				continue
			}
			if s.prog.state.Load() == statePending {
				s.prog.setState(stateCopying)
			}
			s.held = b.bufs[s.t]
			s.cur = s.held.b
			s.prog.rows.Add(int64(s.held.rows))
			s.prog.cands.Add(int64(b.to - b.from))
		}
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	return n, nil
}

func copySQL(t tableSpec) string {
	return "COPY " + t.name + " (" + t.columns + ") FROM STDIN (FORMAT binary)"
}

// withConn runs f on a pgx connection of the pool.
func (l *loader) withConn(ctx context.Context, f func(*pgx.Conn) error) error {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("seeding needs the pgx database/sql driver, got %T", dc)
		}
		return f(sc.Conn())
	})
}

// inTx runs f in a transaction on c, which it commits after f when commit allows (it blocks
// until then) and rolls back otherwise.
func inTx(ctx context.Context, c *pgx.Conn, replica bool, f func(pgx.Tx) error, commit func(context.Context) error) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	rollback := func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = tx.Rollback(rctx)
	}
	// A small effective_cache_size makes GiST index builds use their buffering method, which
	// touches index pages in batches: the candidates' GiST build takes half as long when other
	// loads compete for shared buffers.
	setup := "SET LOCAL maintenance_work_mem = '256MB'; SET LOCAL work_mem = '64MB'; SET LOCAL effective_cache_size = '16MB'"
	if replica {
		setup += "; SET LOCAL session_replication_role = replica"
	}
	if _, err := tx.Exec(ctx, setup); err != nil {
		rollback()
		return err
	}
	if err := f(tx); err != nil {
		rollback()
		return err
	}
	if err := commit(ctx); err != nil {
		rollback()
		return err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	return tx.Commit(cctx)
}

// indexDef is an index that a load drops and re-creates: a secondary index (as pg_get_indexdef
// prints it) or a UNIQUE constraint that no foreign key relies on (as pg_get_constraintdef
// prints it), such as interview_sessions.link_token's, whose random keys make each insert a
// random B-tree write.
type indexDef struct {
	table, name, def string
	constraint       bool
}

// dropIndexes drops the indexes of table that no foreign key needs and returns their definitions.
func dropIndexes(ctx context.Context, tx pgx.Tx, table string) ([]indexDef, error) {
	rows, err := tx.Query(ctx, `
		SELECT false, x.indexrelid::regclass::text, pg_get_indexdef(x.indexrelid)
		FROM pg_index x
		WHERE x.indrelid = $1::regclass
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
		UNION ALL
		SELECT true, quote_ident(c.conname), pg_get_constraintdef(c.oid)
		FROM pg_constraint c
		WHERE c.conrelid = $1::regclass AND c.contype = 'u'
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint f WHERE f.contype = 'f' AND f.conindid = c.conindid)
		ORDER BY 1, 2`, table)
	if err != nil {
		return nil, fmt.Errorf("list indexes of %s: %w", table, err)
	}
	defs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (indexDef, error) {
		d := indexDef{table: table}
		return d, r.Scan(&d.constraint, &d.name, &d.def)
	})
	if err != nil {
		return nil, fmt.Errorf("list indexes of %s: %w", table, err)
	}
	// Re-created slowest first: GiST and GIN builds are single-threaded, while B-tree builds
	// use parallel workers, which find idle cores at the end of the load.
	slices.SortStableFunc(defs, func(a, b indexDef) int { return buildOrder(a) - buildOrder(b) })
	for _, d := range defs {
		stmt := "DROP INDEX " + d.name
		if d.constraint {
			stmt = "ALTER TABLE " + table + " DROP CONSTRAINT " + d.name
		}
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return nil, fmt.Errorf("drop index %s: %w", d.name, err)
		}
	}
	return defs, nil
}

func buildOrder(d indexDef) int {
	switch {
	case strings.Contains(d.def, "USING gist"):
		return 0
	case strings.Contains(d.def, "USING gin"):
		return 1
	}
	return 2
}

func createIndexes(ctx context.Context, tx pgx.Tx, p *tableProgress, defs []indexDef) error {
	for i, d := range defs {
		p.setDetail(fmt.Sprintf("index %d/%d %s", i+1, len(defs), d.name))
		stmt := d.def
		if d.constraint {
			stmt = "ALTER TABLE " + d.table + " ADD CONSTRAINT " + d.name + " " + d.def
		}
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("re-create index %s: %w", d.name, err)
		}
	}
	p.setDetail("")
	return nil
}

// copyHead loads the company-level tables from memory.
func (l *loader) copyHead(ctx context.Context, tx pgx.Tx) error {
	for t := range numHead {
		p := l.headProg[t]
		if l.head[t].rows == 0 {
			p.setState(stateDone)
			continue
		}
		p.setState(stateCopying)
		r := io.MultiReader(bytes.NewReader(copyHeader), bytes.NewReader(l.head[t].b), bytes.NewReader(copyTrailer))
		if _, err := tx.Conn().PgConn().CopyFrom(ctx, r, copySQL(headTables[t])); err != nil {
			return fmt.Errorf("copy %s: %w", headTables[t].name, err)
		}
		p.rows.Store(int64(l.head[t].rows))
		p.setState(stateReady)
	}
	return nil
}

// loadParallel loads each big table through its own connection and transaction, with
// foreign-key triggers off; the company-level tables go through one more. The transactions
// commit once every one of them has loaded and indexed its table.
//
// The candidates are the critical path: their search document (a generated tsvector column,
// about 40 µs of CPU per row) makes their COPY the slowest, and their GiST and GIN indexes the
// slowest to build, single-threaded. So one generator feeds the candidates and another the other
// tables, which need not keep pace with them and build their indexes early; and since Postgres
// backends share the cores evenly, the other tables build their indexes one at a time, biggest
// first, without parallel workers (bgIndex), which leaves the candidates a core.
func (l *loader) loadParallel(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	lanes := numBig + 1
	arrived := make(chan struct{}, lanes)
	release := make(chan struct{})
	commit := func(ctx context.Context) error {
		arrived <- struct{}{}
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	g.Go(func() error {
		for range lanes {
			select {
			case <-arrived:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		l.prog.phase("commit")
		close(release)
		return nil
	})
	g.Go(func() error {
		return l.withConn(gctx, func(c *pgx.Conn) error {
			return inTx(gctx, c, true, func(tx pgx.Tx) error { return l.copyHead(gctx, tx) }, commit)
		})
	})
	var sinks [numBig]chan *batch
	for t := range numBig {
		sinks[t] = make(chan *batch, 16)
		g.Go(func() error {
			return l.withConn(gctx, func(c *pgx.Conn) error {
				return inTx(gctx, c, true, func(tx pgx.Tx) error { return l.loadTable(gctx, tx, t, sinks[t]) }, commit)
			})
		})
	}
	var cands, rest [numBig]bool
	for t := range numBig {
		cands[t], rest[t] = t == tCandidates, t != tCandidates
	}
	g.Go(func() error { return l.generate(gctx, cands, &sinks) })
	g.Go(func() error { return l.generate(gctx, rest, &sinks) })
	err := g.Wait()
	if err == nil {
		for _, p := range l.prog.tables {
			p.setState(stateDone)
		}
	}
	return err
}

// turnstile lets the tables other than candidates build their indexes in a fixed order (the
// biggest first), at most limit at a time; the limit grows when the candidates are done.
type turnstile struct {
	mu    sync.Mutex
	limit int
	used  int
	next  int           // rank of the next table to start
	wake  chan struct{} // closed and replaced whenever the state changes
}

func newTurnstile(limit int) *turnstile { return &turnstile{limit: limit, wake: make(chan struct{})} }

// bgRank is the order in which tables other than candidates build their indexes.
var bgRank = [numBig]int{tSessions: 0, tApplications: 1, tCheating: 2, tFraud: 3, tIdentity: 4, tNotes: 5}

func (s *turnstile) acquire(ctx context.Context, rank int) error {
	for {
		s.mu.Lock()
		if s.next == rank && s.used < s.limit {
			s.next++
			s.used++
			s.signal()
			s.mu.Unlock()
			return nil
		}
		wake := s.wake
		s.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// signal wakes the waiters; s.mu is held.
func (s *turnstile) signal() {
	close(s.wake)
	s.wake = make(chan struct{})
}

func (s *turnstile) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used--
	s.signal()
}

func (s *turnstile) setLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limit = n
	s.signal()
}

// loadTable copies big table t from in, dropping and re-creating its secondary indexes around
// the copy when planned.
func (l *loader) loadTable(ctx context.Context, tx pgx.Tx, t int, in <-chan *batch) error {
	p := l.bigProg[t]
	var defs []indexDef
	if l.drop[t] {
		var err error
		if defs, err = dropIndexes(ctx, tx, bigTables[t].name); err != nil {
			return err
		}
	}
	s := &copyStream{ctx: ctx, t: t, in: in, prog: p, pool: &l.pools[t]}
	if _, err := tx.Conn().PgConn().CopyFrom(ctx, s, copySQL(bigTables[t])); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("copy %s: %w", bigTables[t].name, err)
	}
	p.copied()
	if t == tCandidates {
		p.setState(stateIndexing)
		if err := createIndexes(ctx, tx, p, defs); err != nil {
			return err
		}
		l.bgIndex.setLimit(2) // a core is free now
	} else {
		p.setState(stateIndexing)
		p.setDetail("waiting for other tables' indexes")
		if err := l.bgIndex.acquire(ctx, bgRank[t]); err != nil {
			return err
		}
		defer l.bgIndex.release()
		if _, err := tx.Exec(ctx, "SET LOCAL max_parallel_maintenance_workers = 0"); err != nil {
			return err
		}
		if err := createIndexes(ctx, tx, p, defs); err != nil {
			return err
		}
	}
	p.setState(stateReady)
	return nil
}

// loadChecked loads everything through one transaction, table after table in foreign-key
// order, generating the candidates again for each big table.
func (l *loader) loadChecked(ctx context.Context) error {
	return l.withConn(ctx, func(c *pgx.Conn) error {
		return inTx(ctx, c, false, func(tx pgx.Tx) error {
			var defs [numBig][]indexDef
			for t := range numBig {
				if l.drop[t] {
					var err error
					if defs[t], err = dropIndexes(ctx, tx, bigTables[t].name); err != nil {
						return err
					}
				}
			}
			if err := l.copyHead(ctx, tx); err != nil {
				return err
			}
			for t := range numBig {
				var sinks [numBig]chan *batch
				var mask [numBig]bool
				sinks[t], mask[t] = make(chan *batch, 4), true
				g, gctx := errgroup.WithContext(ctx)
				g.Go(func() error { return l.generate(gctx, mask, &sinks) })
				g.Go(func() error {
					p := l.bigProg[t]
					s := &copyStream{ctx: gctx, t: t, in: sinks[t], prog: p, pool: &l.pools[t]}
					if _, err := tx.Conn().PgConn().CopyFrom(gctx, s, copySQL(bigTables[t])); err != nil {
						if gctx.Err() != nil {
							return gctx.Err()
						}
						return fmt.Errorf("copy %s: %w", bigTables[t].name, err)
					}
					p.copied()
					p.setState(stateReady)
					return nil
				})
				if err := g.Wait(); err != nil {
					return err
				}
			}
			for t := range numBig {
				p := l.bigProg[t]
				if len(defs[t]) > 0 {
					p.setState(stateIndexing)
					if err := createIndexes(ctx, tx, p, defs[t]); err != nil {
						return err
					}
				}
				p.setState(stateReady)
			}
			l.prog.phase("commit")
			return nil
		}, func(context.Context) error { return nil })
	})
}

// rebuildRollups computes a loaded company's statistics rollups, the parts of a rebuild two at a
// time, each in its own transaction. Foreign-key checks are off as during the load (the rollups
// are derived from rows that passed them), and the aggregate over every candidate gets the
// memory to stay in one pass.
func (l *loader) rebuildRollups(ctx context.Context, company uuid.UUID) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for _, part := range rollup.Parts {
		g.Go(func() error {
			tx, err := l.db.BeginTx(gctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			if _, err := tx.ExecContext(gctx, "SET LOCAL session_replication_role = replica; SET LOCAL work_mem = '256MB'"); err != nil {
				return err
			}
			if err := rollup.RebuildPart(gctx, tx, company, part); err != nil {
				return err
			}
			return tx.Commit()
		})
	}
	return g.Wait()
}

// analyze vacuums every table loaded, two at a time: planner statistics, and a visibility map
// so that index-only scans skip the heap.
func (l *loader) analyze(ctx context.Context) error {
	var tables []string
	for _, t := range rollup.Tables {
		tables = append(tables, t.Name)
	}
	for t := range numBig {
		tables = append(tables, bigTables[t].name)
	}
	for t := range numHead {
		if l.head[t].rows > 0 {
			tables = append(tables, headTables[t].name)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for _, t := range tables {
		g.Go(func() error {
			if _, err := l.db.ExecContext(gctx, "VACUUM (ANALYZE) "+t); err != nil {
				return fmt.Errorf("vacuum %s: %w", t, err)
			}
			return nil
		})
	}
	return g.Wait()
}
