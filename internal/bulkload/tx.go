package bulkload

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"golang.org/x/sync/errgroup"
)

// WithConn runs f on a connection of db, which must use the pgx database/sql driver.
func WithConn(ctx context.Context, db *sql.DB, f func(*pgx.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("bulk loading needs the pgx database/sql driver, got %T", dc)
		}
		return f(sc.Conn())
	})
}

// InTx runs f in a transaction on c set up for bulk loading, then waits for commit (which
// blocks until the transaction may commit, so that several transactions loading side by side
// commit together) and commits; it rolls back when f or commit fails. replica turns
// foreign-key triggers off (session_replication_role, see CanDisableTriggers): for rows
// consistent by construction.
func InTx(ctx context.Context, c *pgx.Conn, replica bool, f func(pgx.Tx) error, commit func(context.Context) error) error {
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
	// loads compete for shared buffers. A small maintenance_work_mem makes a B-tree build sort
	// runs that fit the CPU's caches and merge them: one quicksort of a large table's index
	// tuples in memory reads a tuple from main memory at nearly every comparison (the leading
	// company_id is equal for a whole tenant, so each one compares whole tuples), and took
	// 30-50% longer than sorting 4MB runs and merging them (docs/decisions.md).
	setup := "SET LOCAL maintenance_work_mem = '4MB'; SET LOCAL work_mem = '64MB'; SET LOCAL effective_cache_size = '16MB'"
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

// CommitTogether returns the commit function for n transactions run by InTx side by side:
// each call blocks until all n have called it, the last call runs ready first, and then all
// return nil so that each transaction commits. A call returns ctx's error when ctx ends first.
func CommitTogether(n int, ready func()) func(context.Context) error {
	var mu sync.Mutex
	arrived := 0
	release := make(chan struct{})
	return func(ctx context.Context) error {
		mu.Lock()
		if arrived++; arrived == n {
			ready()
			close(release)
		}
		mu.Unlock()
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// CanDisableTriggers reports whether this role may set session_replication_role (superusers
// may; others need GRANT SET ON PARAMETER).
func CanDisableTriggers(ctx context.Context, db *sql.DB) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica")
	return err == nil, nil
}

// Vacuum runs VACUUM (ANALYZE) on each table, two at a time: planner statistics, and a
// visibility map so that index-only scans skip the heap.
func Vacuum(ctx context.Context, db *sql.DB, tables []string) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for _, t := range tables {
		g.Go(func() error {
			if _, err := db.ExecContext(gctx, "VACUUM (ANALYZE) "+t); err != nil {
				return fmt.Errorf("vacuum %s: %w", t, err)
			}
			return nil
		})
	}
	return g.Wait()
}
