package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/apikey"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/internal/temporaltest"
	"github.com/recruitd/recruitd/models"
)

// TestAPIAnswersWhileTheWorkerHoldsItsPool serves the api and the worker in one process, as
// recruitd dev and the bench do, takes every connection of the worker's pool (a backlog of
// activities does the same) and checks that an authenticated request is answered at once: the
// api has a pool of its own. On one shared pool the request waited for a connection until
// DB_REQUEST_TIMEOUT and answered 503.
func TestAPIAnswersWhileTheWorkerHoldsItsPool(t *testing.T) {
	db := pgtest.New(t)
	tmp := temporaltest.New(t)
	st, err := store.FromSQL(db.SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	co := &models.Company{Slug: "pools", Name: "Pools Co"}
	if err := st.CreateCompany(t.Context(), co); err != nil {
		t.Fatal(err)
	}
	key, _ := apikey.Generate()
	if _, err := st.CreateAPIKey(t.Context(), co.ID, "pools", key); err != nil {
		t.Fatal(err)
	}

	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.DatabaseURL, cfg.TemporalAddress, cfg.TemporalNamespace = db.URL, tmp.Address, tmp.Namespace
	cfg.TemporalTaskQueue = temporaltest.TaskQueue(t)
	cfg.APIAddr, cfg.APIMetricsAddr, cfg.MessagingMode = "127.0.0.1:0", "127.0.0.1:0", "outbox"
	cfg.EncryptionKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
	cfg.DBMaxConns, cfg.DBRequestTimeout = 3, 3*time.Second

	ctx, cancel := context.WithCancel(t.Context())
	type up struct {
		base string
		d    *deps
	}
	ready, served := make(chan up, 1), make(chan error, 1)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() {
		served <- serve(ctx, cfg, log, io.Discard, components{api: true, worker: true}, func(l *listeners, d *deps) error {
			ready <- up{"http://" + l.api.Addr().String(), d}
			return nil
		})
	}()
	var u up
	select {
	case u = <-ready:
	case err := <-served:
		t.Fatalf("serve: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("serve not ready after 60s")
	}
	t.Cleanup(func() {
		cancel()
		<-served
	})
	if got := workerSlots(cfg, components{api: true, worker: true}); got != cfg.DBMaxConns {
		t.Errorf("worker slots beside the api = %d, want DB_MAX_CONNS (%d)", got, cfg.DBMaxConns)
	}
	if got := workerSlots(cfg, components{worker: true}); got != 0 {
		t.Errorf("worker slots of a worker alone = %d, want 0 (the SDK's default)", got)
	}

	// Every connection of the worker's pool, held as a backlog of activities would hold them.
	for range cfg.DBMaxConns {
		conn, err := u.d.worker.SQL().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
	}
	wctx, wcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer wcancel()
	if conn, err := u.d.worker.SQL().Conn(wctx); err == nil {
		conn.Close()
		t.Fatal("the worker's pool gave a connection beyond DB_MAX_CONNS")
	}

	for i := range 5 {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.base+"/v1/api/company", nil)
		req.Header.Set("X-API-Key", key)
		begin := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		// Generous for a loaded machine; a request waiting for the held pool takes DB_REQUEST_TIMEOUT.
		if took := time.Since(begin); resp.StatusCode != http.StatusOK || took > 2*time.Second {
			t.Errorf("request %d while the worker's pool is held: %d after %s, want 200 at once", i, resp.StatusCode, took)
		}
	}
}
