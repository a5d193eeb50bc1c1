package scenarios

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/recruitd/recruitd/internal/bench"
	"github.com/recruitd/recruitd/internal/devidp"
	"github.com/recruitd/recruitd/internal/oauth"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// The OAuth run of the mcp scenario: the same tool call on the same company with an API key and
// with an OAuth access token, interleaved, so that the difference of their latencies is what
// validating each bearer costs (a key: prefix lookup and hash compare; an OAuth token: hash
// lookup joined to its grant, user and current memberships).

// mcpOAuthTarget is the target for the p95 difference, OAuth minus API key.
const mcpOAuthTarget = 2 * time.Millisecond

// mcpOAuthCalls is the number of measured calls per credential (and of validations alone).
const mcpOAuthCalls = 1000

// benchIdentity signs in for the OAuth run. It is a member of the bench company only, so its
// calls without companyId resolve to the same company as the API key's.
var benchIdentity = devidp.Identity{Email: "bench@demo.example.com", Name: "Bench User", Verified: true, Note: "bench mcp OAuth run"}

const (
	benchOIDCClient = "recruitd-bench"
	benchOIDCSecret = "bench-secret-bench-secret"
)

// startBenchIdP serves the local identity provider (the one recruitd dev runs) for the tool server
// at base, with benchIdentity a member of company, and returns its issuer.
func startBenchIdP(ctx context.Context, st *store.Store, company uuid.UUID, base string) (string, func(), error) {
	u, err := st.EnsureUser(ctx, benchIdentity.Email, benchIdentity.Name, false)
	if err != nil {
		return "", nil, err
	}
	if err := st.EnsureMembership(ctx, company, u.ID, models.MembershipRoleRecruiter); err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	issuer := "http://" + ln.Addr().String()
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: devidp.New(issuer,
		devidp.Client{ID: benchOIDCClient, Secret: benchOIDCSecret, RedirectURIs: []string{base + "/oauth/callback"}},
		[]devidp.Identity{benchIdentity})}
	go srv.Serve(ln)
	return issuer, func() { srv.Close() }, nil
}

// mcpOAuth signs in with the go-sdk client (auth.AuthorizationCodeHandler: discovery, dynamic
// registration, PKCE, consent and the provider's login form followed headlessly), then times
// getCompanyFeatures through the Streamable HTTP transport with the API key session keyCS and
// with the OAuth session, and the two validations alone in process.
func mcpOAuth(ctx context.Context, out io.Writer, log *slog.Logger, st *store.Store, base string, keyCS *mcp.ClientSession, key string) error {
	const redirect = "http://127.0.0.1:43119/callback" // nothing listens: the headless browser stops there
	began := time.Now()
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "recruitd bench (go-sdk)", RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			q, err := devidp.SignIn(ctx, args.URL, redirect, benchIdentity.Email, devidp.Password)
			if err != nil {
				return nil, err
			}
			if q.Get("error") != "" {
				return nil, fmt.Errorf("sign-in refused: %s: %s", q.Get("error"), q.Get("error_description"))
			}
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
	})
	if err != nil {
		return err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "recruitd-bench-oauth", Version: "1"}, nil)
	oauthCS, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", OAuthHandler: handler, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return fmt.Errorf("OAuth sign-in with the go-sdk client: %w", err)
	}
	defer oauthCS.Close()
	ts, err := handler.TokenSource(ctx)
	if err != nil || ts == nil {
		return fmt.Errorf("no token after sign-in: %v", err)
	}
	tok, err := ts.Token()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nOAuth vs API key: signed in as %s with the go-sdk client (registration, consent, login, code exchange) in %s\n",
		benchIdentity.Email, ms(time.Since(began)))

	// Same tool, same data: both callers resolve to the bench company, and answer alike.
	call := toolCall{args: map[string]any{}}
	const tool = "getCompanyFeatures"
	var first [2]any
	for i, cs := range []*mcp.ClientSession{keyCS, oauthCS} {
		res, err := callTool(ctx, cs, tool, call)
		if err != nil {
			return err
		}
		first[i] = res.StructuredContent
	}
	if !reflect.DeepEqual(first[0], first[1]) {
		return fmt.Errorf("%s answers the API key and the OAuth token differently: %v vs %v", tool, first[0], first[1])
	}
	for range 50 { // warm-up
		for _, cs := range []*mcp.ClientSession{keyCS, oauthCS} {
			if _, err := callTool(ctx, cs, tool, call); err != nil {
				return err
			}
		}
	}
	keyCalls, oauthCalls, err := interleaved(mcpOAuthCalls,
		func() error { _, err := callTool(ctx, keyCS, tool, call); return err },
		func() error { _, err := callTool(ctx, oauthCS, tool, call); return err })
	if err != nil {
		return err
	}

	// The validations alone, as the transport runs them per request.
	as := oauth.New(oauth.Options{Store: st, Log: log, Base: func(*http.Request) string { return base }})
	resource := base + "/mcp"
	keyAuth, oauthAuth, err := interleaved(mcpOAuthCalls,
		func() error { _, _, err := st.Authenticate(ctx, key); return err },
		func() error { _, err := as.Verify(ctx, tok.AccessToken, resource); return err })
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "%-50s %6s %9s %9s %9s\n", "", "calls", "p50", "p95", "max")
	row := func(name string, l bench.Latencies) {
		fmt.Fprintf(out, "%-50s %6d %9s %9s %9s\n", name, len(l), ms(l.Percentile(50)), ms(l.Percentile(95)), ms(l.Percentile(100)))
	}
	diff := func(name string, a, b bench.Latencies, target time.Duration) time.Duration {
		d95 := b.Percentile(95) - a.Percentile(95)
		line := fmt.Sprintf("%-50s %6s %9s %9s", name, "", signedMS(b.Percentile(50)-a.Percentile(50)), signedMS(d95))
		if target > 0 {
			line += fmt.Sprintf(" %9s  p95 difference target < %s: %s", "", ms(target), verdict(d95 < target))
		}
		fmt.Fprintln(out, line)
		return d95
	}
	row(tool+", API key", keyCalls)
	row(tool+", OAuth access token", oauthCalls)
	diff("difference (OAuth - API key)", keyCalls, oauthCalls, mcpOAuthTarget)
	row("bearer validation alone, API key (Authenticate)", keyAuth)
	row("bearer validation alone, OAuth token (Verify)", oauthAuth)
	diff("difference (OAuth - API key)", keyAuth, oauthAuth, 0)
	return nil
}

// interleaved runs a and b n times each, alternating which goes first, and times every run.
func interleaved(n int, a, b func() error) (bench.Latencies, bench.Latencies, error) {
	la, lb := make(bench.Latencies, 0, n), make(bench.Latencies, 0, n)
	timed := func(f func() error, into *bench.Latencies) error {
		begin := time.Now()
		if err := f(); err != nil {
			return err
		}
		*into = append(*into, time.Since(begin))
		return nil
	}
	for i := range n {
		first, second := a, b
		firstInto, secondInto := &la, &lb
		if i%2 == 1 {
			first, second, firstInto, secondInto = b, a, &lb, &la
		}
		if err := timed(first, firstInto); err != nil {
			return nil, nil, err
		}
		if err := timed(second, secondInto); err != nil {
			return nil, nil, err
		}
	}
	return la, lb, nil
}

func signedMS(d time.Duration) string { return fmt.Sprintf("%+.2fms", float64(d.Microseconds())/1000) }
