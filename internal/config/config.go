// Package config loads recruitd's settings from environment variables. Every setting has a
// default, is validated at start, and is logged once with secrets masked. The README's
// configuration table is checked against Vars() by a test, so the two cannot drift.
package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/recruitd/recruitd/internal/clientip"
	"github.com/recruitd/recruitd/internal/conversation"
	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/links"
)

// Config holds every setting. Struct tags: env (variable name), default, doc (README text),
// secret (masked in logs).
type Config struct {
	DatabaseURL string `env:"DATABASE_URL" default:"postgres://recruitd@127.0.0.1:5432/recruitd?sslmode=disable" secret:"true" doc:"Postgres connection URL. recruitd dev uses its private cluster instead unless this is set."`
	DBMaxConns  int    `env:"DB_MAX_CONNS" default:"20" doc:"Maximum open Postgres connections per pool: one per process, two where a process runs the worker beside the api or tool server (recruitd dev, the bench), so that the worker's activities never make a request wait for a connection."`
	// DBRequestTimeout bounds a request's database work (store.Bounded).
	DBRequestTimeout time.Duration `env:"DB_REQUEST_TIMEOUT" default:"3s" doc:"How long one database statement or transaction of a REST or candidate-page request may take, the wait for a pooled connection included (100ms to 60s); past it the request is answered 503 SERVICE_UNAVAILABLE with Retry-After, so a hung Postgres is answered in seconds (in recruitd api, and in the api's pool of a process that also runs the worker, also the connections' statement_timeout)."`

	TemporalAddress     string `env:"TEMPORAL_ADDRESS" default:"127.0.0.1:7233" doc:"Temporal frontend host:port. recruitd dev starts its own dev server unless this is set."`
	TemporalNamespace   string `env:"TEMPORAL_NAMESPACE" default:"default" doc:"Temporal namespace."`
	TemporalTaskQueue   string `env:"TEMPORAL_TASK_QUEUE" default:"recruitd" doc:"Prefix of recruitd's task queues: the default queue is this name, the others this name, a dash and the queue's (recruitd-interview, recruitd-ingest)."`
	WorkerQueues        string `env:"WORKER_QUEUES" default:"all" doc:"Comma-separated task queues recruitd worker serves (default, interview, ingest), or all; --queues overrides it. A worker runs one Temporal worker per queue. Keep at least one worker on each queue, and one on default while runs started before the queues were split are open (docs/queues.md)."`
	WorkerSlots         int    `env:"WORKER_SLOTS" default:"0" doc:"How many activities, and how many local activities, each of a worker's queues runs at once. 0: the Temporal SDK's default (1000) in a process that runs only the worker; DB_MAX_CONNS in one that also serves the api or tool server, where a larger backlog would only wait for the worker's pool and take the requests' CPU (docs/operations.md)."`
	TemporalAPIKey      string `env:"TEMPORAL_API_KEY" secret:"true" doc:"API key for Temporal Cloud (implies TLS)."`
	TemporalTLS         bool   `env:"TEMPORAL_TLS" default:"false" doc:"Dial Temporal over TLS."`
	TemporalTLSCert     string `env:"TEMPORAL_TLS_CERT" doc:"Client certificate file (mTLS)."`
	TemporalTLSKey      string `env:"TEMPORAL_TLS_KEY" doc:"Client key file (mTLS)."`
	TemporalTLSCA       string `env:"TEMPORAL_TLS_CA" doc:"CA bundle file to verify the Temporal server."`
	TemporalCompression string `env:"TEMPORAL_COMPRESSION" default:"none" doc:"gRPC compression of recruitd's requests to Temporal (and so of Temporal's answers): none, or gzip for a Temporal reached over a slow or metered link such as Temporal Cloud. Compressing on a local network costs both sides CPU for every task and saves nothing (docs/operations.md)."`

	APIAddr           string `env:"API_ADDR" default:"127.0.0.1:8080" doc:"Listen address of the REST API."`
	MCPAddr           string `env:"MCP_ADDR" default:"127.0.0.1:8081" doc:"Listen address of the MCP tool server."`
	MetricsToken      string `env:"METRICS_TOKEN" secret:"true" doc:"Bearer token a scraper must send for /metrics on the metrics listeners (API_METRICS_ADDR, MCP_METRICS_ADDR, WORKER_METRICS_ADDR). Empty: none, for listeners that only a private network reaches. The api and mcp listeners never serve /metrics."`
	APIMetricsAddr    string `env:"API_METRICS_ADDR" default:"127.0.0.1:9465" doc:"Listen address of the api process's private listener: /metrics, /healthz and /readyz. recruitd dev (api, mcp and worker in one process) serves its one metrics listener here."`
	MCPMetricsAddr    string `env:"MCP_METRICS_ADDR" default:"127.0.0.1:9466" doc:"Listen address of the mcp process's private listener: /metrics, /healthz and /readyz."`
	WorkerMetricsAddr string `env:"WORKER_METRICS_ADDR" default:"127.0.0.1:9464" doc:"Listen address of the worker process's private listener: /metrics, /healthz and /readyz."`
	PublicBaseURL     string `env:"PUBLIC_BASE_URL" doc:"External base URL of the REST API ({base_url}); used in links. Empty: http:// and API_ADDR's host and port (localhost for an unspecified host such as 0.0.0.0)."`
	MCPBaseURL        string `env:"MCP_BASE_URL" doc:"External base URL of the tool server ({mcp_url}); used in WWW-Authenticate and OAuth metadata. Empty: http:// and MCP_ADDR's host and port (localhost for an unspecified host such as 0.0.0.0). recruitd mcp refuses an http:// one unless MCP_ADDR is loopback: set https:// with MCP_TLS_CERT or a TLS front in MCP_TRUSTED_PROXIES."`
	MCPAllowedOrigins string `env:"MCP_ALLOWED_ORIGINS" doc:"Comma-separated browser origins (scheme://host[:port]) allowed to call /mcp besides MCP_BASE_URL's own. A request with any other Origin header gets 403; requests without one (scripts, agents) are unaffected."`
	InterviewBaseURL  string `env:"INTERVIEW_BASE_URL" doc:"Public base URL of the candidate pages that the api process serves (the interview links /interview/<token> in invitations, reminders and partner callbacks). Empty: PUBLIC_BASE_URL."`
	AppURL            string `env:"APP_URL" doc:"Base URL of the product's web app, where recruiter links to candidates, jobs and sessions open (tool answers, ATS notes, result links). Empty: recruitd's own recruiter pages under PUBLIC_BASE_URL/app, which say how to read each record through the API and the tools."`

	EncryptionKey string `env:"RECRUITD_ENCRYPTION_KEY" secret:"true" doc:"Base64 of 32 random bytes; encrypts ATS credentials at rest (AES-256-GCM). Required by api, worker and company commands; recruitd dev generates one under .dev/."`
	DemoAPIKey    string `env:"RECRUITD_DEMO_API_KEY" secret:"true" doc:"Fixes the demo tenant's API key (at least 20 printable ASCII characters, no spaces). When empty, recruitd dev generates one once and keeps it in .dev/."`

	LLMBaseURL string        `env:"LLM_BASE_URL" doc:"OpenAI-compatible chat-completions base URL (for example https://api.openai.com/v1). Empty: the deterministic local generator writes interview guides."`
	LLMAPIKey  string        `env:"LLM_API_KEY" secret:"true" doc:"API key of the LLM endpoint."`
	LLMModel   string        `env:"LLM_MODEL" default:"gpt-4o-mini" doc:"Model name sent to the LLM endpoint."`
	LLMTimeout time.Duration `env:"LLM_TIMEOUT" default:"60s" doc:"Timeout of one LLM request."`

	MessagingMode      string `env:"MESSAGING_MODE" doc:"Required by api and worker: live sends through SMTP and Twilio; outbox records and prints every message (recipient and interview link) and sends nothing, for development (the recruitd dev default)."`
	SMTPHost           string `env:"SMTP_HOST" doc:"SMTP server for e-mail (live mode)."`
	SMTPPort           int    `env:"SMTP_PORT" default:"587" doc:"SMTP port."`
	SMTPUsername       string `env:"SMTP_USERNAME" doc:"SMTP user (empty: no authentication)."`
	SMTPPassword       string `env:"SMTP_PASSWORD" secret:"true" doc:"SMTP password."`
	SMTPFrom           string `env:"SMTP_FROM" default:"Recruiting <interviews@localhost>" doc:"From address of candidate e-mail."`
	SMTPTLS            string `env:"SMTP_TLS" default:"starttls" doc:"none, starttls or tls."`
	TwilioBaseURL      string `env:"TWILIO_BASE_URL" default:"https://api.twilio.com" doc:"Base URL of the Twilio-compatible Messages and Calls API."`
	TwilioAccountSID   string `env:"TWILIO_ACCOUNT_SID" doc:"Twilio account SID (live SMS, WhatsApp, phone)."`
	TwilioAuthToken    string `env:"TWILIO_AUTH_TOKEN" secret:"true" doc:"Twilio auth token."`
	TwilioFrom         string `env:"TWILIO_FROM" doc:"Sender number (E.164) for SMS and calls."`
	TwilioWhatsAppFrom string `env:"TWILIO_WHATSAPP_FROM" doc:"Sender number (E.164) for WhatsApp."`

	WhatsAppTemplateInvite     string `env:"TWILIO_WHATSAPP_TEMPLATE_INVITE" default:"HX00000000000000000000000000000a01" doc:"ContentSid of the approved WhatsApp utility template of invitations to an interview on the web page ({{1}} first name, {{2}} company, {{3}} role, {{4}} link). The default is the Twilio simulator's."`
	WhatsAppTemplateInviteText string `env:"TWILIO_WHATSAPP_TEMPLATE_INVITE_TEXT" default:"HX00000000000000000000000000000a02" doc:"ContentSid of the WhatsApp template of invitations to an interview in the thread (Reply YES), same variables."`
	WhatsAppTemplateReminder   string `env:"TWILIO_WHATSAPP_TEMPLATE_REMINDER" default:"HX00000000000000000000000000000a03" doc:"ContentSid of the WhatsApp template of reminders ({{1}} company, {{2}} role, {{3}} deadline, {{4}} link)."`
	WhatsAppTemplateNudge      string `env:"TWILIO_WHATSAPP_TEMPLATE_NUDGE" default:"HX00000000000000000000000000000a04" doc:"ContentSid of the WhatsApp template that asks a candidate who started in the thread to reply to continue, same variables as the reminder."`

	IDVBaseURL       string        `env:"IDV_BASE_URL" doc:"Base URL of the identity-verification provider's API, Stripe Identity (https://api.stripe.com; government ID plus selfie, for jobs with enable_identity_verification). Empty: no verification can start (recruitd dev runs its simulator instead)."`
	IDVAPIKey        string        `env:"IDV_API_KEY" secret:"true" doc:"API key of the identity-verification provider."`
	IDVWebhookSecret string        `env:"IDV_WEBHOOK_SECRET" secret:"true" doc:"Signing secret (whsec_...) of the Stripe Identity webhook endpoint, which signs the outcomes (Stripe-Signature; POST /webhook/idverify). Empty: every delivery is refused."`
	IDVTTL           time.Duration `env:"IDV_TTL" default:"24h" doc:"How long an identity verification stays PENDING before it becomes EXPIRED (1m to 720h)."`

	ATSTimeout             time.Duration `env:"ATS_TIMEOUT" default:"10s" doc:"Timeout of one ATS request; a slower ATS answers the partner with 503 (retryable), never 404."`
	AggregatorFullPass     time.Duration `env:"AGGREGATOR_FULL_PASS_EVERY" default:"6h" doc:"How often the worker's aggregator imports (jobs, and an ATS's candidates and applications) run a full pass that catches changes and deletions no webhook announced, 1s to 168h; a running import takes a new value after its next pass."`
	PartnerRateLimit       float64       `env:"PARTNER_RATE_LIMIT" default:"10" doc:"Partner-application submissions per second per API key (token bucket shared by every replica); over it: 429 with Retry-After."`
	PartnerRateBurst       int           `env:"PARTNER_RATE_BURST" default:"50" doc:"Burst size of the per-key partner-application limit."`
	APIRateLimit           float64       `env:"API_RATE_LIMIT" default:"50" doc:"Requests per second per API key on every authenticated REST route and on /mcp (token bucket shared by every replica; 0 turns it off); over it: 429 with Retry-After. Assessment-link pushes (documented at about 10/s) and HR-suite batch deliveries stay far below it."`
	APIRateBurst           int           `env:"API_RATE_BURST" default:"200" doc:"Burst size of the per-key limit."`
	InterviewRateLimit     float64       `env:"INTERVIEW_RATE_LIMIT" default:"5" doc:"Requests per second per interview link on the candidate page (token bucket shared by every replica; 0 turns it off); over it: 429 with Retry-After."`
	InterviewRateBurst     int           `env:"INTERVIEW_RATE_BURST" default:"60" doc:"Burst size of the per-link limit."`
	InterviewAddrLimit     float64       `env:"INTERVIEW_ADDR_RATE_LIMIT" default:"20" doc:"Requests per second per client IP on the candidate page, every link together (token bucket shared by every replica; 0 turns it off); over it: 429 with Retry-After."`
	InterviewAddrBurst     int           `env:"INTERVIEW_ADDR_RATE_BURST" default:"200" doc:"Burst size of the per-IP candidate-page limit."`
	AuthFailureLimit       float64       `env:"AUTH_FAILURE_LIMIT" default:"1" doc:"Failed authentications (a wrong, revoked or malformed key or token) per second per client IP (token bucket shared by every replica; 0 turns it off); once spent, that IP's failing requests get 429 with Retry-After instead of 401. Valid credentials from the IP are served as usual; a missing one or an expired OAuth access token spends nothing."`
	AuthFailureBurst       int           `env:"AUTH_FAILURE_BURST" default:"20" doc:"Burst size of the per-IP failed-authentication limit."`
	MCPMaxConcurrentCalls  int           `env:"MCP_MAX_CONCURRENT_CALLS" default:"4" doc:"Tool-server requests one API key may have in flight at once, across every mcp replica (0: no cap); more get 429 with Retry-After."`
	MCPToolTimeout         time.Duration `env:"MCP_TOOL_TIMEOUT" default:"60s" doc:"How long one tool call may take (the spec allows searches over very large pools up to 60 s), 1s to 110s; its database statements stop when it ends, and it is the statement_timeout of the tool server's connections. Replaces MCP_STATEMENT_TIMEOUT."`
	MCPTLSCert             string        `env:"MCP_TLS_CERT" doc:"Certificate file (PEM) with which the tool server terminates TLS itself; with MCP_TLS_KEY. Empty: plain http, for a TLS front or local development."`
	MCPTLSKey              string        `env:"MCP_TLS_KEY" doc:"Private key file (PEM) of MCP_TLS_CERT."`
	MCPTrustedProxies      string        `env:"MCP_TRUSTED_PROXIES" doc:"Comma-separated IP addresses or CIDR prefixes of the proxies in front of every listener (REST API, candidate page, tool server). Only a peer listed here is believed: its X-Forwarded-For names the client whose address the per-address limits count (the right-most address not listed), and its X-Forwarded-Proto tells the tool server the request came over https (when MCP_BASE_URL is https, plain http from anyone else, loopback and the probes excepted, gets 421; https responses carry HSTS). Empty: no proxy is believed and the peer's own address counts."`
	OIDCIssuer             string        `env:"OIDC_ISSUER" doc:"Issuer URL of the OpenID provider users sign in with for MCP OAuth (the tool server's /oauth/authorize sends them there). Empty: OAuth sign-in is unavailable (API keys still work); recruitd dev starts a local provider instead."`
	OIDCClientID           string        `env:"OIDC_CLIENT_ID" doc:"The tool server's client id at the OpenID provider; its redirect URI there is {mcp_url}/oauth/callback."`
	OIDCClientSecret       string        `env:"OIDC_CLIENT_SECRET" secret:"true" doc:"The tool server's client secret at the OpenID provider."`
	OAuthRegistrationLimit float64       `env:"OAUTH_REGISTRATION_LIMIT" default:"0.2" doc:"OAuth client registrations and client metadata-document fetches per second per client IP (token bucket shared by every replica; 0 turns it off); over it: 429 with Retry-After."`
	OAuthRegistrationBurst int           `env:"OAUTH_REGISTRATION_BURST" default:"20" doc:"Burst size of the per-IP OAuth registration limit."`
	CallbackAllowPrivate   bool          `env:"CALLBACK_ALLOW_PRIVATE" default:"false" doc:"Let partner callbacks use http and reach private and loopback addresses (SSRF guard off for them; development and tests only). Unset: only in development, that is in recruitd dev and in commands run against its database (a loopback host on DEV_POSTGRES_PORT)."`

	MaxBodyBytes    int64         `env:"MAX_BODY_BYTES" default:"1048576" doc:"Largest accepted request body, in bytes."`
	HRSuiteMaxBody  int64         `env:"HRSUITE_MAX_BODY_BYTES" default:"20971520" doc:"Largest accepted HR-suite webhook delivery (POST /webhook/hrsuite), in bytes; larger ones get 413."`
	HRSuiteQuota    int64         `env:"HRSUITE_STORAGE_QUOTA_BYTES" default:"268435456" doc:"Storage per company for HR-suite deliveries (bodies as stored, compressed), in bytes; a delivery that would go over it gets 429 STORAGE_QUOTA_EXCEEDED."`
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" default:"15s" doc:"Grace period for in-flight requests and activities on SIGINT/SIGTERM."`
	LogLevel        string        `env:"LOG_LEVEL" default:"info" doc:"debug, info, warn or error."`
	LogFormat       string        `env:"LOG_FORMAT" default:"text" doc:"text or json."`

	DevDir            string `env:"DEV_DIR" default:".dev" doc:"recruitd dev: state folder (Postgres cluster, Temporal database, generated keys)."`
	DevPostgresPort   int    `env:"DEV_POSTGRES_PORT" default:"54329" doc:"recruitd dev: port of the private Postgres cluster."`
	DevTemporalPort   int    `env:"DEV_TEMPORAL_PORT" default:"7233" doc:"recruitd dev: port of the Temporal dev server."`
	DevTemporalUIPort int    `env:"DEV_TEMPORAL_UI_PORT" default:"8233" doc:"recruitd dev: port of the Temporal Web UI."`
	DevIDPPort        int    `env:"DEV_IDP_PORT" default:"8090" doc:"recruitd dev: port of the local OpenID provider the tool server's OAuth sign-in uses (unless OIDC_ISSUER is set)."`
}

