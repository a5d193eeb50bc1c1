-- The views of rollup_folded (migrations 00056 and 00059) without an aggregate over the folded
-- rows. They grouped the UNION of <table>_folded and <table>_deltas by the whole key, so every
-- read hashed all of the company's folded rows in its range once more before the reader's own
-- sum: `bench mcp` at 1M candidates, p50 of the tools that read them about doubled
-- (getCandidatePipelineStats 3.6 -> 7.2 ms, getInterviewStats 7.6 -> 16.7 ms). A folded row is
-- unique by its key (the primary key), and the deltas are the few changes of the last fold
-- interval, so each view now reads the folded rows as they are, adding the deltas of the same key
-- (aggregated, joined on the key), and appends the deltas' keys that have no folded row yet. Same
-- columns, same rows, exact at every moment as before.

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
    t record;
    k text;
    joined text;
BEGIN
    FOR t IN SELECT * FROM rollup_folded ORDER BY name LOOP
        k := array_to_string(t.keys, ', ');
        joined := (SELECT string_agg(format('d.%1$I = f.%1$I', c), ' AND ') FROM unnest(t.keys) c);
        EXECUTE format($v$
            CREATE OR REPLACE VIEW %1$I AS
            SELECT %2$s, %3$s
            FROM %4$I f LEFT JOIN (SELECT %5$s, %6$s FROM %7$I GROUP BY %5$s) d ON %8$s
            UNION ALL
            SELECT %9$s, %10$s
            FROM %7$I d
            WHERE NOT EXISTS (SELECT 1 FROM %4$I f WHERE %8$s)
            GROUP BY %9$s
        $v$,
            t.name,
            (SELECT string_agg(format('f.%I', c), ', ') FROM unnest(t.keys) c),
            (SELECT string_agg(format('(f.%1$I + coalesce(d.%1$I, 0))::bigint AS %1$I', v), ', ') FROM unnest(t.vals) v),
            t.name || '_folded',
            k,
            (SELECT string_agg(format('sum(%1$I)::bigint AS %1$I', v), ', ') FROM unnest(t.vals) v),
            t.name || '_deltas',
            joined,
            (SELECT string_agg(format('d.%I', c), ', ') FROM unnest(t.keys) c),
            (SELECT string_agg(format('sum(d.%1$I)::bigint AS %1$I', v), ', ') FROM unnest(t.vals) v));
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
    t record;
    k text;
BEGIN
    FOR t IN SELECT * FROM rollup_folded ORDER BY name LOOP
        k := array_to_string(t.keys, ', ');
        EXECUTE format('CREATE OR REPLACE VIEW %I AS SELECT %s, %s FROM (SELECT %s, %s FROM %I UNION ALL SELECT %s, %s FROM %I) x GROUP BY %s',
            t.name, k, (SELECT string_agg(format('sum(%1$I)::bigint AS %1$I', v), ', ') FROM unnest(t.vals) v),
            k, array_to_string(t.vals, ', '), t.name || '_folded',
            k, array_to_string(t.vals, ', '), t.name || '_deltas', k);
    END LOOP;
END $$;
-- +goose StatementEnd
