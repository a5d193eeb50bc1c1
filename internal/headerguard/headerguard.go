// Package headerguard answers the requests Go's HTTP/1 server refuses before any handler runs
// (a header value holding a control character, a malformed header line, a missing Host) with a
// JSON error body instead of net/http's plain text: the REST API's (Wrap) or the tool server's
// (WrapOAuth).
//
// net/http validates the request head in (*conn).readRequest and, when it fails, writes its answer
// straight onto the connection in (*conn).serve, one write of
//
//	"HTTP/1.1 400 Bad Request" [": " text] errorHeaders "400 Bad Request" [": " text]
//
// with errorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n",
// then closes the connection. No handler, middleware or server option sees that request. Wrap
// returns a listener whose connections watch the request head as the server reads it (a small
// state machine, no buffer) and replace exactly that write with a JSON answer. Wrap's are the
// REST API's error body:
//
//   - 401 INVALID_API_KEY when an X-API-Key header (any letter case) holds a control character
//     (a byte below 0x20 other than tab, or 0x7f): the spec's answer to an invalid key;
//   - 400 INVALID_HEADER when another header is malformed or holds such a character, or Go's
//     text names a header;
//   - 400 MALFORMED_REQUEST otherwise (a malformed request line, say).
//
// WrapOAuth's are the tool server's, RFC 6750's error body: 400 {"error":"invalid_request",
// "error_description":...} for all of them (a malformed Authorization header is a malformed
// request there, RFC 6750 3.1), with the same descriptions.
//
// Every other write passes through untouched. The replacement is made only when the connection
// has read bytes since its previous write, so a handler's response (whose first write follows the
// head the handler was given, and whose later writes follow no reads) is never taken for one,
// unless a handler flushes part of a response, then reads more of the request body, then writes
// exactly net/http's error bytes in one write.
//
// Limits: the guard sees the bytes on the wire, so it works for plain HTTP/1 listeners only.
// Behind TLS (tls.NewListener or ServeTLS over the wrapped listener) it sees ciphertext, never
// matches, and Go's plain 400 remains; HTTP/2 frames never match either. The head is taken to
// be what is read after a write, so two rare cases are classified from the wrong bytes: a
// pipelined request read together with the one before it (answered 400 MALFORMED_REQUEST, or
// Go's plain 400 when nothing more was read after that response), and a request following one
// whose handler read its body after starting to respond (the body is taken for a head). Either
// way the request was malformed and the answer is still one of the three.
package headerguard

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
)

// Wrap returns ln with connections that answer net/http's refusals of a malformed request head
// with the REST API's JSON error body (see the package documentation). Serve the result with an
// http.Server over plain TCP.
func Wrap(ln net.Listener) net.Listener { return listener{ln, &apiAnswers} }

// WrapOAuth is Wrap with the tool server's answers: 400 invalid_request in RFC 6750's error body.
func WrapOAuth(ln net.Listener) net.Listener { return listener{ln, &oauthAnswers} }

type listener struct {
	net.Listener
	a *answers
}

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, a: l.a}, nil
}

// conn records what it reads of the request head until the server writes. Reads (the server's
// own and its background read) and writes run in different goroutines, hence the mutex.
type conn struct {
	net.Conn
	a  *answers
	mu sync.Mutex
	s  scanner
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.s.feed(p[:n])
		c.mu.Unlock()
	}
	return n, err
}

