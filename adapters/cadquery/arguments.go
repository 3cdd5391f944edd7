package cadquery

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/adapters/materials"
	"github.com/metaforge/metaforge/protocol"
)

// The registry checks arguments against the input schema before Call; the
// checks here hold for a direct call too, and add what a schema cannot say
// (files that exist in the workspace, names unique, dimensions that fit).

// decodeArgs decodes a tool's arguments into v, a pointer to its argument
// struct, refusing fields v does not have.
func decodeArgs(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return protocol.Invalid("argument %s must be %s, not a JSON %s", typeErr.Field, jsonKind(typeErr.Type), typeErr.Value)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return protocol.Invalid("unknown argument %s; the arguments are %s", name, strings.Join(argNames(reflect.TypeOf(v), ""), ", "))
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

// outputName checks a tool's output_path: a plain file name, written in
// the call's own folder, ending in one of exts (the first is added to a
// name without an extension). Empty means def.
func outputName(field, name, def string, exts ...string) (string, error) {
	if name == "" {
		return def, nil
	}
	if strings.ContainsAny(name, `/\`) || name == "." || name == ".." || strings.ContainsRune(name, 0) {
		return "", protocol.Invalid("%s %q must be a plain file name such as %q: the file goes in the call's own output folder, "+
			"so it may not name folders or climb out of it with ..", field, name, def)
	}
	if len(name) > 255 {
		return "", protocol.Invalid("%s is %d characters long; a file name may have at most 255", field, len(name))
	}
	ext := strings.ToLower(filepath.Ext(name))
	switch {
	case ext == "":
		return name + exts[0], nil
	case !slices.Contains(exts, ext):
		return "", protocol.Invalid("%s %q must end in %s", field, name, strings.Join(exts, " or "))
	}
	return name, nil
}

// Extensions of the CAD files the tools read.
var (
	stepExts = []string{".step", ".stp"}
	brepExts = []string{".brep", ".brp"}
)

// inputFile resolves a STEP or BREP input inside the workspace: it must
// exist there, and its extension says which it is.
func (a *Adapter) inputFile(field, path string) (string, error) {
	resolved, err := a.ws.Resolve(field, path)
	if err != nil {
		return "", err
	}
	if resolved, err = filepath.Abs(resolved); err != nil {
		return "", protocol.Invalid("%s %q has no absolute path: %v", field, path, err)
	}
	ext := strings.ToLower(filepath.Ext(resolved))
	if !slices.Contains(stepExts, ext) && !slices.Contains(brepExts, ext) {
		return "", protocol.Invalid("%s %q is not a STEP (.step, .stp) or BREP (.brep, .brp) file", field, path)
	}
	return resolved, nil
}

// optionalMaterial looks a material up; nil when none was given.
func optionalMaterial(name string) (*materials.Material, error) {
	if name == "" {
		return nil, nil
	}
	m, err := materials.Lookup(name)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// massOf is the mass of volumeMM3 of m, or nil without a material: a mass
// is never defaulted.
func massOf(m *materials.Material, volumeMM3 float64) *float64 {
	if m == nil {
		return nil
	}
	kg := m.MassKg(volumeMM3)
	return &kg
}

// materialName is the canonical name of m, empty without one.
func materialName(m *materials.Material) string {
	if m == nil {
		return ""
	}
	return m.Name
}
