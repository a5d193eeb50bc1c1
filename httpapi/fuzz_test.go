package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/recruitd/recruitd/internal/pgtest"
)

// FuzzDecodeJSON: no body makes the decoder panic or answer anything but success, 400, 413 or 415
// in the spec's error shape.
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{`{}`, `{"name":"a","count":1,"tags":["x"]}`, `{"count":"1"}`, `[`, `{"a":1} x`, `null`, "\xff\xfe", `{"tags":[1,2]}`} {
		f.Add(seed, "application/json")
	}
	f.Add(`{}`, "text/plain")
	f.Add(`{"name":"a\u0000b"}`, "application/json")
	f.Add(`{"name":"C:\\u0000"}`, "application/json")
	f.Add("{\"tags\":[\"ok\",\"\xc3\x28\"]}", "application/json")
	db := pgtest.New(f).SQL
	if _, err := db.Exec("CREATE TABLE fuzz_text (v text NOT NULL)"); err != nil {
		f.Fatal(err)
	}
	var logs strings.Builder
	r := testEngine(f, &logs, func(r *gin.Engine, s *server) {
		r.POST("/echo", func(c *gin.Context) {
			var p struct {
				Name  string   `json:"name"`
				Count int      `json:"count"`
				Tags  []string `json:"tags"`
			}
			if err := decodeJSON(c, &p); err != nil {
				s.fail(c, err)
				return
			}
			// What the decoder accepts, Postgres stores: text never reaches it as an error.
			if db != nil {
				for _, v := range append([]string{p.Name}, p.Tags...) {
					if _, err := db.ExecContext(c.Request.Context(), "INSERT INTO fuzz_text (v) VALUES ($1)", v); err != nil {
						s.fail(c, err)
						return
					}
				}
			}
			c.Status(http.StatusNoContent)
		})
	})
	f.Fuzz(func(t *testing.T, body, ctype string) {
		req := httptest.NewRequest(http.MethodPost, "/echo", strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusNoContent:
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
			if !strings.Contains(rec.Body.String(), `"success":false`) || !strings.Contains(rec.Body.String(), `"code":`) {
				t.Fatalf("error body %s lacks the spec shape", rec.Body)
			}
		default:
			t.Fatalf("decodeJSON(%q, %q) answered %d %s", body, ctype, rec.Code, rec.Body)
		}
	})
}
