package cad_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cad"
)

// schemaFields are the properties an input schema declares and the
// fields an output schema requires.
func schemaFields(t *testing.T, raw json.RawMessage) (props map[string]any, required []string) {
	t.Helper()
	var s struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s.Properties, s.Required
}

// contractArgs are real arguments for each tag's tools, setting every
// guaranteed input, on parts made by the kernel's own create tool.
func contractArgs(tag, box, cylinder string) map[string]any {
	switch tag {
	case "cad_generation":
		return map[string]any{"shape_type": "box", "parameters": map[string]any{"length": 40, "width": 30, "height": 20},
			"material": "steel", "output_path": "contract_box.step"}
	case "cad_operations":
		return map[string]any{"input_file_a": box, "input_file_b": cylinder, "operation": "subtract", "output_path": "contract_diff.step"}
	case "cad_analysis":
		return map[string]any{"input_file": box}
	case "cad_export":
		return map[string]any{"input_file": box, "output_format": "stl", "output_path": "contract_box.stl"}
	case "mesh_generation":
		return map[string]any{"input_file": box, "element_order": 1, "mesh_size_mm": 10, "mesh_size_min_mm": 2, "output_name": "contract_mesh"}
	}
	return nil
}

// Every kernel serves every row of the contract: its member tool declares
// the row's tag and guaranteed inputs, and run for real answers with the
// guaranteed outputs; the cad.* tool declares the same tag and inputs
// (and kernel), requires the same outputs, and run on that kernel gives
// them too, with kernel naming it.
func TestEveryKernelKeepsTheContract(t *testing.T) {
	reg, _ := catalog(t)
	for _, k := range cad.Kernels {
		if _, ok := reg.Adapter(k); !ok {
			t.Fatalf("kernel %s is not registered in the test catalog", k)
		}
		t.Run(k, func(t *testing.T) {
			create := cad.Contract[0]
			if create.Tag != "cad_generation" {
				t.Fatalf("the contract's first row is %s, not cad_generation", create.Tag)
			}
			box := mustRun(t, reg, create.Members[k], map[string]any{"shape_type": "box", "parameters": map[string]any{"length": 40, "width": 30, "height": 20}})
			cyl := mustRun(t, reg, create.Members[k], map[string]any{"shape_type": "cylinder", "parameters": map[string]any{"diameter": 20, "height": 40}})
			for _, c := range cad.Contract {
				args := contractArgs(c.Tag, box["cad_file"].(string), cyl["cad_file"].(string))
				if args == nil {
					t.Fatalf("no arguments for %s in this test", c.Tag)
				}
				checkTool(t, reg, c, c.Members[k], args)
				withKernel := map[string]any{"kernel": k}
				for a, v := range args {
					withKernel[a] = v
				}
				out := checkTool(t, reg, c, c.Tool, withKernel)
				if out["kernel"] != k {
					t.Errorf("%s on %s: the answer names kernel %v", c.Tool, k, out["kernel"])
				}
			}
		})
	}
}

// checkTool checks one tool of row c against the contract and returns its
// answer to args.
func checkTool(t *testing.T, reg *adapters.Registry, c cad.Capability, tool string, args map[string]any) map[string]any {
	t.Helper()
	m, _, ok := reg.Tool(tool)
	if !ok {
		t.Fatalf("%s (%s) is not registered", tool, c.Tag)
	}
	if m.Capability != c.Tag {
		t.Errorf("%s declares capability %q, want %q", tool, m.Capability, c.Tag)
	}
	if !m.Idempotent {
		t.Errorf("%s is not idempotent", tool)
	}
	props, _ := schemaFields(t, m.InputSchema)
	for _, in := range c.Inputs {
		if _, ok := props[in]; !ok {
			t.Errorf("%s's input schema does not declare %s", tool, in)
		}
	}
	if m.AdapterID == cad.AdapterID {
		if _, ok := props["kernel"]; !ok {
			t.Errorf("%s's input schema does not declare kernel", tool)
		}
		_, required := schemaFields(t, m.OutputSchema)
		for _, f := range append(slices.Clone(c.Outputs), "kernel") {
			if !slices.Contains(required, f) {
				t.Errorf("%s's output schema does not require %s", tool, f)
			}
		}
	}
	out := mustRun(t, reg, tool, args)
	if m.AdapterID == cad.AdapterID {
		validates(t, tool, m.OutputSchema, out)
	}
	for _, f := range c.Outputs {
		if v, ok := out[f]; !ok || v == nil {
			t.Errorf("%s answered without %s: %v", tool, f, out)
		}
	}
	return out
}

// validates checks an answer against the tool's output schema, as an MCP
// client may check structuredContent.
func validates(t *testing.T, tool string, schema json.RawMessage, out map[string]any) {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatalf("%s's output schema: %v", tool, err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s's output schema: %v", tool, err)
	}
	if err := r.Validate(out); err != nil {
		t.Errorf("%s's answer does not meet its output schema: %v", tool, err)
	}
}
