package adapters

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// A tool's input schema is generated from the Go type its arguments decode
// into, so the schema an agent reads and the decoder that runs cannot
// drift apart. The type says the names (`json` tags), which arguments are
// optional (`omitempty` or `omitzero`), the types and the descriptions
// (`jsonschema` tags); SchemaFor's rules add what a tag cannot say: enums,
// bounds, lengths, patterns, defaults, conditionals.

// SchemaFor is the input schema of a tool whose arguments decode into T
// (a struct), with rules applied to the generated schema. Every object
// refuses properties it does not name. A slice or pointer is not nullable
// unless a rule says Nullable: null is not an argument an agent means.
// Like regexp.MustCompile it panics when T or a rule is wrong, since a
// manifest is a declaration; the registry's tests see it at once.
func SchemaFor[T any](rules ...SchemaRule) json.RawMessage {
	s, err := schemaFor(reflect.TypeFor[T](), rules)
	if err != nil {
		panic(fmt.Sprintf("adapters.SchemaFor[%s]: %v", reflect.TypeFor[T](), err))
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("adapters.SchemaFor[%s]: %v", reflect.TypeFor[T](), err))
	}
	return raw
}

// anyJSON are the Go types that hold any JSON value as it came.
var anyJSON = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {},
}

func schemaFor(t reflect.Type, rules []SchemaRule) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: anyJSON})
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("the arguments must be a struct, not %s", t)
	}
	notNull(s)
	if s.Properties == nil {
		// A tool that takes nothing still says so: "properties": {}.
		s.Properties = map[string]*jsonschema.Schema{}
	}
	for _, r := range rules {
		target, err := r.find(s)
		if err != nil {
			return nil, err
		}
		for _, edit := range r.edits {
			edit(target)
		}
	}
	return s, nil
}

// notNull drops the "null" jsonschema.For allows for slices and pointers.
func notNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if i := slices.Index(s.Types, "null"); i >= 0 && len(s.Types) == 2 {
		s.Type, s.Types = s.Types[1-i], nil
	}
	notNull(s.Items)
	notNull(s.AdditionalProperties)
	for _, p := range s.Properties {
		notNull(p)
	}
}

// SchemaRule applies edits to one place in a generated schema.
type SchemaRule struct {
	path  string
	edits []SchemaEdit
}

// SchemaEdit changes one schema in place. The ones below cover the usual
// keywords; a conditional or anything rarer is a func of one's own.
type SchemaEdit func(*jsonschema.Schema)

// At names the place rules apply: "" is the arguments object, "a.b" the
// property b of the property a, and "a[]" the items of the array a, so
// "rails[].efficiency" is the efficiency of every rail.
func At(path string, edits ...SchemaEdit) SchemaRule {
	return SchemaRule{path: path, edits: edits}
}

func (r SchemaRule) find(s *jsonschema.Schema) (*jsonschema.Schema, error) {
	if r.path == "" {
		return s, nil
	}
	for _, seg := range strings.Split(r.path, ".") {
		name, items := strings.CutSuffix(seg, "[]")
		p, ok := s.Properties[name]
		if !ok {
			return nil, fmt.Errorf("rule at %q: there is no argument %q", r.path, name)
		}
		s = p
		if items {
			if s.Items == nil {
				return nil, fmt.Errorf("rule at %q: %q is not an array", r.path, name)
			}
			s = s.Items
		}
	}
	return s, nil
}

// Describe sets a description (for the arguments object itself, or where
// a tag cannot reach).
func Describe(text string) SchemaEdit {
	return func(s *jsonschema.Schema) { s.Description = text }
}

// Enum limits a value to the ones given.
func Enum[V any](values ...V) SchemaEdit {
	return func(s *jsonschema.Schema) {
		s.Enum = nil
		for _, v := range values {
			s.Enum = append(s.Enum, v)
		}
	}
}

