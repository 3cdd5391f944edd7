package freecad

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/protocol"
)

func TestSessionOpsTable(t *testing.T) {
	classes := map[string]string{"describe_model": "read_only", "export_model": "producing", "execute_code": "destructive"}
	reads := map[string]bool{"describe_model": true, "export_model": true}
	seen := map[string]bool{}
	for _, op := range SessionOps() {
		if seen[op.Name] {
			t.Errorf("op %s is listed twice", op.Name)
		}
		seen[op.Name] = true
		want := classes[op.Name]
		if want == "" {
			want = "additive"
		}
		if op.Class != want {
			t.Errorf("op %s has class %q, want %q", op.Name, op.Class, want)
		}
		if op.Edits == reads[op.Name] {
			t.Errorf("op %s: Edits %v; only describe_model and export_model leave the document alone", op.Name, op.Edits)
		}
		if op.Title == "" || op.Description == "" {
			t.Errorf("op %s has no title or description", op.Name)
		}
		var schema struct {
			Required             []string        `json:"required"`
			Properties           map[string]any  `json:"properties"`
			AdditionalProperties json.RawMessage `json:"additionalProperties"`
		}
		if err := json.Unmarshal(op.Schema(), &schema); err != nil {
			t.Fatalf("op %s: schema %s: %v", op.Name, op.Schema(), err)
		}
		if !strings.Contains(strings.Join(schema.Required, ","), "session_id") || schema.Properties["session_id"] == nil {
			t.Errorf("op %s's schema does not require session_id: %s", op.Name, op.Schema())
		}
	}
	for _, name := range []string{"create_body", "create_sketch", "pad_sketch", "pocket_sketch", "revolve_sketch", "loft_sketches",
		"sweep_sketch", "shell_solid", "fillet", "chamfer", "linear_pattern", "polar_pattern", "describe_model", "export_model", "execute_code"} {
		if !seen[name] {
			t.Errorf("SessionOps has no %s", name)
		}
	}
}

func TestCheckSessionOpRefusals(t *testing.T) {
	for _, c := range []struct {
		name, op, args, want string
	}{
		{"unknown op", "frobnicate", `{"session_id":"s"}`, `unknown session op "frobnicate"; the ops are create_body, create_sketch,`},
		{"unknown field", "fillet", `{"session_id":"s","selector":"|Z","radius_mm":3}`, "fillet: unknown argument radius_mm; this tool takes"},
		{"missing session_id", "describe_model", `{}`, "describe_model: session_id is required: the editing session, as freecad.open_session returned it"},
		{"empty session_id", "describe_model", `{"session_id":""}`, "describe_model: session_id is required"},
		{"negative length", "pad_sketch", `{"session_id":"s","sketch":"Sketch","length":-5}`, "pad_sketch: argument length: a pad of type dimension needs a length above 0 mm"},
		{"negative radius", "fillet", `{"session_id":"s","selector":"|Z","radius":-2.5}`, "fillet: argument radius: must be greater than 0, not -2.5"},
		{"too few occurrences", "polar_pattern", `{"session_id":"s","features":["Pocket"],"axis":"Z","occurrences":1}`, "polar_pattern: argument occurrences: must be at least 2, not 1"},
		{"no length", "pad_sketch", `{"session_id":"s","sketch":"Sketch"}`, "pad_sketch: argument length: a pad of type dimension needs a length above 0 mm"},
		{"pocket without depth", "pocket_sketch", `{"session_id":"s","sketch":"Sketch001"}`, "give a depth above 0 mm, or through_all"},
		{"both edges and selector", "fillet", `{"session_id":"s","edges":["Edge1"],"selector":"|Z","radius":1}`, "one of the two"},
		{"bad selector", "chamfer", `{"session_id":"s","selector":"|W","size":1}`, "chamfer: argument selector:"},
		{"bad edge name", "fillet", `{"session_id":"s","edges":["edge1"],"radius":1}`, `fillet: argument edges: pattern: "edge1" does not match regular expression`},
		{"circle without r", "create_sketch", `{"session_id":"s","geometry":[{"type":"circle","cx":0,"cy":0}]}`, "geometry[0]: a circle needs cx, cy, r"},
		{"plane and face", "create_sketch", `{"session_id":"s","plane":"XY","face":{"feature":"Pad","face":"Face6"},"geometry":[{"type":"circle","cx":0,"cy":0,"r":1}]}`, "give plane or face, not both"},
		{"relative export path", "export_model", `{"session_id":"s","path":"part.step"}`, `argument path: "part.step" must be an absolute path ending in .step or .stp`},
		{"wrong type", "pad_sketch", `{"session_id":"s","sketch":"Sketch","length":"20"}`, "argument length must be a number, not a JSON string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := CheckSessionOp(c.op, json.RawMessage(c.args))
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams {
				t.Fatalf("CheckSessionOp(%s, %s) = %v, want INVALID_PARAMS", c.op, c.args, err)
			}
			if !strings.Contains(pe.Details, c.want) {
				t.Errorf("CheckSessionOp(%s, %s) says %q, want it to say %q", c.op, c.args, pe.Details, c.want)
			}
		})
	}
}

// The canonical arguments are the Go type's encoding: spacing and order
// gone, defaults left to the kernel, session_id kept.
func TestCheckSessionOpCanonical(t *testing.T) {
	got, err := CheckSessionOp("pad_sketch", json.RawMessage(`{ "length": 20, "sketch": "Sketch", "session_id": "s" }`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"session_id":"s","sketch":"Sketch","length":20}`; string(got) != want {
		t.Errorf("canonical %s, want %s", got, want)
	}
}
