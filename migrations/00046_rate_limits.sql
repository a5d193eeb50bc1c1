-- Fleet-wide limits (issue 32, point 2): every api and mcp replica spends from the same buckets.
--
-- rate_limits: one GCRA row per bucket key ("<limit>:<key>"): tat is the theoretical arrival
-- time of the next request on the database's clock, ok whether the last check was allowed. One
-- INSERT ... ON CONFLICT DO UPDATE ... RETURNING statement per check. A row whose tat has passed
-- is a full bucket, the same as no row: the limiters delete them now and then.
-- rate_limit_slots: the tool server's calls in flight per key: lease id -> expiry (epoch
-- seconds). A lease a crashed replica never released expires after the tool timeout.
--
-- UNLOGGED: no WAL on the hot path, not replicated; a crash of Postgres empties them, which
-- resets every bucket to full (at most one burst more than the limit, once).
-- fillfactor leaves room in each page, so a check's update stays a HOT update.

-- +goose Up
CREATE UNLOGGED TABLE rate_limits (
    key text PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 200),
    tat timestamptz NOT NULL,
    ok  boolean NOT NULL
) WITH (fillfactor = 50);

CREATE UNLOGGED TABLE rate_limit_slots (
    key  text PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 200),
    held jsonb NOT NULL
) WITH (fillfactor = 50);

-- +goose Down
DROP TABLE rate_limit_slots;
DROP TABLE rate_limits;
