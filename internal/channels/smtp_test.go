package channels

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/recruitd/recruitd/models"
)

// smtpPeer is a real SMTP server on 127.0.0.1 that keeps what it receives.
type smtpPeer struct {
	addr string
	port int

	user, pass string          // credentials it accepts; empty: no AUTH
	rcptErr    *smtp.SMTPError // returned for every RCPT when set

	mu     sync.Mutex
	msgs   []received
	authed bool
}

type received struct {
	from string
	to   []string
	data []byte
}

func startSMTPPeer(t *testing.T, configure func(*smtpPeer)) *smtpPeer {
	t.Helper()
	p := &smtpPeer{}
	if configure != nil {
		configure(p)
	}
	s := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &peerSession{p: p}, nil
	}))
	s.Domain = "localhost"
	s.AllowInsecureAuth = true
	s.ReadTimeout = 5 * time.Second
	s.WriteTimeout = 5 * time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	p.addr = "127.0.0.1"
	p.port = ln.Addr().(*net.TCPAddr).Port
	return p
}

func (p *smtpPeer) received() []received {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]received(nil), p.msgs...)
}

func (p *smtpPeer) authenticated() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.authed
}

type peerSession struct {
	p    *smtpPeer
	from string
	to   []string
}

func (s *peerSession) AuthMechanisms() []string {
	if s.p.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *peerSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.p.user || pass != s.p.pass {
			return smtp.ErrAuthFailed
		}
		s.p.mu.Lock()
		s.p.authed = true
		s.p.mu.Unlock()
		return nil
	}), nil
}

func (s *peerSession) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *peerSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.p.rcptErr != nil {
		return s.p.rcptErr
	}
	s.to = append(s.to, to)
	return nil
}

func (s *peerSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.p.mu.Lock()
	s.p.msgs = append(s.p.msgs, received{from: s.from, to: s.to, data: data})
	s.p.mu.Unlock()
	return nil
}

func (s *peerSession) Reset()        { s.from, s.to = "", nil }
func (s *peerSession) Logout() error { return nil }

func newTestSMTP(t *testing.T, p *smtpPeer, edit func(*SMTPConfig)) *SMTP {
	t.Helper()
	cfg := SMTPConfig{
		Host: p.addr, Port: p.port, From: "Acme Recruiting <jobs@acme.example>",
		TLS: "none", Timeout: 5 * time.Second,
	}
	if edit != nil {
		edit(&cfg)
	}
	s, err := NewSMTP(cfg)
	if err != nil {
		t.Fatalf("NewSMTP: %v", err)
	}
	return s
}

// parts returns the decoded text parts of an e-mail by media type.
func parts(t *testing.T, msg *mail.Message) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(header map[string][]string, body io.Reader)
	walk = func(header map[string][]string, body io.Reader) {
		h := mail.Header(header)
		mediaType, params, err := mime.ParseMediaType(h.Get("Content-Type"))
		if err != nil {
			t.Fatalf("Content-Type %q: %v", h.Get("Content-Type"), err)
		}
		if strings.HasPrefix(mediaType, "multipart/") {
			mr := multipart.NewReader(body, params["boundary"])
			for {
				part, err := mr.NextRawPart()
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				walk(part.Header, part)
			}
		}
		if strings.EqualFold(h.Get("Content-Transfer-Encoding"), "quoted-printable") {
			body = quotedprintable.NewReader(body)
		}
		b, err := io.ReadAll(body)
		if err != nil {
			t.Fatal(err)
		}
		out[mediaType] = string(b)
	}
	walk(msg.Header, msg.Body)
	return out
}

