package twiliosim

import (
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/recruitd/recruitd/internal/simhttp"
)

// maxForm bounds a request body the simulator reads.
const maxForm = 64 << 10

// Handler serves the Messages API (and Calls.json), the page (GET /) and the controls:
//
//	POST /sim/reply                      {from, to, body, button_payload, ...}: reply as the candidate
//	GET  /sim/messages[?number=+1...]    the messages, oldest first
//	GET  /sim/deliveries                 the webhooks posted
//	GET, POST /sim/faults                {duplicate, out_of_order, fail}: how later callbacks go
//	POST /sim/messages/{sid}/redeliver   post an inbound message's webhook again
//	POST /sim/advance                    {by: "25h"}: move the clock (WhatsApp windows)
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /2010-04-01/Accounts/{account}/Messages.json", s.api(s.send))
	mux.HandleFunc("POST /2010-04-01/Accounts/{account}/Calls.json", s.api(s.call))
	mux.HandleFunc("GET /2010-04-01/Accounts/{account}/Messages/{file}", s.getMessage)
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("POST /sim/reply-form", s.replyForm)
	mux.HandleFunc("POST /sim/reply", s.replyJSON)
	mux.HandleFunc("GET /sim/messages", func(w http.ResponseWriter, r *http.Request) {
		answer(w, http.StatusOK, s.Messages(r.URL.Query().Get("number")))
	})
	mux.HandleFunc("GET /sim/deliveries", func(w http.ResponseWriter, _ *http.Request) { answer(w, http.StatusOK, s.Deliveries()) })
	mux.HandleFunc("GET /sim/faults", func(w http.ResponseWriter, _ *http.Request) { answer(w, http.StatusOK, s.Faults()) })
	mux.HandleFunc("POST /sim/faults", func(w http.ResponseWriter, r *http.Request) {
		var f Faults
		if err := decode(w, r, &f); err != nil {
			return
		}
		if err := s.SetFaults(f); err != nil {
			answer(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		answer(w, http.StatusOK, f)
	})
	mux.HandleFunc("POST /sim/messages/{sid}/redeliver", func(w http.ResponseWriter, r *http.Request) {
		d, err := s.Redeliver(r.PathValue("sid"))
		if err != nil {
			answer(w, http.StatusNotFound, map[string]string{"error": err.Error()})
			return
		}
		answer(w, http.StatusOK, d)
	})
	mux.HandleFunc("POST /sim/advance", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			By string `json:"by"`
		}
		if err := decode(w, r, &body); err != nil {
			return
		}
		d, err := time.ParseDuration(body.By)
		if err != nil || d < 0 {
			answer(w, http.StatusBadRequest, map[string]string{"error": "by: want a positive duration such as 25h"})
			return
		}
		s.Advance(d)
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

// api wraps a Messages or Calls handler: basic auth for the account in the path, the form,
// the 201 resource or Twilio's error body.
func (s *Server) api(create func(url.Values) (Message, *APIError)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Basic realm="Twilio API"`)
			answer(w, http.StatusUnauthorized, apiError(http.StatusUnauthorized, ErrorAuthenticate, "Authenticate"))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if err := r.ParseForm(); err != nil {
			answer(w, http.StatusBadRequest, apiError(http.StatusBadRequest, 20001, "The request body could not be read as a form."))
			return
		}
		m, apiErr := create(r.PostForm)
		if apiErr != nil {
			answer(w, apiErr.Status, apiErr)
			return
		}
		answer(w, http.StatusCreated, s.resource(m))
	}
}

// getMessage serves GET .../Messages/{sid}.json.
func (s *Server) getMessage(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		answer(w, http.StatusUnauthorized, apiError(http.StatusUnauthorized, ErrorAuthenticate, "Authenticate"))
		return
	}
	msgSID, ok := strings.CutSuffix(r.PathValue("file"), ".json")
	m, found := s.Message(msgSID)
	if !ok || !found {
		answer(w, http.StatusNotFound, apiError(http.StatusNotFound, ErrorNotFound, "The requested resource %s was not found", r.URL.Path))
		return
	}
	answer(w, http.StatusOK, s.resource(m))
}

// resource is m as Twilio's Message resource.
func (s *Server) resource(m Message) map[string]any {
	date := m.CreatedAt.Format(time.RFC1123Z)
	var errorCode, errorMessage any
	if m.ErrorCode != 0 {
		errorCode = m.ErrorCode
		errorMessage = "simulated error"
	}
	uri := "/2010-04-01/Accounts/" + s.opts.AccountSID + "/Messages/" + m.SID + ".json"
	return map[string]any{"account_sid": s.opts.AccountSID, "api_version": "2010-04-01", "body": m.Body, "date_created": date,
		"date_sent": nil, "date_updated": date, "direction": m.Direction, "error_code": errorCode, "error_message": errorMessage,
		"from": m.From, "messaging_service_sid": nil, "num_media": "0", "num_segments": strconv.Itoa(m.NumSegments), "price": nil,
		"price_unit": "USD", "sid": m.SID, "status": m.Status, "to": m.To, "uri": uri,
		"subresource_uris": map[string]string{"media": strings.TrimSuffix(uri, ".json") + "/Media.json"}}
}

func (s *Server) replyJSON(w http.ResponseWriter, r *http.Request) {
	var rep Reply
	if err := decode(w, r, &rep); err != nil {
		return
	}
	res, err := s.Reply(rep)
	if err != nil {
		answer(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	answer(w, http.StatusOK, res)
}

// replyForm takes the page's form and goes back to the page, on the candidate's thread.
func (s *Server) replyForm(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		s.renderPage(w, http.StatusBadRequest, "", "The form could not be read; try again.")
		return
	}
	from := strings.TrimSpace(r.PostForm.Get("from"))
	if _, err := s.Reply(Reply{From: from, To: r.PostForm.Get("to"), Body: strings.TrimSpace(r.PostForm.Get("body"))}); err != nil {
		s.renderPage(w, http.StatusBadRequest, from, err.Error())
		return
	}
	http.Redirect(w, r, "/?number="+url.QueryEscape(bare(from)), http.StatusSeeOther)
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	s.renderPage(w, http.StatusOK, r.URL.Query().Get("number"), "")
}

// threadView is one candidate's thread on the page.
type threadView struct {
	Candidate string
	Ours      string
	Channel   string
	Messages  []Message
}

func (s *Server) renderPage(w http.ResponseWriter, status int, selected, problem string) {
	byCandidate := map[string]*threadView{}
	var order []string
	for _, m := range s.Messages("") {
		candidate, ours := bare(m.To), m.From
		if m.Direction == "inbound" {
			candidate, ours = bare(m.From), m.To
		}
		t, ok := byCandidate[candidate]
		if !ok {
			t = &threadView{Candidate: candidate}
			byCandidate[candidate] = t
			order = append(order, candidate)
		}
		t.Ours, t.Channel = bare(ours), m.Channel
		t.Messages = append(t.Messages, m)
	}
	sort.SliceStable(order, func(a, b int) bool {
		la, lb := byCandidate[order[a]].Messages, byCandidate[order[b]].Messages
		return la[len(la)-1].CreatedAt.After(lb[len(lb)-1].CreatedAt)
	})
	threads := make([]threadView, 0, len(order))
	for _, c := range order {
		if selected == "" || bare(selected) == c {
			threads = append(threads, *byCandidate[c])
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = pageTmpl.Execute(w, map[string]any{"Threads": threads, "Selected": selected, "Problem": problem})
}

func decode(w http.ResponseWriter, r *http.Request, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		answer(w, http.StatusBadRequest, map[string]string{"error": "the body is not the JSON object expected: " + err.Error()})
		return errors.New("bad body")
	}
	return nil
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// pageTmpl shows the threads and a form to reply as the candidate. Native controls with
// visible labels; the problem is announced through role=alert.
var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Twilio simulator</title>
<style>
body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.45;color:#1a1a1a;background:#fff}
section{border:1px solid #888;border-radius:.5rem;padding:.75rem 1rem;margin:1.25rem 0}
ol{list-style:none;padding:0}
li{margin:.4rem 0;padding:.4rem .7rem;border-radius:.6rem;max-width:80%;white-space:pre-wrap}
li.in{background:#e7f0ff;margin-right:auto}
li.out{background:#eaf6ea;margin-left:auto}
.meta{display:block;font-size:.8rem;color:#444}
label{display:block;font-weight:600;margin-top:.5rem}
input,textarea,button{font:inherit;padding:.4rem .5rem;margin-top:.2rem}
textarea{width:100%;box-sizing:border-box}
button{cursor:pointer;border-radius:.4rem;border:2px solid #1a1a1a;background:#f2f2f2}
:focus-visible{outline:3px solid #1457d2;outline-offset:2px}
[role=alert]{border-left:4px solid #a1121d;padding:.5rem 1rem;background:#fdeeee}
</style>
</head>
<body>
<main>
<h1>Twilio simulator</h1>
<p>Messages sent through the simulated Messages API, and the candidates' replies. Reply below as the candidate; the reply is posted to recruitd as Twilio's signed webhook.</p>
{{if .Problem}}<p role="alert" id="problem">{{.Problem}}</p>{{end}}
{{if .Selected}}<p><a href="/">All threads</a></p>{{end}}
{{range .Threads}}
<section aria-label="Thread with {{.Candidate}}">
<h2>{{.Candidate}} <small>({{.Channel}}, our number {{.Ours}})</small></h2>
<ol>
{{range .Messages}}<li class="{{if eq .Direction "inbound"}}in{{else}}out{{end}}">{{.Body}}<span class="meta">{{if eq .Direction "inbound"}}candidate{{else}}recruitd{{end}} · {{.Status}}{{if .ErrorCode}} (error {{.ErrorCode}}){{end}}{{if .ContentSID}} · template{{end}}{{if eq .Direction "inbound"}} · {{if .WebhookStatus}}recruitd answered {{.WebhookStatus}}{{else}}not delivered to recruitd{{end}}{{end}} · {{.CreatedAt.Format "15:04:05"}}</span></li>
{{end}}</ol>
<form method="post" action="/sim/reply-form">
<input type="hidden" name="from" value="{{if eq .Channel "whatsapp"}}whatsapp:{{end}}{{.Candidate}}">
<input type="hidden" name="to" value="{{.Ours}}">
<label for="body-{{.Candidate}}">Reply as {{.Candidate}}</label>
<textarea id="body-{{.Candidate}}" name="body" rows="2" required maxlength="1600"></textarea>
<button type="submit">Send reply</button>
</form>
</section>
{{else}}
<p id="empty">No messages yet.</p>
{{end}}
<section aria-label="New message">
<h2>Write as any number</h2>
<form method="post" action="/sim/reply-form">
<label for="new-from">From (the candidate; whatsapp:+1... for WhatsApp)</label>
<input id="new-from" name="from" required autocomplete="off">
<label for="new-to">To (our number; empty: the number that last wrote to From)</label>
<input id="new-to" name="to" autocomplete="off">
<label for="new-body">Message</label>
<textarea id="new-body" name="body" rows="2" required maxlength="1600"></textarea>
<button type="submit">Send</button>
</form>
</section>
</main>
</body>
</html>
`))

// ListenAndServe serves s on addr until ctx ends.
func ListenAndServe(ctx context.Context, addr string, s *Server) error {
	return simhttp.ListenAndServe(ctx, "Twilio simulator", addr, s.Handler(), s.Close)
}
