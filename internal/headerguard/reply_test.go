package headerguard

import (
	"bytes"
	"strings"
	"testing"
)

func TestReply(t *testing.T) {
	named := func(text string) string {
		return "HTTP/1.1 400 Bad Request: " + text + goErrorHeaders + "400 Bad Request: " + text
	}
	bare := goStatus + goErrorHeaders + goBody
	const (
		ok     = "GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: rk_1\r\n\r\n"
		badKey = "GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: rk\x011\r\n\r\n"
		badHdr = "GET / HTTP/1.1\r\nHost: x\r\nX-Other: a\x7fb\r\n\r\n"
	)
	tests := []struct {
		name, written, head string
		want                []byte
	}{
		{"bad key", bare, badKey, apiAnswers.badAPIKey},
		{"bad key, Go names the value", named("invalid header value"), badKey, apiAnswers.badAPIKey},
		{"bad other header", bare, badHdr, apiAnswers.badHeader},
		{"Go names a header name", named("invalid header name"), ok, apiAnswers.badHeader},
		{"Go names a header value", named("invalid header value"), ok, apiAnswers.badHeader},
		{"no Host", named("missing required Host header"), ok, apiAnswers.badHost},
		{"bad Host", named("malformed Host header"), ok, apiAnswers.badHost},
		{"anything else", bare, ok, apiAnswers.badRequest},
		{"a text Go may add", named("some new reason"), ok, apiAnswers.badRequest},
		{"nothing read since the last write", bare, "", nil},
		{"a handler's 400", "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n400 Bad Request", badKey, nil},
		{"a 200", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", badKey, nil},
		{"Go's 431", "HTTP/1.1 431 Request Header Fields Too Large" + goErrorHeaders + "431 Request Header Fields Too Large", badKey, nil},
		{"Go's 505", "HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version" + goErrorHeaders + "505 HTTP Version Not Supported: unsupported protocol version", badKey, nil},
		{"more after the body", bare + "x", badKey, nil},
		{"body cut short", bare[:len(bare)-1], badKey, nil},
		{"texts differ", "HTTP/1.1 400 Bad Request: a" + goErrorHeaders + "400 Bad Request: b", badKey, nil},
		{"empty text", "HTTP/1.1 400 Bad Request: " + goErrorHeaders + "400 Bad Request: ", badKey, nil},
		{"status line only", goStatus, badKey, nil},
		{"HTTP/1.0", "HTTP/1.0" + bare[len("HTTP/1.1"):], badKey, nil},
	}
	for _, tt := range tests {
		if got := Reply([]byte(tt.written), []byte(tt.head)); !bytes.Equal(got, tt.want) {
			t.Errorf("%s: Reply = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestPlain: the eight-at-a-time scan stops where the byte-by-byte one does, for every byte at
// every place of a word and its neighbours.
func TestPlain(t *testing.T) {
	for k := range 20 {
		for b := range 256 {
			p := []byte(strings.Repeat("a", 20))
			p[k] = byte(b)
			want := 0
			for want < len(p) && p[want] >= 0x20 && p[want] != 0x7f {
				want++
			}
			if got := plain(p); got != want {
				t.Fatalf("plain(%q) = %d, want %d", p, got, want)
			}
		}
	}
}
