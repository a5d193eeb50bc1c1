package store

import (
	"context"
	"regexp"
	"time"

	"gorm.io/gorm/logger"
)

// redacting wraps GORM's logger so that no statement it logs (slow or failed) carries a bound
// value: quoted literals become '?'. ParameterizedQueries alone does not do it: gorm's
// Raw(...).Scan records the statement through a logger of its own that interpolates the values,
// and those can be names, e-mail addresses, phone numbers or secrets.
type redacting struct{ logger.Interface }

func (r redacting) LogMode(l logger.LogLevel) logger.Interface {
	return redacting{r.Interface.LogMode(l)}
}

func (r redacting) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	r.Interface.Trace(ctx, begin, func() (string, int64) {
		sql, rows := fc()
		return redactLiterals(sql), rows
	}, err)
}

// ParamsFilter keeps bound values out of the statement GORM's own callbacks hand to Trace.
func (r redacting) ParamsFilter(ctx context.Context, sql string, params ...any) (string, []any) {
	return sql, nil
}

// quoted matches an SQL string literal (E'…' and '…', doubled quotes and backslash escapes
// inside).
var quoted = regexp.MustCompile(`(?s)[eE]?'(?:[^'\\]|''|\\.)*'`)

func redactLiterals(sql string) string { return quoted.ReplaceAllString(sql, "'?'") }
