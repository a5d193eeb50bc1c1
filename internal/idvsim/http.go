package idvsim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recruitd/recruitd/internal/simhttp"
)

// Reasons are the failure reasons the hosted page offers, besides "Other".
var Reasons = []string{
	"Document expired",
	"Document unreadable or blurry",
	"Selfie does not match the document photo",
	"Document type not accepted",
	"Document appears to be altered",
}

// maxReasonLen bounds an "Other" reason typed on the page, in characters.
const maxReasonLen = 200

// Handler serves the API (Stripe Identity's /v1/identity/verification_sessions), the hosted
// page (/verify/{token}) and the controls (/sim/...).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/identity/verification_sessions", s.createVerification)
	mux.HandleFunc("GET /v1/identity/verification_sessions/{id}", s.getVerification)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }) // a browser asks; no 404 in its console
	mux.HandleFunc("GET /verify/{token}", s.page)
	mux.HandleFunc("POST /verify/{token}", s.decide)
	mux.HandleFunc("GET /sim/verifications", func(w http.ResponseWriter, _ *http.Request) { answer(w, http.StatusOK, s.Verifications()) })
	mux.HandleFunc("GET /sim/deliveries", func(w http.ResponseWriter, _ *http.Request) { answer(w, http.StatusOK, s.Deliveries()) })
	mux.HandleFunc("POST /sim/verifications/{id}/pass", s.control(func(r *http.Request, id string) error { return s.Pass(id) }))
	mux.HandleFunc("POST /sim/verifications/{id}/fail", s.control(func(r *http.Request, id string) error {
		return s.Fail(id, r.URL.Query().Get("reason"))
	}))
	mux.HandleFunc("POST /sim/verifications/{id}/redeliver", s.control(func(r *http.Request, id string) error { return s.Redeliver(id) }))
	return mux
}

func (s *Server) control(f func(r *http.Request, id string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := f(r, r.PathValue("id")); err != nil {
			refuse(w, http.StatusBadRequest, "invalid_request", err.Error())
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func refuse(w http.ResponseWriter, status int, code, message string) {
	answer(w, status, map[string]any{"error": map[string]string{"type": "invalid_request_error", "code": code, "message": message}})
}

func (s *Server) createVerification(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		refuse(w, http.StatusUnauthorized, "unauthorized", "invalid API key")
		return
	}
	if err := r.ParseForm(); err != nil || len(r.PostForm) == 0 {
		refuse(w, http.StatusBadRequest, "parameter_invalid", "the body is not a form")
		return
	}
	f := r.PostForm
	reference := f.Get("metadata[reference]")
	switch {
	case f.Get("type") != "document":
		refuse(w, http.StatusBadRequest, "parameter_invalid_string", "type must be document")
		return
	case reference == "" || len(reference) > 500:
		refuse(w, http.StatusBadRequest, "parameter_missing", "metadata[reference] is required (the simulator keys on it)")
		return
	case f.Get("client_reference_id") != "" && f.Get("client_reference_id") != reference:
		refuse(w, http.StatusBadRequest, "parameter_invalid_string", "client_reference_id and metadata[reference] differ")
		return
	}
	if key := r.Header.Get("Idempotency-Key"); key != "" && key != reference {
		refuse(w, http.StatusBadRequest, "idempotency_key_in_use", "Idempotency-Key must equal metadata[reference]")
		return
	}
	returnURL := f.Get("return_url")
	if returnURL != "" {
		if u, err := url.Parse(returnURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			refuse(w, http.StatusBadRequest, "url_invalid", "return_url must be an absolute http(s) URL")
			return
		}
	}
	life := s.opts.PageLifetime
	if life <= 0 {
		life = DefaultPageLifetime
	}
	v, _ := s.create(reference, returnURL, time.Now().Add(life), "http://"+r.Host)
	answer(w, http.StatusOK, v.session())
}

func (s *Server) getVerification(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		refuse(w, http.StatusUnauthorized, "unauthorized", "invalid API key")
		return
	}
	v, ok := s.Get(r.PathValue("id"))
	if !ok {
		refuse(w, http.StatusNotFound, "resource_missing", "no such verification session")
		return
	}
	answer(w, http.StatusOK, v.session())
}

func (s *Server) byTokenCopy(token string) (Verification, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.byToken[token]
	if !ok {
		return Verification{}, false
	}
	return *v, true
}

// pageData is what the hosted page shows.
type pageData struct {
	V       Verification
	Reasons []string
	Expired bool
	Problem string
}

// page is the hosted page: the decision forms while pending, the outcome afterwards.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	v, ok := s.byTokenCopy(r.PathValue("token"))
	if !ok {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_ = pageTmpl.Execute(w, pageData{Problem: "This verification link is unknown."})
		return
	}
	s.render(w, http.StatusOK, v, "")
}

func (s *Server) render(w http.ResponseWriter, status int, v Verification, problem string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	expired := v.Status == StatusPending && time.Now().After(v.ExpiresAt)
	if expired && status == http.StatusOK {
		status = http.StatusGone
	}
	w.WriteHeader(status)
	_ = pageTmpl.Execute(w, pageData{V: v, Reasons: Reasons, Expired: expired, Problem: problem})
}