// Var describes one environment variable.
type Var struct {
	Name, Default, Doc string
	Secret             bool
}

// Vars lists every setting in declaration order.
func Vars() []Var {
	t := reflect.TypeOf(Config{})
	out := make([]Var, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		out = append(out, Var{
			Name:    f.Tag.Get("env"),
			Default: f.Tag.Get("default"),
			Doc:     f.Tag.Get("doc"),
			Secret:  f.Tag.Get("secret") == "true",
		})
	}
	return out
}

// Load reads every setting through getenv, applying defaults, and validates the result.
// All problems are reported together.
func Load(getenv func(string) string) (*Config, error) {
	c := &Config{}
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	var errs []error
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := f.Tag.Get("env")
		raw, ok := strings.TrimSpace(getenv(name)), true
		if raw == "" {
			raw, ok = f.Tag.Get("default"), false
		}
		if err := set(v.Field(i), raw); err != nil {
			if ok {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			} else {
				errs = append(errs, fmt.Errorf("%s default %q: %w", name, raw, err))
			}
		}
	}
	if strings.TrimSpace(getenv("MCP_STATEMENT_TIMEOUT")) != "" {
		errs = append(errs, errors.New("MCP_STATEMENT_TIMEOUT: replaced by MCP_TOOL_TIMEOUT, which bounds a whole tool call and its statements"))
	}
	if c.PublicBaseURL == "" {
		c.PublicBaseURL = ListenURL(c.APIAddr)
	}
	if c.InterviewBaseURL == "" {
		c.InterviewBaseURL = c.PublicBaseURL
	}
	if c.MCPBaseURL == "" {
		c.MCPBaseURL = ListenURL(c.MCPAddr)
	}
	if len(errs) == 0 {
		errs = append(errs, c.validate()...)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("configuration: %w", errors.Join(errs...))
	}
	return c, nil
}

