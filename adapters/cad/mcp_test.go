package cad_test

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cad"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/freecad"
	"github.com/metaforge/metaforge/adapters/gmsh"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
)

// stackRegistry is the stack's registry, known once the stack has
// started: mcptest builds the registry the cad adapter reads.
type stackRegistry struct{ *adapters.Registry }

// Through MCP and the durable path (embedded Temporal, the ToolCall
// workflow, the adapter's worker): tools/list shows the cad.* tools as
// reads with their capability's tag, and a call without kernel answers
// with the kernel that ran it, in structured content that meets the
// tool's output schema (the client checks it).
func TestCadThroughMCP(t *testing.T) {
	_, ws := catalog(t)
	mesher := gmsh.New(ws)
	cq := cadquery.New(ws, cadquery.Options{})
	t.Cleanup(func() { _ = cq.Close() })
	late := &stackRegistry{}
	s := mcptest.Start(t, cad.New(late), cq, freecad.New(ws, freecad.Options{Mesher: mesher}), mesher)
	late.Registry = s.Registry
	cs := s.Connect(t, nil)
	c := ctx(t)

	listed, err := cs.ListTools(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]*mcp.Tool{}
	for _, tool := range listed.Tools {
		seen[tool.Name] = tool
	}
	for _, row := range cad.Contract {
		tool := seen[row.Tool]
		if tool == nil {
			t.Errorf("tools/list has no %s", row.Tool)
			continue
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || tool.OutputSchema == nil {
			t.Errorf("%s: annotations %+v, output schema %v; want a read with an output schema", row.Tool, tool.Annotations, tool.OutputSchema)
		}
	}

	res, err := cs.CallTool(c, &mcp.CallToolParams{Name: cad.ToolCreateParametric,
		Arguments: map[string]any{"shape_type": "cylinder", "parameters": map[string]any{"diameter": 10, "height": 40}}})
	if err != nil || res.IsError {
		t.Fatalf("cad.create_parametric: %v %+v", err, res)
	}
	var part map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &part); err != nil {
		t.Fatal(err)
	}
	if part["kernel"] != cad.KernelCadQuery {
		t.Errorf("kernel %v, want cadquery", part["kernel"])
	}
	// pi/4 d^2 h with d 10, h 40.
	near(t, "cylinder volume", num(t, part, "volume_mm3"), 3.141592653589793*25*40, 1e-3)

	res, err = cs.CallTool(c, &mcp.CallToolParams{Name: cad.ToolGetProperties,
		Arguments: map[string]any{"input_file": part["cad_file"], "kernel": "freecad"}})
	if err != nil || res.IsError {
		t.Fatalf("cad.get_properties on freecad: %v %+v", err, res)
	}
	var props map[string]any
	raw, _ = json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &props); err != nil {
		t.Fatal(err)
	}
	if props["kernel"] != cad.KernelFreeCAD {
		t.Errorf("kernel %v, want freecad", props["kernel"])
	}
	near(t, "volume measured by freecad", num(t, props, "volume"), 3.141592653589793*25*40, 1e-3)

	res, err = cs.CallTool(c, &mcp.CallToolParams{Name: cad.ToolGetProperties,
		Arguments: map[string]any{"input_file": part["cad_file"], "kernel": "catia"}})
	if err == nil && !res.IsError {
		t.Errorf("kernel catia was accepted: %+v", res)
	}
}
