package kicad

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
)

const drcDescription = "Run KiCad 6's design-rule check on a board (pcbnew's WriteDRCReport, the headless DRC of KiCad 6; " +
	"rules from the board and its .kicad_pro). Returns each violation with its rule key (clearance, silk_over_copper...), " +
	"description, the constraint that set it, severity (error, warning) and location in mm (KiCad's axes, Y down) with the items it names; " +
	"unconnected_items (count and list) for unrouted connections; footprint_errors; and passed: no error-severity violation and " +
	"nothing unconnected (warnings do not fail it). The schematic is not compared (no netlist is loaded), so footprint_errors stays empty " +
	"unless KiCad reports some. The text report is written to the call's folder."

const gerberDescription = "Plot a board's Gerber set (X2, one file per layer) and its Excellon drill files (PTH and NPTH, metric) into the call's folder " +
	"with pcbnew's PLOT_CONTROLLER and EXCELLON_WRITER. Default layers: every enabled copper layer, then F/B.Paste, F/B.Silkscreen, " +
	"F/B.Mask that are enabled, and Edge.Cuts. layers picks others, by KiCad's standard names (F.Cu, In1.Cu, F.Mask, F.Fab) or the board's own " +
	"layer names. Returns each file with its layer and size."

const bomDescription = "Bill of materials from a KiCad 6 schematic (the root .kicad_sch; sub-sheets are followed). One line per set of components " +
	"with the same value, footprint and fields, listing their references and quantity; a multi-unit part (U1A, U1B) is one reference. " +
	"Power ports and flags (references starting with #) and symbols marked not-in-BOM are left out (the latter are listed). " +
	"fields_source says where each field comes from."

const netlistDescription = "Nets and the component pins on them (reference, pin number, pin name). From board_file: the board's netlist, pcbnew's pads " +
	"and their nets. From schematic_file: the schematic's own connectivity (wires and T-joints, junctions, local, global and hierarchical " +
	"labels, power symbols and invisible power pins as global nets, sheet pins into sub-sheets); bus labels are not followed and are listed in warnings. " +
	"format spice (schematic only) also writes a SPICE deck to the call's folder that spice.run_simulation runs by netlist_path: elements " +
	"from the Spice_Primitive, Spice_Model, Spice_Node_Sequence and Spice_Lib_File fields (KiCad 6) or, for R C L V I D Q M J, from the " +
	"reference letter and value; GND and 0 are node 0; the schematic's dot-directives (its .tran/.ac/.op/.dc command, .model, ...) are kept. " +
	"Parts that cannot be simulated are left out with a comment and listed in spice.excluded_parts."

const pinMapDescription = "One component's pins and the nets they are on, from a board (pcbnew's pads) or a schematic (its wiring), " +
	"e.g. a connector's pinout. An unknown reference is an error listing references that exist."

// The input schemas are generated from the request types the calls decode
// into. The design file arguments are described once, here.
var (
	drcInputSchema     = adapters.SchemaFor[DRCRequest](boardFile)
	gerberInputSchema  = adapters.SchemaFor[GerberRequest](boardFile, adapters.At("layers[]", adapters.MinLength(1)), adapters.At("layers", adapters.MinItems(1), adapters.UniqueItems()))
	bomInputSchema     = adapters.SchemaFor[BOMRequest](schematicFile)
	netlistInputSchema = adapters.SchemaFor[NetlistRequest](boardFile, schematicFile, oneFile("Exactly one of board_file or schematic_file."),
		adapters.At("format", adapters.Enum(FormatJSON, FormatSpice), adapters.Default(FormatJSON)))
	pinMapInputSchema = adapters.SchemaFor[PinMappingRequest](boardFile, schematicFile,
		oneFile("Exactly one of board_file or schematic_file, and the component's reference."), adapters.At("reference", adapters.MinLength(1)))
)

var (
	boardFile = adapters.At("board_file", adapters.MinLength(1),
		adapters.Describe("Path of the .kicad_pcb (absolute, or relative to the workspace), inside the server's allowed roots."))
	schematicFile = adapters.At("schematic_file", adapters.MinLength(1),
		adapters.Describe("Path of the root .kicad_sch (KiCad 6), inside the server's allowed roots; its sheets are read from beside it."))
)

// oneFile requires exactly one of board_file and schematic_file.
func oneFile(description string) adapters.SchemaRule {
	return adapters.At("", adapters.Describe(description), func(s *jsonschema.Schema) {
		s.OneOf = []*jsonschema.Schema{{Required: []string{"board_file"}}, {Required: []string{"schematic_file"}}}
	})
}

const itemSchema = `{"type": "object", "additionalProperties": false, "required": ["description", "x_mm", "y_mm"], "properties": {
  "description": {"type": "string"}, "x_mm": {"type": "number"}, "y_mm": {"type": "number"}}}`

const violationSchema = `{"type": "object", "additionalProperties": false, "required": ["rule", "description", "severity", "items"], "properties": {
  "rule": {"type": "string", "description": "KiCad's key for the check, such as clearance or silk_over_copper."},
  "description": {"type": "string"},
  "constraint": {"type": "string", "description": "What set the limit, such as 'board setup constraints silk' or 'netclass Default'."},
  "severity": {"type": "string", "description": "error or warning (exclusion for an excluded marker)."},
  "location": {"type": "object", "additionalProperties": false, "required": ["x_mm", "y_mm"], "properties": {"x_mm": {"type": "number"}, "y_mm": {"type": "number"}},
    "description": "Position of the first item, mm, KiCad's board axes (Y down)."},
  "items": {"type": "array", "items": ` + itemSchema + `}}}`

