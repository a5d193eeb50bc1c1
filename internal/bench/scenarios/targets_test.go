package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestTargetsPrintIssue32sFigures(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{ratioTarget(0.9), "target >= 0.9: meets target"},
		{ratioTarget(0.89), "target >= 0.9: MISSES target"},
		{acceptTarget(100, 24*time.Millisecond), "target p99 < 25ms at 100 req/s: meets target"},
		{acceptTarget(100, 25*time.Millisecond), "target p99 < 25ms at 100 req/s: MISSES target"},
		{acceptTarget(20, time.Millisecond), "target p99 < 25ms at 100 req/s: not measured (--rate 20)"},
	} {
		if tc.got != tc.want {
			t.Errorf("target = %q, want %q", tc.got, tc.want)
		}
	}
	if callbackP50Target != 100*time.Millisecond || smsTurnP99Target != 100*time.Millisecond {
		t.Errorf("callback p50 target %s, SMS turn p99 target %s; want 100ms each", callbackP50Target, smsTurnP99Target)
	}
	if !strings.Contains(ratioTarget(1), "0.9") {
		t.Error("the ratio target does not name 0.9")
	}
}
