// Package simhttp serves the development simulators (internal/aggsim, internal/idvsim,
// internal/twiliosim) over HTTP until their context ends. Dev tooling: production code never imports it.
package simhttp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// ListenAndServe serves h on addr until ctx ends; then it calls stop (the simulator's own
// Close: its retries and timers) and gives requests in flight 5 s to finish. name prefixes a
// listen error ("aggregator simulator: ...").
func ListenAndServe(ctx context.Context, name, addr string, h http.Handler, stop func()) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		stop()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
