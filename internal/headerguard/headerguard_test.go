package headerguard_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/headerguard"
)

// goError is what net/http's server writes when it refuses a request head.
const goError = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request"

// serve runs a real http.Server on a loopback listener, wrapped when guarded, and returns its
// address.
func serve(t *testing.T, guarded bool, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	served := ln
	if guarded {
		served = headerguard.Wrap(ln)
	}
	go srv.Serve(served)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func dial(t testing.TB, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

// send writes raw on c as it is and reads one response.
func send(t *testing.T, c net.Conn, r *bufio.Reader, raw string) (*http.Response, string) {
	t.Helper()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("response to %q: %v", raw, err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

var hello = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/plain")
	io.WriteString(w, "hello "+r.Header.Get("X-API-Key"))
})

type errorBody struct {
	Success *bool  `json:"success"`
	Message string `json:"message"`
	Code    string `json:"code"`
}

// TestRefusedHeads sends heads net/http refuses and expects the API's JSON errors, then the
// connection closed.
func TestRefusedHeads(t *testing.T) {
	addr := serve(t, true, hello)
	tests := []struct {
		name, raw string
		status    int
		code      string
	}{
		{"API key with SOH", "GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: abc\x01def\r\n\r\n", 401, "INVALID_API_KEY"},
		{"API key DEL alone", "GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: \x7f\r\n\r\n", 401, "INVALID_API_KEY"},
		{"lower-case name, NUL", "POST /v1/hrsuite HTTP/1.1\r\nHost: x\r\nx-api-key: k\x00\r\nContent-Length: 2\r\n\r\n[]", 401, "INVALID_API_KEY"},
		{"API key with bare CR", "GET / HTTP/1.1\r\nHost: x\r\nX-Api-Key: a\rb\r\n\r\n", 401, "INVALID_API_KEY"},
		{"API key continued on a line with ESC", "GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: a\r\n b\x1b\r\n\r\n", 401, "INVALID_API_KEY"},
		{"other header", "GET / HTTP/1.1\r\nHost: x\r\nX-Other: a\x01b\r\n\r\n", 400, "INVALID_HEADER"},
		{"good key, bad other header", "GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: good\r\nX-Other: a\x01b\r\n\r\n", 400, "INVALID_HEADER"},
		{"header name with a space", "GET / HTTP/1.1\r\nHost: x\r\nX Other: a\r\n\r\n", 400, "INVALID_HEADER"},
		{"header line without colon", "GET / HTTP/1.1\r\nHost: x\r\nX-Other\r\n\r\n", 400, "INVALID_HEADER"},
		{"no Host", "GET / HTTP/1.1\r\nX-API-Key: good\r\n\r\n", 400, "INVALID_HEADER"},
		{"malformed request line", "GET\r\nHost: x\r\n\r\n", 400, "MALFORMED_REQUEST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, r := dial(t, addr)
			res, body := send(t, c, r, tt.raw)
			var e errorBody
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Success == nil || *e.Success || e.Code != tt.code || e.Message == "" {
				t.Errorf("body %q (%v), want the spec's error body with code %s", body, err, tt.code)
			}
			if res.StatusCode != tt.status || res.Header.Get("Content-Type") != "application/json; charset=utf-8" ||
				!res.Close || res.Header.Get("X-Content-Type-Options") != "nosniff" ||
				res.Header.Get("Content-Length") != strconv.Itoa(len(body)) {
				t.Errorf("status %d, header %v; want %d, JSON, Connection: close, nosniff", res.StatusCode, res.Header, tt.status)
			}
			if strings.Contains(e.Message, "\x01") || strings.Contains(e.Message, "abc") || strings.Contains(e.Message, "good") {
				t.Errorf("message %q quotes the request", e.Message)
			}
			if n, err := r.Read(make([]byte, 1)); n != 0 || err != io.EOF {
				t.Errorf("after the answer: read %d, %v; want the connection closed", n, err)
			}
		})
	}
	t.Run("message", func(t *testing.T) {
		c, r := dial(t, addr)
		_, body := send(t, c, r, tests[0].raw)
		want := `{"success":false,"message":"invalid API key: the X-API-Key header holds characters an API key never has","code":"INVALID_API_KEY"}`
		if body != want {
			t.Errorf("body %s, want %s", body, want)
		}
	})
}

// TestUnguarded pins what the guard relies on: this Go version's server answers a control
// character in a header with exactly goError. If an upgrade changes that, this fails (and the
// guard passes Go's answer through unchanged).
func TestUnguarded(t *testing.T) {
	c, _ := dial(t, serve(t, false, hello))
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: abc\x01def\r\n\r\n")
	got, err := io.ReadAll(c)
	if err != nil || string(got) != goError {
		t.Fatalf("unguarded server wrote %q (%v), want %q", got, err, goError)
	}
	if headerguard.Reply(got, []byte("GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: abc\x01def\r\n\r\n")) == nil {
		t.Fatal("Reply does not take this answer for net/http's")
	}
}

// TestKeepAlive: requests on one connection are served as before, and a bad one after them is
// still recognised.
func TestKeepAlive(t *testing.T) {
	c, r := dial(t, serve(t, true, hello))
	for i, raw := range []string{
		"GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: k1\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nX-API-Key: k2\r\nContent-Length: 5\r\n\r\nhello",
		"GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: k3\r\n\r\n",
	} {
		res, body := send(t, c, r, raw)
		if want := "hello k" + strconv.Itoa(i+1); res.StatusCode != 200 || body != want || res.Close {
			t.Fatalf("request %d: %d %q close=%v, want 200 %q kept alive", i+1, res.StatusCode, body, res.Close, want)
		}
	}
	res, body := send(t, c, r, "GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: abc\x01def\r\n\r\n")
	if res.StatusCode != 401 || !strings.Contains(body, `"INVALID_API_KEY"`) {
		t.Fatalf("bad key after three requests: %d %s", res.StatusCode, body)
	}
}

// TestHandlerWritesUntouched: a response that holds net/http's error bytes, in its body or as a
// write of its own, goes out as the handler wrote it.
func TestHandlerWritesUntouched(t *testing.T) {
	addr := serve(t, true, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/body": // the error's bytes as the whole body, written with the head in one write
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, goError)
		case "/flushed": // the error's bytes as one write of their own on the connection
			w.Header().Set("Content-Length", strconv.Itoa(len(goError)))
			w.WriteHeader(http.StatusBadRequest)
			w.(http.Flusher).Flush()
			io.WriteString(w, goError)
			w.(http.Flusher).Flush()
		}
	}))
	c, r := dial(t, addr)
	for _, path := range []string{"/body", "/flushed", "/body"} {
		res, body := send(t, c, r, "GET "+path+" HTTP/1.1\r\nHost: x\r\nX-API-Key: k\r\n\r\n")
		if body != goError {
			t.Errorf("GET %s: %d %q, want the handler's body", path, res.StatusCode, body)
		}
	}
}

