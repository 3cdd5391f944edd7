package spice

// inputSchema is what an agent reads to build a call. The registry checks
// arguments against it before Call; Call checks the same rules again (and
// those the schema cannot say: .control blocks, analysis cards in the
// netlist, allowed roots).
const inputSchema = `{
  "type": "object",
  "description": "An ngspice batch run: a netlist (text or file) and one analysis.",
  "additionalProperties": false,
  "oneOf": [
    {"$anchor": "give-netlist-or-netlist_path-not-both", "required": ["netlist"], "not": {"required": ["netlist_path"]}},
    {"required": ["netlist_path"], "not": {"required": ["netlist"]}}
  ],
  "properties": {
    "netlist": {"type": "string", "minLength": 1, "description": "SPICE netlist text. Line 1 is the title. .control ... .endc blocks are refused. Give this or netlist_path, not both."},
    "netlist_path": {"type": "string", "minLength": 1, "description": "Path of a netlist file to read (must be inside the server's allowed roots, if set). Give this or netlist, not both."},
    "analysis_type": {"type": "string", "enum": ["op", "dc", "ac", "transient"], "description": "The analysis to run; the tool writes its card from params. Leave out only when the netlist carries exactly one .op, .dc, .ac or .tran card of its own."},
    "params": {
      "type": "object",
      "description": "Figures of the analysis card, SI units. dc: source, start, stop, step (V or A). ac: variation (dec, oct, lin), points (per decade/octave, or total for lin), fstart, fstop (Hz). transient: tstep, tstop, optional tstart (s). op: none.",
      "properties": {
        "source": {"type": "string", "minLength": 1, "description": "dc: name of the swept source, e.g. V1."},
        "start": {"type": "number", "description": "dc: first value."},
        "stop": {"type": "number", "description": "dc: last value."},
        "step": {"type": "number", "not": {"const": 0}, "description": "dc: increment (not 0)."},
        "variation": {"type": "string", "enum": ["dec", "oct", "lin"], "description": "ac: sweep spacing."},
        "points": {"type": "integer", "minimum": 1, "description": "ac: points per decade or octave, or in total for lin."},
        "fstart": {"type": "number", "exclusiveMinimum": 0, "description": "ac: start frequency, Hz."},
        "fstop": {"type": "number", "exclusiveMinimum": 0, "description": "ac: stop frequency, Hz."},
        "tstep": {"type": "number", "exclusiveMinimum": 0, "description": "transient: print step, s."},
        "tstop": {"type": "number", "exclusiveMinimum": 0, "description": "transient: end time, s."},
        "tstart": {"type": "number", "minimum": 0, "description": "transient: time from which results are kept, s (default 0)."}
      }
    },
    "vectors": {"type": "array", "items": {"type": "string", "minLength": 1}, "description": "Vectors to report, e.g. [\"v(out)\", \"i(v1)\"]; a bare node name means its voltage. Default: all."},
    "max_points": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 500, "description": "Most waveform points returned; the waveform is min-max decimated so each vector keeps its extremes."}
  },
  "allOf": [
    {"if": {"required": ["params"]}, "then": {"$anchor": "params-need-analysis_type", "required": ["analysis_type"]}},
    {"if": {"properties": {"analysis_type": {"const": "op"}}, "required": ["analysis_type"]},
     "then": {"properties": {"params": {"additionalProperties": false}}}},
    {"if": {"properties": {"analysis_type": {"const": "dc"}}, "required": ["analysis_type"]},
     "then": {"required": ["params"], "properties": {"params": {"required": ["source", "start", "stop", "step"], "properties": {"source": true, "start": true, "stop": true, "step": true}, "additionalProperties": false}}}},
    {"if": {"properties": {"analysis_type": {"const": "ac"}}, "required": ["analysis_type"]},
     "then": {"required": ["params"], "properties": {"params": {"required": ["variation", "points", "fstart", "fstop"], "properties": {"variation": true, "points": true, "fstart": true, "fstop": true}, "additionalProperties": false}}}},
    {"if": {"properties": {"analysis_type": {"const": "transient"}}, "required": ["analysis_type"]},
     "then": {"required": ["params"], "properties": {"params": {"required": ["tstep", "tstop"], "properties": {"tstep": true, "tstop": true, "tstart": true}, "additionalProperties": false}}}}
  ]
}`

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
