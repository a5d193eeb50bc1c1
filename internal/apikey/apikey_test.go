package apikey

import (
	"strings"
	"testing"
)

func TestGenerate(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		k, err := Generate()
		if err != nil {
			t.Fatal(err)
		}
		if len(k) != 43 || !strings.HasPrefix(k, "rk_") {
			t.Fatalf("Generate() = %q, want rk_ + 40 characters", k)
		}
		if strings.Trim(k[3:], alphabet) != "" {
			t.Fatalf("Generate() = %q has characters outside base62", k)
		}
		if seen[k] {
			t.Fatalf("Generate() repeated %q", k)
		}
		seen[k] = true
	}
}

func TestMatchesAndPrefix(t *testing.T) {
	k, _ := Generate()
	h := Hash(k)
	if !Matches(h, k) {
		t.Errorf("Matches(Hash(%q), %q) = false, want true", k, k)
	}
	if Matches(h, k+"x") || Matches(h, "") || Matches(nil, k) {
		t.Error("Matches accepted a different key")
	}
	if p, ok := Prefix(k); !ok || p != k[:PrefixLen] {
		t.Errorf("Prefix(%q) = %q, %v", k, p, ok)
	}
	if _, ok := Prefix("short"); ok {
		t.Error(`Prefix("short") ok, want rejected`)
	}
}

func TestPrefixRefusesWhatNoKeyHolds(t *testing.T) {
	k, _ := Generate()
	for _, bad := range []string{"\xff\xfe" + k, k[:11] + "é" + k[11:], k + "\x00", "rk_ " + k[3:], k[:20] + "\x7f"} {
		if p, ok := Prefix(bad); ok {
			t.Errorf("Prefix(%q) = %q, want none", bad, p)
		}
	}
}
