package oauth

import (
	"context"
	"log/slog"
	"time"

	"github.com/recruitd/recruitd/internal/store"
)

// SweepInterval is how often the tool server's process deletes what the authorisation server
// no longer needs (Sweep).
const SweepInterval = 10 * time.Minute

// ExpiredRetention is how long expired tokens, codes and pending authorisations are kept past
// their expiry: a client that presents an access token just after it expired is told so
// ("expired; refresh it"), not that the token is unknown.
const ExpiredRetention = time.Hour

// Sweep runs SweepOnce now and then every interval until ctx ends.
func Sweep(ctx context.Context, st *store.Store, log *slog.Logger, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		SweepOnce(ctx, st, log, time.Now())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// SweepOnce deletes, as of now, tokens expired more than ExpiredRetention ago, sign-ins left
// without tokens whose code expired as long ago, pending authorisations expired as long ago and
// registered clients that never signed in within UnusedClientTTL, and logs the counts. A failure
// is logged (the next sweep tries again).
func SweepOnce(ctx context.Context, st *store.Store, log *slog.Logger, now time.Time) (store.OAuthSweep, error) {
	began := time.Now()
	n, err := st.SweepOAuth(ctx, now.Add(-ExpiredRetention), now.Add(-UnusedClientTTL))
	if err != nil {
		if ctx.Err() == nil {
			log.WarnContext(ctx, "oauth sweep failed; retried at the next sweep", "err", err)
		}
		return n, err
	}
	level := slog.LevelDebug
	if n.Tokens+n.Grants+n.Authorizations+n.Clients > 0 {
		level = slog.LevelInfo
	}
	log.Log(ctx, level, "oauth sweep", "expired_tokens", n.Tokens, "finished_grants", n.Grants,
		"expired_authorizations", n.Authorizations, "unused_clients", n.Clients, "duration", time.Since(began).Round(time.Millisecond))
	return n, nil
}
