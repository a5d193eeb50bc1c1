package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DecodeStrict decodes a model's reply into v: exactly one JSON value (optionally inside a
// markdown code fence, which some models add even in JSON mode), no unknown fields, nothing
// after it. Checking the fields' values is the caller's part.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(unfence(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not the expected JSON object: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("not the expected JSON object: data after the object")
	}
	return nil
}

// unfence removes a markdown code fence around the object.
func unfence(data []byte) []byte {
	t := bytes.TrimSpace(data)
	if !bytes.HasPrefix(t, []byte("```")) || !bytes.HasSuffix(t, []byte("```")) || len(t) < 6 {
		return data
	}
	t = t[3 : len(t)-3]
	if nl := bytes.IndexByte(t, '\n'); nl >= 0 && bytes.IndexByte(t[:nl], '{') < 0 {
		t = t[nl+1:]
	}
	return t
}
