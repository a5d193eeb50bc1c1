package store

import (
	"context"
	"errors"
	"regexp"
	"time"

	"gorm.io/gorm/logger"
)

// redacting wraps GORM's logger so that no statement it logs (slow or failed) carries a bound
// value: quoted literals become '?'. ParameterizedQueries alone does not do it: gorm's
// Raw(...).Scan records the statement through a logger of its own that interpolates the values,
// and those can be names, e-mail addresses, phone numbers or secrets.
//
// It also decides first whether a statement is logged at all (failed, slower than slow, or every
// one at Info): gorm's slog logger builds and formats every statement's entry, and the redaction
// ran on each, before it looked at the level (5% of a worker's CPU under load).
type redacting struct {
	logger.Interface
	level logger.LogLevel
	slow  time.Duration
}

func (r redacting) LogMode(l logger.LogLevel) logger.Interface {
	return redacting{Interface: r.Interface.LogMode(l), level: l, slow: r.slow}
}

// logs reports whether gorm's logger would write a statement that ended now with err.
func (r redacting) logs(begin time.Time, err error) bool {
	switch {
	case r.level <= logger.Silent:
		return false
	case err != nil && !errors.Is(err, logger.ErrRecordNotFound):
		return true
	case r.slow != 0 && time.Since(begin) > r.slow:
		return true
	}
	return r.level >= logger.Info
}

func (r redacting) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	if !r.logs(begin, err) {
		return
	}
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