// TestLargeResponses: a file served through sendfile (ReadFrom) and a large request body pass
// through whole.
func TestLargeResponses(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	addr := serve(t, true, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			w.Write(b)
			return
		}
		http.ServeFile(w, r, filepath.Join(dir, "f"))
	}))
	c, r := dial(t, addr)
	if res, body := send(t, c, r, "GET /f HTTP/1.1\r\nHost: x\r\n\r\n"); res.StatusCode != 200 || body != string(data) {
		t.Fatalf("GET /f: %d, %d bytes, want the file's %d", res.StatusCode, len(body), len(data))
	}
	go func() {
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: "+strconv.Itoa(len(data))+"\r\n\r\n")
		c.Write(data)
	}()
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := io.ReadAll(res.Body); !bytes.Equal(body, data) {
		t.Fatalf("POST echoed %d bytes, want %d", len(body), len(data))
	}
}

// TestClient: Go's own client, keep-alive and all, sees no difference.
func TestClient(t *testing.T) {
	addr := serve(t, true, hello)
	for i := range 3 {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/", nil)
		req.Header.Set("X-API-Key", "k")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(body) != "hello k" {
			t.Fatalf("request %d: %d %q", i, res.StatusCode, body)
		}
	}
}

// fakeConn reads the same request for ever and discards writes.
type fakeConn struct {
	net.Conn
	req []byte
}

