// Package clientip names the client address of an HTTP request, the one every per-address
// limit counts: the peer's own address, or, when the peer is a trusted proxy
// (MCP_TRUSTED_PROXIES), the address its X-Forwarded-For gives. One rule for every listener.
package clientip

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ParseTrusted parses a trusted-proxies setting: comma-separated IP addresses or CIDR prefixes
// (empty: none).
func ParseTrusted(raw string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(raw, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, fmt.Errorf("%q is not an IP address or CIDR prefix", s)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or CIDR prefix", s)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Peer is the address of the connection's other end (the invalid Addr when RemoteAddr is not
// an address, as in some tests).
func Peer(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, _ := netip.ParseAddr(host)
	return a.Unmap()
}

// Trusted reports whether a is in one of ps.
func Trusted(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Of is r's client address as text. A peer that is not trusted is the client, whatever its
// X-Forwarded-For says (anyone can send one). A trusted peer's X-Forwarded-For is read from the
// right, past the trusted proxies that appended to it, to the first address none of them is:
// the one the outermost trusted proxy saw. A malformed entry there ends the walk at the last
// trusted address, so garbage never becomes a limit's key.
func Of(r *http.Request, trusted []netip.Prefix) string {
	peer := Peer(r)
	if !peer.IsValid() {
		return r.RemoteAddr
	}
	if len(trusted) == 0 || !Trusted(peer, trusted) {
		return peer.String()
	}
	client := peer
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		parts := strings.Split(hops[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.TrimSpace(parts[j]))
			if err != nil {
				return client.String()
			}
			client = a.Unmap()
			if !Trusted(client, trusted) {
				return client.String()
			}
		}
	}
	return client.String()
}
