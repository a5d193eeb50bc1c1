package callbacks_test

import (
	"io"
	"net/http"
	"time"

	"github.com/recruitd/recruitd/internal/callbacks"
)

// A partner's receiver: read the raw body, verify it, then deduplicate on webhook-id (or on
// applicationId plus status) and answer 2xx quickly.
func ExampleVerify() {
	callbackSecret, signingSecret := "cbs_...", "whsec_..." // agreed at onboarding
	http.HandleFunc("POST /recruitd/callback", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		if err := callbacks.Verify(r.Header, body, callbackSecret, signingSecret, time.Now()); err != nil {
			http.Error(w, "unauthenticated", http.StatusUnauthorized)
			return
		}
		// json.Unmarshal(body, &payload); record it idempotently; then:
		w.WriteHeader(http.StatusNoContent)
	})
}
