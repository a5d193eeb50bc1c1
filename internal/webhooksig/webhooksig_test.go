package webhooksig

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// TestSignVector is the symmetric signing vector of the Standard Webhooks reference libraries
// (libraries/go/webhook_symmetric_test.go in github.com/standard-webhooks/standard-webhooks).
func TestSignVector(t *testing.T) {
	got := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("Sign(test vector) = %q, want %q", got, want)
	}
}

func TestSigningKey(t *testing.T) {
	key := []byte{0xfb, 0xff, 0x01, 0x3e, 0x3f, 0x80, 0x00, 0x7f, 0xfe}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		secret := "whsec_" + enc.EncodeToString(key)
		if got := Key(secret); !bytes.Equal(got, key) {
			t.Errorf("Key(%q) = %x, want %x", secret, got, key)
		}
	}
	for _, raw := range []string{"plain-secret", "whsec_", "whsec_not base64!", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"} {
		if got := Key(raw); string(got) != raw {
			t.Errorf("Key(%q) = %q, want the secret's own bytes", raw, got)
		}
	}
}

func TestVerifyReturnsTimestamp(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":"e1"}`)
	h := http.Header{}
	h.Set("Webhook-Id", "e1")
	h.Set("Webhook-Timestamp", strconv.FormatInt(now.Unix(), 10))
	h.Set("Webhook-Signature", Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "e1", now, body))
	ts, err := Verify(h, body, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", now.Add(time.Minute))
	if err != nil || !ts.Equal(now) {
		t.Errorf("Verify = %v, %v, want %v, nil", ts, err, now)
	}
	h.Del("Webhook-Id")
	if _, err := Verify(h, body, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", now); !errors.Is(err, ErrMissingHeader) {
		t.Errorf("Verify without webhook-id = %v, want ErrMissingHeader", err)
	}
}
