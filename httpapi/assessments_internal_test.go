package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckAssessmentURL(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"https://assess.example.com/t/8f3k2", true},
		{"HTTPS://assess.example.com/t/8f3k2?lang=en&x=1#start", true},
		{"https://assess.example.com:8443/t/8f3k2", true},
		{"https://[2001:db8::1]/t/8f3k2", true},
		{"http://assess.example.com/t/8f3k2", false},
		{"ftp://assess.example.com/t/8f3k2", false},
		{"javascript:alert(1)", false},
		{"data:text/html,hi", false},
		{"//assess.example.com/t/8f3k2", false},
		{"/t/8f3k2", false},
		{"https:///t/8f3k2", false},
		{"https:assess.example.com", false},
		{"https://user@assess.example.com/t", false},
		{"https://user:pw@assess.example.com/t", false},
		{"https://assess.example.com/t/a b", false},
		{"https://assess.example.com/t/\u200b", false},
		{"https://assess.example.com/t/\u202egpj.exe", false},
		{"https://assess.example.com/t/caf\u00e9", true},
		{"https://assess.example.com/t/\u00a0", false},
		{"https://assess.example.com/t/\t", false},
		{"https://assess.example.com/t/\x7f", false},
		{"https://assess.example.com/" + strings.Repeat("a", maxAssessmentURL), false},
		{"https://assess.example.com/%zz", false},
	}
	for _, tt := range tests {
		if got := checkAssessmentURL(tt.in); (got == "") != tt.ok {
			t.Errorf("checkAssessmentURL(%q) = %q, want ok %v", tt.in, got, tt.ok)
		}
	}
}

// FuzzParseAssessmentPush: any object either parses into bounded, control-free fields with an
// https link, or is refused with a 400 that repeats no value of the body.
func FuzzParseAssessmentPush(f *testing.F) {
	for _, seed := range []string{
		`{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/8f3k2","orderId":"ORD-7731"}`,
		`{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/8f3k2","candidateId":"7","jobId":"9"}`,
		`{"applicationId":"58213","assessmentUrl":"http://assess.example.com/t/8f3k2"}`,
		`{"applicationId":"58213","assessmentUrl":"https://u:p@assess.example.com/"}`,
		`{"applicationId":"58213","assessmentUrl":"https://assess.example.com/t/8f3k2","email":"secretvalue@example.com"}`,
		`{"applicationId":null,"assessmentUrl":1}`,
		`{"applicationId":"\u0007","assessmentUrl":"https://a.example/\u0000"}`,
		`{}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var body map[string]json.RawMessage
		if json.Unmarshal([]byte(in), &body) != nil {
			return
		}
		p, err := parseAssessmentPush(body)
		if err != nil {
			ae, ok := err.(*apiError)
			if !ok || ae.status != 400 {
				t.Fatalf("parseAssessmentPush(%q) = %v, want a 400", in, err)
			}
			for k, raw := range body {
				var v string
				if json.Unmarshal(raw, &v) == nil && len(v) >= 12 && !strings.Contains(k, v) && strings.Contains(ae.message, v) {
					t.Fatalf("parseAssessmentPush(%q) message %q repeats the value of %s", in, ae.message, k)
				}
			}
			return
		}
		if checkAssessmentURL(p.url) != "" || !strings.HasPrefix(strings.ToLower(p.url), "https://") {
			t.Fatalf("parseAssessmentPush(%q) accepted link %q", in, p.url)
		}
		for _, v := range []string{p.applicationID, p.candidateID, p.jobID, p.orderID} {
			if utf8.RuneCountInString(v) > maxAssessmentID || hasControl(v) {
				t.Fatalf("parseAssessmentPush(%q) accepted id %q", in, v)
			}
		}
		if p.applicationID == "" {
			t.Fatalf("parseAssessmentPush(%q) accepted an empty applicationId", in)
		}
	})
}