// Links is the builder of every link recruitd writes: interview links under
// INTERVIEW_BASE_URL, recruiter links under APP_URL (or recruitd's own pages), documentation
// links under INTERVIEW_BASE_URL too (the api process serves both).
func (c *Config) Links() links.Builder { return links.New(c.InterviewBaseURL, c.AppURL) }

// WhatsAppTemplates are the ContentSids of the WhatsApp templates (TWILIO_WHATSAPP_TEMPLATE_*).
func (c *Config) WhatsAppTemplates() conversation.TemplateIDs {
	return conversation.TemplateIDs{
		conversation.TemplateInvite: c.WhatsAppTemplateInvite, conversation.TemplateInviteText: c.WhatsAppTemplateInviteText,
		conversation.TemplateReminder: c.WhatsAppTemplateReminder, conversation.TemplateNudge: c.WhatsAppTemplateNudge,
	}
}

// ListenURL is the http:// base URL of a listen address, the default of PUBLIC_BASE_URL and
// MCP_BASE_URL: an unspecified host (0.0.0.0, ::, none) becomes localhost; an IP
// address or a host name stays as it is, so the URL names where the server really listens.
func ListenURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

func set(f reflect.Value, raw string) error {
	switch f.Interface().(type) {
	case string:
		f.SetString(raw)
	case bool:
		if raw == "" {
			return nil
		}
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return fmt.Errorf("%q is not a boolean (true/false)", raw)
		}
		f.SetBool(b)
	case float64:
		if raw == "" {
			return nil
		}
		n, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", raw)
		}
		f.SetFloat(n)
	case int, int64:
		if raw == "" {
			return nil
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer", raw)
		}
		f.SetInt(n)
	case time.Duration:
		d, err := time.ParseDuration(raw)
		if err != nil {
			return fmt.Errorf("%q is not a duration (for example 15s, 2m)", raw)
		}
		f.SetInt(int64(d))
	default:
		return fmt.Errorf("unsupported setting type %s", f.Type())
	}
	return nil
}

