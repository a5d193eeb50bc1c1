package oauth

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"code.dny.dev/ssrf"

	"github.com/recruitd/recruitd/internal/store"
)

// metadataTTL is how long a fetched Client ID Metadata Document is used before it is fetched
// again.
const metadataTTL = time.Hour

// IsMetadataDocumentID reports whether a client_id names a Client ID Metadata Document: an https
// URL with a path.
func IsMetadataDocumentID(clientID string) bool {
	u, err := url.Parse(clientID)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Path != "" && u.Path != "/"
}

// guardedClient fetches metadata documents: https only, public addresses only (checked at
// connect time, after DNS), ports 80 and 443, no proxy, no redirects, 5 s.
func guardedClient() *http.Client {
	guard := ssrf.New()
	dialer := &net.Dialer{Timeout: 5 * time.Second, Control: guard.Safe}
	return &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			Proxy: nil, DialContext: dialer.DialContext, ForceAttemptHTTP2: true,
			TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12}, TLSHandshakeTimeout: 5 * time.Second,
			MaxResponseHeaderBytes: 16 << 10,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ParseMetadataDocument validates a Client ID Metadata Document fetched from clientID: its
// client_id must equal the URL it came from, it describes a public client, and its redirect URIs
// pass the same rules as a registration's.
func ParseMetadataDocument(clientID string, body []byte) (*Registration, error) {
	m, err := decodeMetadata(body)
	if err != nil {
		return nil, err
	}
	if m.ClientID != clientID {
		return nil, badMetadata("the document's client_id %q is not the URL it was fetched from", m.ClientID)
	}
	return m.validate(true)
}

// metadataClient returns the client a metadata-document client_id names: the cached one while
// fresh, otherwise fetched (through the SSRF guard) and stored.
func (s *Server) metadataClient(ctx context.Context, r *http.Request, clientID string) (*store.OAuthClient, error) {
	c, err := s.o.Store.OAuthClient(ctx, clientID)
	if err == nil && c.FetchedAt != nil && s.o.Now().Sub(*c.FetchedAt) < metadataTTL {
		return c, nil
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if ok, _ := s.o.Registrations.Allow(ctx, clientIP(r, s.o.TrustedProxies)); !ok {
		return nil, errors.New("too many client metadata fetches from this address; retry later")
	}
	reg, err := s.fetchMetadata(ctx, clientID)
	if err != nil {
		return nil, err
	}
	now := s.o.Now().UTC()
	c = &store.OAuthClient{ID: clientID, Kind: store.OAuthClientMetadataDocument, Name: reg.Name, ClientURI: reg.ClientURI,
		RedirectURIs: reg.RedirectURIs, GrantTypes: reg.GrantTypes, AuthMethod: "none", FetchedAt: &now}
	if err := s.o.Store.SaveOAuthMetadataClient(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

func (s *Server) fetchMetadata(ctx context.Context, clientID string) (*Registration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, clientID, nil)
	if err != nil {
		return nil, fmt.Errorf("client metadata document %s: %w", clientID, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.meta.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch client metadata document %s: %w", clientID, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch client metadata document %s: status %d", clientID, resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" && !strings.Contains(ct, "json") {
		return nil, fmt.Errorf("client metadata document %s: content type %q, want JSON", clientID, ct)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRegistrationBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read client metadata document %s: %w", clientID, err)
	}
	return ParseMetadataDocument(clientID, body)
}