// decide takes the page's form: decision=pass, or decision=fail with reason (one of Reasons, or
// "other" with the text of reason_other). It answers 303 to the page, which shows the outcome.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	v, ok := s.byTokenCopy(token)
	if !ok {
		http.NotFound(w, r)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		s.render(w, http.StatusBadRequest, v, "The form could not be read; try again.")
		return
	}
	find := func() (*Verification, bool) { x, ok := s.byToken[token]; return x, ok }
	var err error
	switch r.PostForm.Get("decision") {
	case "pass":
		err = s.conclude(find, StatusVerified, "")
	case "fail":
		reason := r.PostForm.Get("reason")
		if reason == "other" {
			reason = strings.TrimSpace(r.PostForm.Get("reason_other"))
		} else if !known(reason) {
			reason = ""
		}
		if reason == "" || utf8.RuneCountInString(reason) > maxReasonLen || !utf8.ValidString(reason) {
			s.render(w, http.StatusBadRequest, v, fmt.Sprintf("Choose a reason, or choose Other and describe it in at most %d characters.", maxReasonLen))
			return
		}
		err = s.conclude(find, StatusFailed, reason)
	default:
		s.render(w, http.StatusBadRequest, v, "Choose whether the verification passes or fails.")
		return
	}
	switch {
	case errors.Is(err, ErrConcluded):
		v, _ = s.byTokenCopy(token)
		s.render(w, http.StatusConflict, v, "This verification was already concluded.")
		return
	case errors.Is(err, ErrExpired):
		s.render(w, http.StatusGone, v, "")
		return
	case err != nil:
		s.render(w, http.StatusBadRequest, v, err.Error())
		return
	}
	http.Redirect(w, r, "/verify/"+token, http.StatusSeeOther)
}

func known(reason string) bool {
	for _, r := range Reasons {
		if r == reason {
			return true
		}
	}
	return false
}

// pageTmpl is the hosted page. Native controls with visible labels, a fieldset for the failure,
// outcomes announced through role=status and problems through role=alert; every control is
// reachable and operable by keyboard, with a visible focus ring.
var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verify your identity</title>
<style>
body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a;background:#fff}
fieldset{border:1px solid #555;border-radius:.4rem;padding:1rem;margin:1.5rem 0}
label{display:block;font-weight:600;margin-top:.75rem}
select,input,button{font:inherit;padding:.45rem .6rem;margin-top:.25rem}
button{cursor:pointer;border-radius:.4rem;border:2px solid #1a1a1a;background:#f2f2f2}
#pass{background:#0b6b2e;color:#fff;border-color:#0b6b2e}
#fail{background:#a1121d;color:#fff;border-color:#a1121d}
:focus-visible{outline:3px solid #1457d2;outline-offset:2px}
[role=alert]{border-left:4px solid #a1121d;padding:.5rem 1rem;background:#fdeeee}
[role=status]{border-left:4px solid #1457d2;padding:.5rem 1rem;background:#eef3fd}
.hint{color:#444;font-size:.95rem}
</style>
</head>
<body>
<main>
<h1>Verify your identity</h1>
{{if .Problem}}<p role="alert" id="problem">{{.Problem}}</p>{{end}}
{{with .V}}{{if .ID}}
<p class="hint">Simulated identity-verification provider. A real provider asks for a photo of a government ID and a selfie here; this page collects neither and lets you choose the outcome.</p>
{{if eq .Status "verified"}}
<p role="status" id="outcome">Verification passed. Your identity has been verified.</p>
{{else if eq .Status "failed"}}
<p role="status" id="outcome">Verification failed: {{.FailureReason}}</p>
{{else if $.Expired}}
<p role="status" id="outcome">This verification link has expired. Go back to your interview to get a new one.</p>
{{else}}
<form method="post">
<input type="hidden" name="decision" value="pass">
<button type="submit" id="pass">Pass verification</button>
</form>
<form method="post">
<fieldset>
<legend>Fail verification</legend>
<input type="hidden" name="decision" value="fail">
<label for="reason">Reason</label>
<select id="reason" name="reason" required aria-describedby="reason-hint">
<option value="">Choose a reason</option>
{{range $.Reasons}}<option value="{{.}}">{{.}}</option>
{{end}}<option value="other">Other</option>
</select>
<p class="hint" id="reason-hint">The reason is sent to the employer with the outcome.</p>
<label for="reason-other">Other reason (when Other is chosen)</label>
<input id="reason-other" name="reason_other" type="text" maxlength="200" autocomplete="off">
<p><button type="submit" id="fail">Fail verification</button></p>
</fieldset>
</form>
{{end}}
{{if and .ReturnURL (ne .Status "pending")}}<p><a id="return" href="{{.ReturnURL}}">Return to your interview</a></p>{{end}}
{{end}}{{end}}
</main>
</body>
</html>
`))

// ListenAndServe serves s on addr until ctx ends.
func ListenAndServe(ctx context.Context, addr string, s *Server) error {
	return simhttp.ListenAndServe(ctx, "identity-verification simulator", addr, s.Handler(), s.Close)
}