func (c *Config) validate() []error {
	var errs []error
	check := func(name string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	check("DATABASE_URL", urlWithScheme(c.DatabaseURL, "postgres", "postgresql"))
	check("DB_MAX_CONNS", inRange(int64(c.DBMaxConns), 1, 1000))
	check("TEMPORAL_ADDRESS", hostPort(c.TemporalAddress))
	if c.TemporalNamespace == "" {
		check("TEMPORAL_NAMESPACE", errors.New("must not be empty"))
	}
	if c.TemporalTaskQueue == "" {
		check("TEMPORAL_TASK_QUEUE", errors.New("must not be empty"))
	}
	if _, err := kinds.ParseQueues(c.WorkerQueues); err != nil {
		check("WORKER_QUEUES", err)
	}
	check("WORKER_SLOTS", inRange(int64(c.WorkerSlots), 0, 10000))
	if c.TemporalCompression != "none" && c.TemporalCompression != "gzip" {
		check("TEMPORAL_COMPRESSION", fmt.Errorf("%q: want none or gzip", c.TemporalCompression))
	}
	if (c.TemporalTLSCert == "") != (c.TemporalTLSKey == "") {
		check("TEMPORAL_TLS_CERT", errors.New("TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together"))
	}
	check("API_ADDR", hostPort(c.APIAddr))
	check("MCP_ADDR", hostPort(c.MCPAddr))
	check("API_METRICS_ADDR", hostPort(c.APIMetricsAddr))
	check("MCP_METRICS_ADDR", hostPort(c.MCPMetricsAddr))
	check("WORKER_METRICS_ADDR", hostPort(c.WorkerMetricsAddr))
	check("PUBLIC_BASE_URL", urlWithScheme(c.PublicBaseURL, "http", "https"))
	check("MCP_BASE_URL", urlWithScheme(c.MCPBaseURL, "http", "https"))
	check("INTERVIEW_BASE_URL", urlWithScheme(c.InterviewBaseURL, "http", "https"))
	if c.AppURL != "" {
		check("APP_URL", urlWithScheme(c.AppURL, "http", "https"))
	}
	if c.EncryptionKey != "" {
		_, err := c.EncryptionKeyBytes()
		check("RECRUITD_ENCRYPTION_KEY", err)
	}
	if c.DemoAPIKey != "" && !keyText(c.DemoAPIKey) {
		check("RECRUITD_DEMO_API_KEY", errors.New("must be at least 20 printable ASCII characters without spaces"))
	}
	if c.LLMBaseURL != "" {
		check("LLM_BASE_URL", urlWithScheme(c.LLMBaseURL, "http", "https"))
	}
	if c.LLMTimeout <= 0 {
		check("LLM_TIMEOUT", errors.New("must be positive"))
	}
	if c.MessagingMode != "" && c.MessagingMode != "outbox" && c.MessagingMode != "live" {
		check("MESSAGING_MODE", fmt.Errorf("%q: want outbox or live", c.MessagingMode))
	}
	if c.SMTPTLS != "none" && c.SMTPTLS != "starttls" && c.SMTPTLS != "tls" {
		check("SMTP_TLS", fmt.Errorf("%q: want none, starttls or tls", c.SMTPTLS))
	}
	check("SMTP_PORT", inRange(int64(c.SMTPPort), 1, 65535))
	check("TWILIO_BASE_URL", urlWithScheme(c.TwilioBaseURL, "http", "https"))
	if c.IDVBaseURL != "" {
		check("IDV_BASE_URL", urlWithScheme(c.IDVBaseURL, "http", "https"))
		if c.IDVAPIKey == "" || c.IDVWebhookSecret == "" {
			check("IDV_BASE_URL", errors.New("IDV_API_KEY and IDV_WEBHOOK_SECRET are required with it"))
		}
	}
	if c.IDVTTL < time.Minute || c.IDVTTL > 720*time.Hour {
		check("IDV_TTL", errors.New("must be between 1m and 720h"))
	}
	if c.ATSTimeout <= 0 {
		check("ATS_TIMEOUT", errors.New("must be positive"))
	}
	if c.AggregatorFullPass < time.Second || c.AggregatorFullPass > 168*time.Hour {
		check("AGGREGATOR_FULL_PASS_EVERY", errors.New("must be between 1s and 168h"))
	}
	if c.PartnerRateLimit <= 0 {
		check("PARTNER_RATE_LIMIT", errors.New("must be positive"))
	}
	check("PARTNER_RATE_BURST", inRange(int64(c.PartnerRateBurst), 1, 100000))
	if c.APIRateLimit < 0 {
		check("API_RATE_LIMIT", errors.New("must not be negative (0 turns the limit off)"))
	}
	check("API_RATE_BURST", inRange(int64(c.APIRateBurst), 1, 100000))
	if c.InterviewRateLimit < 0 {
		check("INTERVIEW_RATE_LIMIT", errors.New("must not be negative (0 turns the limit off)"))
	}
	check("INTERVIEW_RATE_BURST", inRange(int64(c.InterviewRateBurst), 1, 100000))
	if c.InterviewAddrLimit < 0 {
		check("INTERVIEW_ADDR_RATE_LIMIT", errors.New("must not be negative (0 turns the limit off)"))
	}
	check("INTERVIEW_ADDR_RATE_BURST", inRange(int64(c.InterviewAddrBurst), 1, 100000))
	if c.AuthFailureLimit < 0 {
		check("AUTH_FAILURE_LIMIT", errors.New("must not be negative (0 turns the limit off)"))
	}
	check("AUTH_FAILURE_BURST", inRange(int64(c.AuthFailureBurst), 1, 100000))
	if (c.MCPTLSCert == "") != (c.MCPTLSKey == "") {
		check("MCP_TLS_CERT", errors.New("MCP_TLS_CERT and MCP_TLS_KEY go together"))
	}
	if c.OIDCIssuer != "" {
		check("OIDC_ISSUER", urlWithScheme(c.OIDCIssuer, "http", "https"))
		if c.OIDCClientID == "" {
			check("OIDC_CLIENT_ID", errors.New("required with OIDC_ISSUER"))
		}
	}
	if c.OAuthRegistrationLimit < 0 {
		check("OAUTH_REGISTRATION_LIMIT", errors.New("must not be negative (0 turns the limit off)"))
	}
	check("OAUTH_REGISTRATION_BURST", inRange(int64(c.OAuthRegistrationBurst), 1, 100000))
	check("MCP_MAX_CONCURRENT_CALLS", inRange(int64(c.MCPMaxConcurrentCalls), 0, 10000))
	if c.MCPToolTimeout < time.Second || c.MCPToolTimeout > 110*time.Second {
		check("MCP_TOOL_TIMEOUT", errors.New("must be between 1s and 110s (the listener's 2-minute write timeout must cover the answer)"))
	}
	if c.DBRequestTimeout < 100*time.Millisecond || c.DBRequestTimeout > time.Minute {
		check("DB_REQUEST_TIMEOUT", errors.New("must be between 100ms and 60s"))
	}
	if _, err := clientip.ParseTrusted(c.MCPTrustedProxies); err != nil {
		check("MCP_TRUSTED_PROXIES", err)
	}
	check("MAX_BODY_BYTES", inRange(c.MaxBodyBytes, 1024, 64<<20))
	check("HRSUITE_MAX_BODY_BYTES", inRange(c.HRSuiteMaxBody, 1024, 256<<20))
	check("HRSUITE_STORAGE_QUOTA_BYTES", inRange(c.HRSuiteQuota, 64<<10, 1<<40))
	if c.ShutdownTimeout <= 0 {
		check("SHUTDOWN_TIMEOUT", errors.New("must be positive"))
	}
	if _, err := c.SlogLevel(); err != nil {
		check("LOG_LEVEL", err)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		check("LOG_FORMAT", fmt.Errorf("%q: want text or json", c.LogFormat))
	}
	for name, p := range map[string]int{"DEV_POSTGRES_PORT": c.DevPostgresPort, "DEV_TEMPORAL_PORT": c.DevTemporalPort, "DEV_TEMPORAL_UI_PORT": c.DevTemporalUIPort, "DEV_IDP_PORT": c.DevIDPPort} {
		check(name, inRange(int64(p), 1, 65535))
	}
	return errs
}

// EncryptionKeyBytes decodes RECRUITD_ENCRYPTION_KEY.
func (c *Config) EncryptionKeyBytes() ([]byte, error) {
	if c.EncryptionKey == "" {
		return nil, errors.New("RECRUITD_ENCRYPTION_KEY is not set (generate one with: openssl rand -base64 32)")
	}
	b, err := base64.StdEncoding.DecodeString(c.EncryptionKey)
	if err != nil || len(b) != 32 {
		return nil, errors.New("must be the base64 encoding of exactly 32 bytes (openssl rand -base64 32)")
	}
	return b, nil
}

// SlogLevel parses LOG_LEVEL.
func (c *Config) SlogLevel() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return 0, fmt.Errorf("%q: want debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}

// LogAttrs returns every setting as a log attribute, secrets masked: URLs keep all but their
// password, other set secrets show as "****".
func (c *Config) LogAttrs() []any {
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	attrs := make([]any, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		val := fmt.Sprint(v.Field(i).Interface())
		if f.Tag.Get("secret") == "true" {
			val = mask(val)
		}
		attrs = append(attrs, slog.String(f.Tag.Get("env"), val))
	}
	return attrs
}

// RequireMessagingMode reports a clear error when MESSAGING_MODE is unset: a process that sends
// messages must not fall back to printing them (recipients and interview links) by default.
func (c *Config) RequireMessagingMode() error {
	if c.MessagingMode == "" {
		return errors.New("MESSAGING_MODE is not set: set MESSAGING_MODE=live to send through SMTP and Twilio, or MESSAGING_MODE=outbox to print messages instead of sending them (development only)")
	}
	return nil
}

// RequireMCPHTTPS reports why the tool server must not start (recruitd mcp): it is HTTPS only
// (spec, Authentication / Tool server, rule 5), so an http:// MCP_BASE_URL is allowed only while
// MCP_ADDR listens on loopback alone, where only this host can reach it. recruitd dev, whose
// tool server is on loopback by default, does not call it.
func (c *Config) RequireMCPHTTPS() error {
	if u, err := url.Parse(c.MCPBaseURL); err == nil && u.Scheme == "https" || LoopbackOnly(c.MCPAddr) {
		return nil
	}
	return fmt.Errorf("MCP_BASE_URL is %s while MCP_ADDR %s is reachable from other hosts, and the tool server is HTTPS only: "+
		"set MCP_BASE_URL to its public https:// address, and either MCP_TLS_CERT and MCP_TLS_KEY (the tool server terminates TLS itself) "+
		"or MCP_TRUSTED_PROXIES to the address of the TLS front that forwards to it; "+
		"for local use only, listen on loopback instead (MCP_ADDR=127.0.0.1:8081)", c.MCPBaseURL, c.MCPAddr)
}

// LoopbackOnly reports whether a listen address (host:port) accepts connections from this host
// only: a loopback IP address or localhost. An empty or unspecified host listens everywhere.
func LoopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// secretParam matches query parameter names whose values are secrets.
var secretParam = regexp.MustCompile(`(?i)pass|secret|token|key|auth|cred|sig`)

// mask hides a secret for logs. A URL keeps its scheme, host, path and harmless parameters: the
// password of its user info and the values of parameters named like secrets are masked, and its
// fragment dropped. Anything else shows as "****".
func mask(val string) string {
	if val == "" {
		return ""
	}
	u, err := url.Parse(val)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "****"
	}
	u.Fragment, u.RawFragment = "", ""
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			u.RawQuery = "****"
		} else {
			for name := range q {
				if secretParam.MatchString(name) {
					q[name] = []string{"****"}
				}
			}
			u.RawQuery = q.Encode()
		}
	}
	return strings.ReplaceAll(u.Redacted(), "%2A%2A%2A%2A", "****")
}

// keyText reports whether s can be an API key (internal/apikey): at least 20 bytes, each printable
// ASCII other than a space.
func keyText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return len(s) >= 20
}

func hostPort(s string) error {
	if _, _, err := net.SplitHostPort(s); err != nil {
		return fmt.Errorf("%q is not host:port", s)
	}
	return nil
}

func urlWithScheme(s string, schemes ...string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", mask(s))
	}
	for _, sc := range schemes {
		if u.Scheme == sc {
			return nil
		}
	}
	return fmt.Errorf("scheme %q: want %s", u.Scheme, strings.Join(schemes, " or "))
}

func inRange(n, lo, hi int64) error {
	if n < lo || n > hi {
		return fmt.Errorf("%d is outside %d..%d", n, lo, hi)
	}
	return nil
}
