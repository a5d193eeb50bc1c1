package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestErrorClasses(t *testing.T) {
	deadlock := fmt.Errorf("create session: %w", &pgconn.PgError{Code: "40P01"})
	if !isDeadlock(deadlock) || isDeadlock(&pgconn.PgError{Code: "23505"}) || isDeadlock(nil) {
		t.Error("isDeadlock does not tell 40P01 from other errors")
	}
	if !IsUnavailable(fmt.Errorf("complete session: %w", &pgconn.PgError{Code: "57014"})) {
		t.Error("a statement timeout (57014) is not answered as unavailable")
	}
	if IsUnavailable(&pgconn.PgError{Code: "23505"}) || IsUnavailable(fmt.Errorf("x: %w", context.Canceled)) {
		t.Error("a constraint violation or the caller's cancellation is answered as unavailable")
	}
}
