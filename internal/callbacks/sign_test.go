package callbacks

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"applicationId":"a-1","status":"invited","interviewLink":"https://i.example/x"}`)
	signed := func() http.Header {
		h := http.Header{}
		h.Set("X-Service-Callback-Secret", testCallbackSecret)
		h.Set("Webhook-Id", "cb-1")
		h.Set("Webhook-Timestamp", strconv.FormatInt(now.Unix(), 10))
		h.Set("Webhook-Signature", Sign(testSigningSecret, "cb-1", now, body))
		return h
	}
	other := Sign("whsec_b3RoZXIta2V5LW90aGVyLWtleQ==", "cb-1", now, body)

	tests := []struct {
		name   string
		edit   func(h http.Header)
		body   []byte
		cbs    string
		signer string
		at     time.Time
		want   error
	}{
		{name: "valid"},
		{name: "4m59s late", at: now.Add(4*time.Minute + 59*time.Second)},
		{name: "4m59s early", at: now.Add(-4*time.Minute - 59*time.Second)},
		{name: "several signatures", edit: func(h http.Header) {
			h.Set("Webhook-Signature", other+" v2,abc "+h.Get("Webhook-Signature"))
		}},
		{name: "wrong callback secret", cbs: "cbs_other", want: ErrCallbackSecret},
		{name: "callback secret prefix", edit: func(h http.Header) { h.Set("X-Service-Callback-Secret", testCallbackSecret[:10]) }, want: ErrCallbackSecret},
		{name: "no callback secret header", edit: func(h http.Header) { h.Del("X-Service-Callback-Secret") }, want: ErrMissingHeader},
		{name: "no id", edit: func(h http.Header) { h.Del("Webhook-Id") }, want: ErrMissingHeader},
		{name: "no timestamp", edit: func(h http.Header) { h.Del("Webhook-Timestamp") }, want: ErrMissingHeader},
		{name: "no signature", edit: func(h http.Header) { h.Del("Webhook-Signature") }, want: ErrMissingHeader},
		{name: "wrong signing secret", signer: "whsec_b3RoZXIta2V5LW90aGVyLWtleQ==", want: ErrSignature},
		{name: "other signature", edit: func(h http.Header) { h.Set("Webhook-Signature", other) }, want: ErrSignature},
		{name: "empty signature", edit: func(h http.Header) { h.Set("Webhook-Signature", "v1,") }, want: ErrSignature},
		{name: "v2 only", edit: func(h http.Header) {
			h.Set("Webhook-Signature", strings.Replace(h.Get("Webhook-Signature"), "v1,", "v2,", 1))
		}, want: ErrSignature},
		{name: "changed id", edit: func(h http.Header) { h.Set("Webhook-Id", "cb-2") }, want: ErrSignature},
		{name: "changed body", body: []byte(`{"applicationId":"a-1","status":"not_eligible"}`), want: ErrSignature},
		{name: "stale", at: now.Add(5*time.Minute + time.Second), want: ErrTimestamp},
		{name: "future", at: now.Add(-5*time.Minute - time.Second), want: ErrTimestamp},
		{name: "timestamp in ms", edit: func(h http.Header) { h.Set("Webhook-Timestamp", strconv.FormatInt(now.UnixMilli(), 10)) }, want: ErrTimestamp},
		{name: "timestamp not a number", edit: func(h http.Header) { h.Set("Webhook-Timestamp", "yesterday") }, want: ErrTimestamp},
		{name: "receiver without signing secret", signer: "-", want: ErrNoSecret},
		{name: "receiver without callback secret", cbs: "-", want: ErrNoSecret},
	}
	for _, tc := range tests {
		h := signed()
		if tc.edit != nil {
			tc.edit(h)
		}
		b, cbs, signer, at := body, testCallbackSecret, testSigningSecret, now
		if tc.body != nil {
			b = tc.body
		}
		if tc.cbs != "" {
			cbs = strings.TrimPrefix(tc.cbs, "-")
		}
		if tc.signer != "" {
			signer = strings.TrimPrefix(tc.signer, "-")
		}
		if !tc.at.IsZero() {
			at = tc.at
		}
		err := Verify(h, b, cbs, signer, at)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("Verify(%s) = %v, want %v", tc.name, err, tc.want)
		}
		if err != nil && (strings.Contains(err.Error(), testCallbackSecret) || strings.Contains(err.Error(), "MfKQ9r8G")) {
			t.Errorf("Verify(%s) error %q contains a secret", tc.name, err)
		}
	}
}
