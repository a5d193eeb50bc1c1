// Package callbacks delivers the terminal partner-application callback: one signed POST per
// attempt, through an SSRF-guarded dialer, with the retry schedule the caller (a Temporal
// workflow) follows between attempts. It also holds the receiver side, [Verify], which partners
// can copy.
//
// # Request
//
// Every attempt is a POST of the JSON [Payload] with these headers:
//
//	content-type: application/json
//	user-agent: recruitd-callbacks (or Options.UserAgent)
//	x-service-callback-secret: <callback secret, verbatim>
//	webhook-id: <the callback's id; the same on every attempt of one callback>
//	webhook-timestamp: <unix seconds of this attempt>
//	webhook-signature: v1,<base64 HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")>
//
// The signature follows Standard Webhooks (https://www.standardwebhooks.com). Receivers should
// deduplicate on webhook-id (or on applicationId plus status), reject timestamps more than five
// minutes from their clock, and answer 2xx quickly.
//
// # Signing key
//
// A signing secret of the form "whsec_<base64>" is the Standard Webhooks serialisation: the
// HMAC key is the base64 decoding of the part after the prefix (standard or URL alphabet, padded
// or not, so secrets issued as base64url also work). Any other string, including a "whsec_" one
// whose remainder is not base64, is used as is: the key is its UTF-8 bytes. Standard Webhooks
// libraries take such a raw secret through their "raw" constructors (NewWebhookRaw and the like),
// not through the base64 one.
//
// # Answers and retries
//
//   - 2xx: delivered. Nothing else is success.
//   - 3xx: a failed attempt (class "redirect"); redirects are never followed, so the target
//     keeps its registered URL. Retried.
//   - 410 Gone: the receiver says the endpoint is gone for good; delivery stops (GiveUp).
//   - 429 and 503: retried, no sooner than Retry-After (seconds or HTTP-date) when it is longer
//     than the scheduled delay, capped at 24 h.
//   - Every other 4xx (400, 401, 403, 404, 408, 422, ...) and 5xx: retried on the schedule.
//     Partners are promised exactly one terminal callback per accepted application with
//     at-least-once delivery, and a 4xx from a partner endpoint is nearly always a fixable
//     misconfiguration on their side (a rotated secret, a moved route, a firewall or validation
//     rule) rather than a verdict on this callback. Giving up on it would silently lose the
//     applicant's outcome; retrying costs at most nine more small requests over about three
//     days, within which partners usually notice and fix their endpoint. 410 is the one
//     answer that explicitly asks the sender to stop (Standard Webhooks practice).
//   - Timeouts, DNS, TLS and connection errors: retried.
//   - Invalid URL (not http or https, userinfo, no host), an IP literal or localhost refused by
//     the SSRF guard, or an unusable target (empty secret or webhook id): GiveUp, because no
//     retry can change the outcome; an operator fixes the partner's registration and
//     redelivers. A host name that resolves only to refused addresses is retried (class
//     "ssrf_blocked"): its DNS may be fixed, and nothing is sent to a refused address.
//
// The schedule is immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h
// (10 attempts over about 3 days), each delay with ±10% jitter; see [Delay] and [NextDelay].
//
// # Outbound safety
//
// Connections are dialed through code.dny.dev/ssrf: the resolved address is checked at connect
// time (so DNS rebinding does not help), and loopback, private, link-local, CGNAT and other
// special-purpose ranges are refused unless listed in Options.AllowedNets. Any port is allowed,
// since partners run endpoints on ports such as 8443. Proxies from the environment are not used,
// because they would move the check to the proxy's address. Secrets never appear in an
// [Attempt]: a response body that echoes one has it replaced by "[redacted]".
package callbacks
