// Package secretbox encrypts small secrets at rest (ATS credentials) with AES-256-GCM.
// A sealed value is version byte 1, a 12-byte random nonce, then the ciphertext and tag.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

const version = 1

// Box seals and opens values with one key.
type Box struct{ aead cipher.AEAD }

// New returns a Box for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("secretbox key: %d bytes, want 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secretbox key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secretbox key: %w", err)
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plaintext. context binds the ciphertext to its owner (for example a company id),
// so a value copied to another row does not open.
func (b *Box) Seal(plaintext, context []byte) ([]byte, error) {
	out := make([]byte, 1+b.aead.NonceSize(), 1+b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	out[0] = version
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return b.aead.Seal(out, out[1:], plaintext, context), nil
}

// ErrOpen means a sealed value is corrupt, was sealed with another key, or belongs to another owner.
var ErrOpen = errors.New("secretbox: cannot open value (wrong key or context, or corrupt)")

// Open decrypts a value made by Seal with the same context.
func (b *Box) Open(sealed, context []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < 1+n+b.aead.Overhead() || sealed[0] != version {
		return nil, ErrOpen
	}
	pt, err := b.aead.Open(nil, sealed[1:1+n], sealed[1+n:], context)
	if err != nil {
		return nil, ErrOpen
	}
	return pt, nil
}
