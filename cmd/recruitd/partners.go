package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/callbacks"
	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/secretbox"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
	rtemporal "github.com/recruitd/recruitd/temporal"
	"github.com/recruitd/recruitd/workflows/starter"
)

// newSecret returns a random secret for partners: prefix + 32 random bytes in standard base64,
// the encoding Standard Webhooks libraries expect after "whsec_".
func newSecret(prefix string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return prefix + base64.StdEncoding.EncodeToString(b), nil
}

func box(cfg *config.Config) (*secretbox.Box, error) {
	k, err := cfg.EncryptionKeyBytes()
	if err != nil {
		return nil, err
	}
	return secretbox.New(k)
}

// privateCallbacksWarning is logged wherever callbacks may go to private and loopback addresses.
const privateCallbacksWarning = "partner callbacks may reach private and loopback addresses (CALLBACK_ALLOW_PRIVATE)"

// allowPrivateCallbacks reports whether partner callbacks may use http and reach private and
// loopback addresses: what CALLBACK_ALLOW_PRIVATE says when it is set, else whether this is
// development (recruitd dev's own processes, or a command run against its database).
func (e *env) allowPrivateCallbacks(cfg *config.Config, development bool) bool {
	if e.getenv("CALLBACK_ALLOW_PRIVATE") != "" {
		return cfg.CallbackAllowPrivate
	}
	return development
}

// devDatabase reports whether cfg's database is the private Postgres cluster of recruitd dev
// (make dev): a loopback host on DEV_POSTGRES_PORT, as dev prints DATABASE_URL.
func devDatabase(cfg *config.Config) bool {
	u, err := url.Parse(cfg.DatabaseURL)
	if err != nil || u.Port() != strconv.Itoa(cfg.DevPostgresPort) {
		return false
	}
	ip, err := netip.ParseAddr(u.Hostname())
	return u.Hostname() == "localhost" || err == nil && ip.IsLoopback()
}

// localCallback reports whether a callback URL needs the development allowance: plain http, or a
// host that names a loopback or private address (the sender's guard refuses those at delivery).
func localCallback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if strings.EqualFold(u.Scheme, "http") || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() {
		return true
	}
	for _, p := range callbacks.PrivateNets() {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// addPartner validates and stores a partner, generating the secrets not given. Callback URLs
// must be https to a public address unless allowPrivate (development, CALLBACK_ALLOW_PRIVATE).
func addPartner(ctx context.Context, st *store.Store, b *secretbox.Box, companyID uuid.UUID, name, callbackURL string, sec store.PartnerSecrets, allowPrivate bool) (*models.Partner, store.PartnerSecrets, error) {
	if _, err := callbacks.CheckURL(callbackURL, allowPrivate); err != nil || !allowPrivate && localCallback(callbackURL) {
		return nil, sec, fmt.Errorf("callback URL %q: want an absolute https URL without credentials, to a public address. "+
			"http and loopback or private addresses are for development: run this against make dev's database "+
			"(DATABASE_URL as make dev prints it, with DEV_POSTGRES_PORT if you moved it), or set CALLBACK_ALLOW_PRIVATE=true here and on the worker", callbackURL)
	}
	var err error
	if sec.CallbackSecret == "" {
		if sec.CallbackSecret, err = newSecret("cbs_"); err != nil {
			return nil, sec, err
		}
	}
	if sec.SigningSecret == "" {
		if sec.SigningSecret, err = newSecret("whsec_"); err != nil {
			return nil, sec, err
		}
	}
	p := &models.Partner{CompanyID: companyID, Name: name, CallbackURL: callbackURL}
	if err := st.CreatePartner(ctx, b, p, sec); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return nil, sec, fmt.Errorf("the company already has a partner named %q", name)
		}
		return nil, sec, err
	}
	return p, sec, nil
}

func partnersCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "partners", Short: "Register partners that submit applications and receive callbacks"}
	var slug, name, callbackURL, callbackSecret string
	add := &cobra.Command{
		Use:   "add",
		Short: "Register a partner's callback endpoint; prints the secrets (callback secret and signing secret) once",
		Example: "  recruitd partners add --company acme --name jobboard --callback-url https://partner.example.com/recruitd/callbacks\n" +
			"  recruitd apikey create --company acme --partner jobboard   # the key the partner submits with",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, log, err := e.load()
			if err != nil {
				return err
			}
			b, err := box(cfg)
			if err != nil {
				return fmt.Errorf("partners add needs RECRUITD_ENCRYPTION_KEY: %w", err)
			}
			allowPrivate := e.allowPrivateCallbacks(cfg, devDatabase(cfg))
			return e.withCompany(cmd.Context(), slug, func(st *store.Store, c *models.Company) error {
				p, sec, err := addPartner(cmd.Context(), st, b, c.ID, name, callbackURL, store.PartnerSecrets{CallbackSecret: callbackSecret}, allowPrivate)
				if err != nil {
					return err
				}
				if localCallback(callbackURL) {
					log.Warn(privateCallbacksWarning, "partner", p.Name)
				}
				fmt.Fprintf(e.stdout, "partner %s of %s (id %s) → %s\n", p.Name, c.Slug, p.ID, p.CallbackURL)
				fmt.Fprintf(e.stdout, "x-service-callback-secret: %s\n", sec.CallbackSecret)
				fmt.Fprintf(e.stdout, "signing secret (Standard Webhooks): %s\n", sec.SigningSecret)
				fmt.Fprintln(e.stderr, "the secrets are shown only this once; give them to the partner")
				return nil
			})
		},
	}
	add.Flags().StringVar(&slug, "company", "", "company slug (required)")
	add.Flags().StringVar(&name, "name", "", "partner name: lowercase letters, digits and dashes (required)")
	add.Flags().StringVar(&callbackURL, "callback-url", "", "where callbacks are POSTed (required)")
	add.Flags().StringVar(&callbackSecret, "callback-secret", "", "the x-service-callback-secret agreed at onboarding (default: generated)")
	for _, f := range []string{"company", "name", "callback-url"} {
		_ = add.MarkFlagRequired(f)
	}

	list := &cobra.Command{
		Use:   "list",
		Short: "List a company's partners (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withCompany(cmd.Context(), slug, func(st *store.Store, c *models.Company) error {
				ps, err := st.ListPartners(cmd.Context(), c.ID)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tCALLBACK URL\tID")
				for _, p := range ps {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, p.CallbackURL, p.ID)
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().StringVar(&slug, "company", "", "company slug (required)")
	_ = list.MarkFlagRequired("company")
	cmd.AddCommand(add, list)
	return cmd
}

func callbacksCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "callbacks", Short: "Inspect and redeliver partner callbacks"}
	var slug string
	var limit int
	list := &cobra.Command{
		Use:   "list",
		Short: "List a company's recent callbacks with their delivery attempts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withCompany(cmd.Context(), slug, func(st *store.Store, c *models.Company) error {
				cbs, err := st.ListCallbacks(cmd.Context(), c.ID, limit)
				if err != nil {
					return err
				}
				for _, cb := range cbs {
					replay := ""
					if cb.Replay {
						replay = " (replay)"
					}
					fmt.Fprintf(e.stdout, "%s  applicant %s  %s%s  %s after %d attempt(s), created %s\n",
						cb.ID, cb.ATSApplicantID, cb.Status, replay, cb.State, cb.Attempts, cb.CreatedAt.UTC().Format(time.RFC3339))
					atts, err := st.CallbackAttempts(cmd.Context(), c.ID, cb.ID)
					if err != nil {
						return err
					}
					for _, a := range atts {
						code, class := "-", "ok"
						if a.StatusCode != nil {
							code = fmt.Sprint(*a.StatusCode)
						}
						if a.ErrorClass != nil {
							class = *a.ErrorClass
						}
						fmt.Fprintf(e.stdout, "    #%d  %s  HTTP %s  %s  %dms\n", a.Number, a.At.UTC().Format(time.RFC3339), code, class, a.DurationMS)
					}
				}
				return nil
			})
		},
	}
	list.Flags().StringVar(&slug, "company", "", "company slug (required)")
	list.Flags().IntVar(&limit, "limit", 20, "how many callbacks")
	_ = list.MarkFlagRequired("company")

	redeliver := &cobra.Command{
		Use:   "redeliver CALLBACK_ID",
		Short: "Deliver a callback again (same webhook-id), on the full retry schedule",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := uuid.Parse(args[0])
			if err != nil {
				return fmt.Errorf("callback id %q is not a UUID", args[0])
			}
			cfg, log, err := e.load()
			if err != nil {
				return err
			}
			return e.withCompany(cmd.Context(), slug, func(st *store.Store, c *models.Company) error {
				cb, err := st.Callback(cmd.Context(), c.ID, id)
				if err != nil {
					return err
				}
				tc, err := rtemporal.Dial(cmd.Context(), cfg, log, nil)
				if err != nil {
					return err
				}
				defer tc.Close()
				start := kinds.CallbackStart(c.Slug, kinds.CallbackInput{CompanyID: c.ID, CallbackID: cb.ID, Redeliver: true},
					"redeliver-"+time.Now().UTC().Format("20060102T150405"))
				if err := (starter.Starter{Client: tc, QueuePrefix: cfg.TemporalTaskQueue}).Start(cmd.Context(), &start); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "redelivering callback %s (workflow %s)\n", cb.ID, start.WorkflowID)
				return nil
			})
		},
	}
	redeliver.Flags().StringVar(&slug, "company", "", "company slug (required)")
	_ = redeliver.MarkFlagRequired("company")
	cmd.AddCommand(list, redeliver)
	return cmd
}
