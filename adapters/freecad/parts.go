package freecad

import (
	"encoding/json"

	"github.com/metaforge/metaforge/adapters/cadquery"
)

// Part is one part (STEP product) of a file, measured in the global frame.
type Part struct {
	Label          string                `json:"label"`
	VolumeMM3      float64               `json:"volume_mm3"`
	SurfaceAreaMM2 float64               `json:"surface_area_mm2"`
	BoundingBox    *cadquery.BoundingBox `json:"bounding_box"`
	// Color is [r, g, b], each 0-1, as the file gives it; nil when it
	// gives none. Named "color" as spec 000 names it (parts[].color).
	Color *[3]float64 `json:"color"`
}

// Parts is a file's parts and their totals.
type Parts struct {
	InputFile           string                `json:"input_file"`
	PartCount           int                   `json:"part_count"`
	Parts               []Part                `json:"parts"`
	TotalVolumeMM3      float64               `json:"total_volume_mm3"`
	TotalSurfaceAreaMM2 float64               `json:"total_surface_area_mm2"`
	BoundingBox         *cadquery.BoundingBox `json:"bounding_box"`
}

const colourSchema = `{"anyOf": [{"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 1}, "minItems": 3, "maxItems": 3},
  {"type": "null"}], "description": "[r, g, b], each 0-1, as the file gives the part; null when it gives none."}`

// partsProperties are the output schema's properties of Parts.
const partsProperties = `
    "input_file": {"type": "string", "description": "Absolute path of the file read."},
    "part_count": {"type": "integer", "minimum": 1},
    "parts": {"type": "array", "items": {
      "type": "object", "additionalProperties": false,
      "required": ["label", "volume_mm3", "surface_area_mm2", "bounding_box", "color"],
      "properties": {
        "label": {"type": "string", "description": "The part's name in the file (its STEP product); FreeCAD adds 001, 002, ... to repeated names."},
        "volume_mm3": {"type": "number"},
        "surface_area_mm2": {"type": "number"},
        "bounding_box": ` + cadquery.NullableBBoxSchema + `,
        "color": ` + colourSchema + `
      }}},
    "total_volume_mm3": {"type": "number"},
    "total_surface_area_mm2": {"type": "number"},
    "bounding_box": ` + cadquery.NullableBBoxSchema + `,
    "kernel": {"const": "freecad"}`

const partsRequired = `"input_file", "part_count", "parts", "total_volume_mm3", "total_surface_area_mm2", "bounding_box", "kernel"`

func schema(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		panic("freecad: an output schema is not JSON: " + s)
	}
	return json.RawMessage(s)
}
