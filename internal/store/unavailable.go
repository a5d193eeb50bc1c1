package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsUnavailable reports whether err means Postgres could not be reached or is shutting down,
// rather than that a statement failed: callers answer such errors as a retryable 503, never as
// an internal error.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var connect *pgconn.ConnectError
	var netErr net.Error
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, ErrDatabaseTimeout):
		return true
	case errors.As(err, &connect):
		return true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return false // the caller's own deadline or cancellation, not the database's absence
	case errors.As(err, &netErr), errors.Is(err, driver.ErrBadConn):
		return true
	case errors.As(err, &pgErr):
		// Class 08: connection exception; 57P01-57P03: shutdown, crash, not yet accepting; 57014:
		// the statement_timeout (DB_REQUEST_TIMEOUT in recruitd api) fired before the client's own
		// bound did (the caller's own cancellation was answered above).
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03" ||
			pgErr.Code == "57014"
	}
	return pgconn.SafeToRetry(err)
}
