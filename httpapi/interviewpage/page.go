// Package interviewpage renders the candidate's interview page: server-side html/template
// screens, one stylesheet and one small script of our own, all embedded. It holds no rules:
// what a screen shows comes from the interview core's Prompt (internal/interview), which
// NewView turns into the page's View; every candidate-facing text is in the catalogue (copy.go).
package interviewpage

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/recruitd/recruitd/internal/interview"
)

//go:embed templates/*.html
var templates embed.FS

//go:embed static/interview.css static/interview.js static/favicon.svg
var static embed.FS

// AssetPrefix is the path under which the page's stylesheet and script are served; their names
// carry a hash of their content, so they are cached for good and never stale.
const AssetPrefix = "/interview-assets/"

// Asset is one embedded file.
type Asset struct {
	Name        string // the hashed name, under AssetPrefix
	ContentType string
	Body        []byte
}

// Page renders the screens.
type Page struct {
	tmpl          *template.Template
	css, js, icon Asset
	assets        map[string]Asset
}

// New parses the embedded templates and hashes the assets.
func New() (*Page, error) {
	t, err := template.New("").ParseFS(templates, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("parse interview templates: %w", err)
	}
	p := &Page{tmpl: t, assets: map[string]Asset{}}
	for _, a := range []struct {
		file, ext, ctype string
		dst              *Asset
	}{
		{"static/interview.css", "css", "text/css; charset=utf-8", &p.css},
		{"static/interview.js", "js", "text/javascript; charset=utf-8", &p.js},
		{"static/favicon.svg", "svg", "image/svg+xml", &p.icon},
	} {
		b, err := static.ReadFile(a.file)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		*a.dst = Asset{Name: strings.TrimSuffix(path.Base(a.file), "."+a.ext) + "." + hex.EncodeToString(sum[:6]) + "." + a.ext, ContentType: a.ctype, Body: b}
		p.assets[a.dst.Name] = *a.dst
	}
	return p, nil
}

// Asset returns the asset of a hashed name.
func (p *Page) Asset(name string) (Asset, bool) {
	a, ok := p.assets[name]
	return a, ok
}

// Data is what one rendering needs: a session's prompt, or one of the page's own screens
// (ScreenUnknown, ScreenBusy, ScreenFailed) without a prompt.
type Data struct {
	Screen Screen
	Prompt *interview.Prompt
	Token  string
	// Notice is a status line above the screen; Error an answer's refusal, with Draft the
	// answer as the candidate sent it, so nothing typed is lost.
	Notice, Error Key
	Draft         string
}

// Render writes the page.
func (p *Page) Render(w io.Writer, d Data) error {
	r := render{Data: d, page: p}
	if d.Prompt != nil {
		r.View = NewView(d.Prompt)
		r.Screen = r.View.Screen
	}
	var buf bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&buf, "page", r); err != nil {
		return fmt.Errorf("render interview screen %s: %w", r.Screen, err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// render is the templates' dot.
type render struct {
	Data
	View *View
	page *Page
}

func (r render) CSS() string { return AssetPrefix + r.page.css.Name }
func (r render) JS() string  { return AssetPrefix + r.page.js.Name }

// Icon is the page's favicon (a browser asks for one; without it, /favicon.ico is a 404).
func (r render) Icon() string { return AssetPrefix + r.page.icon.Name }

// Action is the path a screen's form posts to.
func (r render) Action(verb string) string {
	return "/interview/" + url.PathEscape(r.Token) + "/" + verb
}

// Answered is the number of the plan's questions before the current one (the progress bar).
func (r render) Answered() int {
	if r.View == nil || r.View.Turn == nil {
		return 0
	}
	return r.View.Turn.Answered()
}

// DraftKey names the link's drafts in the browser (the script keeps the answer being typed
// under it and the turn); "" on a screen of no session.
func (r render) DraftKey() string {
	if r.View == nil || r.Token == "" {
		return ""
	}
	return draftKey(r.Token)
}

// Expires is the deadline as the page writes it without the script: in UTC, named.
func (r render) Expires() string {
	return r.View.ExpiresAt.UTC().Format(deadlineLayout)
}

// vars are the values of the catalogue's placeholders on this screen.
func (r render) vars() map[string]string {
	v := map[string]string{
		"max":  strconv.Itoa(interview.MaxAnswerLen),
		"left": "{left}", // the script's
	}
	if r.View != nil {
		v["company"], v["role"] = r.View.CompanyName, r.View.JobTitle
		v["minutes"], v["questions"] = strconv.Itoa(r.View.EstimatedMinutes), strconv.Itoa(r.View.Questions)
		if !r.View.ExpiresAt.IsZero() {
			v["deadline"] = r.Expires()
		}
		if t := r.View.Turn; t != nil {
			v["n"], v["total"] = strconv.Itoa(t.Index), strconv.Itoa(t.Total)
		}
	}
	return v
}

// T is the catalogue's text of key as HTML: placeholders filled and escaped, the deadline as a
// <time> element the script rewrites in the browser's zone.
func (r render) T(key string) (template.HTML, error) {
	vars := r.vars()
	raw := map[string]string{}
	if d, ok := vars["deadline"]; ok {
		raw["deadline"] = `<time class="deadline" datetime="` + r.View.ExpiresAt.UTC().Format(time.RFC3339) + `">` + htmlText(d) + `</time>`
	}
	s, err := fill(Key(key), vars, raw, htmlText)
	return template.HTML(s), err // #nosec G203 -- every value is escaped by fill
}

// P is the catalogue's text of key as plain text (for attributes and the title).
func (r render) P(key string) (string, error) {
	return fill(Key(key), r.vars(), nil, plain)
}

// Progress is the question's place: "Question 3 of 9".
func (r render) Progress() (string, error) { return r.P(string(keyProgress)) }

// NoticeText and ErrorText are the texts of the notice and the refusal.
func (r render) NoticeText() (string, error) { return r.P(string(r.Notice)) }
func (r render) ErrorText() (string, error)  { return r.P(string(r.Error)) }

var screenTitles = map[Screen]Key{
	ScreenStart: keyTitleStart, ScreenIdentity: keyTitleIdentity, ScreenQuestion: keyProgress,
	ScreenCompleted: keyTitleCompleted, ScreenDeclined: keyTitleDeclined, ScreenExpired: keyTitleExpired,
	ScreenIncomplete: keyTitleIncomp, ScreenCancelled: keyTitleCancelled, ScreenNotReady: keyTitleNotReady,
	ScreenBusy: keyTitleBusy, ScreenFailed: keyTitleFailed, ScreenUnknown: keyTitleUnknown,
}

// Title is the document's title: the screen, then the company.
func (r render) Title() (string, error) {
	company := keyTitleAnonymous
	if r.View != nil && r.View.CompanyName != "" {
		company = keyTitleCompany
	}
	key, ok := screenTitles[r.Screen]
	if !ok {
		key = keyTitleUnknown
	}
	if r.Screen == ScreenQuestion && r.View.Turn.FollowUp {
		key = keyTitleFollowUp
	}
	vars := r.vars()
	var err error
	get := func(k Key) string {
		s, ferr := fill(k, vars, nil, plain)
		if ferr != nil {
			err = ferr
		}
		return s
	}
	vars["screen"] = get(key)
	if r.Error != "" {
		vars["screen"] = get(keyTitleError)
	}
	vars["title"] = get(company)
	return get(keyTitle), err
}
