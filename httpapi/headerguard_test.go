package httpapi_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/httpapi"
	"github.com/recruitd/recruitd/internal/headerguard"
)

// TestControlCharacterInAPIKey: behind the api listener's guard (cmd/recruitd wraps it the same
// way), a control character in X-API-Key, which net/http refuses before any handler, is answered
// with the spec's 401 body; requests before it on the same connection are served as usual.
func TestControlCharacterInAPIKey(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewUnstartedServer(f.h)
	srv.Listener = headerguard.Wrap(srv.Listener)
	srv.Start()
	t.Cleanup(srv.Close)

	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(c)
	send := func(key string) *http.Response {
		t.Helper()
		io.WriteString(c, "GET /v1/api/company HTTP/1.1\r\nHost: api.test\r\nX-API-Key: "+key+"\r\n\r\n")
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodGet, srv.URL+"/v1/api/company", nil)
		f.api.Check(t, req, res)
		return res
	}

	if res := send(f.acmeKey); res.StatusCode != http.StatusOK || res.Close {
		t.Fatalf("with the key: %d (close %v), want 200 on a kept-alive connection", res.StatusCode, res.Close)
	}
	res := send(f.acmeKey[:8] + "\x01" + f.acmeKey[8:])
	body := decode[httpapi.ErrorBody](t, res)
	if res.StatusCode != http.StatusUnauthorized || body.Success || body.Code != "INVALID_API_KEY" ||
		body.Message != "invalid API key: the X-API-Key header holds characters an API key never has" ||
		!strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") || !res.Close ||
		res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("with a control character in the key: %d %+v %v", res.StatusCode, body, res.Header)
	}
}
