package adapters

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// An argument the tool does not take is the commonest mistake an agent
// makes (a radius for a tool that takes a diameter), so both the schema
// check and the decoder answer it the same way: the argument, and the
// ones the tool takes there, e.g. "unknown argument radius; this tool
// takes diameter, height".

// unknownMessage words the answer. at is where the unknown arguments are
// ("" for the top level, "rails[]" for each rail), when the condition
// that chose the branch ("shape_type cylinder"), takes what is allowed there.
func unknownMessage(at, when string, unknown, takes []string) string {
	names := make([]string, len(unknown))
	for i, u := range unknown {
		names[i] = joinPath(at, u)
	}
	noun := "argument"
	if len(names) > 1 {
		noun = "arguments"
	}
	who := "this tool"
	if at != "" {
		who = at
	}
	if when != "" {
		who = "with " + when + ", " + who
	}
	if len(takes) == 0 {
		return fmt.Sprintf("unknown %s %s; %s takes none", noun, strings.Join(names, ", "), who)
	}
	return fmt.Sprintf("unknown %s %s; %s takes %s", noun, strings.Join(names, ", "), who, strings.Join(takes, ", "))
}

func joinPath(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// unknownArguments reads a schema validation error that refused
// additional properties and says which, and what the schema at that place
// takes. ok is false for any other error.
func unknownArguments(root *jsonschema.Schema, err error) (string, bool) {
	msg := err.Error()
	var pointer string
	for {
		msg = strings.TrimPrefix(msg, "validating root: ")
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		seg, tail, found := strings.Cut(rest, ": ")
		if !found {
			break
		}
		pointer, msg = seg, tail
	}
	list, ok := strings.CutPrefix(msg, "unexpected additional properties ")
	if !ok {
		return "", false
	}
	unknown, ok := quotedList(list)
	if !ok {
		return "", false
	}
	slices.Sort(unknown)
	s, at, when, ok := schemaAt(root, pointer)
	if !ok {
		return "", false
	}
	takes := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		takes = append(takes, name)
	}
	slices.Sort(takes)
	return unknownMessage(at, when, unknown, takes), true
}

// findUnknown walks an instance with its schema and finds the first
// object with a property its schema refuses (additionalProperties false).
// It follows the then of an if/then before properties, so a shape's own
// arguments are named rather than every shape's. It follows items and the then of an if/then whose if tests
// one argument that the instance has (the chosen shape); it leaves
// anyOf and oneOf to the validator, since which branch was meant is a
// guess.
func findUnknown(s *jsonschema.Schema, instance any, at, when string) (string, bool) {
	if s == nil {
		return "", false
	}
	switch v := instance.(type) {
	case map[string]any:
		if s.AdditionalProperties != nil && isFalse(s.AdditionalProperties) && len(s.PatternProperties) == 0 {
			var unknown []string
			for _, k := range sortedNames(v) {
				if _, ok := s.Properties[k]; !ok {
					unknown = append(unknown, k)
				}
			}
			if len(unknown) > 0 {
				takes := make([]string, 0, len(s.Properties))
				for name := range s.Properties {
					takes = append(takes, name)
				}
				slices.Sort(takes)
				return unknownMessage(at, when, unknown, takes), true
			}
		}
		for _, sub := range s.AllOf {
			if msg, ok := findUnknown(sub, instance, at, when); ok {
				return msg, true
			}
		}
		if s.If != nil && s.Then != nil {
			if chosen, ok := chosenBy(s.If, v); ok && chosen {
				if msg, ok := findUnknown(s.Then, instance, at, condition(s.If)); ok {
					return msg, true
				}
			}
		}
		for _, k := range sortedNames(v) {
			if p, ok := s.Properties[k]; ok {
				if msg, ok := findUnknown(p, v[k], joinPath(at, k), when); ok {
					return msg, true
				}
			}
		}
	case []any:
		if s.Items != nil {
			for _, item := range v {
				if msg, ok := findUnknown(s.Items, item, at+"[]", when); ok {
					return msg, true
				}
			}
		}
	}
	return "", false
}

