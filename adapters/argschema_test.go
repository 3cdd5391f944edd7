package adapters

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type railArgs struct {
	Name    string   `json:"name" jsonschema:"the rail's name"`
	Volts   *float64 `json:"voltage_v"`
	Kind    string   `json:"source_kind,omitempty"`
	Loads   []string `json:"loads,omitempty"`
	Comment *string  `json:"comment,omitempty"`
	Inner   struct {
		Max int `json:"max,omitempty"`
	} `json:"inner,omitzero"`
}

// The schema is the type's: names, types and descriptions from the tags,
// required unless omitempty, no property it does not name, no null unless
// a rule says so; rules add the rest where they say.
func TestSchemaForGeneratesFromTheType(t *testing.T) {
	raw := SchemaFor[railArgs](
		At("", Describe("one rail")),
		At("voltage_v", ExclusiveMinimum(0), Maximum(48)),
		At("source_kind", Enum("supply", "ldo"), Default("supply")),
		At("loads", MinItems(1), MaxItems(3), UniqueItems()),
		At("loads[]", MinLength(1), Pattern("^[A-Z]")),
		At("comment", Nullable(), MaxLength(10)),
		At("inner", MaxProperties(1)),
		At("inner.max", Minimum(1)),
		At("", Then("source_kind", "ldo", &jsonschema.Schema{Required: []string{"comment"}})),
	)
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	_ = json.Unmarshal([]byte(`{
	  "type": "object", "description": "one rail", "additionalProperties": false, "required": ["name", "voltage_v"],
	  "properties": {
	    "name": {"type": "string", "description": "the rail's name"},
	    "voltage_v": {"type": "number", "exclusiveMinimum": 0, "maximum": 48},
	    "source_kind": {"type": "string", "enum": ["supply", "ldo"], "default": "supply"},
	    "loads": {"type": "array", "minItems": 1, "maxItems": 3, "uniqueItems": true, "items": {"type": "string", "minLength": 1, "pattern": "^[A-Z]"}},
	    "comment": {"type": ["string", "null"], "maxLength": 10},
	    "inner": {"type": "object", "maxProperties": 1, "additionalProperties": false, "properties": {"max": {"type": "integer", "minimum": 1}}}
	  },
	  "allOf": [{"if": {"properties": {"source_kind": {"const": "ldo"}}, "required": ["source_kind"]},
	             "then": {"required": ["comment"]}}]
	}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("generated\n%s\nwant the same as\n%s", raw, jsonText(want))
	}
	// And the registry takes it.
	if _, err := compileInputSchema(raw); err != nil {
		t.Fatal(err)
	}
}

// A tool that takes nothing says so, and Require replaces what omitempty
// said, for a type that is also encoded.
func TestSchemaForEmptyAndRequire(t *testing.T) {
	if got := string(SchemaFor[struct{}]()); got != `{"type":"object","properties":{},"additionalProperties":false}` {
		t.Errorf("no arguments: %s", got)
	}
	raw := SchemaFor[railArgs](At("", Require("name")))
	if !strings.Contains(string(raw), `"required":["name"]`) {
		t.Errorf("Require: %s", raw)
	}
}

// A rule at a place the type does not have is a mistake in the
// declaration, and says which.
func TestSchemaForRefusesARuleAtNoArgument(t *testing.T) {
	for path, want := range map[string]string{
		"voltage":   `there is no argument "voltage"`,
		"name[]":    `"name" is not an array`,
		"inner.mx":  `there is no argument "mx"`,
		"loads[].x": `there is no argument "x"`,
	} {
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(r.(string), want) {
					t.Errorf("At(%q): panic %v, want it to say %q", path, r, want)
				}
			}()
			SchemaFor[railArgs](At(path, MinLength(1)))
		}()
	}
}

// Arguments left out, empty or null are the empty object, whichever way
// a client says "none".
func TestArgumentsOrEmpty(t *testing.T) {
	for _, raw := range []string{"", "  ", "null", " null\n"} {
		if got := string(ArgumentsOrEmpty(json.RawMessage(raw))); got != "{}" {
			t.Errorf("%q: %s, want {}", raw, got)
		}
	}
	if got := string(ArgumentsOrEmpty(json.RawMessage(`{"a":1}`))); got != `{"a":1}` {
		t.Errorf("arguments given: %s", got)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
