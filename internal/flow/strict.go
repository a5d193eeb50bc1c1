package flow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// maxShapeDepth bounds nesting; the deepest valid path is steps[i].condition.all[j].value[k].
const maxShapeDepth = 12

// checkShape walks the JSON tokens of b along the Go type Definition, so that the problems
// encoding/json accepts silently (field names in another case, repeated fields, null for a
// string) or reports without a path (unknown fields, wrong types) are rejected with the path of
// the offending value. It also rejects anything after the first value.
func checkShape(b []byte) error {
	w := shapeWalker{dec: json.NewDecoder(bytes.NewReader(b))}
	if err := w.value(reflect.TypeFor[Definition](), "", 0); err != nil {
		return err
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return problem("", "unexpected data after the definition")
	}
	return nil
}

type shapeWalker struct{ dec *json.Decoder }

func (w *shapeWalker) next(path string) (json.Token, error) {
	tok, err := w.dec.Token()
	if err == io.EOF {
		return nil, problem(path, "unexpected end of JSON")
	}
	var ute *json.UnmarshalTypeError
	switch {
	case errors.As(err, &ute):
		return nil, problem(path, "%s is out of range", ute.Value)
	case err != nil:
		return nil, problem(path, "invalid JSON at byte %d: %v", w.dec.InputOffset(), err)
	}
	return tok, nil
}

func (w *shapeWalker) value(t reflect.Type, path string, depth int) error {
	tok, err := w.next(path)
	if err != nil {
		return err
	}
	return w.from(tok, t, path, depth)
}

// from checks the value that starts with tok against t and consumes the rest of it.
func (w *shapeWalker) from(tok json.Token, t reflect.Type, path string, depth int) error {
	if depth > maxShapeDepth {
		return problem(path, "nested too deeply")
	}
	if tok == nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Interface:
			return nil
		}
		return problem(path, "null is not allowed; want %s", kindName(t))
	}
	switch t.Kind() {
	case reflect.Pointer:
		return w.from(tok, t.Elem(), path, depth)
	case reflect.Interface:
		return w.anyValue(tok, path, depth)
	case reflect.Struct:
		if tok != json.Delim('{') {
			return problem(path, "got %s; want an object", tokenName(tok))
		}
		names, types := jsonFields(t)
		seen := map[string]bool{}
		for w.dec.More() {
			kt, err := w.next(path)
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			p := joinPath(path, key)
			if seen[key] {
				return problem(p, "repeated field")
			}
			seen[key] = true
			ft, ok := types[key]
			if !ok {
				return problem(p, "unknown field; want one of %s", strings.Join(names, ", "))
			}
			if err := w.value(ft, p, depth+1); err != nil {
				return err
			}
		}
		_, err := w.next(path)
		return err
	case reflect.Slice:
		if tok != json.Delim('[') {
			return problem(path, "got %s; want an array", tokenName(tok))
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.value(t.Elem(), fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
		_, err := w.next(path)
		return err
	case reflect.String:
		if _, ok := tok.(string); !ok {
			return problem(path, "got %s; want a string", tokenName(tok))
		}
		return nil
	case reflect.Bool:
		if _, ok := tok.(bool); !ok {
			return problem(path, "got %s; want a boolean", tokenName(tok))
		}
		return nil
	}
	return problem(path, "unsupported Go type %s", t)
}

// anyValue consumes a free-form value (a predicate's value), still rejecting repeated fields.
func (w *shapeWalker) anyValue(tok json.Token, path string, depth int) error {
	if depth > maxShapeDepth {
		return problem(path, "nested too deeply")
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for w.dec.More() {
			kt, err := w.next(path)
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			p := joinPath(path, key)
			if seen[key] {
				return problem(p, "repeated field")
			}
			seen[key] = true
			v, err := w.next(p)
			if err != nil {
				return err
			}
			if err := w.anyValue(v, p, depth+1); err != nil {
				return err
			}
		}
	case json.Delim('['):
		for i := 0; w.dec.More(); i++ {
			p := fmt.Sprintf("%s[%d]", path, i)
			v, err := w.next(p)
			if err != nil {
				return err
			}
			if err := w.anyValue(v, p, depth+1); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	_, err := w.next(path)
	return err
}

// jsonFields returns the JSON names of t's fields in declaration order and their types.
func jsonFields(t reflect.Type) ([]string, map[string]reflect.Type) {
	var names []string
	types := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
		types[name] = f.Type
	}
	return names, types
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct:
		return "an object"
	case reflect.Slice:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	}
	return t.Kind().String()
}

func tokenName(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('{') {
			return "an object"
		}
		return "an array"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}
