package headerguard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// FuzzReply checks Reply against a second, line-by-line reading of the head: a reply is made
// exactly for net/http's plain 400 after bytes were read, it is 401 exactly when an X-API-Key
// value holds a control character, it is a well-formed response with the spec's body, and the
// head read in two pieces (as a connection may read it) gives the same answer.
func FuzzReply(f *testing.F) {
	bad := []byte(goStatus + goErrorHeaders + goBody)
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: abc\x01def\r\n\r\n"), uint(20), bad)
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\nX-Other: a\x01b\r\n\r\n"), uint(3), bad)
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), uint(0), []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	f.Fuzz(func(t *testing.T, head []byte, cut uint, written []byte) {
		got := Reply(written, head)

		var s scanner
		c := int(cut % uint(len(head)+1))
		s.feed(head[:c])
		s.feed(head[c:])
		if again := s.reply(written, &apiAnswers); !bytes.Equal(again, got) {
			t.Fatalf("head read in two pieces at %d answers %q, in one %q", c, again, got)
		}

		apiKeyBad, headerBad := refScan(head)
		if s.apiKeyBad != apiKeyBad || s.headerBad != headerBad {
			t.Fatalf("head %q: scanner says X-API-Key bad %v, other header bad %v; line by line: %v, %v",
				head, s.apiKeyBad, s.headerBad, apiKeyBad, headerBad)
		}
		isGo := refIsGo400(written)
		if (got != nil) != (isGo && len(head) > 0) {
			t.Fatalf("Reply(%q, %q) = %q; want a reply: %v", written, head, got, isGo && len(head) > 0)
		}
		if got == nil {
			return
		}
		res, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(got)), nil)
		if err != nil {
			t.Fatalf("reply %q: %v", got, err)
		}
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		want := http.StatusBadRequest
		if apiKeyBad {
			want = http.StatusUnauthorized
		}
		if res.StatusCode != want || res.Header.Get("Content-Type") != "application/json; charset=utf-8" || !res.Close ||
			res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("reply %q, want status %d, JSON, Connection: close, nosniff", got, want)
		}
		var e struct {
			Success *bool  `json:"success"`
			Message string `json:"message"`
			Code    string `json:"code"`
		}
		if err := json.Unmarshal(body, &e); err != nil || e.Success == nil || *e.Success || e.Message == "" || e.Code == "" {
			t.Fatalf("reply body %q is not the spec's error body (%v)", body, err)
		}
		if (e.Code == "INVALID_API_KEY") != apiKeyBad {
			t.Fatalf("reply code %s for head %q", e.Code, head)
		}
	})
}

// refIsGo400 is the shape net/http's server writes, read another way: a status line, Go's two
// error headers, and a body repeating the status line's reason.
func refIsGo400(p []byte) bool {
	line, rest, ok := strings.Cut(string(p), "\r\n")
	if !ok {
		return false
	}
	reason, ok := strings.CutPrefix(line, "HTTP/1.1 ")
	if !ok || (reason != "400 Bad Request" && !strings.HasPrefix(reason, "400 Bad Request: ")) ||
		reason == "400 Bad Request: " {
		return false
	}
	for _, r := range []byte(reason) {
		if r < 0x20 || r > 0x7e {
			return false
		}
	}
	return rest == "Content-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"+reason
}

// refScan reads head line by line (the scanner reads it byte by byte): whether an X-API-Key value
// holds a control character, and whether another header line is malformed or holds one. The last
// line may be cut short: a CR that ends it is not judged (an LF may follow) and a missing colon
// is not either.
func refScan(head []byte) (apiKeyBad, headerBad bool) {
	lines := bytes.Split(head, []byte("\n"))
	i := 0
	for i < len(lines) && len(bytes.TrimSuffix(lines[i], []byte("\r"))) == 0 {
		i++ // empty lines before the request line
	}
	i++ // the request line
	seenHeader, prevAPIKey := false, false
	for ; i < len(lines); i++ {
		complete := i < len(lines)-1
		line := bytes.TrimSuffix(lines[i], []byte("\r"))
		if len(line) == 0 {
			break // the end of the head
		}
		var value []byte
		if line[0] == ' ' || line[0] == '\t' {
			if !seenHeader {
				headerBad = true
			}
			value = line
		} else {
			name, v, found := bytes.Cut(line, []byte(":"))
			if (!found && complete) || (found && len(name) == 0) {
				headerBad = true
			}
			for _, b := range name {
				if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(b)) &&
					!('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9') {
					headerBad = true
				}
			}
			seenHeader = seenHeader || found || complete
			prevAPIKey = found && strings.EqualFold(string(name), "X-API-Key")
			value = v
		}
		for _, b := range value {
			if b < 0x20 && b != '\t' || b == 0x7f {
				if prevAPIKey {
					apiKeyBad = true
				} else {
					headerBad = true
				}
			}
		}
	}
	return apiKeyBad, headerBad
}
