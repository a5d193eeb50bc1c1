package secretbox

import (
	"bytes"
	"errors"
	"testing"
)

func TestSealOpen(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	b, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := b.Seal([]byte(`{"apiKey":"s3cret"}`), []byte("company-1"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("s3cret")) {
		t.Fatal("sealed value contains the plaintext")
	}
	got, err := b.Open(sealed, []byte("company-1"))
	if err != nil || string(got) != `{"apiKey":"s3cret"}` {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := b.Open(sealed, []byte("company-2")); !errors.Is(err, ErrOpen) {
		t.Errorf("Open with another context: err = %v, want ErrOpen", err)
	}
	other, _ := New(bytes.Repeat([]byte{8}, 32))
	if _, err := other.Open(sealed, []byte("company-1")); !errors.Is(err, ErrOpen) {
		t.Errorf("Open with another key: err = %v, want ErrOpen", err)
	}
	for _, bad := range [][]byte{nil, {1}, append([]byte{2}, sealed[1:]...)} {
		if _, err := b.Open(bad, []byte("company-1")); !errors.Is(err, ErrOpen) {
			t.Errorf("Open(%x): err = %v, want ErrOpen", bad, err)
		}
	}
	if _, err := New([]byte("short")); err == nil {
		t.Error("New accepted a 5-byte key")
	}
}
