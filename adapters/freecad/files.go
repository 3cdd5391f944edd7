package freecad

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/gmsh"
	"github.com/metaforge/metaforge/protocol"
)

// Extensions of the files the tools read and write.
var (
	stepExts  = []string{".step", ".stp"}
	brepExts  = []string{".brep", ".brp"}
	stlExts   = []string{".stl"}
	fcstdExts = []string{".fcstd"}
)

// fileKinds names the kinds of file a tool reads, for its errors.
var kindNames = map[string]string{
	".step": "STEP (.step, .stp)", ".brep": "BREP (.brep, .brp)", ".stl": "STL (.stl)", ".fcstd": "FreeCAD document (.FCStd)",
}

// input resolves a file the tool reads inside the workspace: it must exist
// there, and its extension must be one of kinds' (".step" standing for
// STEP, ".brep" for BREP, ".stl", ".fcstd").
func (a *Adapter) input(field, path string, kinds ...string) (string, error) {
	resolved, err := a.ws.ResolveRead(field, path)
	if err != nil {
		return "", err
	}
	if resolved, err = filepath.Abs(resolved); err != nil {
		return "", protocol.Invalid("%s %q has no absolute path: %v", field, path, err)
	}
	ext := strings.ToLower(filepath.Ext(resolved))
	for _, k := range kinds {
		if exts(k) != nil && slices.Contains(exts(k), ext) {
			if k == ".step" {
				// OpenCASCADE opens the files a STEP references.
				if err := gmsh.CheckStepRefs(field, resolved, "FreeCAD"); err != nil {
					return "", err
				}
			}
			return resolved, nil
		}
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = kindNames[k]
	}
	return "", protocol.Invalid("%s %q is not a %s file", field, path, strings.Join(names, " or "))
}

func exts(kind string) []string {
	switch kind {
	case ".step":
		return stepExts
	case ".brep":
		return brepExts
	case ".stl":
		return stlExts
	case ".fcstd":
		return fcstdExts
	}
	return nil
}

// stem is a file's name without its folder and extension.
func stem(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// withKernel is a result schema with the field "kernel": "freecad" added
// (required), the one field each FreeCAD result adds to the contract's.
func withKernel(schema json.RawMessage) json.RawMessage {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		panic("freecad: a result schema does not decode: " + err.Error())
	}
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		s["properties"] = props
	}
	props["kernel"] = map[string]any{"const": AdapterID, "description": "The CAD kernel that did the work."}
	req, _ := s["required"].([]any)
	s["required"] = append(req, "kernel")
	out, err := json.Marshal(s)
	if err != nil {
		panic("freecad: a result schema does not encode: " + err.Error())
	}
	return out
}

// inputRule describes an input file argument at path.
func inputRule(path, what string) adapters.SchemaRule {
	return adapters.At(path, adapters.MinLength(1),
		adapters.Describe("Path of "+what+" inside the workspace, e.g. a cad_file or output_file an earlier call returned; "+
			"a relative path is taken from the workspace root."))
}

// outputRule describes an output_path argument.
func outputRule(def, extsText string) adapters.SchemaRule {
	return adapters.At("output_path", adapters.MinLength(1), adapters.MaxLength(255), adapters.Pattern(`^[^/\\]+$`),
		adapters.Describe("Plain file name (no folders) for the output, written in the call's own output folder; the result gives its absolute path. "+
			"Default "+def+". Must end in "+extsText+"; a name without an extension gets one."))
}

// kernel is the field each result adds.
type kernel struct {
	Kernel string `json:"kernel"`
}

var freecadKernel = kernel{Kernel: AdapterID}
