// Package apikey generates company API keys and checks them. Only a key's SHA-256 hash and its
// first PrefixLen characters (shown to users to tell keys apart) are ever stored.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
)

// PrefixLen is how many leading characters of a key are stored in clear and shown.
const PrefixLen = 12

// MinLen is the shortest key accepted anywhere (generated keys are 43 characters).
const MinLen = 20

const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// Generate returns a new key: "rk_" followed by 40 random base62 characters (about 238 bits).
func Generate() (string, error) {
	const n = 40
	buf := make([]byte, n)
	out := make([]byte, 0, 3+n)
	out = append(out, "rk_"...)
	for len(out) < cap(out) {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("generate api key: %w", err)
		}
		for _, b := range buf {
			// Rejection sampling keeps the distribution uniform: 248 = 4*62.
			if b < 248 && len(out) < cap(out) {
				out = append(out, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	return string(out), nil
}

// Hash is the stored form of a key.
func Hash(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// Prefix is the clear part of a key used to find its row. A presented key without one is unknown
// without a lookup: shorter than MinLen, or holding a byte outside printable ASCII (a space, a
// control character, a byte of UTF-8 or of no encoding), which no key has and which Postgres might
// not even compare with the stored prefixes.
func Prefix(key string) (string, bool) {
	if len(key) < MinLen {
		return "", false
	}
	for i := 0; i < len(key); i++ {
		if key[i] <= ' ' || key[i] > '~' {
			return "", false
		}
	}
	return key[:PrefixLen], true
}

// Matches reports whether key hashes to stored, in constant time.
func Matches(stored []byte, key string) bool {
	return subtle.ConstantTimeCompare(stored, Hash(key)) == 1
}
