package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// deadlockTries is how often a transaction runs when Postgres keeps choosing it as a deadlock's
// victim.
const deadlockTries = 5

// transactionRetryingDeadlocks runs fn in a transaction, and again (from the start, in a new
// transaction) when Postgres aborted it to break a deadlock (40P01). The rollup triggers make
// concurrent invitations and session changes of one job lock the same rollup rows in different
// orders; the victim's work was rolled back whole, so running it again is safe. fn must set what
// it returns afresh on each run.
func (s *Store) transactionRetryingDeadlocks(ctx context.Context, fn func(tx *gorm.DB) error) error {
	var err error
	for try := range deadlockTries {
		if err = s.db.WithContext(ctx).Transaction(fn); !isDeadlock(err) || ctx.Err() != nil {
			return err
		}
		// The transactions that deadlocked together would meet again if all ran at once.
		select {
		case <-time.After(time.Duration(try+1)*10*time.Millisecond + time.Duration(rand.Int64N(int64(20*time.Millisecond)))):
		case <-ctx.Done():
			return err
		}
	}
	return err
}

func isDeadlock(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "40P01"
}
