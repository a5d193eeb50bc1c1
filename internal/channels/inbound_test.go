package channels_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/models"
)

// The test vector of Twilio's documentation (twilio-go's request validator test).
var (
	vectorToken  = "12345"
	vectorURL    = "https://mycompany.com/myapp.php?foo=1&bar=2"
	vectorParams = url.Values{"Digits": {"1234"}, "CallSid": {"CA1234567890ABCDE"}, "To": {"+18005551212"},
		"Caller": {"+14158675309"}, "From": {"+14158675309"}}
	vectorSignature = "RSOYDt4T1cUTdK1PDd93/VVr8B8="
)

func TestTwilioSignatureVector(t *testing.T) {
	if got := channels.TwilioSignature(vectorToken, vectorURL, vectorParams); got != vectorSignature {
		t.Fatalf("TwilioSignature = %s, want %s", got, vectorSignature)
	}
	if err := channels.VerifyTwilioSignature(vectorToken, vectorURL, vectorParams, vectorSignature); err != nil {
		t.Fatalf("Verify(vector) = %v", err)
	}
}

// TestTwilioSignaturePortVariants: a signature over the URL with the default port verifies the
// URL without it and the reverse, for https and http; another port, another scheme's default
// port, a changed path or query do not.
func TestTwilioSignaturePortVariants(t *testing.T) {
	params := url.Values{"MessageSid": {"SM" + strings.Repeat("a", 32)}, "Body": {"yes"}}
	cases := []struct {
		signed, verified string
		ok               bool
	}{
		{"https://mycompany.com:443/myapp.php?foo=1&bar=2", "https://mycompany.com/myapp.php?foo=1&bar=2", true},
		{"https://mycompany.com/myapp.php?foo=1&bar=2", "https://mycompany.com:443/myapp.php?foo=1&bar=2", true},
		{"http://mycompany.com:80/hook", "http://mycompany.com/hook", true},
		{"http://mycompany.com/hook", "http://mycompany.com:80/hook", true},
		{"https://[2001:db8::1]:443/hook", "https://[2001:db8::1]/hook", true},
		{"https://[2001:db8::1]/hook", "https://[2001:db8::1]:443/hook", true},
		{"https://mycompany.com", "https://mycompany.com:443", true},
		{"https://mycompany.com:8443/hook", "https://mycompany.com/hook", false},
		{"https://mycompany.com/hook", "https://mycompany.com:8443/hook", false},
		{"https://mycompany.com:80/hook", "https://mycompany.com/hook", false},
		{"http://mycompany.com:443/hook", "http://mycompany.com/hook", false},
		{"https://mycompany.com/hook", "http://mycompany.com/hook", false},
		{"https://mycompany.com/hook?a=1", "https://mycompany.com/hook?a=2", false},
		{"https://mycompany.com/hook", "https://mycompany.com/hook/", false},
	}
	for _, c := range cases {
		sig := channels.TwilioSignature("tok", c.signed, params)
		err := channels.VerifyTwilioSignature("tok", c.verified, params, sig)
		if (err == nil) != c.ok {
			t.Errorf("signed %s, verified %s: err = %v, want ok %v", c.signed, c.verified, err, c.ok)
		}
	}
}

// TestTwilioSignatureRefusals: a parameter changed, added or removed, another token, an empty
// token, and malformed or missing signatures are refused.
func TestTwilioSignatureRefusals(t *testing.T) {
	with := func(k, v string) url.Values {
		p := url.Values{}
		for name, vs := range vectorParams {
			p[name] = append([]string(nil), vs...)
		}
		if v == "" {
			p.Del(k)
		} else {
			p.Set(k, v)
		}
		return p
	}
	cases := map[string]struct {
		token, url string
		params     url.Values
		sig        string
	}{
		"changed value":     {vectorToken, vectorURL, with("Digits", "1235"), vectorSignature},
		"added parameter":   {vectorToken, vectorURL, with("NewTwilioField", "x"), vectorSignature},
		"removed parameter": {vectorToken, vectorURL, with("Caller", ""), vectorSignature},
		"other token":       {"54321", vectorURL, vectorParams, vectorSignature},
		"empty token":       {"", vectorURL, vectorParams, channels.TwilioSignature("", vectorURL, vectorParams)},
		"unsigned":          {vectorToken, vectorURL, vectorParams, ""},
		"not base64":        {vectorToken, vectorURL, vectorParams, "not base64!"},
		"truncated":         {vectorToken, vectorURL, vectorParams, vectorSignature[:20]},
		"hex, not base64":   {vectorToken, vectorURL, vectorParams, "4523981edd5c954dd3a54d0f77ddfd5555af01f"},
		"other URL":         {vectorToken, "https://mycompany.com/myapp.php?foo=1", vectorParams, vectorSignature},
	}
	for name, c := range cases {
		if err := channels.VerifyTwilioSignature(c.token, c.url, c.params, c.sig); !errors.Is(err, channels.ErrBadSignature) {
			t.Errorf("%s: err = %v, want ErrBadSignature", name, err)
		}
	}
}

