package adapters

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// ArgumentsOrEmpty is the one empty-arguments rule: arguments left out,
// empty or JSON null are the empty object, so a tool with nothing required
// can be called with none, whichever way a client says "none".
func ArgumentsOrEmpty(raw json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}

// DecodeArguments decodes a tool's arguments into v, a pointer to its
// argument struct. A field v does not have is refused, naming the ones it
// has: the registry checks the schema first, but a direct call must not
// pass a misspelt option silently, and a wrong type says what to write.
func DecodeArguments(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(ArgumentsOrEmpty(raw)))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if dec.More() {
			return protocol.Invalid("the arguments must be one JSON object, with nothing after it")
		}
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field == "" {
			return protocol.Invalid("the arguments must be one JSON object, not a JSON %s", typeErr.Value)
		}
		return protocol.Invalid("argument %s must be %s, not a JSON %s", typeErr.Field, jsonKind(typeErr.Type), typeErr.Value)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		var value any
		if json.Unmarshal(ArgumentsOrEmpty(raw), &value) == nil {
			if msg, ok := unknownField(reflect.TypeOf(v), value, ""); ok {
				return protocol.Invalid("%s", msg)
			}
		}
		return protocol.Invalid("unknown argument %s; this tool takes %s", strings.Trim(name, `"`), strings.Join(argNames(reflect.TypeOf(v), ""), ", "))
	}
	return protocol.Invalid("the arguments must be one JSON object: %v", err)
}

// jsonKind names a Go type as the JSON an agent would write.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}

// argNames lists the JSON names of a struct's fields, nested ones as
// "parts[].name", since a decode error does not say where a field was.
func argNames(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t.Kind() == reflect.Slice {
			prefix += "[]"
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		full := name
		if prefix != "" {
			full = prefix + "." + name
		}
		names = append(names, full)
		names = append(names, argNames(f.Type, full)...)
	}
	return names
}
