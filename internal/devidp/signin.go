package devidp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"time"
)

var formID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// SignIn is the browser of a user of this provider, headless: it opens authURL (the tool
// server's /oauth/authorize), allows on the consent page, submits this provider's login form as
// email with password and stops at redirectURI, whose query (code, state and iss, or error) it
// returns. MCP clients' OAuth fetchers use it in tests and benchmarks, where nobody clicks.
func SignIn(ctx context.Context, authURL, redirectURI, email, password string) (url.Values, error) {
	jar, _ := cookiejar.New(nil)
	var landed *url.URL
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirectURI) {
			landed = req.URL
			return http.ErrUseLastResponse
		}
		return nil
	}}
	page := func(method, target string, form url.Values) (*http.Response, string, error) {
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, err := http.NewRequestWithContext(ctx, method, target, body)
		if err != nil {
			return nil, "", err
		}
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := browser.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, string(b), err
	}

	redirect, err := url.Parse(redirectURI)
	if err != nil {
		return nil, fmt.Errorf("redirect URI: %w", err)
	}
	resp, body, err := page(http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	if landed != nil { // refused before consent (an error for the client's redirect)
		return landed.Query(), nil
	}
	m := formID.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil || !strings.Contains(body, redirect.Host) {
		return nil, fmt.Errorf("the authorization URL gave %d, want the consent page naming %s: %.300s", resp.StatusCode, redirect.Host, body)
	}
	consent := *resp.Request.URL
	consent.RawQuery = ""
	resp, body, err = page(http.MethodPost, consent.String(), url.Values{"id": {m[1]}, "decision": {"allow"}})
	if err != nil {
		return nil, err
	}
	if landed != nil {
		return landed.Query(), nil
	}
	if m = formID.FindStringSubmatch(body); resp.StatusCode != http.StatusOK || m == nil {
		return nil, fmt.Errorf("consent gave %d, want the identity provider's login form: %.300s", resp.StatusCode, body)
	}
	login := *resp.Request.URL // the provider's login page; its form posts to /login/username
	login.Path, login.RawQuery = "/login/username", ""
	if _, body, err = page(http.MethodPost, login.String(), url.Values{"id": {m[1]}, "username": {email}, "password": {password}}); err != nil {
		return nil, err
	}
	if landed == nil {
		return nil, fmt.Errorf("the login did not reach the client's redirect URI: %.300s", body)
	}
	return landed.Query(), nil
}
