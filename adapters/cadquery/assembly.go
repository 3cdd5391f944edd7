package cadquery

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// ToolCreateAssembly places parts into an assembly and checks them for
// interference.
const ToolCreateAssembly = "cadquery.create_assembly"

// maxParts bounds an assembly: the interference check is pairwise.
const maxParts = 100

// partName is what a part may be called: CadQuery addresses an assembly's
// children by name, with "/" between levels.
var partName = regexp.MustCompile(`^[^/\x00-\x1f]{1,100}$`)

var assemblyTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolCreateAssembly,
		AdapterID: AdapterID,
		Name:      "Create assembly",
		Description: "Place parts (STEP or BREP files) into an assembly, write it as one STEP with a named child per part, and check " +
			"every pair of parts for interference: bounding boxes first, then the boolean intersection of the placed solids. " +
			"Each part is rotated by rx, ry, rz degrees about the global X, then Y, then Z axes through its own origin, then moved " +
			"by x, y, z mm. Returns output_file (absolute path), part_count, volume_mm3 (sum of the placed parts), bounding_box " +
			"({min, max, size}, mm), parts (each placed part's name, volume_mm3 and bounding_box), interferences ([{part_a, part_b, " +
			"volume_mm3}] for every pair sharing more than 1e-6 mm^3; faces that only touch do not count) and " +
			"interference_check_passed (no interferences). With a material, also material and mass_kg: the summed volume x that " +
			"one material's density, a first-order estimate (one material for every part, overlaps counted twice).",
		Capability:     "cad_assembly",
		InputSchema:    assemblyInputSchema,
		OutputSchema:   json.RawMessage(assemblyOutputSchema),
		Idempotent:     true,
		TimeoutSeconds: 300,
	},
	call: (*Adapter).createAssembly,
}

type assemblyArgs struct {
	Parts      []partArgs `json:"parts"`
	Material   string     `json:"material,omitempty"`
	OutputPath string     `json:"output_path,omitempty"`
}

type partArgs struct {
	Name string  `json:"name" jsonschema:"Unique name of the part in the assembly."`
	File string  `json:"file"`
	X    float64 `json:"x" jsonschema:"Move along X, mm, after rotating."`
	Y    float64 `json:"y" jsonschema:"Move along Y, mm, after rotating."`
	Z    float64 `json:"z" jsonschema:"Move along Z, mm, after rotating."`
	RX   float64 `json:"rx" jsonschema:"Rotation about the global X axis through the part's origin, degrees; applied first."`
	RY   float64 `json:"ry" jsonschema:"Rotation about the global Y axis, degrees; applied second."`
	RZ   float64 `json:"rz" jsonschema:"Rotation about the global Z axis, degrees; applied third."`
}

type assemblyRequest struct {
	Parts      []partArgs `json:"parts"`
	OutputFile string     `json:"output_file"`
}

type assemblyResult struct {
	OutputFile              string         `json:"output_file"`
	PartCount               int            `json:"part_count"`
	VolumeMM3               float64        `json:"volume_mm3"`
	BoundingBox             *BoundingBox   `json:"bounding_box"`
	Parts                   []placedPart   `json:"parts"`
	Interferences           []interference `json:"interferences"`
	InterferenceCheckPassed bool           `json:"interference_check_passed"`
	Material                string         `json:"material,omitempty"`
	MassKg                  *float64       `json:"mass_kg,omitempty"`
}

type placedPart struct {
	Name        string       `json:"name"`
	VolumeMM3   float64      `json:"volume_mm3"`
	BoundingBox *BoundingBox `json:"bounding_box"`
}

type interference struct {
	PartA     string  `json:"part_a"`
	PartB     string  `json:"part_b"`
	VolumeMM3 float64 `json:"volume_mm3"`
}

func (a *Adapter) createAssembly(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in assemblyArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	if len(in.Parts) == 0 || len(in.Parts) > maxParts {
		return nil, protocol.Invalid("parts must list 1 to %d parts, got %d", maxParts, len(in.Parts))
	}
	seen := map[string]bool{}
	parts := make([]partArgs, len(in.Parts))
	for i, p := range in.Parts {
		switch {
		case !partName.MatchString(p.Name):
			return nil, protocol.Invalid("parts[%d].name %q must be 1 to 100 characters with no \"/\" or control characters", i, p.Name)
		case seen[p.Name]:
			return nil, protocol.Invalid("parts[%d].name %q is used twice; each part needs a name of its own", i, p.Name)
		}
		seen[p.Name] = true
		file, err := a.inputFile(fmt.Sprintf("parts[%d].file", i), p.File)
		if err != nil {
			return nil, err
		}
		p.File = file
		parts[i] = p
	}
	mat, err := optionalMaterial(in.Material)
	if err != nil {
		return nil, err
	}
	name, err := outputName("output_path", in.OutputPath, "assembly.step", stepExts...)
	if err != nil {
		return nil, err
	}
	out := assemblyResult{Material: materialName(mat)}
	files, err := a.produce(ctx, ToolCreateAssembly, name, func(_, file string) any {
		return assemblyRequest{Parts: parts, OutputFile: file}
	}, &out)
	if err != nil {
		return nil, err
	}
	out.MassKg = massOf(mat, out.VolumeMM3)
	return result(out, files)
}

// assemblyInputSchema is generated from assemblyArgs. partArgs is also
// what the kernel gets, so its placement stays in the kernel's JSON even
// at 0: which part fields are required is said here, not by omitempty.
var assemblyInputSchema = adapters.SchemaFor[assemblyArgs](
	adapters.At("parts", adapters.MinItems(1), adapters.MaxItems(100)),
	adapters.At("parts[]", adapters.Require("name", "file")),
	adapters.At("parts[].name", adapters.MinLength(1), adapters.MaxLength(100), adapters.Pattern(`^[^/\x00-\x1f]+$`)),
	inputFile("parts[].file"),
	adapters.At("parts[].x", adapters.Default(0)), adapters.At("parts[].y", adapters.Default(0)), adapters.At("parts[].z", adapters.Default(0)),
	adapters.At("parts[].rx", adapters.Default(0)), adapters.At("parts[].ry", adapters.Default(0)), adapters.At("parts[].rz", adapters.Default(0)),
	material,
	outputPath("assembly.step", ".step or .stp"),
)

const assemblyOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["output_file", "part_count", "volume_mm3", "bounding_box", "parts", "interferences", "interference_check_passed"],
  "properties": {
    "output_file": {"type": "string", "description": "Absolute path of the assembly's STEP file."},
    "part_count": {"type": "integer", "minimum": 1},
    "volume_mm3": {"type": "number", "description": "Sum of the placed parts' volumes, mm^3 (overlaps counted twice)."},
    "bounding_box": ` + nullableBBoxSchema + `,
    "parts": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["name", "volume_mm3", "bounding_box"],
      "properties": {"name": {"type": "string"}, "volume_mm3": {"type": "number"}, "bounding_box": ` + nullableBBoxSchema + `}}},
    "interferences": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["part_a", "part_b", "volume_mm3"],
      "properties": {"part_a": {"type": "string"}, "part_b": {"type": "string"}, "volume_mm3": {"type": "number", "description": "Volume the two placed parts share, mm^3."}}}},
    "interference_check_passed": {"type": "boolean", "description": "true when no two parts share volume."},
    "material": {"type": "string", "description": "The material's name in the table; present only when a material was given."},
    "mass_kg": {"type": "number", "minimum": 0, "description": "First-order estimate, kg: volume_mm3 x the one material's density. Present only when a material was given."}
  }
}`
