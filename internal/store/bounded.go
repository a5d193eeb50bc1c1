package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// ErrDatabaseTimeout is the database work of a bounded context (Bounded) that did not end in
// time: Postgres hangs, or the pool has no connection to give. IsUnavailable reports it.
var ErrDatabaseTimeout = errors.New("the database did not answer in time")

type boundKey struct{}

// Bounded returns ctx whose database work through the store's GORM handle is bounded by d: each
// statement (the wait for a pooled connection included) and each transaction, from its begin to
// its commit, ends after d with an error wrapping ErrDatabaseTimeout. A request's handlers get
// such a context, so a hung Postgres is answered 503 within d rather than after the hang; work
// without the bound (the worker's runs, tools with their own deadline) is unchanged. A
// context whose own deadline is nearer keeps it.
func Bounded(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, boundKey{}, d)
}

// Unavailable reports whether err, met by work under ctx, means the database is unavailable:
// IsUnavailable, or the deadline of a Bounded ctx that is itself still live (a result read
// after its statement's bound ran out surfaces as the bare context error).
func Unavailable(ctx context.Context, err error) bool {
	if IsUnavailable(err) {
		return true
	}
	_, bounded := ctx.Value(boundKey{}).(time.Duration)
	return bounded && ctx.Err() == nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled))
}

// bound derives the context of one statement or transaction under ctx's bound; done wraps the
// error of work that ran out of it. The derived context releases itself when the bound passes
// (a statement's rows are read after it returns, so it is not cancelled earlier).
func bound(ctx context.Context) (context.Context, func(error) error) {
	d, ok := ctx.Value(boundKey{}).(time.Duration)
	if !ok {
		return ctx, func(err error) error { return err }
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= d {
		return ctx, func(err error) error { return err }
	}
	bctx, cancel := context.WithTimeoutCause(ctx, d, ErrDatabaseTimeout)
	context.AfterFunc(bctx, cancel)
	return bctx, func(err error) error {
		if err != nil && ctx.Err() == nil && errors.Is(context.Cause(bctx), ErrDatabaseTimeout) && !errors.Is(err, ErrDatabaseTimeout) {
			return fmt.Errorf("%w: %w", ErrDatabaseTimeout, err)
		}
		return err
	}
}

// boundedPool is the store's GORM connection pool: database/sql's, with the bound of Bounded
// contexts applied to each statement and transaction.
type boundedPool struct{ db *sql.DB }

var (
	_ gorm.ConnPool         = boundedPool{}
	_ gorm.ConnPoolBeginner = boundedPool{}
	_ gorm.GetDBConnector   = boundedPool{}
	_ gorm.TxCommitter      = (*boundedTx)(nil)
	_ gorm.ConnPool         = (*boundedTx)(nil)
)

func (p boundedPool) GetDBConn() (*sql.DB, error) { return p.db, nil }

func (p boundedPool) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	bctx, done := bound(ctx)
	st, err := p.db.PrepareContext(bctx, query)
	return st, done(err)
}

func (p boundedPool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	bctx, done := bound(ctx)
	r, err := p.db.ExecContext(bctx, query, args...)
	return r, done(err)
}

func (p boundedPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	bctx, done := bound(ctx)
	r, err := p.db.QueryContext(bctx, query, args...)
	return r, done(err)
}

func (p boundedPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	bctx, _ := bound(ctx)
	return p.db.QueryRowContext(bctx, query, args...)
}

// BeginTx begins a transaction whose whole life (commit included) is bounded, and whose
// statements are bounded each.
func (p boundedPool) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	bctx, done := bound(ctx)
	tx, err := p.db.BeginTx(bctx, opts)
	if err != nil {
		return nil, done(err)
	}
	return &boundedTx{tx: tx, done: done}, nil
}

// boundedTx is a transaction of boundedPool.
type boundedTx struct {
	tx   *sql.Tx
	done func(error) error
}

func (t *boundedTx) Commit() error   { return t.done(t.tx.Commit()) }
func (t *boundedTx) Rollback() error { return t.done(t.tx.Rollback()) }

func (t *boundedTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	bctx, done := bound(ctx)
	st, err := t.tx.PrepareContext(bctx, query)
	return st, t.done(done(err))
}

func (t *boundedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	bctx, done := bound(ctx)
	r, err := t.tx.ExecContext(bctx, query, args...)
	return r, t.done(done(err))
}

func (t *boundedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	bctx, done := bound(ctx)
	r, err := t.tx.QueryContext(bctx, query, args...)
	return r, t.done(done(err))
}

func (t *boundedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	bctx, _ := bound(ctx)
	return t.tx.QueryRowContext(bctx, query, args...)
}

// SQLTx is the database/sql transaction under a GORM handle that began one (for code that
// runs statements on it directly, such as the tool calls' snapshots).
func SQLTx(db *gorm.DB) (*sql.Tx, bool) {
	switch p := db.Statement.ConnPool.(type) {
	case *boundedTx:
		return p.tx, true
	case *sql.Tx:
		return p, true
	}
	return nil, false
}
