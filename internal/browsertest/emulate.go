package browsertest

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// EmulateTimezone makes the tab read the time in zone (an IANA name such as "Asia/Tokyo"), as a
// browser on a computer set to that zone does; "" restores the host's zone.
func EmulateTimezone(t testing.TB, ctx context.Context, zone string) {
	t.Helper()
	do(t, ctx, "emulate the time zone "+zone, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone})
		return err
	}))
}

// DisableScripts turns the pages' scripts off (true), as a browser with JavaScript disabled, or
// on again (false); it holds for the pages the tab opens next.
func DisableScripts(t testing.TB, ctx context.Context, off bool) {
	t.Helper()
	do(t, ctx, "turn scripts off or on", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: off})
		return err
	}))
}