const itemListSchema = `{"type": "object", "additionalProperties": false, "required": ["count", "items"], "properties": {
  "count": {"type": "integer"}, "items": {"type": "array", "items": ` + violationSchema + `}}}`

const drcOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["board_file", "report_file", "passed", "violation_count", "error_count", "warning_count", "violations", "unconnected_items", "footprint_errors"],
  "properties": {
    "board_file": {"type": "string"},
    "report_file": {"type": "string", "description": "pcbnew's text report, in the call's folder."},
    "passed": {"type": "boolean", "description": "No error-severity violation and nothing unconnected."},
    "violation_count": {"type": "integer"},
    "error_count": {"type": "integer"},
    "warning_count": {"type": "integer"},
    "violations": {"type": "array", "items": ` + violationSchema + `},
    "unconnected_items": ` + itemListSchema + `,
    "footprint_errors": ` + itemListSchema + `
  }
}`

const gerberOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["board_file", "output_dir", "gerber_files", "drill_files"],
  "properties": {
    "board_file": {"type": "string"},
    "output_dir": {"type": "string"},
    "gerber_files": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["layer", "board_layer_name", "path", "size_bytes"], "properties": {
        "layer": {"type": "string", "description": "KiCad's standard layer name (F.Cu, F.Silkscreen)."},
        "board_layer_name": {"type": "string", "description": "The board's own name for the layer."},
        "path": {"type": "string"}, "size_bytes": {"type": "integer"}}}},
    "drill_files": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["kind", "path", "size_bytes"], "properties": {
        "kind": {"type": "string", "enum": ["PTH", "NPTH"]}, "path": {"type": "string"}, "size_bytes": {"type": "integer"}}}}
  }
}`

const bomOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["schematic_file", "lines", "line_count", "total_references", "not_in_bom", "power_and_flag_symbols", "fields_source"],
  "properties": {
    "schematic_file": {"type": "string"},
    "lines": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["references", "quantity", "value", "footprint", "fields"], "properties": {
        "references": {"type": "array", "items": {"type": "string"}},
        "quantity": {"type": "integer"},
        "value": {"type": "string"},
        "footprint": {"type": "string"},
        "fields": {"type": "object", "additionalProperties": {"type": "string"}}}}},
    "line_count": {"type": "integer"},
    "total_references": {"type": "integer", "description": "Components in the BOM (the sum of the quantities)."},
    "not_in_bom": {"type": "array", "items": {"type": "string"}, "description": "References whose symbol says (in_bom no)."},
    "power_and_flag_symbols": {"type": "integer", "description": "Placed symbols with a # reference (power ports, PWR_FLAG), left out."},
    "fields_source": {"type": "string"}
  }
}`

const netsSchema = `{"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["name", "pins"], "properties": {
  "name": {"type": "string", "description": "The net's name as KiCad shows it, the same from a board or a schematic: KiCad's escapes in a board's names are read (/VPP{slash}MCLR is /VPP/MCLR)."},
  "pins": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["reference", "pin"], "properties": {
    "reference": {"type": "string"}, "pin": {"type": "string"}, "pin_name": {"type": "string"}}}}}}}`

const netlistOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["source", "source_file", "format", "net_count", "nets"],
  "properties": {
    "source": {"type": "string", "enum": ["board", "schematic"], "description": "board: the board's netlist (its pads and their nets); schematic: the schematic's wiring."},
    "source_file": {"type": "string"},
    "format": {"type": "string", "enum": ["json", "spice"]},
    "net_count": {"type": "integer", "description": "Nets with at least one component pin."},
    "nets": ` + netsSchema + `,
    "warnings": {"type": "array", "items": {"type": "string"}},
    "spice": {"type": "object", "additionalProperties": false,
      "required": ["netlist_file", "nodes", "simulated_parts", "excluded_parts", "includes", "analysis_commands"], "properties": {
        "netlist_file": {"type": "string", "description": "The deck, for spice.run_simulation's netlist_path."},
        "nodes": {"type": "object", "additionalProperties": {"type": "string"}, "description": "SPICE node -> schematic net name."},
        "simulated_parts": {"type": "array", "items": {"type": "string"}},
        "excluded_parts": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["reference", "reason"],
          "properties": {"reference": {"type": "string"}, "reason": {"type": "string"}}}},
        "includes": {"type": "array", "items": {"type": "string"}},
        "analysis_commands": {"type": "array", "items": {"type": "string"}, "description": "The schematic's own analysis commands; spice.run_simulation needs exactly one, or none and an analysis_type."},
        "skipped_directives": {"type": "array", "items": {"type": "string"}}}}
  }
}`

const pinMapOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["reference", "source", "source_file", "value", "footprint", "pins"],
  "properties": {
    "reference": {"type": "string"},
    "source": {"type": "string", "enum": ["board", "schematic"]},
    "source_file": {"type": "string"},
    "value": {"type": "string"},
    "footprint": {"type": "string"},
    "pins": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["pin", "net"], "properties": {
      "pin": {"type": "string"}, "pin_name": {"type": "string"}, "net": {"type": "string"}}}}
  }
}`
