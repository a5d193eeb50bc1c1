// Package interviewpage renders the candidate's interview page: server-side html/template
// screens, one stylesheet and one small script of our own, all embedded. It holds no rules:
// what a screen shows comes from internal/interview's View.
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
	"strings"

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

// Data is what one rendering needs. Screen is a interview.Screen or one of the page's own:
// "unknown" (a link that opens nothing), "busy" (rate limited), "failed" (our error).
type Data struct {
	Screen string
	View   *interview.View
	Token  string
	// Notice is a status line above the screen; Error an answer's refusal, with Draft the
	// answer as the candidate sent it, so nothing typed is lost.
	Notice, Error, Draft string
}

// Screens of the page's own, besides interview's.
const (
	ScreenUnknown = "unknown"
	ScreenBusy    = "busy"
	ScreenFailed  = "failed"
)

// Render writes the page.
func (p *Page) Render(w io.Writer, d Data) error {
	var buf bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&buf, "page", render{Data: d, page: p}); err != nil {
		return fmt.Errorf("render interview screen %s: %w", d.Screen, err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// render is the templates' dot.
type render struct {
	Data
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
	return r.View.Turn.Index - 1
}

// Expires is the deadline as the candidate reads it (UTC: the page does not know the zone).
func (r render) Expires() string {
	return r.View.ExpiresAt.UTC().Format("Monday 2 January 2006, 15:04 UTC")
}

// Title is the document's title: the screen, then the company.
func (r render) Title() string {
	company := "Interview"
	if r.View != nil && r.View.CompanyName != "" {
		company = r.View.CompanyName + " interview"
	}
	var what string
	switch r.Screen {
	case string(interview.ScreenStart):
		what = "Welcome"
	case string(interview.ScreenIdentity):
		what = "Identity check"
	case string(interview.ScreenQuestion):
		what = r.View.Turn.Progress
		if r.View.Turn.FollowUp {
			what += ", follow-up"
		}
	case string(interview.ScreenCompleted):
		what = "Complete"
	case string(interview.ScreenDeclined):
		what = "Declined"
	case string(interview.ScreenExpired):
		what = "Link expired"
	case string(interview.ScreenIncomplete):
		what = "Not finished in time"
	case string(interview.ScreenCancelled):
		what = "Withdrawn"
	case string(interview.ScreenNotReady):
		what = "Not ready yet"
	case ScreenBusy:
		what = "Too many requests"
	case ScreenFailed:
		what = "Something went wrong"
	default:
		what = "Link not valid"
	}
	if r.Error != "" {
		what = "Error: " + what
	}
	return what + " | " + company
}
