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
		{RemoteID: "6001", Name: "Licensed Practical Nurse", Location: "Dallas, TX", Description: "We are hiring a Licensed Practical Nurse for day shifts at our Dallas clinic. " +
			"You take vital signs, give medication, dress wounds and keep patient records, working with registered nurses and physicians. " +
			"Requirements: an LPN license, BLS certification and one year of clinical experience."},
		{RemoteID: "6002", Name: "Warehouse Associate", Location: "Reno, NV", Description: "We are hiring a Warehouse Associate to pick, pack and ship orders at our Reno warehouse. " +
			"You load trucks, count stock and keep the floor safe. Forklift experience a plus; able to lift 50 lb."},
	}
}

// aggsimDemoATS is the ATS of the demo ATS company (seed.DemoATSSlug) at the simulator: three
// open jobs with the descriptions their interviews are generated from, three candidates and an
// application of each. The import brings them in at every dev start; 'New Application from
// ATS' invites each applicant once.
func aggsimDemoATS() aggsim.Seed {
	return aggsim.Seed{
		Jobs: []aggsim.Job{
			{RemoteID: "7101", Name: "Medical Assistant", Location: "Portland, OR", Description: "Harbor Clinics is hiring a Medical Assistant for our " +
				"family medicine clinic in Portland. You room patients, take vital signs and histories, give injections and vaccines, collect " +
				"specimens, and keep exam rooms stocked and clean. You update the electronic health record accurately during every visit and help " +
				"the front desk at busy times. Requirements: a medical assistant certificate (CMA or RMA), current BLS certification, one year of " +
				"clinical experience, and a calm, friendly manner with patients of every age. Full time, Monday to Friday, 8:00 to 17:00."},
			{RemoteID: "7102", Name: "Patient Services Coordinator", Location: "Portland, OR", Description: "As Patient Services Coordinator you are the " +
				"first person our patients meet. You greet and check in patients, verify insurance and collect co-pays, schedule appointments " +
				"across three providers, answer the phone and the patient portal's messages, and resolve billing questions with care. You keep " +
				"protected health information private (HIPAA) and escalate urgent clinical calls to the nurse on duty. Requirements: two years in " +
				"a front-office, reception or customer-service role, confident computer skills, and a clear, kind way of explaining things. " +
				"Spanish is a plus."},
			{RemoteID: "7103", Name: "Physical Therapist", Location: "Vancouver, WA", Description: "Join our outpatient rehabilitation team as a " +
				"Physical Therapist. You evaluate patients after injuries and surgery, write plans of care with measurable goals, treat with " +
				"manual therapy and therapeutic exercise, teach home programs, and document each visit the same day. You work with referring " +
				"physicians and supervise one physical therapist assistant. Requirements: a DPT degree and a current Washington PT license (or " +
				"eligibility), CPR certification, and experience with orthopedic or sports patients. New graduates with strong clinical rotations " +
				"are welcome."},
		},
		Candidates: []aggsim.Candidate{
			{RemoteID: "C-8801", FirstName: "Maya", LastName: "Lopez", Email: "maya.lopez@example.com", Phone: "+1 (503) 555-0141"},
			{RemoteID: "C-8802", FirstName: "Omar", LastName: "Haddad", Email: "omar.haddad@example.com", Phone: "+1 (503) 555-0142"},
			{RemoteID: "C-8803", FirstName: "Priya", LastName: "Natarajan", Email: "priya.natarajan@example.com", Phone: "+1 (360) 555-0143"},
		},
		Applications: []aggsim.Application{
			{RemoteID: "70001", CandidateRemoteID: "C-8801", JobRemoteID: "7101"},
			{RemoteID: "70002", CandidateRemoteID: "C-8802", JobRemoteID: "7102"},
			{RemoteID: "70003", CandidateRemoteID: "C-8803", JobRemoteID: "7103"},
		},
	}
}

// aggsimDemoATSStages are the stages of the demo ATS: a stage move to another is refused.
var aggsimDemoATSStages = []string{"Applied", "Screening", "Interview Passed", "Rejected", "Hired"}

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
			"listing-faults), GET /sim/writes (the notes, result links and stage moves written back) and /sim/webhooks/reorder-next.\n" +
			"`recruitd dev` runs one in-process for the demo tenant's HR suite and the demo-ats company's ATS.",
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

// connectDemoIntegration points the company's aggregator credentials at the in-process simulator
// and runs the Connect action, authorising at once as the customer would on the connect page;
// the simulator finishes its first sync a second later and the job import (and for an ATS the
// application sync) starts by itself. seed, when not nil, is what the company's ATS holds at
// the simulator (an HR suite has the simulator's demo jobs). The simulator keeps its
// integrations in memory, so every start reconnects (the integration id is the same, the card
// stays Connected).
func connectDemoIntegration(ctx context.Context, cfg *config.Config, st *store.Store, co *models.Company, agg *devAggsim, seed *aggsim.Seed) error {
	sealed, err := box(cfg)
	if err != nil {
		return err
	}
	creds := map[string]string{aggregator.FieldBaseURL: agg.url, aggregator.FieldAPIKey: aggsimAPIKey}
	if err := st.SetAggregatorCredentials(ctx, co.ID, sealed, creds); err != nil {
		return err
	}
	integrations := &jobimport.Integrations{Store: st, Box: sealed}
	_, link, err := integrations.Connect(ctx, co, strings.TrimRight(cfg.PublicBaseURL, "/")+"/webhook/aggregator")
	if err != nil {
		return err
	}
	if seed != nil {
		agg.sim.SeedOrigin(co.ID.String(), *seed)
	}
	token := link[strings.LastIndex(link, "/")+1:]
	id, err := agg.sim.Authorize(token)
	if err != nil {
		return err
	}
	if seed != nil {
		agg.sim.SetStages(id, aggsimDemoATSStages...)
	}
	return nil
}

// awaitDemoSync waits until the demo ATS company's applications are synced (the last one of
// seed exists), so that the tour make dev prints finds them when run at once.
func awaitDemoSync(ctx context.Context, st *store.Store, co *models.Company, seed aggsim.Seed, within time.Duration) error {
	last := seed.Applications[len(seed.Applications)-1].RemoteID
	deadline := time.Now().Add(within)
	for {
		apps, err := st.ApplicationsByExternalID(ctx, co.ID, last)
		switch {
		case err != nil:
			return err
		case len(apps) > 0:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("application %s not synced within %s", last, within)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
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
