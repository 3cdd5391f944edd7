package cad

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/gmsh"
)

// The cad.* tools: one per row of the contract, each taking its members'
// own argument type (and kernel) and answering with the member's data and
// the kernel that made it.
const (
	ToolCreateParametric = "cad.create_parametric"
	ToolBooleanOperation = "cad.boolean_operation"
	ToolGetProperties    = "cad.get_properties"
	ToolExportGeometry   = "cad.export_geometry"
	ToolGenerateMesh     = "cad.generate_mesh"
)

// Choice is the argument every cad.* tool adds to its members'.
type Choice struct {
	Kernel string `json:"kernel,omitempty"`
}

// The arguments of the cad.* tools: the kernels' own types, so a call is
// forwarded as the member decodes it.
type (
	ParametricArgs struct {
		cadquery.ParametricArgs
		Choice
	}
	BooleanArgs struct {
		cadquery.BooleanArgs
		Choice
	}
	PropertiesArgs struct {
		cadquery.PropertiesArgs
		Choice
	}
	ExportArgs struct {
		cadquery.ExportArgs
		Choice
	}
	MeshArgs struct {
		gmsh.MeshRequest
		Choice
	}
)

// forwardable is a cad.* tool's arguments: the kernel asked for and the
// member's arguments.
type forwardable interface {
	split() (kernel string, args any)
}

func (a ParametricArgs) split() (string, any) { return a.Kernel, a.ParametricArgs }
func (a BooleanArgs) split() (string, any)    { return a.Kernel, a.BooleanArgs }
func (a PropertiesArgs) split() (string, any) { return a.Kernel, a.PropertiesArgs }
func (a ExportArgs) split() (string, any)     { return a.Kernel, a.ExportArgs }
func (a MeshArgs) split() (string, any)       { return a.Kernel, a.MeshRequest }

// tool is one cad.* tool: its manifest and how its arguments decode.
type tool struct {
	manifest adapters.Manifest
	decode   func(raw json.RawMessage) (kernel string, args any, err error)
}

func decoder[In forwardable]() func(json.RawMessage) (string, any, error) {
	return func(raw json.RawMessage) (string, any, error) {
		var in In
		if err := adapters.DecodeArguments(raw, &in); err != nil {
			return "", nil, err
		}
		k, args := in.split()
		return k, args, nil
	}
}

// Execution policy: a cad.* call runs its member in this process, after a
// health check (FreeCAD's starts a process: seconds), so it has the
// member's time plus that.
const healthSeconds = 30

var tools = []tool{
	declare[ParametricArgs](ToolCreateParametric, "Create parametric part (any CAD kernel)",
		"Build a parametric part and write it as STEP: "+cadquery.ShapeSummaries()+". Dimensions in mm; every part is centred on the origin.",
		cadquery.ParametricInputSchema, cadquery.ParametricOutputSchema, 120, adapters.ResourceLimits{}),
	declare[BooleanArgs](ToolBooleanOperation, "Boolean operation (any CAD kernel)",
		"Unite, subtract (A - B) or intersect two STEP or BREP parts and write the result as STEP.",
		cadquery.BooleanInputSchema, cadquery.BooleanOutputSchema, 120, adapters.ResourceLimits{}),
	declare[PropertiesArgs](ToolGetProperties, "Get geometric properties (any CAD kernel)",
		"Measure a solid in a STEP or BREP file or a closed STL: volume (mm^3), area (mm^2), center_of_mass and bounding_box (mm).",
		cadquery.PropertiesInputSchema, cadquery.PropertiesOutputSchema, 120, adapters.ResourceLimits{}),
	declare[ExportArgs](ToolExportGeometry, "Export geometry (any CAD kernel)",
		"Write a STEP or BREP part as "+strings.Join(ExportFormats, ", ")+" (the formats every kernel writes; a kernel's own tool "+
			"offers its others). A STEP export also returns step_base64.",
		narrowFormats(cadquery.ExportInputSchema), cadquery.ExportOutputSchema, 120, adapters.ResourceLimits{}),
	declare[MeshArgs](ToolGenerateMesh, "Generate tetrahedral mesh (any CAD kernel)",
		"Mesh a STEP part into tetrahedra (C3D4 or C3D10) as a CalculiX deck with one node set per face, its surface_sets "+
			"(bbox, centroid, area, normal per face, for picking fixed and load faces by position) and measured quality. "+
			"cadquery's member is gmsh.generate_mesh on the STEP as it is; freecad's bakes placements into the STEP first.",
		gmsh.GenerateInputSchema, gmsh.GenerateOutputSchema, 300+60,
		adapters.ResourceLimits{MaxMemoryMB: 4096, MaxCPUSeconds: 300, MaxDiskMB: 1024}),
}

