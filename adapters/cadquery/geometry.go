package cadquery

import (
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/materials"
)

// BoundingBox is the one bounding-box shape every tool reports: the exact
// axis-aligned box (not a tessellated or tolerance-padded one), in mm.
type BoundingBox struct {
	Min  [3]float64 `json:"min"`
	Max  [3]float64 `json:"max"`
	Size [3]float64 `json:"size"`
}

// Schema fragments shared by the tools' schemas.
const (
	vec3Schema = `{"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3}`

	bboxSchema = `{"type": "object", "additionalProperties": false, "required": ["min", "max", "size"],
    "description": "Exact axis-aligned bounding box, mm: min and max corners and size (max - min), each [x, y, z].",
    "properties": {"min": ` + vec3Schema + `, "max": ` + vec3Schema + `, "size": ` + vec3Schema + `}}`

	// nullableBBoxSchema is a bounding box, or null for an empty shape.
	nullableBBoxSchema = `{"anyOf": [` + bboxSchema + `, {"type": "null"}]}`

	matrix3Schema = `{"type": "array", "minItems": 3, "maxItems": 3, "items": ` + vec3Schema + `}`

	massSchema = `{"type": "number", "minimum": 0, "description": "Mass, kg: volume x the material's density. Present only when a material was given."}`
)

// outputPath is the rule of an output_path argument whose default is
// def and whose extension is one of exts.
func outputPath(def, exts string) adapters.SchemaRule {
	return adapters.At("output_path", plainFileName,
		adapters.Describe("Plain file name (no folders) for the output, written in the call's own output folder; the result gives its absolute path. "+
			"Default "+def+". Must end in "+exts+"; a name without an extension gets one."))
}

// plainFileName is a file name with no folder in it, not . or ..
func plainFileName(s *jsonschema.Schema) {
	adapters.MinLength(1)(s)
	adapters.MaxLength(255)(s)
	adapters.Pattern(`^[^/\\]+$`)(s)
	s.Not = &jsonschema.Schema{}
	adapters.Enum(".", "..")(s.Not)
}

// inputFile is the rule of a STEP or BREP input file argument at path.
func inputFile(path string) adapters.SchemaRule {
	return adapters.At(path, adapters.MinLength(1),
		adapters.Describe("Path of a STEP (.step, .stp) or BREP (.brep, .brp) file inside the workspace, e.g. a cad_file or output_file an earlier call returned; a relative path is taken from the workspace root."))
}

// material names the materials of the one materials table.
var material = adapters.At("material", adapters.MinLength(1),
	adapters.Describe("Material from MetaForge's materials table ("+strings.Join(materials.Names(), ", ")+
		"; common aliases such as aluminum work). Its density gives mass_kg."))
