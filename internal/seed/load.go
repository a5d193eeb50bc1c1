package seed

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/recruitd/recruitd/internal/bulkload"
	"github.com/recruitd/recruitd/internal/rollup"
)

// loader loads the generated companies.
type loader struct {
	db         *sql.DB
	o          *ScaleOptions
	comps      []*companyGen
	totalCands int64
	head       [numHead]bulkload.Buf
	drop       [numBig]bool
	fresh      [numBig]bool // the table gets new storage in its load (bulkload.NewStorage)
	prog       *bulkload.Progress
	headProg   [numHead]*bulkload.TableProgress
	bigProg    [numBig]*bulkload.TableProgress
	pools      [numBig]sync.Pool
	bgIndex    *bulkload.Turnstile // orders the index builds of the tables other than candidates
	vocab      searchVocab         // the lexemes of the candidates' search documents
	aggMu      sync.Mutex
	aggs       []rollupAgg // the rollup.Generated counted by the workers of a parallel load
}

// batchSize is the number of candidates per generated batch.
const batchSize = 1000

// batch is the rows of candidates [from, to) of one company, one buffer per table.
type batch struct {
	c        *companyGen
	from, to int
	bufs     [numBig]*bulkload.Buf
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
	factor := [numBig]float64{1, s, s, 0.2, 0.5 * s, 0.5, 0.1 * s, 1, 0.5 * s, 1, s}
	for t := range numBig {
		var existing int64
		err := l.db.QueryRowContext(ctx, "SELECT reltuples::bigint FROM pg_class WHERE oid = $1::regclass", bigTables[t].Name).Scan(&existing)
		if err != nil {
			return fmt.Errorf("size of %s: %w", bigTables[t].Name, err)
		}
		if existing < 0 { // never analysed
			q := "SELECT count(*) FROM (SELECT 1 FROM " + bigTables[t].Name + " LIMIT 10000000) t"
			if err := l.db.QueryRowContext(ctx, q).Scan(&existing); err != nil {
				return fmt.Errorf("size of %s: %w", bigTables[t].Name, err)
			}
		}
		l.drop[t] = float64(existing) <= factor[t]*float64(l.totalCands)
		// Copying the rows it holds to new storage costs less than the WAL of the load's rows
		// when they are a tenth of them or fewer.
		l.fresh[t] = float64(existing)*10 <= factor[t]*float64(l.totalCands)
	}
	return nil
}

func (l *loader) getBuf(t int) *bulkload.Buf {
	if b, ok := l.pools[t].Get().(*bulkload.Buf); ok {
		b.Reset()
		return b
	}
	return &bulkload.Buf{}
}

