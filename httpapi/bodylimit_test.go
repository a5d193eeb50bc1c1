package httpapi_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/httpapi"
)

// TestDeclaredBodyOverLimit: a request whose Content-Length declares a body over the limit gets
// 413 BODY_TOO_LARGE at once, before any of the body is sent, also with a valid key: on a JSON
// route (MAX_BODY_BYTES) and on the HR-suite webhook (HRSUITE_MAX_BODY_BYTES).
func TestDeclaredBodyOverLimit(t *testing.T) {
	f := newFixture(t, withEnv("MAX_BODY_BYTES=65536", "HRSUITE_MAX_BODY_BYTES=1048576"))
	for path, length := range map[string]int{"/v1/api/createJob": 65537, "/webhook/hrsuite": 1048577} {
		c, err := net.Dial("tcp", f.srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		// The head only: a server that waits for the body never answers.
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: api.test\r\nX-API-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, f.acmeKey, length)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Errorf("POST %s declaring %d bytes: no answer before the body (%v)", path, length, err)
			continue
		}
		f.api.Check(t, httptest.NewRequest(http.MethodPost, f.srv.URL+path, nil), res)
		body := decode[httpapi.ErrorBody](t, res)
		if res.StatusCode != http.StatusRequestEntityTooLarge || body.Code != "BODY_TOO_LARGE" {
			t.Errorf("POST %s declaring %d bytes = %d %+v, want 413 BODY_TOO_LARGE", path, length, res.StatusCode, body)
		}
		if path == "/webhook/hrsuite" && !strings.Contains(body.Message, "1048576 bytes; split the report") {
			t.Errorf("HR-suite delivery's 413 says %q, want the limit and a split", body.Message)
		}
		io.Copy(io.Discard, res.Body)
	}
}
