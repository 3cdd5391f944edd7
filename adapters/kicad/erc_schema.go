package kicad

import "github.com/metaforge/metaforge/adapters"

const ercDescription = "Electrical-rule check of a schematic (the root .kicad_sch; its sheets are followed). Where kicad-cli (KiCad 7 or newer) " +
	"is installed it runs KiCad's own ERC (checker kicad-cli) and maps its report. Otherwise (KiCad 6, whose ERC exists only in the " +
	"eeschema GUI) this adapter checks the parsed schematic itself with KiCad 6's rules (checker metaforge-erc-kicad6): pin electrical types " +
	"from the symbols against KiCad 6's default pin-conflict matrix (pin_to_pin, error or warning by cell), unconnected pins " +
	"(pin_not_connected; a no-connect flag or a free/no_connect pin type excuses it), inputs not driven (pin_not_driven) and power inputs " +
	"not driven by a power output such as PWR_FLAG (power_pin_not_driven), no-connect flags on connected pins or on nothing, dangling " +
	"labels and wires, global labels used once, several names on one net, case-only label differences, sheet pin/hierarchical label " +
	"mismatches, annotation (duplicate_reference, unannotated) and multi-unit consistency. Rule keys and default severities are KiCad 6's; " +
	"the project's .kicad_pro rule_severities and pin_map are applied (its erc_exclusions are not, and say so in warnings). Not checked: " +
	"buses across sheets (refused), bus rules, library symbol issues and text variables (listed in not_checked). Each violation has its " +
	"rule, severity, description, sheet path, position in mm (KiCad's axes, Y down) and items (reference, pin number, name and type). " +
	"severity filters the listed violations; error_count, warning_count and passed (no error) always cover all of them. " +
	"The report is written to the call's folder as JSON."

var ercInputSchema = adapters.SchemaFor[ERCRequest](schematicFile,
	adapters.At("severity", adapters.Enum(SeverityError, SeverityWarning, SeverityAll), adapters.Default(SeverityAll)))

const ercItemSchema = `{"type": "object", "additionalProperties": false, "required": ["kind", "description", "x_mm", "y_mm"], "properties": {
  "kind": {"type": "string", "enum": ["pin", "label", "global_label", "hierarchical_label", "sheet_pin", "sheet", "symbol", "no_connect", "wire", "item"]},
  "description": {"type": "string"},
  "reference": {"type": "string"},
  "pin": {"type": "string", "description": "Pin number."},
  "pin_name": {"type": "string"},
  "pin_type": {"type": "string", "description": "Electrical type as the file writes it: input, output, bidirectional, tri_state, passive, free, unspecified, power_in, power_out, open_collector, open_emitter, no_connect."},
  "text": {"type": "string", "description": "A label's, sheet pin's or sheet's name."},
  "x_mm": {"type": "number"}, "y_mm": {"type": "number"}}}`

const ercViolationSchema = `{"type": "object", "additionalProperties": false, "required": ["rule", "severity", "description", "sheet", "items"], "properties": {
  "rule": {"type": "string", "description": "KiCad's key for the check: pin_to_pin, pin_not_connected, power_pin_not_driven, label_dangling, duplicate_reference..."},
  "severity": {"type": "string", "enum": ["error", "warning", "exclusion"], "description": "exclusion: excluded in the project (kicad-cli only); not counted."},
  "description": {"type": "string"},
  "sheet": {"type": "string", "description": "Sheet path of the marker, such as / or /pic_sockets/."},
  "position": {"type": "object", "additionalProperties": false, "required": ["x_mm", "y_mm"], "properties": {"x_mm": {"type": "number"}, "y_mm": {"type": "number"}},
    "description": "Where KiCad puts the marker, mm, the sheet's axes (Y down)."},
  "items": {"type": "array", "items": ` + ercItemSchema + `}}}`

const ercOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["schematic_file", "checker", "report_file", "passed", "error_count", "warning_count", "severity", "violations"],
  "properties": {
    "schematic_file": {"type": "string"},
    "checker": {"type": "string", "enum": ["metaforge-erc-kicad6", "kicad-cli"], "description": "Who checked: this adapter with KiCad 6's rules, or KiCad's kicad-cli."},
    "report_file": {"type": "string", "description": "The ERC report (JSON) in the call's folder."},
    "passed": {"type": "boolean", "description": "No error-severity violation; warnings do not fail it."},
    "error_count": {"type": "integer", "description": "All error-severity violations, whatever the severity filter."},
    "warning_count": {"type": "integer"},
    "severity": {"type": "string", "enum": ["error", "warning", "all"], "description": "The filter applied to violations."},
    "violations": {"type": "array", "items": ` + ercViolationSchema + `},
    "settings": {"type": "object", "additionalProperties": false, "required": ["project_file", "rule_severities", "pin_map_cells_changed", "exclusions_not_applied"], "properties": {
      "project_file": {"type": "string", "description": "The .kicad_pro whose ERC settings were applied; empty: KiCad 6's defaults."},
      "rule_severities": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Rules whose severity the project changed."},
      "pin_map_cells_changed": {"type": "integer"},
      "exclusions_not_applied": {"type": "integer"}}},
    "checks": {"type": "array", "items": {"type": "string"}, "description": "Rule keys this checker ran."},
    "not_checked": {"type": "array", "items": {"type": "string"}, "description": "KiCad 6 checks this checker does not make, and why."},
    "warnings": {"type": "array", "items": {"type": "string"}},
    "report": {"description": "kicad-cli's JSON ERC report as written (checker kicad-cli only)."}
  }
}`
