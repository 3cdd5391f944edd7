package cadquery

import (
	"encoding/json"

	"github.com/metaforge/metaforge/internal/materials"
)

// The CAD kernel capability contract (spec 003): another kernel serving
// cad_generation, cad_operations, cad_analysis or cad_export takes the same
// arguments, checks them the same way and answers with the same fields.
// These are this adapter's own definitions, exported for it to reuse, so
// the two kernels cannot drift apart.

// The arguments and results of the contract's tools.
type (
	ParametricArgs   = parametricArgs
	ParametricResult = parametricResult
	BooleanArgs      = booleanArgs
	BooleanResult    = booleanResult
	PropertiesArgs   = propertiesArgs
	PropertiesResult = propertiesResult
	ExportArgs       = exportArgs
	ExportResult     = exportResult
)

// Input and output schemas of the contract's tools. Export's input schema
// is not shared between kernels, since each offers its own formats; the
// cad adapter narrows this one to the formats every kernel writes.
var (
	ParametricInputSchema  = parametricInputSchema()
	ParametricOutputSchema = json.RawMessage(parametricOutputSchema)
	BooleanInputSchema     = booleanInputSchema
	BooleanOutputSchema    = json.RawMessage(booleanOutputSchema)
	PropertiesInputSchema  = propertiesInputSchema
	PropertiesOutputSchema = json.RawMessage(propertiesOutputSchema)
	ExportInputSchema      = exportInputSchema
	ExportOutputSchema     = json.RawMessage(exportOutputSchema)
)

// Schema fragments: a bounding box, one that may be null, an [x, y, z].
const (
	BBoxSchema         = bboxSchema
	NullableBBoxSchema = nullableBBoxSchema
	Vec3Schema         = vec3Schema
)

// BooleanOperations are cad_operations' operations.
var BooleanOperations = booleanOperations

// CompleteShape checks a create_parametric call's shape_type and
// parameters and returns every parameter, defaults filled in.
func CompleteShape(shapeType string, given map[string]float64) (map[string]float64, error) {
	s, err := findShape(shapeType)
	if err != nil {
		return nil, err
	}
	return s.complete(given)
}

// ShapeSummaries describes the shapes and their defaults, for a tool
// description.
func ShapeSummaries() string { return shapeSummaries() }

// OutputName checks an output_path: a plain file name ending in one of
// exts (the first is added to a name without one); empty means def.
func OutputName(field, name, def string, exts ...string) (string, error) {
	return outputName(field, name, def, exts...)
}

// Material looks a material up in the one materials table; nil when name
// is empty.
func Material(name string) (*materials.Material, error) { return optionalMaterial(name) }

// MassOf is the mass of volumeMM3 of m, nil without a material: a mass is
// never defaulted.
func MassOf(m *materials.Material, volumeMM3 float64) *float64 { return massOf(m, volumeMM3) }

// MaterialName is m's name in the table, empty without one.
func MaterialName(m *materials.Material) string { return materialName(m) }
