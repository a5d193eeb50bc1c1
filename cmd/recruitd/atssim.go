package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/atssim"
)

// simCredentials are the simulator's credentials in dev and in `recruitd atssim`.
var simCredentials = atssim.Credentials{RestToken: "sim-rest-token", APIKey: "sim-api-key", Username: "sim", Password: "sim-password"}

func atssimCmd(e *env) *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:   "atssim",
		Short: "Serve the ATS simulator (ATS-A, ATS-B and ATS-C shapes) with the demo records",
		Long: "atssim serves the three ATS record shapes the partner-applications endpoint reads, from seeded records, with\n" +
			"per-record latency, 5xx and hang injection. `recruitd dev` runs one in-process for the demo tenant.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sim := atssim.New(atssim.DemoRecords(), simCredentials)
			fmt.Fprintf(e.stdout, "ATS simulator on http://%s (restToken %q, apiKey %q, basic %s:%s)\n", addr,
				simCredentials.RestToken, simCredentials.APIKey, simCredentials.Username, simCredentials.Password)
			return atssim.ListenAndServe(cmd.Context(), addr, sim)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8090", "listen address")
	return cmd
}

// devSimulator is the ATS simulator and partner-callback sink of `recruitd dev`, on one listener.
type devSimulator struct {
	url string
	sim *atssim.Server
	srv *http.Server
}

func (d *devSimulator) credentials() map[string]string {
	return map[string]string{"baseUrl": d.url, "restToken": simCredentials.RestToken}
}

func (d *devSimulator) close() {
	d.sim.Close() // releases requests held by the hang and latency records
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.srv.Shutdown(ctx)
}

// startSimulator serves the simulator and a sink that prints every partner callback to out, so a
// developer sees the callbacks that `make dev` sends.
func startSimulator(ctx context.Context, log *slog.Logger, out io.Writer) (*devSimulator, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("ats simulator: %w", err)
	}
	var mu sync.Mutex
	mux := http.NewServeMux()
	sim := atssim.New(atssim.DemoRecords(), simCredentials)
	mux.Handle("/", sim.Handler())
	mux.HandleFunc("POST /dev/partner-callbacks", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		var pretty map[string]any
		_ = json.Unmarshal(body, &pretty)
		b, _ := json.MarshalIndent(pretty, "", "  ")
		mu.Lock()
		fmt.Fprintf(out, "── partner callback · webhook-id %s ──\n%s\n", r.Header.Get("webhook-id"), b)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	d := &devSimulator{url: "http://" + ln.Addr().String(), sim: sim, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		if err := d.srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Error("ats simulator", "err", err)
		}
	}()
	return d, nil
}
