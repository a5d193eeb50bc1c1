package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/aggregator"
	"github.com/recruitd/recruitd/internal/aggsim"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/jobimport"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// aggsimAPIKey is the aggregator simulator's API key in dev and in `recruitd aggsim`.
const aggsimAPIKey = "aggsim-api-key"

// aggsimDemoJobs are the HR-suite jobs of the demo tenant at the simulator: the seeded demo jobs
// (5001, 1001, 1003) as the suite reports them, and two the import creates.
func aggsimDemoJobs() []aggsim.Job {
	return []aggsim.Job{
		{RemoteID: "5001", Name: "Registered Nurse", Location: "Austin, TX"},
		{RemoteID: "1001", Name: "Senior Software Engineer", Location: "San Francisco, CA"},
		{RemoteID: "1003", Name: "Support Lead", Location: "Chicago, IL", Status: "CLOSED"},
		{RemoteID: "6001", Name: "Licensed Practical Nurse", Location: "Dallas, TX", Description: "Day shifts, LPN license required."},
		{RemoteID: "6002", Name: "Warehouse Associate", Location: "Reno, NV", Description: "Forklift experience a plus."},
	}
}

func aggsimCmd(e *env) *cobra.Command {
	var addr string
	var autoFinish time.Duration
	cmd := &cobra.Command{
		Use:   "aggsim",
		Short: "Serve the integration-aggregator simulator (Kombo shape): connect page, job and application listings, signed webhooks",
		Long: "aggsim serves connect links and a connect page that authorises, the paged job, application and candidate\n" +
			"listings (updated_after, cursor; INTEGRATION.SETUP_SYNC_PENDING until the first sync finishes) and Standard Webhooks\n" +
			"deliveries to the URL given with the link, plus controls under /sim/integrations/{id}/ (finish-sync, jobs, close,\n" +
			"delete, candidates, applications (?generate=N&prefix=P&jobs=R1,R2 or a JSON list), applications/{remoteId}\n" +
			"(?stage=…&outcome=HIRED|DECLINED; DELETE, ?erase=1 for no trace), fail-auth, data-changed?times=2&models=ats_applications,\n" +
			"listing-faults) and /sim/webhooks/reorder-next. `recruitd dev` runs one in-process for the demo tenant.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sim := aggsim.New(aggsim.Options{APIKey: aggsimAPIKey, InitialJobs: aggsimDemoJobs(), AutoFinish: autoFinish})
			fmt.Fprintf(e.stdout, "aggregator simulator on http://%s (API key %q)\n", addr, aggsimAPIKey)
			return aggsim.ListenAndServe(cmd.Context(), addr, sim)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8091", "listen address")
	cmd.Flags().DurationVar(&autoFinish, "auto-finish", 2*time.Second, "finish an integration's first sync this long after authorisation (0: only /sim/integrations/{id}/finish-sync)")
	return cmd
}

// devAggsim is the aggregator simulator of `recruitd dev`.
type devAggsim struct {
	url string
	sim *aggsim.Server
	srv *http.Server
}

func (d *devAggsim) close() {
	d.sim.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.srv.Shutdown(ctx)
}

// startAggsim serves the aggregator simulator on a loopback port; its first sync finishes a
// second after authorisation.
func startAggsim(log *slog.Logger) (*devAggsim, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("aggregator simulator: %w", err)
	}
	sim := aggsim.New(aggsim.Options{APIKey: aggsimAPIKey, InitialJobs: aggsimDemoJobs(), AutoFinish: time.Second})
	d := &devAggsim{url: "http://" + ln.Addr().String(), sim: sim, srv: &http.Server{Handler: sim.Handler(), ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		if err := d.srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Error("aggregator simulator", "err", err)
		}
	}()
	return d, nil
}

// connectDemoIntegration points the demo tenant's aggregator credentials at the in-process simulator
// and runs the Connect action, authorising at once as the customer would on the connect page;
// the simulator finishes its first sync a second later and the job import starts by itself. The
// simulator keeps its integrations in memory, so every start reconnects (the integration id is
// the same, the card stays Connected).
func connectDemoIntegration(ctx context.Context, cfg *config.Config, st *store.Store, demo *models.Company, agg *devAggsim) error {
	sealed, err := box(cfg)
	if err != nil {
		return err
	}
	creds := map[string]string{aggregator.FieldBaseURL: agg.url, aggregator.FieldAPIKey: aggsimAPIKey}
	if err := st.SetAggregatorCredentials(ctx, demo.ID, sealed, creds); err != nil {
		return err
	}
	integrations := &jobimport.Integrations{Store: st, Box: sealed}
	_, link, err := integrations.Connect(ctx, demo, strings.TrimRight(cfg.PublicBaseURL, "/")+"/webhook/aggregator")
	if err != nil {
		return err
	}
	token := link[strings.LastIndex(link, "/")+1:]
	_, err = agg.sim.Authorize(token)
	return err
}

// awaitDemoImport waits until the demo tenant's jobs are imported from its HR suite (the simulator's
// 6001 exists), so the HR-suite delivery that make dev prints finds its job when run at once.
func awaitDemoImport(ctx context.Context, st *store.Store, demo *models.Company, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		_, err := st.JobByExternalID(ctx, demo.ID, "6001")
		if err == nil || !errors.Is(err, store.ErrNotFound) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
