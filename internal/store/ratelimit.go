package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/recruitd/recruitd/internal/ratelimit"
)

// takeToken is one GCRA check (generic cell rate algorithm) of a bucket refilled one token per
// $2 seconds up to $3 seconds' worth (burst x interval): the request is allowed when the
// theoretical arrival time, moved on by one interval, is at most the burst ahead of now; then the
// row keeps the moved time, otherwise the old one. Every replica checks the same row, on the
// database's clock. Right-hand sides of SET read the old row.
var takeToken = `
INSERT INTO rate_limits AS r (key, tat, ok) VALUES ($1, now() + make_interval(secs => $2), true)` + gcraUpdate("$2", "$3")

// gcraUpdate is takeToken's conflict clause for a bucket of interval and burst seconds (SQL
// parameters), returning (ok, seconds from now to the theoretical arrival time).
func gcraUpdate(interval, burst string) string {
	moved := "greatest(r.tat, now()) + make_interval(secs => " + interval + ")"
	allowed := moved + " <= now() + make_interval(secs => " + burst + ")"
	return `
ON CONFLICT (key) DO UPDATE SET
  ok  = ` + allowed + `,
  tat = CASE WHEN ` + allowed + ` THEN ` + moved + ` ELSE r.tat END
RETURNING ok, extract(epoch FROM tat - now())::float8`
}

// TakeToken spends one token of key's bucket, shared by every process on this database, which
// refills one token per interval up to burst tokens. When there is none it spends nothing and
// returns how long until there is one. One statement.
func (s *Store) TakeToken(ctx context.Context, key string, interval time.Duration, burst int) (bool, time.Duration, error) {
	bctx, done := bound(ctx)
	var ok bool
	var ahead float64 // seconds from now to the bucket's theoretical arrival time
	err := s.sql.QueryRowContext(bctx, takeToken, key, interval.Seconds(), float64(burst)*interval.Seconds()).Scan(&ok, &ahead)
	if err = done(err); err != nil {
		return false, 0, fmt.Errorf("take a token of %s: %w", key, err)
	}
	if ok {
		return true, 0, nil
	}
	return false, tokenWait(ahead, ratelimit.Bucket{Key: key, Interval: interval, Burst: burst}), nil
}

// takeTokenThen is takeToken on bucket $1, then on bucket $4 ($5 and $6 its interval and
// burst) when the first had a token: two checks of one request in one statement and one commit.
// The second upsert reads the first's RETURNING, so it runs only after the first allowed.
var takeTokenThen = `
WITH t1(ok, ahead) AS (` + takeToken + `
), t2(ok, ahead) AS (
INSERT INTO rate_limits AS r (key, tat, ok)
SELECT $4, now() + make_interval(secs => $5), true FROM t1 WHERE t1.ok` + gcraUpdate("$5", "$6") + `)
SELECT t1.ok, t1.ahead, t2.ok, t2.ahead FROM t1 LEFT JOIN t2 ON true`

// TakeTokenThen spends one token of first's bucket and, when it had one, one of then's: both
// buckets shared by every process on this database, in one statement. It reports whether both
// had one and, when one had none, how long until it has (the second is not charged when the
// first refused).
func (s *Store) TakeTokenThen(ctx context.Context, first, then ratelimit.Bucket) (bool, time.Duration, error) {
	bctx, done := bound(ctx)
	var ok1 bool
	var ok2 sql.NullBool
	var ahead1 float64
	var ahead2 sql.NullFloat64
	err := s.sql.QueryRowContext(bctx, takeTokenThen, first.Key, first.Interval.Seconds(), float64(first.Burst)*first.Interval.Seconds(),
		then.Key, then.Interval.Seconds(), float64(then.Burst)*then.Interval.Seconds()).Scan(&ok1, &ahead1, &ok2, &ahead2)
	if err = done(err); err != nil {
		return false, 0, fmt.Errorf("take a token of %s and %s: %w", first.Key, then.Key, err)
	}
	if !ok1 {
		return false, tokenWait(ahead1, first), nil
	}
	if !ok2.Bool {
		return false, tokenWait(ahead2.Float64, then), nil
	}
	return true, 0, nil
}

// tokenWait is how long until bucket b, whose theoretical arrival time is ahead seconds from
// now, has a token again.
func tokenWait(ahead float64, b ratelimit.Bucket) time.Duration {
	return max(time.Duration((ahead-float64(b.Burst-1)*b.Interval.Seconds())*float64(time.Second)), time.Millisecond)
}

// SweepTokens deletes the buckets that are full again (their theoretical arrival time has
// passed): the same as no row.
func (s *Store) SweepTokens(ctx context.Context) (int64, error) {
	res, err := s.sql.ExecContext(ctx, `DELETE FROM rate_limits WHERE tat < now()`)
	if err != nil {
		return 0, fmt.Errorf("sweep rate limits: %w", err)
	}
	n, _ := res.RowsAffected()
	m, err := s.sql.ExecContext(ctx, `DELETE FROM rate_limit_slots WHERE NOT EXISTS (
  SELECT 1 FROM jsonb_each(held) e WHERE (e.value)::float8 > extract(epoch FROM now()))`)
	if err != nil {
		return n, fmt.Errorf("sweep call slots: %w", err)
	}
	k, _ := m.RowsAffected()
	return n + k, nil
}

// acquireSlot adds lease $2 (expiring $4 seconds from now) to key $1's leases when fewer than $3
// live ones are held, dropping the expired ones; the row lock orders concurrent acquisitions.
const acquireSlot = `
INSERT INTO rate_limit_slots AS s (key, held)
VALUES ($1, jsonb_build_object($2::text, extract(epoch FROM now()) + $4::float8))
ON CONFLICT (key) DO UPDATE SET held = (
  SELECT CASE WHEN count(*) < $3::int
              THEN coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) || jsonb_build_object($2::text, extract(epoch FROM now()) + $4::float8)
              ELSE s.held END
  FROM jsonb_each(s.held) e WHERE (e.value)::float8 > extract(epoch FROM now()))
RETURNING jsonb_exists(held, $2::text)`

// AcquireSlot takes one of key's max slots, shared by every process on this database, as lease
// (a unique id) for at most ttl: false when max unexpired leases are held. One statement;
// ReleaseSlot gives it back, and a lease never given back (its process died) expires.
func (s *Store) AcquireSlot(ctx context.Context, key, lease string, max int, ttl time.Duration) (bool, error) {
	bctx, done := bound(ctx)
	var ok bool
	err := s.sql.QueryRowContext(bctx, acquireSlot, key, lease, max, ttl.Seconds()).Scan(&ok)
	if err = done(err); err != nil {
		return false, fmt.Errorf("acquire a slot of %s: %w", key, err)
	}
	return ok, nil
}

// ReleaseSlot gives back key's lease taken by AcquireSlot.
func (s *Store) ReleaseSlot(ctx context.Context, key, lease string) error {
	bctx, done := bound(ctx)
	_, err := s.sql.ExecContext(bctx, `UPDATE rate_limit_slots SET held = held - $2::text WHERE key = $1`, key, lease)
	if err = done(err); err != nil {
		return fmt.Errorf("release a slot of %s: %w", key, err)
	}
	return nil
}
