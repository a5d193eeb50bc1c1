// Package openapitest checks handlers against the REST contract, api/openapi.yaml: every request a
// test sends through Checker.Do and every response it gets back must match the document.
package openapitest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"gopkg.in/yaml.v3"

	"github.com/recruitd/recruitd/api"
)

var (
	once      sync.Once
	shared    validator.Validator
	sharedErr error
)

func load() (validator.Validator, error) {
	once.Do(func() {
		doc, err := libopenapi.NewDocument(api.OpenAPI)
		if err != nil {
			sharedErr = fmt.Errorf("parse api/openapi.yaml: %w", err)
			return
		}
		v, errs := validator.NewValidator(doc)
		if len(errs) > 0 {
			sharedErr = fmt.Errorf("build validator: %v", errs)
			return
		}
		if ok, verrs := v.ValidateDocument(); !ok {
			sharedErr = fmt.Errorf("api/openapi.yaml is not a valid OpenAPI document:\n%s", describe(verrs))
			return
		}
		shared = v
	})
	return shared, sharedErr
}

// Checker validates traffic against the contract.
type Checker struct{ v validator.Validator }

// New returns a Checker; the test fails if the document itself is invalid.
func New(t testing.TB) *Checker {
	t.Helper()
	v, err := load()
	if err != nil {
		t.Fatal(err)
	}
	return &Checker{v: v}
}

// Do serves req with h and fails the test when the response does not match the contract. The
// returned response's body can be read normally.
func (c *Checker) Do(t testing.TB, h http.Handler, req *http.Request) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	resp := rec.Result()
	c.Check(t, req, resp)
	return resp
}

// Check fails the test when resp, the answer to req, does not match the contract. It leaves
// resp.Body readable.
func (c *Checker) Check(t testing.TB, req *http.Request, resp *http.Response) {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if ok, errs := c.v.ValidateHttpResponse(req, resp); !ok {
		t.Errorf("%s %s → %d does not match api/openapi.yaml:\n%s\nbody: %s", req.Method, req.URL.Path, resp.StatusCode, describe(errs), body)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
}

func describe[E interface{ Error() string }](errs []E) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "  - %s\n", e.Error())
	}
	return b.String()
}

// Operations lists every documented operation as "METHOD /path", sorted.
func Operations() ([]string, error) {
	var doc struct {
		Paths map[string]map[string]yaml.Node `yaml:"paths"`
	}
	if err := yaml.Unmarshal(api.OpenAPI, &doc); err != nil {
		return nil, fmt.Errorf("parse api/openapi.yaml: %w", err)
	}
	var ops []string
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options":
				ops = append(ops, strings.ToUpper(method)+" "+path)
			}
		}
	}
	sort.Strings(ops)
	return ops, nil
}