// declare is a cad.* tool for the contract's row for id: its input schema
// the members' (input) plus kernel, its output schema the row's
// guaranteed fields as the first kernel's schema (output) defines them,
// plus kernel.
func declare[In forwardable](id, name, what string, input, output json.RawMessage, memberSeconds int, limits adapters.ResourceLimits) tool {
	c, ok := CapabilityOf(id)
	if !ok {
		panic("cad: no contract row for " + id)
	}
	return tool{
		manifest: adapters.Manifest{
			ToolID:    id,
			AdapterID: AdapterID,
			Name:      name,
			Description: what + " Runs on the CAD kernel named by kernel (" + strings.Join(Kernels, " or ") + "), or without it on the first " +
				"of " + strings.Join(Kernels, ", ") + " that is installed and healthy. The arguments are each kernel's own (" +
				memberList(c) + "). Returns the kernel tool's answer with kernel naming the one that ran it; every kernel returns " +
				strings.Join(c.Outputs, ", ") + ", and may add its own fields.",
			Capability:     c.Tag,
			InputSchema:    withKernelArg(input),
			OutputSchema:   guaranteedOutput(c, output),
			ResourceLimits: limits,
			Idempotent:     true,
			TimeoutSeconds: memberSeconds + healthSeconds,
		},
		decode: decoder[In](),
	}
}

func memberList(c Capability) string {
	var parts []string
	for _, k := range Kernels {
		parts = append(parts, c.Members[k])
	}
	return strings.Join(parts, ", ")
}

// withKernelArg is a member's input schema with the optional kernel
// argument added.
func withKernelArg(schema json.RawMessage) json.RawMessage {
	s := decodeSchema(schema)
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		panic("cad: a member's input schema has no properties")
	}
	props["kernel"] = map[string]any{"type": "string", "enum": Kernels,
		"description": "The CAD kernel to run on. Default: the first of " + strings.Join(Kernels, ", ") + " that is installed and healthy; " +
			"a kernel named here that is not healthy is refused, naming those that are."}
	return encodeSchema(s)
}

// narrowFormats is an export input schema offering only ExportFormats.
func narrowFormats(schema json.RawMessage) json.RawMessage {
	s := decodeSchema(schema)
	f, _ := s["properties"].(map[string]any)["output_format"].(map[string]any)
	if f == nil {
		panic("cad: the export schema has no output_format")
	}
	for _, want := range ExportFormats {
		if !slices.Contains(f["enum"].([]any), any(want)) {
			panic("cad: the export schema does not offer " + want)
		}
	}
	f["enum"] = ExportFormats
	return encodeSchema(s)
}

// guaranteedOutput is the schema of a cad.* answer: the row's guaranteed
// fields, required, described as output (the first kernel's member's
// schema) describes them, and kernel; other fields are the kernel's own.
func guaranteedOutput(c Capability, output json.RawMessage) json.RawMessage {
	full := decodeSchema(output)
	fullProps, _ := full["properties"].(map[string]any)
	props := map[string]any{}
	for _, f := range c.Outputs {
		p, ok := fullProps[f]
		if !ok {
			panic(fmt.Sprintf("cad: %s's output schema has no field %s", c.Members[Kernels[0]], f))
		}
		props[f] = p
	}
	if p, ok := props["placement_baked"].(map[string]any); ok {
		// gmsh's own says always false; through FreeCAD it is true.
		p["description"] = "true when the kernel baked the part's placements into the STEP it meshed (freecad); false when the STEP's " +
			"coordinates were meshed as they are (cadquery, through gmsh)."
	}
	props["kernel"] = map[string]any{"type": "string", "enum": Kernels, "description": "The CAD kernel that did the work."}
	return encodeSchema(map[string]any{
		"type":       "object",
		"required":   append(slices.Clone(c.Outputs), "kernel"),
		"properties": props,
	})
}

func decodeSchema(raw json.RawMessage) map[string]any {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		panic("cad: a member's schema does not decode: " + err.Error())
	}
	return s
}

func encodeSchema(s map[string]any) json.RawMessage {
	out, err := json.Marshal(s)
	if err != nil {
		panic("cad: a schema does not encode: " + err.Error())
	}
	return out
}
