package adapters

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// shapeArgs has a shape chosen by one argument, whose parameters depend
// on it: the if/then case of a generated schema.
type shapeArgs struct {
	ShapeType  string             `json:"shape_type" jsonschema:"the part to build"`
	Parameters map[string]float64 `json:"parameters,omitempty"`
	Rails      []struct {
		Name string `json:"name"`
		Volt int    `json:"voltage_v,omitempty"`
	} `json:"rails,omitempty"`
}

func shapeSchema() json.RawMessage {
	params := func(names ...string) *jsonschema.Schema {
		p := &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
		for _, n := range names {
			p.Properties[n] = &jsonschema.Schema{Type: "number"}
		}
		return &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"parameters": p}}
	}
	return SchemaFor[shapeArgs](
		At("shape_type", Enum("cylinder", "box")),
		At("", Then("shape_type", "cylinder", params("diameter", "height")),
			Then("shape_type", "box", params("length", "width", "height"))),
	)
}

// An argument the tool does not take is answered with the ones it takes
// there, by the schema check and by the decoder alike; inside a shape's
// branch, with the chosen shape's arguments.
func TestUnknownArgumentNamesWhatTheToolTakes(t *testing.T) {
	s, err := compileInputSchema(shapeSchema())
	if err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]string{
		`{"shape_type":"box","radius":3}`:                                "unknown argument radius; this tool takes parameters, rails, shape_type",
		`{"shape_type":"box","radius":3,"width":1}`:                      "unknown arguments radius, width; this tool takes parameters, rails, shape_type",
		`{"shape_type":"cylinder","parameters":{"radius":3}}`:            "unknown argument parameters.radius; with shape_type cylinder, parameters takes diameter, height",
		`{"shape_type":"box","parameters":{"diameter":3}}`:               "unknown argument parameters.diameter; with shape_type box, parameters takes height, length, width",
		`{"shape_type":"box","rails":[{"name":"a"},{"name":"b","v":1}]}`: "unknown argument rails[].v; rails[] takes name, voltage_v",
	} {
		err := s.validate("t.make", []byte(args))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("schema check of %s: %v, want %q", args, err, want)
		}
	}
	for args, want := range map[string]string{
		`{"shape_type":"box","radius":3}`:                                "unknown argument radius; this tool takes shape_type, parameters, rails",
		`{"shape_type":"box","rails":[{"name":"a"},{"name":"b","v":1}]}`: "unknown argument rails[].v; rails[] takes name, voltage_v",
	} {
		err := DecodeArguments(json.RawMessage(args), &shapeArgs{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("decoding %s: %v, want %q", args, err, want)
		}
	}
}

// Where the walk cannot tell which branch applies (an if on two
// arguments), the validator's own report is read the same way.
func TestUnknownArgumentFromTheValidator(t *testing.T) {
	raw := json.RawMessage(`{"type": "object", "additionalProperties": false,
	  "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "p": {"type": "object"}},
	  "allOf": [{"if": {"properties": {"a": {"const": "x"}, "b": {"const": "y"}}, "required": ["a", "b"]},
	             "then": {"properties": {"p": {"properties": {"q": {}}, "additionalProperties": false}}}}]}`)
	s, err := compileInputSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	err = s.validate("t.x", []byte(`{"a": "x", "b": "y", "p": {"r": 1}}`))
	if want := "unknown argument p.r; p takes q"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
}
