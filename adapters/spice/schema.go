package spice

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
)

// inputSchema is what an agent reads to build a call, generated from
// Request, the type the call decodes into. The registry checks arguments
// against it before Call; Call checks the same rules again (and those the
// schema cannot say: .control blocks, analysis cards in the netlist,
// allowed roots).
var inputSchema = adapters.SchemaFor[Request](
	adapters.At("", adapters.Describe("An ngspice batch run: a netlist (text or file) and one analysis."),
		func(s *jsonschema.Schema) {
			s.OneOf = []*jsonschema.Schema{
				{Anchor: "give-netlist-or-netlist_path-not-both", Required: []string{"netlist"}, Not: &jsonschema.Schema{Required: []string{"netlist_path"}}},
				{Required: []string{"netlist_path"}, Not: &jsonschema.Schema{Required: []string{"netlist"}}},
			}
			s.AllOf = append(s.AllOf, &jsonschema.Schema{
				If:   &jsonschema.Schema{Required: []string{"params"}},
				Then: &jsonschema.Schema{Anchor: "params-need-analysis_type", Required: []string{"analysis_type"}},
			})
		},
		analysisTakes(AnalysisOP, nil),
		analysisTakes(AnalysisDC, []string{"source", "start", "stop", "step"}),
		analysisTakes(AnalysisAC, []string{"variation", "points", "fstart", "fstop"}),
		analysisTakes(AnalysisTransient, []string{"tstep", "tstop"}, "tstart")),
	adapters.At("netlist", adapters.MinLength(1)),
	adapters.At("netlist_path", adapters.MinLength(1)),
	adapters.At("analysis_type", adapters.Enum(AnalysisOP, AnalysisDC, AnalysisAC, AnalysisTransient)),
	// Which params are allowed is the analysis type's to say (above); the
	// figures' notation is said once, on params.
	adapters.At("params", func(s *jsonschema.Schema) {
		s.AdditionalProperties = nil
		s.Description += ` Every figure but points is a JSON number or a string in SPICE notation, read as ngspice reads a number on a card: "10k", "1.6n", "2.2u", "1meg", "100p", "1e-3", "5ms", "10kHz" (letters after the number or its suffix are ignored; ` + suffixHelp + `; an A suffix is refused, atto to ngspice 42 and later, ignored before). points is a JSON integer.`
	}),
	adapters.At("params.source", adapters.MinLength(1)),
	adapters.At("params.start", spiceFigure),
	adapters.At("params.stop", spiceFigure),
	adapters.At("params.step", spiceFigure, func(s *jsonschema.Schema) { s.Not = &jsonschema.Schema{}; adapters.Const(0)(s.Not) }),
	adapters.At("params.fstart", spiceFigure),
	adapters.At("params.fstop", spiceFigure),
	adapters.At("params.tstep", spiceFigure),
	adapters.At("params.tstop", spiceFigure),
	adapters.At("params.tstart", spiceFigure),
	adapters.At("params.variation", adapters.Enum("dec", "oct", "lin")),
	adapters.At("params.points", adapters.Minimum(1)),
	adapters.At("params.fstart", adapters.ExclusiveMinimum(0)),
	adapters.At("params.fstop", adapters.ExclusiveMinimum(0)),
	adapters.At("params.tstep", adapters.ExclusiveMinimum(0)),
	adapters.At("params.tstop", adapters.ExclusiveMinimum(0)),
	adapters.At("params.tstart", adapters.Minimum(0)),
	adapters.At("vectors[]", adapters.MinLength(1)),
	adapters.At("max_points", adapters.Minimum(1), adapters.Maximum(MaxMaxPoints), adapters.Default(DefaultMaxPoints)),
)

// spiceFigure lets a figure of the card be a JSON number or a string in
// SPICE's notation; bounds (minimum, not 0) constrain the number form,
// and Call reads the string form and checks the same bounds.
func spiceFigure(s *jsonschema.Schema) {
	adapters.Type("number", "string")(s)
	s.Description += ` A JSON number, or a SPICE number string such as "5m" (M is milli; see params).`
}

// analysisTakes says which params an analysis type requires and allows
// (required, then optional); an analysis with none takes no params.
func analysisTakes(analysis string, required []string, optional ...string) adapters.SchemaEdit {
	params := &jsonschema.Schema{AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	then := &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"params": params}}
	if len(required) > 0 {
		then.Required = []string{"params"}
		params.Required = required
		params.Properties = map[string]*jsonschema.Schema{}
		for _, name := range append(slices.Clone(required), optional...) {
			params.Properties[name] = &jsonschema.Schema{}
		}
	}
	return adapters.Then("analysis_type", analysis, then)
}

const statsSchema = `{"type": "object", "additionalProperties": false, "required": ["final", "min", "max"], "properties": {"final": {"type": ["number", "null"]}, "min": {"type": ["number", "null"]}, "max": {"type": ["number", "null"]}}}`

// outputSchema describes the result. A null number is a NaN or infinity.
const outputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["converged", "analysis", "analysis_card", "points", "vectors"],
  "properties": {
    "converged": {"type": "boolean", "description": "false when ngspice failed to parse or solve the circuit; log then holds its error lines."},
    "analysis": {"type": "string", "enum": ["op", "dc", "ac", "transient"]},
    "analysis_card": {"type": "string", "description": "The analysis card that ran, e.g. \".tran 1e-05 0.006\"."},
    "plotname": {"type": "string"},
    "scale": {"type": "string", "description": "Name of the scale vector (time, frequency, the swept source); absent for op."},
    "points": {"type": "integer", "description": "Points ngspice produced, before decimation."},
    "vectors": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "type"],
        "properties": {
          "name": {"type": "string"},
          "type": {"type": "string", "description": "ngspice's vector type: voltage, current, ..."},
          "unit": {"type": "string", "description": "V, A; dB for an AC magnitude."},
          "final": {"type": ["number", "null"], "description": "Value at the last point (op: the operating point)."},
          "min": {"type": ["number", "null"]},
          "max": {"type": ["number", "null"]},
          "magnitude_db": ` + statsSchema + `,
          "phase_deg": ` + statsSchema + `
        }
      }
    },
    "waveform": {
      "type": "object",
      "additionalProperties": false,
      "required": ["scale_name", "scale", "vectors", "decimated"],
      "properties": {
        "scale_name": {"type": "string"},
        "scale": {"type": "array", "items": {"type": ["number", "null"]}},
        "vectors": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": ["number", "null"]}}, "description": "Values per vector at the scale points; AC: magnitude in dB."},
        "phase_deg": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": ["number", "null"]}}},
        "decimated": {"type": "boolean"}
      }
    },
    "log": {"type": "array", "items": {"type": "string"}, "description": "ngspice's error and warning lines."}
  }
}`
