package models

import (
	"bytes"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"reflect"
)

// JSON is a jsonb column holding a T. It encodes to and from JSON as the bare T, so structs
// embedding it serialise naturally.
//
// A nil slice is written as [] and a nil map as {}, matching the NOT NULL DEFAULT '[]' / '{}'
// columns; any other value that marshals to null is written as SQL NULL. Scanning NULL yields
// the zero T.
type JSON[T any] struct {
	V T
}

// NewJSON wraps v.
func NewJSON[T any](v T) JSON[T] { return JSON[T]{V: v} }

// Value marshals j.V. The result is a string, so it is sent as text under both the extended and
// the simple query protocol.
func (j JSON[T]) Value() (driver.Value, error) {
	b, err := json.Marshal(j.V)
	if err != nil {
		return nil, fmt.Errorf("marshal jsonb %T: %w", j.V, err)
	}
	if bytes.Equal(b, []byte("null")) {
		switch reflect.TypeFor[T]().Kind() {
		case reflect.Slice:
			return "[]", nil
		case reflect.Map:
			return "{}", nil
		default:
			return nil, nil
		}
	}
	return string(b), nil
}

// Scan unmarshals a jsonb value into a fresh T.
func (j *JSON[T]) Scan(src any) error {
	var zero T
	j.V = zero
	var b []byte
	switch v := src.(type) {
	case nil:
		return nil
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		return fmt.Errorf("scan jsonb: unsupported source type %T", src)
	}
	if err := json.Unmarshal(b, &j.V); err != nil {
		return fmt.Errorf("scan jsonb into %T: %w", j.V, err)
	}
	return nil
}

// MarshalJSON encodes j.V.
func (j JSON[T]) MarshalJSON() ([]byte, error) { return json.Marshal(j.V) }

// UnmarshalJSON decodes into j.V.
func (j *JSON[T]) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &j.V) }