const (
	inSID  = "SM0123456789abcdef0123456789abcdef"
	accSID = "AC0123456789abcdef0123456789abcdef"
)

func inboundForm(kv ...string) url.Values {
	f := url.Values{"MessageSid": {inSID}, "SmsSid": {inSID}, "AccountSid": {accSID}, "From": {"+14155550101"},
		"To": {"+14155550199"}, "Body": {"Yes"}, "NumMedia": {"0"}, "ToCountry": {"US"}, "ApiVersion": {"2010-04-01"}}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "-" {
			f.Del(kv[i])
		} else {
			f.Set(kv[i], kv[i+1])
		}
	}
	return f
}

// TestWebhookOverHTTP: a handler reading Twilio's webhook over real HTTP takes a signed post,
// including parameters it has never heard of, and refuses a forged or unsigned one.
func TestWebhookOverHTTP(t *testing.T) {
	const token = "auth-token-1"
	var got []channels.Inbound
	mux := http.NewServeMux()
	var public string
	mux.HandleFunc("POST /webhook/twilio", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, channels.MaxWebhookBody+1))
		if err != nil {
			http.Error(w, "read", http.StatusBadRequest)
			return
		}
		form, err := channels.ReadTwilioWebhook(token, public+r.URL.RequestURI(), r.Header, body)
		if errors.Is(err, channels.ErrBadSignature) {
			http.Error(w, "signature", http.StatusForbidden)
			return
		} else if err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		in, err := channels.ParseInbound(form)
		if err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		got = append(got, in)
		w.Header().Set("Content-Type", "text/xml")
		_, _ = io.WriteString(w, channels.EmptyTwiML)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	public = srv.URL
	hook := srv.URL + "/webhook/twilio?company=acme"

	post := func(form url.Values, sig string) int {
		req, _ := http.NewRequest(http.MethodPost, hook, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if sig != "" {
			req.Header.Set(channels.TwilioSignatureHeader, sig)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	form := inboundForm("AddOns", `{"status":"successful"}`, "SomeFieldTwilioAddsNextYear", "x")
	if code := post(form, channels.TwilioSignature(token, hook, form)); code != http.StatusOK {
		t.Fatalf("signed post = %d", code)
	}
	if len(got) != 1 || got[0].Body != "Yes" || got[0].From != "+14155550101" || got[0].Channel != models.MessageChannelSMS {
		t.Fatalf("parsed %+v", got)
	}
	forged := inboundForm("Body", "STOP")
	if code := post(forged, channels.TwilioSignature(token, hook, form)); code != http.StatusForbidden {
		t.Errorf("forged body = %d, want 403", code)
	}
	if code := post(form, channels.TwilioSignature("other-token", hook, form)); code != http.StatusForbidden {
		t.Errorf("other token = %d, want 403", code)
	}
	if code := post(form, ""); code != http.StatusForbidden {
		t.Errorf("unsigned = %d, want 403", code)
	}
	if len(got) != 1 {
		t.Errorf("refused posts reached the handler: %d", len(got))
	}
}

func TestParseInbound(t *testing.T) {
	in, err := channels.ParseInbound(inboundForm("From", "whatsapp:+14155550101", "To", "whatsapp:+14155550199",
		"Body", " 2\r\n", "ButtonPayload", "2", "ButtonText", "Evenings", "NumMedia", "1"))
	if err != nil {
		t.Fatal(err)
	}
	want := channels.Inbound{MessageSID: inSID, AccountSID: accSID, Channel: models.MessageChannelWhatsApp, From: "+14155550101",
		To: "+14155550199", Body: "2", NumMedia: 1, ButtonPayload: "2", ButtonText: "Evenings"}
	if in != want {
		t.Errorf("whatsapp button reply = %+v, want %+v", in, want)
	}
	in, err = channels.ParseInbound(inboundForm("Body", "-", "ListId", "7", "ListTitle", "Night shift", "From", "whatsapp:+14155550101", "To", "whatsapp:+14155550199"))
	if err != nil || in.ListID != "7" || in.ListTitle != "Night shift" || in.Body != "" {
		t.Errorf("list reply = %+v, %v", in, err)
	}
	in, err = channels.ParseInbound(inboundForm("To", "55555", "Body", "a\x07b\tc"))
	if err != nil || in.To != "55555" || in.Body != "ab\tc" {
		t.Errorf("short code, control character = %+v, %v", in, err)
	}

	bad := map[string]url.Values{
		"no sid":           inboundForm("MessageSid", "-"),
		"call sid":         inboundForm("MessageSid", "CA0123456789abcdef0123456789abcdef"),
		"short sid":        inboundForm("MessageSid", "SM0123"),
		"no account":       inboundForm("AccountSid", "-"),
		"no from":          inboundForm("From", "-"),
		"from not a phone": inboundForm("From", "alice"),
		"from short code":  inboundForm("From", "55555"),
		"mixed channels":   inboundForm("From", "whatsapp:+14155550101"),
		"empty":            inboundForm("Body", "-"),
		"media count":      inboundForm("NumMedia", "11"),
		"media not number": inboundForm("NumMedia", "x"),
		"long body":        inboundForm("Body", strings.Repeat("é", channels.MaxInboundText+1)),
		"repeated body":    func() url.Values { f := inboundForm(); f.Add("Body", "No"); return f }(),
	}
	for name, f := range bad {
		if _, err := channels.ParseInbound(f); !errors.Is(err, channels.ErrBadWebhook) {
			t.Errorf("%s: err = %v, want ErrBadWebhook", name, err)
		}
	}
}

func TestParseTwilioForm(t *testing.T) {
	if f, err := channels.ParseTwilioForm([]byte("Body=caf%C3%A9+ok&From=%2B1415")); err != nil || f.Get("Body") != "café ok" || f.Get("From") != "+1415" {
		t.Errorf("form = %v, %v", f, err)
	}
	bad := map[string]string{
		"over size":      "Body=" + strings.Repeat("a", channels.MaxWebhookBody),
		"bad escape":     "Body=%zz",
		"semicolon":      "Body=a;b=c",
		"not UTF-8":      "Body=%ff%fe",
		"NUL":            "Body=a%00b",
		"long value":     "Body=" + strings.Repeat("a", channels.MaxWebhookField+1),
		"long name":      strings.Repeat("n", channels.MaxWebhookName+1) + "=1",
		"too many parts": strings.Repeat("a=1&", channels.MaxWebhookParts),
		"empty name":     "=1",
	}
	for name, body := range bad {
		if _, err := channels.ParseTwilioForm([]byte(body)); !errors.Is(err, channels.ErrBadWebhook) {
			t.Errorf("%s: err = %v, want ErrBadWebhook", name, err)
		}
	}
}

func TestParseStatusCallback(t *testing.T) {
	f := url.Values{"MessageSid": {inSID}, "SmsSid": {inSID}, "AccountSid": {accSID}, "MessageStatus": {"undelivered"}, "SmsStatus": {"undelivered"},
		"ErrorCode": {"30003"}, "From": {"whatsapp:+14155550199"}, "To": {"whatsapp:+14155550101"}, "ChannelPrefix": {"whatsapp"}}
	cb, err := channels.ParseStatusCallback(f)
	want := channels.StatusCallback{MessageSID: inSID, AccountSID: accSID, Status: channels.StatusUndelivered, ErrorCode: "30003",
		Channel: models.MessageChannelWhatsApp, From: "+14155550199", To: "+14155550101"}
	if err != nil || cb != want {
		t.Errorf("callback = %+v, %v; want %+v", cb, err, want)
	}
	for _, st := range []string{"queued", "sent", "delivered", "undelivered", "failed", "read"} {
		f.Set("MessageStatus", st)
		if cb, err := channels.ParseStatusCallback(f); err != nil || string(cb.Status) != st {
			t.Errorf("%s: %+v, %v", st, cb, err)
		}
	}
	for name, mod := range map[string][2]string{"unknown status": {"MessageStatus", "lost"}, "no status": {"MessageStatus", ""},
		"bad code": {"ErrorCode", "30003; drop"}, "bad sid": {"MessageSid", "SMx"}} {
		g := url.Values{}
		for k, v := range f {
			g[k] = v
		}
		g.Set("MessageStatus", "sent")
		g.Set(mod[0], mod[1])
		if _, err := channels.ParseStatusCallback(g); !errors.Is(err, channels.ErrBadWebhook) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// TestStatusSupersedes: callbacks out of order never move a message back; an ending is kept
// except that delivered may become read or, on a late carrier report, failed.
func TestStatusSupersedes(t *testing.T) {
	cases := []struct {
		next, prev channels.MessageStatus
		want       bool
	}{
		{channels.StatusQueued, "", true},
		{channels.StatusSent, channels.StatusQueued, true},
		{channels.StatusDelivered, channels.StatusSent, true},
		{channels.StatusSent, channels.StatusDelivered, false},
		{channels.StatusQueued, channels.StatusSent, false},
		{channels.StatusSent, channels.StatusSent, false},
		{channels.StatusRead, channels.StatusDelivered, true},
		{channels.StatusDelivered, channels.StatusRead, false},
		{channels.StatusUndelivered, channels.StatusSent, true},
		{channels.StatusDelivered, channels.StatusFailed, false},
		{channels.StatusFailed, channels.StatusUndelivered, false},
		{"bogus", channels.StatusQueued, false},
	}
	for _, c := range cases {
		if got := c.next.Supersedes(c.prev); got != c.want {
			t.Errorf("%s.Supersedes(%s) = %v, want %v", c.next, c.prev, got, c.want)
		}
	}
	if !channels.StatusDelivered.Final() || channels.StatusSent.Final() || !channels.StatusFailed.Failed() {
		t.Error("Final/Failed")
	}
}

// FuzzParseInbound: any body either fails as ErrBadWebhook, or yields a form whose signature
// round-trips and an Inbound within its bounds.
func FuzzParseInbound(f *testing.F) {
	f.Add([]byte(inboundForm().Encode()))
	f.Add([]byte(inboundForm("From", "whatsapp:+14155550101", "To", "whatsapp:+14155550199", "ButtonPayload", "2").Encode()))
	f.Add([]byte("MessageSid=SM0123456789abcdef0123456789abcdef&AccountSid=AC0123456789abcdef0123456789abcdef&From=%2B14155550101&To=55555&Body=%F0%9F%91%8D+yes&Body=no"))
	f.Add([]byte("Body=%zz&From=;"))
	f.Fuzz(func(t *testing.T, body []byte) {
		form, err := channels.ParseTwilioForm(body)
		if err != nil {
			if !errors.Is(err, channels.ErrBadWebhook) {
				t.Fatalf("ParseTwilioForm error %v is not ErrBadWebhook", err)
			}
			return
		}
		sig := channels.TwilioSignature("tok", "https://example.com/h", form)
		if channels.VerifyTwilioSignature("tok", "https://example.com:443/h", form, sig) != nil {
			t.Fatal("signature of a parsed form does not verify")
		}
		in, err := channels.ParseInbound(form)
		if err != nil {
			if !errors.Is(err, channels.ErrBadWebhook) {
				t.Fatalf("ParseInbound error %v is not ErrBadWebhook", err)
			}
			return
		}
		if len(in.MessageSID) != 34 || in.From == "" || in.To == "" || !utf8.ValidString(in.Body) ||
			utf8.RuneCountInString(in.Body) > channels.MaxInboundText || strings.ContainsAny(in.Body, "\x00\r") ||
			(in.Channel != models.MessageChannelSMS && in.Channel != models.MessageChannelWhatsApp) {
			t.Fatalf("ParseInbound = %+v", in)
		}
		if _, err := channels.ParseStatusCallback(form); err != nil && !errors.Is(err, channels.ErrBadWebhook) {
			t.Fatalf("ParseStatusCallback error %v is not ErrBadWebhook", err)
		}
	})
}

// FuzzParseStatusCallback: any body either fails as ErrBadWebhook or yields a status callback
// with a message SID and a known status.
func FuzzParseStatusCallback(f *testing.F) {
	f.Add([]byte("MessageSid=SM0123456789abcdef0123456789abcdef&AccountSid=AC0123456789abcdef0123456789abcdef&MessageStatus=delivered&From=%2B15005550006&To=%2B14155550101"))
	f.Add([]byte("MessageSid=SM0123456789abcdef0123456789abcdef&AccountSid=AC0123456789abcdef0123456789abcdef&MessageStatus=undelivered&ErrorCode=30003&ChannelPrefix=whatsapp&From=whatsapp%3A%2B15005550006&To=whatsapp%3A%2B14155550101"))
	f.Add([]byte("MessageSid=SM0123456789abcdef0123456789abcdef&AccountSid=AC0123456789abcdef0123456789abcdef&MessageStatus=bogus"))
	f.Add([]byte("MessageStatus=sent&MessageStatus=failed&ErrorCode=-1"))
	f.Fuzz(func(t *testing.T, body []byte) {
		form, err := channels.ParseTwilioForm(body)
		if err != nil {
			return
		}
		cb, err := channels.ParseStatusCallback(form)
		if err != nil {
			if !errors.Is(err, channels.ErrBadWebhook) {
				t.Fatalf("ParseStatusCallback error %v is not ErrBadWebhook", err)
			}
			return
		}
		if len(cb.MessageSID) != 34 || !channels.MessageStatus(cb.Status).Supersedes("") || len(cb.ErrorCode) > 6 {
			t.Fatalf("ParseStatusCallback = %+v", cb)
		}
	})
}