func (c *conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	s := c.s
	c.s = scanner{}
	c.mu.Unlock()
	if r := s.reply(p, c.a); r != nil {
		if _, err := c.Conn.Write(r); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// ReadFrom keeps sendfile and splice for responses net/http copies from a file or socket.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	c.mu.Lock()
	c.s = scanner{}
	c.mu.Unlock()
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// CloseWrite lets net/http half-close the connection after a 431 or a request body it stopped
// reading, as it does on a bare TCP connection.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Reply returns what to send instead of written, a write by net/http's server on a connection
// that has read head since its previous write, or nil when written goes out as it is. The
// connections of Wrap do the same, reading head in whatever pieces it arrives.
func Reply(written, head []byte) []byte {
	var s scanner
	s.feed(head)
	return s.reply(written, &apiAnswers)
}

// answers are the responses that replace net/http's, one per kind of refusal.
type answers struct{ badAPIKey, badHeader, badHost, badRequest []byte }

const (
	descAPIKey  = "invalid API key: the X-API-Key header holds characters an API key never has"
	descHeader  = "malformed request header: a header line, name or value holds characters HTTP does not allow"
	descHost    = "the Host header is missing or malformed"
	descRequest = "malformed HTTP request"
)

// The answers are built once; a refused request costs no allocation.
var (
	apiAnswers = answers{
		badAPIKey:  answer(401, "Unauthorized", "INVALID_API_KEY", descAPIKey),
		badHeader:  answer(400, "Bad Request", "INVALID_HEADER", descHeader),
		badHost:    answer(400, "Bad Request", "INVALID_HEADER", descHost),
		badRequest: answer(400, "Bad Request", "MALFORMED_REQUEST", descRequest),
	}
	oauthAnswers = answers{
		badAPIKey:  oauthAnswer(descHeader), // X-API-Key is just another header there
		badHeader:  oauthAnswer(descHeader),
		badHost:    oauthAnswer(descHost),
		badRequest: oauthAnswer(descRequest),
	}
)

// answer is a whole response in the shape of every API error: the spec's body, the headers every
// API response carries, and Connection: close (net/http closes the connection after it).
func answer(status int, text, code, message string) []byte {
	return response(status, text, struct {
		Success bool   `json:"success"`
		Message string `json:"message"`
		Code    string `json:"code"`
	}{false, message, code})
}

// oauthAnswer is a 400 invalid_request in the tool server's (RFC 6750's) error body.
func oauthAnswer(desc string) []byte {
	return response(400, "Bad Request", struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}{"invalid_request", desc})
}

func response(status int, text string, v any) []byte {
	body, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return []byte("HTTP/1.1 " + strconv.Itoa(status) + " " + text + "\r\n" +
		"Content-Type: application/json; charset=utf-8\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n" +
		"Connection: close\r\n" +
		"X-Content-Type-Options: nosniff\r\n" +
		"Content-Security-Policy: default-src 'none'; frame-ancestors 'none'\r\n" +
		"\r\n" + string(body))
}

const (
	goStatus       = "HTTP/1.1 400 Bad Request"
	goErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
	goBody         = "400 Bad Request"
)

// goText reports whether p is exactly one of net/http's plain-text 400 answers, and its text
// (what follows "400 Bad Request: ", empty for the bare form).
func goText(p []byte) (text []byte, ok bool) {
	rest, ok := bytes.CutPrefix(p, []byte(goStatus))
	if !ok {
		return nil, false
	}
	i := bytes.IndexByte(rest, '\r')
	if i < 0 {
		return nil, false
	}
	suffix := rest[:i] // "" or ": " + text
	if len(suffix) > 0 {
		t, ok := bytes.CutPrefix(suffix, []byte(": "))
		if !ok || len(t) == 0 {
			return nil, false
		}
		for _, b := range t {
			if b < 0x20 || b > 0x7e {
				return nil, false
			}
		}
		text = t
	}
	rest, ok = bytes.CutPrefix(rest[i:], []byte(goErrorHeaders))
	if !ok {
		return nil, false
	}
	rest, ok = bytes.CutPrefix(rest, []byte(goBody))
	if !ok || !bytes.Equal(rest, suffix) {
		return nil, false
	}
	return text, true
}

// reply is Reply for a scanner that has read what the connection read since its last write,
// answering with a.
func (s *scanner) reply(written []byte, a *answers) []byte {
	if !s.seen || len(written) < len(goStatus) || written[9] != '4' {
		return nil
	}
	text, ok := goText(written)
	switch {
	case !ok:
		return nil
	case s.apiKeyBad:
		return a.badAPIKey
	case string(text) == "missing required Host header" || string(text) == "malformed Host header":
		return a.badHost
	case s.headerBad || string(text) == "invalid header name" || string(text) == "invalid header value":
		return a.badHeader
	}
	return a.badRequest
}

// scanner follows a request head as it is read, in pieces of any size, and remembers whether an
// X-API-Key value, or anything else in a header line, is what net/http refuses. It reads lines as
// net/textproto does: a line ends at LF, one CR before it belongs to the line end, empty lines
// before the request line are skipped, a line starting with a space or tab continues the previous
// header, and the head ends at the first empty line after the request line; what follows (a body)
// is not looked at.
type scanner struct {
	st        uint8
	cr        bool // the last byte was a CR: a line end if LF follows, else a bare CR
	seen      bool // bytes were read since the last write
	inHeaders bool // a header line was seen, so a continuation line has a header to continue
	apiKey    bool // the current header is X-API-Key
	named     bool // the current header name has a byte
	match     int8 // bytes of "x-api-key" the current name matches so far; -1: it does not
	apiKeyBad bool // an X-API-Key value holds a control character
	headerBad bool // another header line is malformed or holds a control character
}

const (
	stStart       = iota // before the request line
	stRequestLine        // in the request line
	stLineStart          // at the start of a header line (or of the empty line ending the head)
	stName               // in a header name
	stValue              // in a header value or a continuation line
	stDone               // past the head
)

const apiKeyName = "x-api-key"

func (s *scanner) feed(p []byte) {
	if len(p) > 0 {
		s.seen = true
	}
	for i := 0; i < len(p) && s.st != stDone; i++ {
		b := p[i]
		if s.cr {
			s.cr = false
			if b == '\n' {
				s.lineEnd()
				continue
			}
			s.byte('\r') // a bare CR
		}
		switch b {
		case '\r':
			s.cr = true
		case '\n':
			s.lineEnd()
		default:
			// Fast paths for the usual bytes; what they do not take is judged byte by byte.
			switch s.st {
			case stRequestLine, stValue: // up to the next CR, LF or (in a value) control character
				if j := i + plain(p[i:]); j > i {
					i = j - 1
					continue
				}
			case stLineStart: // a whole header name and its colon, in this piece
				j := i
				for j < len(p) && token[p[j]] {
					j++
				}
				if j > i && j < len(p) && p[j] == ':' {
					s.inHeaders, s.apiKey = true, j-i == len(apiKeyName) && bytes.EqualFold(p[i:j], []byte(apiKeyName))
					s.st = stValue
					i = j
					continue
				}
			}
			s.byte(b)
		}
	}
}

func (s *scanner) lineEnd() {
	switch s.st {
	case stRequestLine:
		s.st = stLineStart
	case stLineStart:
		s.st = stDone
	case stName: // a header line without a colon
		s.headerBad = true
		s.inHeaders, s.apiKey = true, false
		s.st = stLineStart
	case stValue:
		s.st = stLineStart
	}
}

// byte takes one byte that is not a line end.
func (s *scanner) byte(b byte) {
	switch s.st {
	case stStart:
		s.st = stRequestLine
	case stLineStart:
		if b == ' ' || b == '\t' {
			if !s.inHeaders { // net/textproto: "malformed MIME header initial line"
				s.headerBad = true
			}
			s.st = stValue
			return
		}
		s.st, s.named, s.match = stName, false, 0
		s.name(b)
	case stName:
		s.name(b)
	case stValue:
		if b < 0x20 && b != '\t' || b == 0x7f {
			if s.apiKey {
				s.apiKeyBad = true
			} else {
				s.headerBad = true
			}
		}
	}
}

func (s *scanner) name(b byte) {
	if b == ':' {
		if !s.named {
			s.headerBad = true
		}
		s.inHeaders, s.apiKey = true, s.match == int8(len(apiKeyName))
		s.st = stValue
		return
	}
	s.named = true
	if !token[b] {
		s.headerBad = true
	}
	if s.match >= 0 && int(s.match) < len(apiKeyName) && lower(b) == apiKeyName[s.match] {
		s.match++
	} else {
		s.match = -1
	}
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// plain returns how many bytes at the start of p are neither control characters nor DEL, eight
// at a time while it can (a word with a byte below 0x20, or 0x7f, is then read byte by byte).
func plain(p []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(p); i += 8 {
		x := binary.LittleEndian.Uint64(p[i:])
		del := x ^ 0x7f*ones
		if (x-0x20*ones)&^x&highs != 0 || (del-ones)&^del&highs != 0 {
			break
		}
	}
	for i < len(p) && p[i] >= 0x20 && p[i] != 0x7f {
		i++
	}
	return i
}

// token holds the bytes a header name may have (RFC 9110 tchar).
var token = func() (t [256]bool) {
	for b := range t {
		t[b] = 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
			b < 0x80 && strings.IndexByte("!#$%&'*+-.^_`|~", byte(b)) >= 0
	}
	return t
}()