// isFalse is additionalProperties false, which decodes as {"not": {}}.
func isFalse(s *jsonschema.Schema) bool {
	return s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

// chosenBy decides a one-argument if (const or enum) on an object; ok is
// false for an if it cannot read.
func chosenBy(ifSchema *jsonschema.Schema, obj map[string]any) (chosen, ok bool) {
	if len(ifSchema.Properties) != 1 {
		return false, false
	}
	for name, p := range ifSchema.Properties {
		got, present := obj[name]
		if !present {
			return false, slices.Contains(ifSchema.Required, name)
		}
		switch {
		case p.Const != nil:
			return reflect.DeepEqual(normalJSON(*p.Const), got), true
		case len(p.Enum) > 0:
			return slices.ContainsFunc(p.Enum, func(e any) bool { return reflect.DeepEqual(normalJSON(e), got) }), true
		}
	}
	return false, false
}

// normalJSON is v as encoding/json decodes it into an any, so a Go
// schema value compares with an instance value.
func normalJSON(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

// quotedList reads the validator's %q of a []string: ["a" "b"].
func quotedList(list string) ([]string, bool) {
	rest, ok := strings.CutPrefix(list, "[")
	if !ok {
		return nil, false
	}
	var out []string
	for {
		rest = strings.TrimLeft(rest, " ")
		if rest == "]" {
			return out, len(out) > 0
		}
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, false
		}
		name, _ := strconv.Unquote(q)
		out = append(out, name)
		rest = rest[len(q):]
	}
}

// schemaAt follows a JSON pointer into root, as the validator reports
// it ("/properties/rails/items", "/allOf/2/then/properties/parameters"),
// and returns the schema there, the argument path it stands for
// ("rails[]", "parameters") and, inside an if/then, the condition that
// chose it ("shape_type cylinder").
func schemaAt(root *jsonschema.Schema, pointer string) (s *jsonschema.Schema, at, when string, ok bool) {
	s = root
	var path []string
	segs := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	if pointer == "" || pointer == "root" {
		segs = nil
	}
	for i := 0; i < len(segs); i++ {
		var next *jsonschema.Schema
		switch seg := segs[i]; seg {
		case "properties":
			if i+1 >= len(segs) {
				return nil, "", "", false
			}
			i++
			name := strings.ReplaceAll(strings.ReplaceAll(segs[i], "~1", "/"), "~0", "~")
			next = s.Properties[name]
			path = append(path, name)
		case "items":
			next = s.Items
			if len(path) > 0 {
				path[len(path)-1] += "[]"
			}
		case "allOf", "anyOf", "oneOf":
			if i+1 >= len(segs) {
				return nil, "", "", false
			}
			i++
			n, err := strconv.Atoi(segs[i])
			list := map[string][]*jsonschema.Schema{"allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf}[seg]
			if err != nil || n < 0 || n >= len(list) {
				return nil, "", "", false
			}
			next = list[n]
		case "then":
			next = s.Then
			when = condition(s.If)
		case "else":
			next = s.Else
		default:
			return nil, "", "", false
		}
		if next == nil {
			return nil, "", "", false
		}
		s = next
	}
	return s, strings.Join(path, "."), when, true
}

// condition words an if that tests one argument against a value, as
// "shape_type cylinder"; any other if is not worded.
func condition(ifSchema *jsonschema.Schema) string {
	if ifSchema == nil || len(ifSchema.Properties) != 1 {
		return ""
	}
	for name, p := range ifSchema.Properties {
		switch {
		case p.Const != nil:
			return fmt.Sprintf("%s %v", name, *p.Const)
		case len(p.Enum) > 0:
			vals := make([]string, len(p.Enum))
			for i, v := range p.Enum {
				vals[i] = fmt.Sprint(v)
			}
			return fmt.Sprintf("%s %s", name, strings.Join(vals, " or "))
		}
	}
	return ""
}

// unknownField finds the first key of value (decoded JSON) that the Go
// type t has no field for, and says where it is and what t takes there.
func unknownField(t reflect.Type, value any, at string) (string, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		items, _ := value.([]any)
		for _, item := range items {
			if msg, ok := unknownField(t.Elem(), item, at+"[]"); ok {
				return msg, true
			}
		}
	case reflect.Map:
		obj, _ := value.(map[string]any)
		for _, k := range sortedNames(obj) {
			if msg, ok := unknownField(t.Elem(), obj[k], joinPath(at, k)); ok {
				return msg, true
			}
		}
	case reflect.Struct:
		obj, ok := value.(map[string]any)
		if !ok {
			return "", false
		}
		fields := map[string]reflect.Type{}
		var takes []string
		for _, f := range reflect.VisibleFields(t) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" || (f.Anonymous && name == "") {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fields[name] = f.Type
			takes = append(takes, name)
		}
		var unknown []string
		for _, k := range sortedNames(obj) {
			if _, ok := fields[k]; !ok && !foldMatch(fields, k) {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			return unknownMessage(at, "", unknown, takes), true
		}
		for _, k := range sortedNames(obj) {
			if ft, ok := fields[k]; ok {
				if msg, ok := unknownField(ft, obj[k], joinPath(at, k)); ok {
					return msg, true
				}
			}
		}
	}
	return "", false
}

// foldMatch is encoding/json's leniency: a key matches a field whose name
// differs only in case, so it is not unknown to the decoder.
func foldMatch(fields map[string]reflect.Type, key string) bool {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return true
		}
	}
	return false
}

func sortedNames(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
