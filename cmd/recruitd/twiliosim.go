package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/recruitd/recruitd/internal/config"
	"github.com/recruitd/recruitd/internal/conversation"
	"github.com/recruitd/recruitd/internal/twiliosim"
)

// The Twilio simulator's credentials and numbers in dev and, unless TWILIO_* say otherwise, in
// `recruitd twiliosim`. +15005550006 is Twilio's own test sender number.
const (
	twiliosimAccountSID = "ACdec0de00000000000000000000000001"
	twiliosimAuthToken  = "twiliosim-auth-token"
	twiliosimFrom       = "+15005550006"
	twiliosimAddr       = "127.0.0.1:8093"
)

// twilioInboundPath is where the simulator posts candidates' messages under PUBLIC_BASE_URL
// unless told otherwise: the Messaging webhook of recruitd's numbers.
const twilioInboundPath = "/webhook/twilio/messages"

// twilioStatusURL is where Twilio reports the delivery of the texts recruitd sends: the status
// callback under PUBLIC_BASE_URL, which checks Twilio's signature.
func twilioStatusURL(cfg *config.Config) string {
	return strings.TrimRight(cfg.PublicBaseURL, "/") + "/webhook/twilio/status"
}

func twiliosimCmd(e *env) *cobra.Command {
	var addr, inboundURL string
	cmd := &cobra.Command{
		Use:   "twiliosim",
		Short: "Serve the Twilio Messaging simulator: Messages API, signed status callbacks and inbound replies, a page to reply as the candidate",
		Long: "twiliosim speaks Twilio's Messages API: POST /2010-04-01/Accounts/{AccountSid}/Messages.json with basic auth (TWILIO_ACCOUNT_SID and\n" +
			"TWILIO_AUTH_TOKEN, default " + twiliosimAccountSID + " / " + twiliosimAuthToken + "), form fields To, From, Body, ContentSid,\n" +
			"ContentVariables, StatusCallback. Each message's status callbacks (queued, sent, delivered) go to its StatusCallback, signed in\n" +
			"X-Twilio-Signature; free-form WhatsApp outside the 24-hour window the candidate's last message opened fails with 63016.\n" +
			"Replies as the candidate (the page at /, POST /sim/reply, `recruitd twiliosim reply`) are posted to the inbound URL as Twilio's\n" +
			"signed Messaging webhook. Controls under /sim/: messages, deliveries, faults ({duplicate, out_of_order, fail}),\n" +
			"messages/{sid}/redeliver, advance ({by: \"25h\"}). Point recruitd at it with TWILIO_BASE_URL.\n" +
			"`recruitd dev` runs one in-process unless TWILIO_ACCOUNT_SID is set.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, _, err := e.load()
			if err != nil {
				return err
			}
			sid, token := twiliosimCredentials(cfg)
			if inboundURL == "" {
				inboundURL = strings.TrimRight(cfg.PublicBaseURL, "/") + twilioInboundPath
			}
			sim := twiliosim.New(twiliosim.Options{AccountSID: sid, AuthToken: token, InboundURL: inboundURL, Templates: simTemplates(cfg)})
			fmt.Fprintf(e.stdout, "Twilio simulator on http://%s (account %s, auth token %q), candidates' replies to %s\n", addr, sid, token, inboundURL)
			return twiliosim.ListenAndServe(cmd.Context(), addr, sim)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", twiliosimAddr, "listen address")
	cmd.Flags().StringVar(&inboundURL, "inbound-url", "", "where candidates' replies are posted (default: PUBLIC_BASE_URL"+twilioInboundPath+")")
	cmd.AddCommand(twiliosimReplyCmd(e), twiliosimMessagesCmd(e))
	return cmd
}

// twiliosimCredentials are TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN when both are set, else the
// simulator's own.
func twiliosimCredentials(cfg *config.Config) (string, string) {
	if cfg.TwilioAccountSID != "" && cfg.TwilioAuthToken != "" {
		return cfg.TwilioAccountSID, cfg.TwilioAuthToken
	}
	return twiliosimAccountSID, twiliosimAuthToken
}

func twiliosimReplyCmd(e *env) *cobra.Command {
	var sim string
	var r twiliosim.Reply
	cmd := &cobra.Command{
		Use:   "reply",
		Short: "Reply as a candidate through a running Twilio simulator (posted to recruitd as Twilio's signed webhook)",
		Example: "  recruitd twiliosim reply --from +14155550101 --body YES\n" +
			"  recruitd twiliosim reply --from whatsapp:+14155550101 --body Evenings --button-payload 2",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			body, err := json.Marshal(r)
			if err != nil {
				return err
			}
			var res twiliosim.ReplyResult
			if err := simCall(cmd.Context(), http.MethodPost, sim, "/sim/reply", body, &res); err != nil {
				return err
			}
			m, d := res.Message, res.Delivery
			fmt.Fprintf(e.stdout, "%s %s -> %s: %q\n", m.SID, m.From, m.To, m.Body)
			switch {
			case d.URL == "":
				fmt.Fprintln(e.stdout, "  not delivered: the simulator has no inbound URL")
			case d.Error != "":
				fmt.Fprintf(e.stdout, "  webhook to %s failed: %s\n", d.URL, d.Error)
			default:
				fmt.Fprintf(e.stdout, "  webhook to %s answered %d\n", d.URL, d.HTTPStatus)
			}
			for _, rep := range res.Replies {
				fmt.Fprintf(e.stdout, "  reply: %q\n", rep.Body)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&sim, "sim", "http://"+twiliosimAddr, "the simulator's URL")
	cmd.Flags().StringVar(&r.From, "from", "", "the candidate's number, E.164 (whatsapp:+1... for WhatsApp)")
	cmd.Flags().StringVar(&r.To, "to", "", "our number (default: the number that last wrote to --from)")
	cmd.Flags().StringVar(&r.Body, "body", "", "the message")
	cmd.Flags().StringVar(&r.ButtonPayload, "button-payload", "", "WhatsApp: the payload of the reply button tapped")
	cmd.Flags().StringVar(&r.ButtonText, "button-text", "", "WhatsApp: the title of the reply button tapped")
	cmd.Flags().StringVar(&r.ListID, "list-id", "", "WhatsApp: the id of the list row chosen")
	cmd.Flags().StringVar(&r.ListTitle, "list-title", "", "WhatsApp: the title of the list row chosen")
	_ = cmd.MarkFlagRequired("from")
	return cmd
}

func twiliosimMessagesCmd(e *env) *cobra.Command {
	var sim, number string
	cmd := &cobra.Command{
		Use:   "messages",
		Short: "List the messages a running Twilio simulator carried, oldest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var msgs []twiliosim.Message
			if err := simCall(cmd.Context(), http.MethodGet, sim, "/sim/messages?number="+url.QueryEscape(number), nil, &msgs); err != nil {
				return err
			}
			for _, m := range msgs {
				status := m.Status
				if m.ErrorCode != 0 {
					status += fmt.Sprintf(" (error %d)", m.ErrorCode)
				}
				fmt.Fprintf(e.stdout, "%s  %-14s %s -> %s  %s\n  %s\n", m.CreatedAt.Format(time.TimeOnly), m.Direction, m.From, m.To, status,
					strings.ReplaceAll(m.Body, "\n", "\n  "))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&sim, "sim", "http://"+twiliosimAddr, "the simulator's URL")
	cmd.Flags().StringVar(&number, "number", "", "only the messages to or from this number")
	return cmd
}

// simCall sends a control request to the simulator and decodes its JSON answer into out.
func simCall(ctx context.Context, method, base, path string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(base, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("Twilio simulator at %s: %w", base, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			return fmt.Errorf("Twilio simulator: %s", e.Error)
		}
		return fmt.Errorf("Twilio simulator: HTTP %d", resp.StatusCode)
	}
	return json.Unmarshal(b, out)
}

// startTwiliosim serves the simulator on a loopback port, posting candidates' replies to the
// API's Twilio webhook, and points cfg's TWILIO_* settings at it (which take effect where
// MESSAGING_MODE=live). With TWILIO_ACCOUNT_SID set it starts nothing.
func startTwiliosim(cfg *config.Config, log *slog.Logger) (*devSim[*twiliosim.Server], error) {
	if cfg.TwilioAccountSID != "" {
		return nil, nil
	}
	const what = "Twilio simulator"
	ln, url, err := listenDevSim(what)
	if err != nil {
		return nil, err
	}
	sim := twiliosim.New(twiliosim.Options{AccountSID: twiliosimAccountSID, AuthToken: twiliosimAuthToken,
		InboundURL: strings.TrimRight(cfg.PublicBaseURL, "/") + twilioInboundPath, Templates: simTemplates(cfg)})
	d := &devSim[*twiliosim.Server]{url: url, sim: sim,
		about: "  Twilio simulator: " + url + "   threads and a reply form; reply as a candidate: bin/recruitd twiliosim reply --sim " + url +
			" --from +1... --body YES (recruitd twiliosim --help)\n"}
	cfg.TwilioBaseURL, cfg.TwilioAccountSID, cfg.TwilioAuthToken = d.url, twiliosimAccountSID, twiliosimAuthToken
	if cfg.TwilioFrom == "" {
		cfg.TwilioFrom = twiliosimFrom
	}
	if cfg.TwilioWhatsAppFrom == "" {
		cfg.TwilioWhatsAppFrom = twiliosimFrom
	}
	d.serve(ln, what, log)
	return d, nil
}

// simTemplates gives the simulator the text of the configured WhatsApp templates, so that its
// page shows what a template message said.
func simTemplates(cfg *config.Config) map[string]string {
	out := map[string]string{}
	for key, id := range cfg.WhatsAppTemplates() {
		out[id] = conversation.TemplateBodies[key]
	}
	return out
}