// Const fixes a value.
func Const(v any) SchemaEdit {
	return func(s *jsonschema.Schema) { s.Const = &v }
}

// Minimum is an inclusive lower bound.
func Minimum(v float64) SchemaEdit {
	return func(s *jsonschema.Schema) { s.Minimum = &v }
}

// ExclusiveMinimum is a strict lower bound.
func ExclusiveMinimum(v float64) SchemaEdit {
	return func(s *jsonschema.Schema) { s.ExclusiveMinimum = &v }
}

// Maximum is an inclusive upper bound.
func Maximum(v float64) SchemaEdit {
	return func(s *jsonschema.Schema) { s.Maximum = &v }
}

// ExclusiveMaximum is a strict upper bound.
func ExclusiveMaximum(v float64) SchemaEdit {
	return func(s *jsonschema.Schema) { s.ExclusiveMaximum = &v }
}

// MinLength is the fewest characters a string may have.
func MinLength(n int) SchemaEdit {
	return func(s *jsonschema.Schema) { s.MinLength = &n }
}

// MaxLength is the most characters a string may have.
func MaxLength(n int) SchemaEdit {
	return func(s *jsonschema.Schema) { s.MaxLength = &n }
}

// Pattern is a regular expression a string must match.
func Pattern(re string) SchemaEdit {
	return func(s *jsonschema.Schema) { s.Pattern = re }
}

// MinItems is the fewest items an array may have.
func MinItems(n int) SchemaEdit {
	return func(s *jsonschema.Schema) { s.MinItems = &n }
}

// MaxItems is the most items an array may have.
func MaxItems(n int) SchemaEdit {
	return func(s *jsonschema.Schema) { s.MaxItems = &n }
}

// UniqueItems refuses an array with a repeated item.
func UniqueItems() SchemaEdit {
	return func(s *jsonschema.Schema) { s.UniqueItems = true }
}

// MaxProperties is the most properties an object may have.
func MaxProperties(n int) SchemaEdit {
	return func(s *jsonschema.Schema) { s.MaxProperties = &n }
}

// Default is the value taken when the argument is left out (the decoder
// does not fill it: the tool does, and this says what it will be).
func Default(v any) SchemaEdit {
	return func(s *jsonschema.Schema) {
		raw, err := json.Marshal(v)
		if err != nil {
			panic(fmt.Sprintf("adapters.Default(%v): %v", v, err))
		}
		s.Default = raw
	}
}

// Nullable lets the value also be JSON null.
func Nullable() SchemaEdit {
	return func(s *jsonschema.Schema) {
		if s.Type != "" {
			s.Types, s.Type = []string{s.Type, "null"}, ""
		} else if !slices.Contains(s.Types, "null") {
			s.Types = append(s.Types, "null")
		}
	}
}

// Type replaces the generated type, for a Go type that holds any JSON
// (json.RawMessage, any) but where the tool takes one kind.
func Type(types ...string) SchemaEdit {
	return func(s *jsonschema.Schema) {
		s.Type, s.Types = "", nil
		if len(types) == 1 {
			s.Type = types[0]
		} else {
			s.Types = types
		}
	}
}

// Require replaces the required arguments of an object, for a Go type
// whose optional fields cannot carry omitempty (it is also encoded).
func Require(names ...string) SchemaEdit {
	return func(s *jsonschema.Schema) { s.Required = names }
}

// Then adds an if/then to an object: when the argument named by if is
// its value, the then schema applies too. The shape-per-value case
// ("shape_type cylinder takes diameter and height") is this; unknown
// argument messages name the chosen branch's arguments.
func Then(ifArg string, value any, then *jsonschema.Schema) SchemaEdit {
	return func(s *jsonschema.Schema) {
		s.AllOf = append(s.AllOf, &jsonschema.Schema{
			If:   &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{ifArg: {Const: &value}}, Required: []string{ifArg}},
			Then: then,
		})
	}
}
