package gmsh

import (
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
)

const generateDescription = "Mesh a STEP part into tetrahedra with gmsh (OpenCASCADE kernel): element_order 1 gives linear C3D4, " +
	"2 (default) quadratic C3D10. Writes a CalculiX deck (*NODE in mm, one *ELEMENT block in ELSET SOLID, and one *NSET per CAD face, " +
	"named Face<tag>) and beside it the face table <name>.faces.json with each face's geometry and surface triangles. " +
	"The mesh is in the twin's coordinate frame: node coordinates are the STEP's own, checked against the part's bounding box. " +
	"The result gives surface_sets (per face: bbox_mm, centroid_mm, area_mm2, outward normal) so fixed and load faces can be picked " +
	"by position, mesh_bbox_mm, and quality_metrics measured from the tetrahedra (min dihedral angle, longest/shortest edge, " +
	"mean radius ratio, degenerate count; above 200,000 elements an even sample). A file that is not a STEP, holds no solid, " +
	"or that gmsh cannot mesh is refused with gmsh's own error lines."

const listDescription = "Re-fetch an already-generated mesh's per-face geometry table (name, bbox_mm, centroid_mm, area_mm2, " +
	"outward normal, node_count) from the face table gmsh.generate_mesh wrote beside it, without re-running gmsh."

// The schemas of gmsh.generate_mesh, for a tool that takes its arguments
// and answers with its fields (another kernel's mesh_generation).
var (
	GenerateInputSchema  = generateInputSchema
	GenerateOutputSchema = json.RawMessage(generateOutputSchema)
)

// generateInputSchema is what an agent reads to build a call. The registry
// checks arguments against it; Call checks the same rules again, and those
// the schema cannot say (the file exists inside the allowed roots, the
// minimum size is not above the maximum). It is generated from MeshRequest,
// the type the call decodes into.
var generateInputSchema = adapters.SchemaFor[MeshRequest](
	adapters.At("", adapters.Describe("A STEP part to mesh into tetrahedra.")),
	adapters.At("input_file", adapters.MinLength(1)),
	adapters.At("element_order", adapters.Enum(1, 2), adapters.Default(2)),
	adapters.At("mesh_size_mm", adapters.ExclusiveMinimum(0)),
	adapters.At("mesh_size_min_mm", adapters.ExclusiveMinimum(0)),
	adapters.At("output_name", adapters.Pattern("^[A-Za-z0-9_-][A-Za-z0-9._-]*$"), adapters.Default("mesh.inp")),
)

const bboxSchema = `{"type": "object", "additionalProperties": false, "required": ["min", "max"], "properties": {
  "min": {"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3},
  "max": {"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3}}}`

const vectorSchema = `{"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3}`

const generateOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["mesh_file", "face_table_file", "element_type", "elements", "nodes", "element_order", "mesh_size_mm",
               "surface_sets", "mesh_bbox_mm", "coordinate_frame", "placement_baked", "quality_metrics"],
  "properties": {
    "mesh_file": {"type": "string", "description": "Absolute path of the CalculiX deck."},
    "face_table_file": {"type": "string", "description": "Absolute path of the face table beside the deck."},
    "element_type": {"type": "string", "enum": ["C3D4", "C3D10"]},
    "elements": {"type": "integer", "description": "Tetrahedra in the deck."},
    "nodes": {"type": "integer"},
    "element_order": {"type": "integer", "enum": [1, 2]},
    "mesh_size_mm": {"type": "number", "description": "Largest element size used, mm (given or derived)."},
    "surface_sets": {
      "type": "object",
      "description": "Per face, by the name of its NSET in the deck (Face<tag>, tag being gmsh's surface tag).",
      "additionalProperties": {
        "type": "object",
        "additionalProperties": false,
        "required": ["bbox_mm", "centroid_mm", "area_mm2", "normal"],
        "properties": {
          "bbox_mm": ` + bboxSchema + `,
          "centroid_mm": ` + vectorSchema + `,
          "area_mm2": {"type": "number"},
          "normal": ` + vectorSchema + `
        }
      }
    },
    "mesh_bbox_mm": ` + bboxSchema + `,
    "coordinate_frame": {"const": "twin"},
    "placement_baked": {"type": "boolean", "description": "Always false: the STEP's coordinates are kept, no placement is applied."},
    "quality_metrics": {
      "type": "object",
      "additionalProperties": false,
      "required": ["min_angle", "max_aspect_ratio", "avg_quality", "degenerate_elements", "elements_measured", "sampled"],
      "description": "Measured from the tetrahedra's corner nodes. Degenerate elements score 0 in avg_quality and are left out of min_angle and max_aspect_ratio.",
      "properties": {
        "min_angle": {"type": "number", "description": "Smallest dihedral angle, degrees (regular tetrahedron: 70.53)."},
        "max_aspect_ratio": {"type": "number", "description": "Largest longest-over-shortest edge ratio (regular: 1)."},
        "avg_quality": {"type": "number", "description": "Mean radius ratio 3·r_in/R_circ (regular: 1, flat: 0)."},
        "degenerate_elements": {"type": "integer", "description": "Elements whose signed volume is at most 1e-6 × (longest edge)³: flat or inverted."},
        "elements_measured": {"type": "integer"},
        "sampled": {"type": "boolean", "description": "true when the mesh has more than 200,000 elements and an even sample of 200,000 was measured."}
      }
    },
    "warnings": {"type": "array", "items": {"type": "string"}, "description": "gmsh's warning lines, if any."}
  }
}`

// listInputSchema is generated from ListRequest.
var listInputSchema = adapters.SchemaFor[ListRequest](
	adapters.At("", adapters.Describe("A mesh made by gmsh.generate_mesh.")),
	adapters.At("mesh_file", adapters.MinLength(1)),
)

const listOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["mesh_file", "face_table_file", "element_type", "mesh_bbox_mm", "coordinate_frame", "faces"],
  "properties": {
    "mesh_file": {"type": "string"},
    "face_table_file": {"type": "string"},
    "element_type": {"type": "string"},
    "mesh_bbox_mm": ` + bboxSchema + `,
    "coordinate_frame": {"type": "string"},
    "faces": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "bbox_mm", "centroid_mm", "area_mm2", "normal", "node_count"],
        "properties": {
          "name": {"type": "string", "description": "The face's NSET in the deck, Face<tag>."},
          "bbox_mm": ` + bboxSchema + `,
          "centroid_mm": ` + vectorSchema + `,
          "area_mm2": {"type": "number"},
          "normal": ` + vectorSchema + `,
          "node_count": {"type": "integer"}
        }
      }
    }
  }
}`
