package oauth

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
)

// TestSweep: expired tokens, finished sign-ins, never-redeemed codes, expired pending
// authorisations and old unused clients go; live tokens, their sign-ins, fresh codes, pending
// authorisations and clients, and whatever expired within ExpiredRetention stay.
func TestSweep(t *testing.T) {
	ctx := t.Context()
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := st.SQL()
	now := time.Now()
	user, err := st.EnsureUser(ctx, "sweep@example.com", "Sweep", false)
	if err != nil {
		t.Fatal(err)
	}
	client := func(id string) {
		t.Helper()
		if err := st.CreateOAuthClient(ctx, &store.OAuthClient{ID: id, Kind: store.OAuthClientRegistered,
			RedirectURIs: []string{"http://127.0.0.1/cb"}, GrantTypes: []string{"authorization_code"}, AuthMethod: "none"}); err != nil {
			t.Fatal(err)
		}
	}
	client("signed-in")
	client("unused-old")
	client("unused-new")
	if _, err := db.ExecContext(ctx, `UPDATE oauth_clients SET created_at = now() - interval '25 hours' WHERE id IN ('unused-old', 'signed-in')`); err != nil {
		t.Fatal(err)
	}
	grant := func(code string, codeExpires time.Time) uuid.UUID {
		t.Helper()
		g := &store.OAuthGrant{ClientID: "signed-in", UserID: user.ID, Resource: "http://127.0.0.1/mcp", RedirectURI: "http://127.0.0.1/cb",
			CodeChallenge: "x", CodeExpiresAt: codeExpires}
		if err := st.CreateOAuthGrant(ctx, g, hash(code)); err != nil {
			t.Fatal(err)
		}
		return g.ID
	}
	pair := func(g uuid.UUID, access, refresh string, accessExpires, refreshExpires time.Time) {
		t.Helper()
		if err := st.IssueOAuthTokens(ctx, g, store.OAuthTokenPair{AccessHash: hash(access), RefreshHash: hash(refresh),
			AccessExpires: accessExpires, RefreshExpires: refreshExpires}); err != nil {
			t.Fatal(err)
		}
	}
	ago := func(d time.Duration) time.Time { return now.Add(-d) }

	// A live sign-in: its first pair long expired (the refresh token rotated), a pair expired a
	// moment ago (within the retention), and the current pair.
	live := grant("code-live", ago(3*time.Hour))
	liveAccess := newSecret(AccessTokenPrefix)
	pair(live, "old-access", "old-refresh", ago(2*time.Hour), ago(90*time.Minute))
	pair(live, "recent-access", "recent-refresh", ago(10*time.Minute), now.Add(RefreshTokenTTL))
	pair(live, liveAccess, "live-refresh", now.Add(AccessTokenTTL), now.Add(RefreshTokenTTL))
	// A finished sign-in: every token expired hours ago.
	finished := grant("code-finished", ago(10*time.Hour))
	pair(finished, "finished-access", "finished-refresh", ago(9*time.Hour), ago(2*time.Hour))
	// A code never redeemed, long expired; a fresh code not redeemed yet.
	unredeemed := grant("code-unredeemed", ago(2*time.Hour))
	fresh := grant("code-fresh", now.Add(CodeTTL))
	// Pending authorisations: expired long ago, a moment ago, and pending.
	authorization := func(expires time.Time) uuid.UUID {
		t.Helper()
		a := &store.OAuthAuthorization{ClientID: "signed-in", RedirectURI: "http://127.0.0.1/cb", CodeChallenge: "x",
			Resource: "http://127.0.0.1/mcp", BrowserHash: hash("browser"), ExpiresAt: expires}
		if err := st.CreateOAuthAuthorization(ctx, a); err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	oldAuthorization := authorization(ago(2 * time.Hour))
	recentAuthorization := authorization(ago(5 * time.Minute))
	pendingAuthorization := authorization(now.Add(AuthorizationTTL))

	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	n, err := SweepOnce(ctx, st, log, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := (store.OAuthSweep{Tokens: 4, Grants: 2, Authorizations: 1, Clients: 1}); n != want {
		t.Errorf("SweepOnce = %+v, want %+v", n, want)
	}
	if !strings.Contains(logs.String(), "msg=\"oauth sweep\" expired_tokens=4 finished_grants=2 expired_authorizations=1 unused_clients=1") {
		t.Errorf("log = %q, want the counts", logs.String())
	}

	exists := func(query string, arg any) bool {
		t.Helper()
		var ok bool
		if err := db.QueryRowContext(ctx, `SELECT EXISTS (`+query+`)`, arg).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	token := func(s string) bool { return exists(`SELECT 1 FROM oauth_tokens WHERE hash = $1`, hash(s)) }
	for s, want := range map[string]bool{"old-access": false, "old-refresh": false, "finished-access": false, "finished-refresh": false,
		"recent-access": true, "recent-refresh": true, liveAccess: true, "live-refresh": true} {
		if got := token(s); got != want {
			t.Errorf("token %.14s kept = %t, want %t", s, got, want)
		}
	}
	for id, want := range map[uuid.UUID]bool{live: true, finished: false, unredeemed: false, fresh: true} {
		if got := exists(`SELECT 1 FROM oauth_grants WHERE id = $1`, id); got != want {
			t.Errorf("grant %s kept = %t, want %t", id, got, want)
		}
	}
	for id, want := range map[uuid.UUID]bool{oldAuthorization: false, recentAuthorization: true, pendingAuthorization: true} {
		if got := exists(`SELECT 1 FROM oauth_authorizations WHERE id = $1`, id); got != want {
			t.Errorf("authorization %s kept = %t, want %t", id, got, want)
		}
	}
	for id, want := range map[string]bool{"signed-in": true, "unused-old": false, "unused-new": true} {
		if got := exists(`SELECT 1 FROM oauth_clients WHERE id = $1`, id); got != want {
			t.Errorf("client %s kept = %t, want %t", id, got, want)
		}
	}
	// The live access token still works.
	s := New(Options{Store: st, Log: log})
	if a, err := s.Verify(ctx, liveAccess, "http://127.0.0.1/mcp"); err != nil || a.UserID != user.ID {
		t.Errorf("Verify(live access token) after the sweep = %v, %v", a, err)
	}
	if n, err := SweepOnce(ctx, st, log, now); err != nil || n != (store.OAuthSweep{}) {
		t.Errorf("a second sweep = %+v, %v; want nothing left to delete", n, err)
	}

	// Sweep runs on its ticker until its context ends.
	later := grant("code-later", ago(3*time.Hour))
	pair(later, "later-access", "later-refresh", ago(2*time.Hour), now.Add(RefreshTokenTTL))
	var mu sync.Mutex
	var ticks bytes.Buffer
	tickLog := slog.New(slog.NewTextHandler(lockedWriter{&mu, &ticks}, nil))
	sweepCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { Sweep(sweepCtx, st, tickLog, 20*time.Millisecond); close(done) }()
	logged := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(ticks.String(), "expired_tokens=1")
	}
	for deadline := time.Now().Add(10 * time.Second); !logged() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Sweep did not return after its context ended")
	}
	if token("later-access") || !token("later-refresh") {
		t.Errorf("after Sweep: expired access token kept %t, live refresh token kept %t; want false, true", token("later-access"), token("later-refresh"))
	}
	if !logged() {
		mu.Lock()
		defer mu.Unlock()
		t.Errorf("Sweep logged %q, want a line with its count", ticks.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
