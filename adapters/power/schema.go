package power

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
)

// inputSchema is what an agent reads to build a call, generated from
// Request, the type the call decodes into, so every field says what it
// means, its unit, and what leaving it out does. The registry checks
// arguments against it before Call; Call checks the same rules again (and the
// ones JSON Schema cannot say: unique names, references, cycles) so a caller
// that skips the registry gets the same answers.
var inputSchema = adapters.SchemaFor[Request](
	adapters.At("", adapters.Describe("A static worst-case power budget: every rail, every load, and the derating rule.")),
	adapters.At("rails", adapters.MinItems(1)),
	adapters.At("rails[].name", adapters.MinLength(1)),
	adapters.At("rails[].voltage_v", adapters.ExclusiveMinimum(0)),
	adapters.At("rails[].source_kind", adapters.Enum(KindSupply, KindLDO, KindSwitching)),
	adapters.At("rails[].rated_output_ma", adapters.ExclusiveMinimum(0)),
	adapters.At("rails[].input_rail", adapters.MinLength(1)),
	adapters.At("rails[].efficiency", adapters.ExclusiveMinimum(0), adapters.Maximum(1)),
	adapters.At("rails[].quiescent_ma", adapters.Minimum(0)),
	adapters.At("rails[].dropout_v", adapters.Minimum(0), adapters.Default(DefaultDropoutV)),
	adapters.At("rails[].topology", adapters.Enum(TopologyBuck, TopologyBoost, TopologyBuckBoost, TopologyInverting)),
	adapters.At("rails[]",
		whenKind([]string{KindLDO, KindSwitching}, &jsonschema.Schema{Required: []string{"input_rail"}}),
		whenKind([]string{KindSupply}, refuse("a-supply-rail-has-no-input_rail", "input_rail")),
		whenKind([]string{KindSupply, KindLDO}, refuse("efficiency-is-only-for-a-switching-rail", "efficiency")),
		whenKind([]string{KindSupply, KindSwitching}, refuse("quiescent_ma-is-only-for-an-ldo-rail", "quiescent_ma")),
		whenKind([]string{KindSupply, KindSwitching}, refuse("dropout_v-is-only-for-an-ldo-rail", "dropout_v")),
		whenKind([]string{KindSupply, KindLDO}, refuse("topology-is-only-for-a-switching-rail", "topology"))),
	adapters.At("loads[].name", adapters.MinLength(1)),
	adapters.At("loads[].rail", adapters.MinLength(1)),
	adapters.At("loads[].current_ma", adapters.Minimum(0)),
	adapters.At("loads[].power_mw", adapters.Minimum(0)),
	adapters.At("loads[]", func(s *jsonschema.Schema) {
		s.Not = refuse("give-current_ma-or-power_mw-not-both", "current_ma", "power_mw").Not
	}),
	adapters.At("derating.max_utilization", adapters.ExclusiveMinimum(0), adapters.Maximum(1), adapters.Default(DefaultMaxUtilization)),
)

// whenKind applies then to a rail whose source_kind is one of kinds.
func whenKind(kinds []string, then *jsonschema.Schema) adapters.SchemaEdit {
	return func(s *jsonschema.Schema) {
		kind := &jsonschema.Schema{}
		if len(kinds) == 1 {
			adapters.Const(kinds[0])(kind)
		} else {
			adapters.Enum(kinds...)(kind)
		}
		s.AllOf = append(s.AllOf, &jsonschema.Schema{
			If:   &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"source_kind": kind}, Required: []string{"source_kind"}},
			Then: then,
		})
	}
}

// refuse forbids the fields together; the anchor is the rule's name, which
// is what a validation error quotes.
func refuse(anchor string, fields ...string) *jsonschema.Schema {
	return &jsonschema.Schema{Not: &jsonschema.Schema{Anchor: anchor, Required: fields}}
}

// outputSchema describes the report Call returns. A null number is a figure
// that could not be computed because an input was not given.
const outputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["status", "summary", "derating", "rails", "missing", "warnings"],
  "properties": {
    "status": {"type": "string", "enum": ["pass", "fail", "not_established"], "description": "fail if any rail fails; else not_established if any rail is; else pass."},
    "warnings": {"type": "array", "items": {"type": "string"}, "description": "What the status could be misread without: a switching rail whose direction was not checked (no topology), an LDO that passes only on the default dropout_v."},
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
        "required": ["name", "voltage_v", "source_kind", "rated_output_ma", "allowance_ma", "load_ma", "known_load_ma", "utilization", "status", "missing", "detail", "checks"],
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
          "detail": {"type": "string"},
          "checks": {
            "type": "array",
            "description": "The topology rules judged on a regulator's conversion from its input rail; a failed one fails the rail. Empty for a supply.",
            "items": {
              "type": "object",
              "additionalProperties": false,
              "required": ["rule", "status", "detail"],
              "properties": {
                "rule": {"type": "string", "enum": ["ldo_dropout", "buck_steps_down", "boost_steps_up", "switching_direction"], "description": "ldo_dropout: output below input by at least the dropout. buck_steps_down: output below input. boost_steps_up: output above input. switching_direction: a buck_boost or inverting rail (either way), or a switching rail with no topology (not_checked)."},
                "status": {"type": "string", "enum": ["pass", "fail", "not_checked"]},
                "detail": {"type": "string"}
              }
            }
          },
          "dropout_v": {"type": "number", "description": "LDOs only: the dropout the rail was judged by, in volts."},
          "dropout_defaulted": {"type": "boolean", "description": "LDOs only: true when dropout_v was not given and the default 0.3 V was taken."}
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
