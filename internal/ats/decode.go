package ats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// atsID is an id in an ATS response: a positive integer, sent as a JSON number or as a decimal
// string. Zero means absent (missing or null).
type atsID int64

func (i *atsID) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*i = 0
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return errors.New("an id is not a positive integer")
	}
	*i = atsID(n)
	return nil
}

func (i atsID) String() string { return strconv.FormatInt(int64(i), 10) }

// decodeObject unmarshals body, which must be a JSON object, into v. Its errors wrap
// ErrBadResponse and never quote the body.
func decodeObject(body []byte, v any) error {
	if b := bytes.TrimSpace(body); len(b) == 0 || b[0] != '{' {
		return fmt.Errorf("%w: not a JSON object", ErrBadResponse)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: %s", ErrBadResponse, jsonProblem(err))
	}
	return nil
}

// jsonProblem describes a decoding error without the values it may quote.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Sprintf("field %s: want %s", typ.Field, typ.Type)
	case errors.As(err, &typ):
		return fmt.Sprintf("want %s", typ.Type)
	default:
		return err.Error()
	}
}

// missing is the error of a response without a required id.
func missing(name string) error { return fmt.Errorf("%w: %s missing", ErrBadResponse, name) }

// mismatch is the error of a response about another record than the one asked for.
func mismatch(name string, got, want atsID) error {
	return fmt.Errorf("%w: %s %s, want %s", ErrBadResponse, name, got, want)
}

func clean(s string) string { return strings.TrimSpace(s) }