func TestSMTPSend(t *testing.T) {
	const link = "https://interviews.example/i/3f6c?token=abc&lang=en"
	tests := []struct {
		name string
		html string
		auth bool
	}{
		{name: "text", auth: true},
		{name: "text and html", html: `<p>Start your interview: <a href="` + link + `">here</a></p>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer := startSMTPPeer(t, func(p *smtpPeer) {
				if tt.auth {
					p.user, p.pass = "mailer", "s3cret"
				}
			})
			s := newTestSMTP(t, peer, func(c *SMTPConfig) {
				if tt.auth {
					c.Username, c.Password = "mailer", "s3cret"
				}
			})
			m := Message{
				Channel: models.MessageChannelEmail,
				To:      "Ada Lovelace <ada@example.com>",
				Subject: "Your interview with Acme",
				Text:    "Hello Ada,\n\nstart your interview: " + link + "\n",
				HTML:    tt.html,
			}
			rec, err := s.Send(context.Background(), m)
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if rec.Provider != "smtp" || !strings.HasPrefix(rec.ProviderMessageID, "<") || !strings.HasSuffix(rec.ProviderMessageID, "@acme.example>") {
				t.Errorf("Send receipt = %+v, want smtp and <…@acme.example>", rec)
			}

			got := peer.received()
			if len(got) != 1 {
				t.Fatalf("peer received %d messages, want 1", len(got))
			}
			if got[0].from != "jobs@acme.example" || len(got[0].to) != 1 || got[0].to[0] != "ada@example.com" {
				t.Errorf("envelope = %q → %q, want jobs@acme.example → [ada@example.com]", got[0].from, got[0].to)
			}
			if authed := peer.authenticated(); authed != tt.auth {
				t.Errorf("authenticated = %v, want %v", authed, tt.auth)
			}
			msg, err := mail.ReadMessage(bytes.NewReader(got[0].data))
			if err != nil {
				t.Fatalf("read message: %v", err)
			}
			for header, want := range map[string]string{
				"From":       `"Acme Recruiting" <jobs@acme.example>`,
				"To":         `"Ada Lovelace" <ada@example.com>`,
				"Subject":    m.Subject,
				"Message-Id": rec.ProviderMessageID,
			} {
				if got := msg.Header.Get(header); got != want {
					t.Errorf("header %s = %q, want %q", header, got, want)
				}
			}
			body := parts(t, msg)
			if !strings.Contains(body["text/plain"], link) {
				t.Errorf("text part = %q, want it to contain %q", body["text/plain"], link)
			}
			if tt.html == "" {
				if len(body) != 1 {
					t.Errorf("parts = %v, want text/plain only", body)
				}
			} else if body["text/html"] != tt.html {
				t.Errorf("html part = %q, want %q", body["text/html"], tt.html)
			}
		})
	}
}

func TestSMTPErrors(t *testing.T) {
	// closedPort picks a port nobody listens on. It is called when the
	// subtest's own peer already holds its port, so the two never coincide
	// (picked once up front, a later peer could be given the same port).
	closedPort := func() int {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		return port
	}
	tests := []struct {
		name      string
		peer      func(*smtpPeer)
		cfg       func(*SMTPConfig)
		to        string
		permanent bool
		code      string
		is        error
	}{
		{name: "invalid address", to: "ada at example.com", permanent: true, is: ErrInvalidAddress},
		{name: "address with newline", to: "ada@example.com\r\nBcc: eve@example.com", permanent: true, is: ErrInvalidAddress},
		{name: "recipient rejected 550", to: "nobody@example.com", permanent: true, code: "550",
			peer: func(p *smtpPeer) {
				p.rcptErr = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
			}},
		{name: "recipient deferred 451", to: "ada@example.com", code: "451",
			peer: func(p *smtpPeer) {
				p.rcptErr = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"}
			}},
		{name: "wrong password", to: "ada@example.com", permanent: true, code: "535",
			peer: func(p *smtpPeer) { p.user, p.pass = "mailer", "s3cret" },
			cfg:  func(c *SMTPConfig) { c.Username, c.Password = "mailer", "wrong" }},
		{name: "closed port", to: "ada@example.com",
			cfg: func(c *SMTPConfig) { c.Port = closedPort() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer := startSMTPPeer(t, tt.peer)
			s := newTestSMTP(t, peer, tt.cfg)
			_, err := s.Send(context.Background(), Message{Channel: models.MessageChannelEmail, To: tt.to, Subject: "Hi", Text: "Hello"})
			if err == nil {
				t.Fatal("Send succeeded, want an error")
			}
			t.Logf("Send error: %v", err)
			if IsPermanent(err) != tt.permanent {
				t.Errorf("IsPermanent(%v) = %v, want %v", err, IsPermanent(err), tt.permanent)
			}
			var e *Error
			if !errors.As(err, &e) || e.Provider != "smtp" || e.Code != tt.code {
				t.Errorf("Send error = %#v, want an *Error from smtp with code %q", err, tt.code)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Send error = %v, want it to wrap %v", err, tt.is)
			}
			if strings.Contains(err.Error(), "wrong") {
				t.Errorf("Send error %q contains the password", err)
			}
			if n := len(peer.received()); n != 0 {
				t.Errorf("peer received %d messages, want 0", n)
			}
		})
	}
}

func TestNewSMTPErrors(t *testing.T) {
	tests := []struct {
		cfg  SMTPConfig
		want string
	}{
		{SMTPConfig{From: "a@b.example"}, "SMTP_HOST"},
		{SMTPConfig{Host: "mail.example"}, "SMTP_FROM"},
		{SMTPConfig{Host: "mail.example", From: "not an address"}, "SMTP_FROM"},
		{SMTPConfig{Host: "mail.example", From: "a@b.example", TLS: "ssl"}, "SMTP_TLS"},
		{SMTPConfig{Host: "mail.example", From: "a@b.example", Port: 70000}, "port"},
	}
	for _, tt := range tests {
		_, err := NewSMTP(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewSMTP(%v) error = %v, want one naming %s", tt.cfg, err, tt.want)
		}
	}
	if s := (SMTPConfig{Host: "h", Password: "hunter2"}).String(); strings.Contains(s, "hunter2") {
		t.Errorf("SMTPConfig.String() = %q shows the password", s)
	}
}
