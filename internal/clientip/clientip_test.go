package clientip

import (
	"net/http"
	"testing"
)

func TestOf(t *testing.T) {
	trusted, err := ParseTrusted("10.0.0.0/8, 192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, peer string
		xff        []string
		trusted    bool
		want       string
	}{
		{"no proxy trusted: the peer", "203.0.113.5:4000", []string{"198.51.100.1"}, false, "203.0.113.5"},
		{"untrusted peer forges the header", "203.0.113.5:4000", []string{"198.51.100.1"}, true, "203.0.113.5"},
		{"trusted proxy", "10.1.2.3:4000", []string{"198.51.100.1"}, true, "198.51.100.1"},
		{"client's own forged entry left of the proxy's", "10.1.2.3:4000", []string{"1.2.3.4, 198.51.100.1"}, true, "198.51.100.1"},
		{"two trusted hops", "10.1.2.3:4000", []string{"198.51.100.1", "192.0.2.7"}, true, "198.51.100.1"},
		{"garbage ends at the last trusted hop", "10.1.2.3:4000", []string{"<script>, 192.0.2.7"}, true, "192.0.2.7"},
		{"no header", "10.1.2.3:4000", nil, true, "10.1.2.3"},
		{"IPv6 peer", "[2001:db8::1]:4000", nil, true, "2001:db8::1"},
	} {
		r := &http.Request{RemoteAddr: tc.peer, Header: http.Header{}}
		for _, v := range tc.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		ps := trusted
		if !tc.trusted {
			ps = nil
		}
		if got := Of(r, ps); got != tc.want {
			t.Errorf("%s: Of = %q, want %q", tc.name, got, tc.want)
		}
	}
	if _, err := ParseTrusted("10.0.0.0/33"); err == nil {
		t.Error("ParseTrusted(10.0.0.0/33) accepted")
	}
}
