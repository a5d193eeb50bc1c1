package activities

import "testing"

func TestReasonLabelIsBounded(t *testing.T) {
	tests := []struct{ in, want string }{
		{"fallback_timeout", "fallback_timeout"},
		{"", ""},
		{"candidate lives in Springfield, call Ana at +1 415 555 0101", "workflow"},
		{"no_contact_details", "workflow"},
	}
	for _, tt := range tests {
		if got := reasonLabel(tt.in); got != tt.want {
			t.Errorf("reasonLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
