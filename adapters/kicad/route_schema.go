package kicad

import (
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
)

const routeDescription = "Auto-route a KiCad 6 board with Freerouting " + FreeroutingVersion + ", headless and offline. pcbnew exports the board to Specctra DSN " +
	"(its netclasses' widths, clearances and vias; copper zones as planes; text and graphics on copper, which KiCad's export leaves out, as keepouts " +
	"grown by the biggest clearance), Freerouting routes it, and its session (.ses) is merged into a copy of " +
	"the board written in the call's folder (the source is left as it was): the source's unlocked tracks and vias are routed anew (Freerouting " +
	FreeroutingVersion + " mishandles existing wiring, so they are left out of the DSN) and replaced by the session's tracks (with their widths) " +
	"and vias (diameter, drill, layer pair) on their layers and nets; locked ones go to Freerouting as fixed wiring and are kept; zones are refilled. " +
	"connections come from the routed board's own connectivity (pcbnew's ratsnest): total (what the nets need), routed, unrouted; " +
	"freerouting_reported is what Freerouting's log claims, for comparison. KiCad's DRC is run on the routed board (drc, with the clearance " +
	"errors that name a track or via). Routing stops after max_seconds (default 300, lowered to fit the call's timeout): then stopped_early is " +
	"true and the board has what was routed by then. The DSN and session are kept in the call's folder."

// routeInputSchema is generated from the request type.
var routeInputSchema = adapters.SchemaFor[RouteRequest](boardFile,
	// output_path's form (a .kicad_pcb file name, no folders) is checked
	// in Go, whose refusal says what to write rather than quote a pattern.
	adapters.At("output_path", adapters.MinLength(1)),
	adapters.At("max_seconds", adapters.Minimum(1), adapters.Maximum(maxRouteSeconds), adapters.Default(defaultRouteSeconds)),
	adapters.At("max_passes", adapters.Minimum(1), adapters.Maximum(9999)),
	adapters.At("optimize", adapters.Default(false)))

const routeOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["board_file", "source_board", "dsn_file", "ses_file", "tracks_added", "vias_added", "locked_kept", "copper_keepouts", "connections",
    "freerouting_reported", "stopped_early", "max_seconds", "drc", "vias_with_default_drill", "routing_s", "elapsed_s", "warnings"],
  "properties": {
    "board_file": {"type": "string", "description": "The routed board, in the call's folder."},
    "source_board": {"type": "string"},
    "dsn_file": {"type": "string", "description": "The Specctra DSN pcbnew exported."},
    "ses_file": {"type": "string", "description": "Freerouting's session; empty when it was stopped before writing one."},
    "tracks_added": {"type": "integer", "description": "Track segments merged from the session."},
    "vias_added": {"type": "integer"},
    "locked_kept": {"type": "integer", "description": "Tracks and vias of the source board kept as they were (locked ones; all of them when no session came back)."},
    "copper_keepouts": {"type": "integer", "description": "Text and graphics on copper layers given to Freerouting as keepouts (grown by the biggest clearance), which KiCad's DSN export leaves out."},
    "connections": {"type": "object", "additionalProperties": false, "required": ["total", "routed", "unrouted", "unrouted_before"], "properties": {
      "total": {"type": "integer", "description": "Connections the board's nets need (unconnected with no copper at all)."},
      "routed": {"type": "integer", "description": "total - unrouted."},
      "unrouted": {"type": "integer", "description": "Still unconnected on the routed board, by pcbnew's connectivity."},
      "unrouted_before": {"type": "integer", "description": "Unconnected on the source board."}}},
    "freerouting_reported": {"type": "object", "additionalProperties": false,
      "required": ["version", "completion", "started_unrouted", "final_unrouted", "final_violations", "final_score", "routed", "passes", "optimizer_passes", "unrouted_connections", "has_summary", "errors"],
      "properties": {
        "version": {"type": "string"},
        "completion": {"type": "string", "description": "completed, completed with timeout, interrupted, cancelled; empty without a summary."},
        "started_unrouted": {"type": "integer"}, "final_unrouted": {"type": "integer"}, "final_violations": {"type": "integer"},
        "final_score": {"type": "number"}, "routed": {"type": "integer", "description": "started_unrouted - final_unrouted."},
        "passes": {"type": "integer"}, "optimizer_passes": {"type": "integer"},
        "unrouted_connections": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["net", "from", "to"],
          "properties": {"net": {"type": "string"}, "from": {"type": "string"}, "to": {"type": "string"}}}},
        "has_summary": {"type": "boolean"},
        "errors": {"type": "array", "items": {"type": "string"}, "description": "Distinct errors Freerouting logged (at most 5), with their exception."}}},
    "stopped_early": {"type": "boolean", "description": "Routing was stopped by its time (max_seconds or the call's timeout)."},
    "stop_reason": {"type": "string"},
    "max_seconds": {"type": "integer", "description": "The routing time Freerouting was given."},
    "drc": {"type": "object", "additionalProperties": false,
      "required": ["report_file", "passed", "error_count", "warning_count", "unconnected_count", "copper_clearance_errors"], "properties": {
        "report_file": {"type": "string"}, "passed": {"type": "boolean"},
        "error_count": {"type": "integer"}, "warning_count": {"type": "integer"},
        "unconnected_count": {"type": "integer", "description": "The DRC's unconnected items."},
        "copper_clearance_errors": {"type": "array", "items": ` + violationSchema + `,
          "description": "Error-severity clearance, hole_clearance, copper_edge_clearance, tracks_crossing and shorting_items violations naming a track or via."}}},
    "vias_with_default_drill": {"type": "integer", "description": "Vias whose padstack did not name a drill, given the board's default via drill."},
    "routing_s": {"type": "number", "description": "Seconds Freerouting ran."},
    "elapsed_s": {"type": "number"},
    "warnings": {"type": "array", "items": {"type": "string"}, "description": "What deserves a look: Freerouting's claims and the board's connectivity disagreeing, errors Freerouting logged, vias given the default drill."}
  }
}`

// routeManifest declares kicad.auto_route. Freerouting routes the same
// board the same way when it finishes (one routing thread), but a route
// stopped by its time depends on the machine's speed, so the tool is not
// idempotent and is not retried. Its limits allow an hour of routing.
func routeManifest() adapters.Manifest {
	return adapters.Manifest{
		ToolID: ToolAutoRoute, AdapterID: AdapterID, Name: "Auto-route a PCB", Description: routeDescription,
		Capability: "pcb_autoroute", InputSchema: routeInputSchema, OutputSchema: json.RawMessage(routeOutputSchema),
		Phase:          2,
		ResourceLimits: adapters.ResourceLimits{MaxMemoryMB: 3072, MaxCPUSeconds: 3 * maxRouteSeconds, MaxDiskMB: 512},
		TimeoutSeconds: 900,
	}
}
