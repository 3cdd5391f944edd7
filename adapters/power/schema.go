package power

// inputSchema is what an agent reads to build a call, so every field says
// what it means, its unit, and what leaving it out does. The registry checks
// arguments against it before Call; Call checks the same rules again (and the
// ones JSON Schema cannot say: unique names, references, cycles) so a caller
// that skips the registry gets the same answers.
const inputSchema = `{
  "type": "object",
  "description": "A static worst-case power budget: every rail, every load, and the derating rule.",
  "additionalProperties": false,
  "required": ["rails", "loads"],
  "properties": {
    "rails": {
      "type": "array",
      "minItems": 1,
      "description": "Every rail in the design. Rails form a tree: each ldo or switching rail names the rail that feeds it in input_rail, and every chain ends at a supply rail.",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "voltage_v", "source_kind"],
        "properties": {
          "name": {"type": "string", "minLength": 1, "description": "Rail name, unique among rails, e.g. \"3V3\"."},
          "voltage_v": {"type": "number", "exclusiveMinimum": 0, "description": "Nominal output voltage in volts (its magnitude, for a negative rail)."},
          "source_kind": {"type": "string", "enum": ["supply", "ldo", "switching"], "description": "supply: an external source (connector, battery, bench supply) with no input_rail. ldo: a linear regulator. switching: a buck, boost or other switching regulator."},
          "rated_output_ma": {"type": "number", "exclusiveMinimum": 0, "description": "Rated output current in mA (the datasheet maximum of the source or regulator). Left out, the rail has no allowance and is not_established."},
          "input_rail": {"type": "string", "minLength": 1, "description": "Name of the rail feeding this regulator. Required for ldo and switching; not allowed for supply."},
          "efficiency": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "description": "Switching regulators only: worst-case efficiency at this load, as a fraction (0.9 for 90%). Left out, the regulator's input current is unknown and its input rail cannot pass."},
          "quiescent_ma": {"type": "number", "minimum": 0, "description": "LDOs only: worst-case quiescent (ground) current in mA. Left out, the LDO's input current is unknown and its input rail cannot pass."}
        },
        "allOf": [
          {
            "if": {"properties": {"source_kind": {"enum": ["ldo", "switching"]}}, "required": ["source_kind"]},
            "then": {"required": ["input_rail"]}
          },
          {
            "if": {"properties": {"source_kind": {"const": "supply"}}, "required": ["source_kind"]},
            "then": {"not": {"$anchor": "a-supply-rail-has-no-input_rail", "required": ["input_rail"]}}
          },
          {
            "if": {"properties": {"source_kind": {"enum": ["supply", "ldo"]}}, "required": ["source_kind"]},
            "then": {"not": {"$anchor": "efficiency-is-only-for-a-switching-rail", "required": ["efficiency"]}}
          },
          {
            "if": {"properties": {"source_kind": {"enum": ["supply", "switching"]}}, "required": ["source_kind"]},
            "then": {"not": {"$anchor": "quiescent_ma-is-only-for-an-ldo-rail", "required": ["quiescent_ma"]}}
          }
        ]
      }
    },
    "loads": {
      "type": "array",
      "description": "Every load, each on the rail that supplies it. A part drawing from several rails is one load per rail. A rail nothing draws from is not_established: declare current_ma 0 if it is truly unloaded.",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "rail"],
        "properties": {
          "name": {"type": "string", "minLength": 1, "description": "Load name, e.g. a reference designator; unique on its rail."},
          "rail": {"type": "string", "minLength": 1, "description": "Name of the rail that supplies this load."},
          "current_ma": {"type": "number", "minimum": 0, "description": "Worst-case current in mA. Give this or power_mw, not both."},
          "power_mw": {"type": "number", "minimum": 0, "description": "Worst-case power in mW, converted at the rail's voltage. Give this or current_ma, not both. With neither, the load is unknown and its rail cannot pass."}
        },
        "not": {"$anchor": "give-current_ma-or-power_mw-not-both", "required": ["current_ma", "power_mw"]}
      }
    },
    "derating": {
      "type": "object",
      "additionalProperties": false,
      "description": "The derating rule: a rail's allowance is rated_output_ma x max_utilization.",
      "properties": {
        "max_utilization": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 0.8, "description": "Largest fraction of a rail's rated output its load may use. Default 0.8."}
      }
    }
  }
}`

// outputSchema describes the report Call returns. A null number is a figure
// that could not be computed because an input was not given.
const outputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["status", "summary", "derating", "rails", "missing"],
  "properties": {
    "status": {"type": "string", "enum": ["pass", "fail", "not_established"], "description": "fail if any rail fails; else not_established if any rail is; else pass."},
    "summary": {"type": "string"},
    "derating": {
      "type": "object",
      "additionalProperties": false,
      "required": ["max_utilization", "defaulted"],
      "properties": {
        "max_utilization": {"type": "number"},
        "defaulted": {"type": "boolean", "description": "true when the caller gave no max_utilization and the default was used."}
      }
    },
    "rails": {
      "type": "array",
      "description": "One entry per rail, in the order the rails were given.",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "voltage_v", "source_kind", "rated_output_ma", "allowance_ma", "load_ma", "known_load_ma", "utilization", "status", "missing", "detail"],
        "properties": {
          "name": {"type": "string"},
          "voltage_v": {"type": "number"},
          "source_kind": {"type": "string", "enum": ["supply", "ldo", "switching"]},
          "input_rail": {"type": "string"},
          "rated_output_ma": {"type": ["number", "null"]},
          "allowance_ma": {"type": ["number", "null"], "description": "rated_output_ma x max_utilization; null when the rating is unknown."},
          "load_ma": {"type": ["number", "null"], "description": "Direct loads plus the input current of every regulator fed from this rail; null when any figure it needs is unknown."},
          "known_load_ma": {"type": "number", "description": "The part of the load computable from the figures given: a lower bound (an unknown efficiency counts as lossless, an unknown quiescent current as zero)."},
          "input_current_ma": {"type": ["number", "null"], "description": "Regulators only: current drawn from input_rail; null when unknown."},
          "utilization": {"type": ["number", "null"], "description": "load_ma / rated_output_ma; null when either is unknown."},
          "status": {"type": "string", "enum": ["pass", "fail", "not_established"]},
          "missing": {"type": "array", "items": {"$ref": "#/$defs/figure"}, "description": "Unknown figures this rail's status depends on."},
          "detail": {"type": "string"}
        }
      }
    },
    "missing": {"type": "array", "items": {"$ref": "#/$defs/figure"}, "description": "Every unknown figure the budget depends on: give these to establish it."}
  },
  "$defs": {
    "figure": {
      "type": "object",
      "additionalProperties": false,
      "required": ["kind", "name", "field"],
      "properties": {
        "kind": {"type": "string", "enum": ["rail", "load"]},
        "name": {"type": "string"},
        "rail": {"type": "string", "description": "For a load: the rail it is on."},
        "field": {"type": "string", "description": "The input field to give, e.g. efficiency; \"loads\" for a rail with nothing declared on it."}
      }
    }
  }
}`
