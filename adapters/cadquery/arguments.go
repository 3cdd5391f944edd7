package cadquery

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/internal/materials"
	"github.com/metaforge/metaforge/protocol"
)

// The registry checks arguments against the input schema before Call; the
// checks here hold for a direct call too, and add what a schema cannot say
// (files that exist in the workspace, names unique, dimensions that fit).

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
	stlExts  = []string{".stl"}
)

// inputFile resolves a STEP or BREP input inside the workspace: it must
// exist there, and its extension says which it is.
func (a *Adapter) inputFile(field, path string) (string, error) {
	resolved, err := a.resolveInput(field, path)
	if err != nil {
		return "", err
	}
	ext := strings.ToLower(filepath.Ext(resolved))
	if !slices.Contains(stepExts, ext) && !slices.Contains(brepExts, ext) {
		return "", protocol.Invalid("%s %q is not a STEP (.step, .stp) or BREP (.brep, .brp) file", field, path)
	}
	return resolved, nil
}

// measuredFile is inputFile for cadquery.get_properties, which measures a
// closed STL mesh too (its triangles sewn into a solid).
func (a *Adapter) measuredFile(field, path string) (string, error) {
	resolved, err := a.resolveInput(field, path)
	if err != nil {
		return "", err
	}
	ext := strings.ToLower(filepath.Ext(resolved))
	if !slices.Contains(stepExts, ext) && !slices.Contains(brepExts, ext) && !slices.Contains(stlExts, ext) {
		return "", protocol.Invalid("%s %q is not a STEP (.step, .stp), BREP (.brep, .brp) or STL (.stl) file", field, path)
	}
	return resolved, nil
}

// resolveInput resolves an input file inside the workspace, absolute.
func (a *Adapter) resolveInput(field, path string) (string, error) {
	resolved, err := a.ws.ResolveRead(field, path)
	if err != nil {
		return "", err
	}
	if resolved, err = filepath.Abs(resolved); err != nil {
		return "", protocol.Invalid("%s %q has no absolute path: %v", field, path, err)
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