func (f *fakeConn) Read(p []byte) (int, error)  { return copy(p, f.req), nil }
func (f *fakeConn) Write(p []byte) (int, error) { return len(p), nil }

// TestNoAllocations: reading a head and writing a response allocate nothing.
func TestNoAllocations(t *testing.T) {
	c := guardedConn(t, []byte("GET /v1/api/jobs HTTP/1.1\r\nHost: api.example.com\r\nX-API-Key: rk_0123456789abcdef\r\nAccept: */*\r\n\r\n"))
	buf := make([]byte, 4096)
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
	if n := testing.AllocsPerRun(1000, func() {
		c.Read(buf)
		c.Write(resp)
	}); n != 0 {
		t.Errorf("%v allocations per request, want 0", n)
	}
}

// guardedConn is a connection of a wrapped listener over a fakeConn.
func guardedConn(t testing.TB, req []byte) net.Conn {
	ln := headerguard.Wrap(&oneConn{c: &fakeConn{req: req}})
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type oneConn struct {
	net.Listener
	c net.Conn
}

func (o *oneConn) Accept() (net.Conn, error) { return o.c, nil }

// BenchmarkConn is the guard's cost per request: reading a typical head and writing a response.
func BenchmarkConn(b *testing.B) {
	head := []byte("POST /v1/api/createJob HTTP/1.1\r\nHost: api.example.com\r\nUser-Agent: Go-http-client/1.1\r\n" +
		"Content-Length: 512\r\nContent-Type: application/json\r\nX-API-Key: rk_0123456789abcdef0123456789abcdef\r\n" +
		"X-Request-ID: 4f9c3b1e-8d2a-4c77-9e0f-1a2b3c4d5e6f\r\nAccept-Encoding: gzip\r\n\r\n")
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
	buf := make([]byte, 4096)
	for _, guarded := range []bool{false, true} {
		b.Run("guarded="+strconv.FormatBool(guarded), func(b *testing.B) {
			var c net.Conn = &fakeConn{req: head}
			if guarded {
				c = guardedConn(b, head)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(head)))
			for b.Loop() {
				c.Read(buf)
				c.Write(resp)
			}
		})
	}
}

// BenchmarkServer is a keep-alive request through a real server, without and with the guard.
func BenchmarkServer(b *testing.B) {
	for _, guarded := range []bool{false, true} {
		b.Run("guarded="+strconv.FormatBool(guarded), func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			srv := &http.Server{Handler: hello}
			served := ln
			if guarded {
				served = headerguard.Wrap(ln)
			}
			go srv.Serve(served)
			defer srv.Close()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			r := bufio.NewReader(c)
			req := []byte("GET / HTTP/1.1\r\nHost: x\r\nX-API-Key: rk_0123456789abcdef\r\nUser-Agent: bench\r\n\r\n")
			b.ReportAllocs()
			for b.Loop() {
				c.Write(req)
				res, err := http.ReadResponse(r, nil)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		})
	}
}

// TestRefusedHeadsOAuth: WrapOAuth answers the same refusals with the tool server's error body,
// 400 invalid_request, then closes the connection.
func TestRefusedHeadsOAuth(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: hello, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(headerguard.WrapOAuth(ln))
	t.Cleanup(func() { srv.Close() })
	for name, raw := range map[string]string{
		"bearer token with SOH": "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer abc\x01def\r\n\r\n",
		"API key with NUL":      "POST /mcp HTTP/1.1\r\nHost: x\r\nX-API-Key: k\x00\r\n\r\n",
		"no Host":               "POST /mcp HTTP/1.1\r\nAuthorization: Bearer good\r\n\r\n",
		"malformed line":        "POST\r\nHost: x\r\n\r\n",
	} {
		c, r := dial(t, ln.Addr().String())
		res, body := send(t, c, r, raw)
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error != "invalid_request" || e.Description == "" ||
			strings.Contains(body, "success") || strings.Contains(body, "abc") {
			t.Errorf("%s: body %q (%v), want invalid_request in RFC 6750's shape", name, body, err)
		}
		if res.StatusCode != 400 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") || !res.Close ||
			res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: status %d, header %v; want 400, JSON, Connection: close, nosniff", name, res.StatusCode, res.Header)
		}
	}
}