// generate streams the batches of every company, in order, to the sinks of the tables in mask,
// and closes those sinks when done. On error it returns without closing them: the consumers
// watch ctx.
func (l *loader) generate(ctx context.Context, mask [numBig]bool, sinks *[numBig]chan bulkload.Part) error {
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
			w := newWorker(l.vocab)
			if mask[tSessions] && !l.o.Checked {
				w.agg = rollupAgg{}
				defer func() {
					l.aggMu.Lock()
					l.aggs = append(l.aggs, w.agg)
					l.aggMu.Unlock()
				}()
			}
			for b := range work {
				for i := b.from; i < b.to; i++ {
					w.candidate(b.c, i, &b.bufs)
					if i&255 == 0 && gctx.Err() != nil {
						return gctx.Err()
					}
				}
				if w.doc.missing != "" {
					return fmt.Errorf("search document: %q is not in the vocabulary", w.doc.missing)
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
				case sinks[t] <- bulkload.Part{Buf: b.bufs[t], Units: int64(b.to - b.from)}:
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

// copyHead loads the company-level tables from memory.
func (l *loader) copyHead(ctx context.Context, tx pgx.Tx) error {
	for t := range numHead {
		p := l.headProg[t]
		if l.head[t].Rows() == 0 {
			p.SetState(bulkload.Done)
			continue
		}
		if err := bulkload.CopyBuf(ctx, tx, headTables[t], &l.head[t], p); err != nil {
			return err
		}
		p.SetState(bulkload.Ready)
	}
	return nil
}

// free returns a buffer of big table t for reuse.
func (l *loader) free(t int) func(*bulkload.Buf) {
	return func(b *bulkload.Buf) { l.pools[t].Put(b) }
}

// loadParallel loads each big table through its own connection and transaction, with
// foreign-key triggers off; the company-level tables go through one more. The transactions
// commit once every one of them has loaded and indexed its table.
//
// The candidates are the critical path: their GiST and GIN indexes are the slowest to build,
// single-threaded, and must wait for their COPY (measured: one generator feeding every table
// saves the second generation of the candidates but delays their indexes, 57 s against 37 s of
// load at 100k candidates). So one generator feeds the candidates and another the other
// tables, which need not keep pace with them and build their indexes early; and since Postgres
// backends share the cores evenly, the other tables build their indexes one at a time, biggest
// first, without parallel workers (bgIndex), which leaves the candidates a core.
func (l *loader) loadParallel(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	commit := bulkload.CommitTogether(numBig+1, func() { l.prog.SetPhase("commit") })
	generated := make(chan struct{}) // closed when the generator of the tables but candidates is done
	g.Go(func() error {
		return bulkload.WithConn(gctx, l.db, func(c *pgx.Conn) error {
			return bulkload.InTx(gctx, c, true, func(tx pgx.Tx) error {
				if err := l.copyHead(gctx, tx); err != nil {
					return err
				}
				select {
				case <-generated:
				case <-gctx.Done():
					return gctx.Err()
				}
				return l.writeRollups(gctx, tx)
			}, commit)
		})
	})
	var sinks [numBig]chan bulkload.Part
	for t := range numBig {
		sinks[t] = make(chan bulkload.Part, 16)
		g.Go(func() error {
			return bulkload.WithConn(gctx, l.db, func(c *pgx.Conn) error {
				return bulkload.InTx(gctx, c, true, func(tx pgx.Tx) error { return l.loadTable(gctx, tx, t, sinks[t]) }, commit)
			})
		})
	}
	var cands, rest [numBig]bool
	for t := range numBig {
		cands[t], rest[t] = t == tCandidates, t != tCandidates
	}
	g.Go(func() error { return l.generate(gctx, cands, &sinks) })
	g.Go(func() error {
		if err := l.generate(gctx, rest, &sinks); err != nil {
			return err
		}
		close(generated)
		return nil
	})
	err := g.Wait()
	if err == nil {
		l.prog.Committed()
	}
	return err
}

// writeRollups adds the rollup.Generated the workers counted to each company's.
func (l *loader) writeRollups(ctx context.Context, tx pgx.Tx) error {
	for _, c := range l.comps {
		r := newCompanyRollups()
		for _, a := range l.aggs {
			if x := a[c]; x != nil {
				r.merge(x)
			}
		}
		if err := writeRollups(ctx, tx, c, r); err != nil {
			return err
		}
	}
	return nil
}

// loadTable copies big table t from in, dropping and re-creating its secondary indexes around
// the copy when planned, and its primary key and unique constraints when no foreign key relies
// on them (measured at 200k candidates, five alternating pairs: 1.3 CPU-s less of 43, less in
// four pairs of five). Only the (company_id, id) keys of candidates, applications,
// interview_sessions and identity_verifications stay: the composite foreign keys rely on them.
// The table's rollup triggers are dropped around the copy too (bulkload.DropCaptureTriggers).
func (l *loader) loadTable(ctx context.Context, tx pgx.Tx, t int, in <-chan bulkload.Part) error {
	p := l.bigProg[t]
	table := bigTables[t]
	if l.fresh[t] {
		var err error
		if table.Freeze, err = bulkload.NewStorage(ctx, tx, table.Name); err != nil {
			return err
		}
	}
	var defs []bulkload.IndexDef
	if l.drop[t] {
		var err error
		if defs, err = bulkload.DropIndexesAndKey(ctx, tx, bigTables[t].Name); err != nil {
			return err
		}
	}
	// The rollup triggers do not fire in this transaction (replica role), but as long as they
	// exist Postgres copies every loaded row into their transition table, and to a temporary file.
	trigs, err := bulkload.DropCaptureTriggers(ctx, tx, table.Name)
	if err != nil {
		return err
	}
	if err := bulkload.Copy(ctx, tx, table, in, p, l.free(t)); err != nil {
		return err
	}
	if err := bulkload.CreateTriggers(ctx, tx, trigs); err != nil {
		return err
	}
	p.SetState(bulkload.Indexing)
	if t == tCandidates {
		if err := l.checkSearch(ctx, tx); err != nil {
			return err
		}
		if err := bulkload.CreateIndexes(ctx, tx, p, defs); err != nil {
			return err
		}
		l.bgIndex.SetLimit(2) // a core is free now
	} else {
		p.SetDetail("waiting for other tables' indexes")
		if err := l.bgIndex.Acquire(ctx, bgRank[t]); err != nil {
			return err
		}
		defer l.bgIndex.Release()
		if _, err := tx.Exec(ctx, "SET LOCAL max_parallel_maintenance_workers = 0"); err != nil {
			return err
		}
		if err := bulkload.CreateIndexes(ctx, tx, p, defs); err != nil {
			return err
		}
	}
	p.SetState(bulkload.Ready)
	return nil
}

// checkSearch compares the search documents of some candidates of each company loaded with
// candidate_search_document, which the trigger of migration 00051 would have stored.
func (l *loader) checkSearch(ctx context.Context, tx pgx.Tx) error {
	for _, c := range l.comps {
		var differ int
		var example *string
		err := tx.QueryRow(ctx, `
			SELECT count(*), min(id::text) FROM (
				SELECT id, search, title, skills, employers, education, location FROM candidates
				WHERE company_id = $1 ORDER BY company_id, id LIMIT 1000) c
			WHERE search IS DISTINCT FROM candidate_search_document(title, skills, employers, education, location)`,
			c.id.UUID()).Scan(&differ, &example)
		if err != nil {
			return fmt.Errorf("check search documents: %w", err)
		}
		if differ > 0 {
			return fmt.Errorf("check search documents: %d of the first 1000 candidates of %s differ from candidate_search_document (candidate %s)", differ, c.slug, *example)
		}
	}
	return nil
}

// bgRank is the order in which tables other than candidates build their indexes.
var bgRank = [numBig]int{tSessions: 0, tApplications: 1, tJobApplicants: 2, tJourneys: 3, tCheating: 4, tMedia: 5, tScores: 6, tFraud: 7, tIdentity: 8, tNotes: 9}

// loadChecked loads everything through one transaction, table after table in foreign-key
// order, generating the candidates again for each big table. The rollup triggers maintain the
// per-candidate rollups.
func (l *loader) loadChecked(ctx context.Context) error {
	return bulkload.WithConn(ctx, l.db, func(c *pgx.Conn) error {
		return bulkload.InTx(ctx, c, false, func(tx pgx.Tx) error {
			var defs [numBig][]bulkload.IndexDef
			for t := range numSource {
				if l.drop[t] {
					var err error
					if defs[t], err = bulkload.DropIndexes(ctx, tx, bigTables[t].Name); err != nil {
						return err
					}
				}
			}
			if err := l.copyHead(ctx, tx); err != nil {
				return err
			}
			for t := range numSource {
				var sinks [numBig]chan bulkload.Part
				var mask [numBig]bool
				sinks[t], mask[t] = make(chan bulkload.Part, 4), true
				g, gctx := errgroup.WithContext(ctx)
				g.Go(func() error { return l.generate(gctx, mask, &sinks) })
				g.Go(func() error {
					if err := bulkload.Copy(gctx, tx, bigTables[t], sinks[t], l.bigProg[t], l.free(t)); err != nil {
						return err
					}
					l.bigProg[t].SetState(bulkload.Ready)
					return nil
				})
				if err := g.Wait(); err != nil {
					return err
				}
			}
			for t := range numSource {
				p := l.bigProg[t]
				if len(defs[t]) > 0 {
					p.SetState(bulkload.Indexing)
					if err := bulkload.CreateIndexes(ctx, tx, p, defs[t]); err != nil {
						return err
					}
				}
				p.SetState(bulkload.Ready)
			}
			l.prog.SetPhase("commit")
			return nil
		}, func(context.Context) error { return nil })
	})
}

// rebuildRollups computes a loaded company's statistics rollups other than the ones the
// generator computed (rollup.PerCandidate, rollup.Generated), the parts two at a time, each in
// its own transaction; when some rollup is in none of them (rollup.Uncovered), it rebuilds
// every rollup with rollup_rebuild's parts instead. Foreign-key checks are off as during the
// load (the rollups are derived from rows that passed them), and the aggregates get the memory
// to stay in one pass.
func (l *loader) rebuildRollups(ctx context.Context, company uuid.UUID) error {
	rebuild, parts := rollup.RebuildLoadPart, rollup.LoadParts
	if len(rollup.Uncovered()) > 0 {
		rebuild, parts = rollup.RebuildPart, rollup.Parts
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for _, part := range parts {
		g.Go(func() error {
			tx, err := l.db.BeginTx(gctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			if _, err := tx.ExecContext(gctx, "SET LOCAL session_replication_role = replica; SET LOCAL work_mem = '256MB'"); err != nil {
				return err
			}
			if err := rebuild(gctx, tx, company, part); err != nil {
				return err
			}
			return tx.Commit()
		})
	}
	return g.Wait()
}

// analyze vacuums every table loaded (see bulkload.Vacuum) and the rollups.
func (l *loader) analyze(ctx context.Context) error {
	var tables []string
	for _, t := range rollup.Tables {
		tables = append(tables, t.Name)
	}
	for t := range numSource {
		tables = append(tables, bigTables[t].Name)
	}
	for t := range numHead {
		if l.head[t].Rows() > 0 {
			tables = append(tables, headTables[t].Name)
		}
	}
	return bulkload.Vacuum(ctx, l.db, tables)
}
