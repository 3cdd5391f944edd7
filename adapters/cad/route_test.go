package cad_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cad"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/freecad"
	"github.com/metaforge/metaforge/adapters/gmsh"
	"github.com/metaforge/metaforge/protocol"
)

// mustFail checks err is a taxonomy error of code whose message holds
// every part.
func mustFail(t *testing.T, err error, code protocol.Code, parts ...string) {
	t.Helper()
	t.Logf("refused: %v", err)
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("want a %s error, got %v", code.Name(), err)
	}
	if pe.Code != code {
		t.Errorf("code %s, want %s: %v", pe.Code.Name(), code.Name(), err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("the error does not say %q: %v", p, err)
		}
	}
}

// callDirect calls a tool's adapter without the schema check, as a caller
// in process would.
func callDirect(t *testing.T, reg *adapters.Registry, tool string, args map[string]any) (map[string]any, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	_, a, ok := reg.Tool(tool)
	if !ok {
		t.Fatalf("%s is not registered", tool)
	}
	res, err := a.Call(ctx(t), tool, raw)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	return out, nil
}

// Without kernel, a call runs on the first healthy kernel (cadquery) and
// says so; the kernel's own fields are all kept (cadquery's inertia,
// which freecad's get_properties also gives, and its solid_count).
func TestWithoutKernelTheAnswerNamesTheKernel(t *testing.T) {
	reg, _ := catalog(t)
	part := mustRun(t, reg, cad.ToolCreateParametric, map[string]any{"shape_type": "box", "material": "steel"})
	if part["kernel"] != cad.KernelCadQuery {
		t.Errorf("kernel %v, want cadquery (the first healthy one)", part["kernel"])
	}
	// mass_kg: 100 x 50 x 20 mm = 1e-4 m^3 of steel at 7850 kg/m^3.
	near(t, "mass_kg", num(t, part, "mass_kg"), 1e-4*7850, 1e-3)
	props := mustRun(t, reg, cad.ToolGetProperties, map[string]any{"input_file": part["cad_file"]})
	if props["kernel"] != cad.KernelCadQuery {
		t.Errorf("get_properties ran on %v", props["kernel"])
	}
	direct, err := callDirect(t, reg, cadquery.ToolGetProperties, map[string]any{"input_file": part["cad_file"]})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range direct {
		if got, ok := props[k]; !ok {
			t.Errorf("cadquery's field %s is missing from cad.get_properties", k)
		} else if b1, _ := json.Marshal(got); string(b1) != mustJSON(v) {
			t.Errorf("field %s: cad gave %s, cadquery %s", k, b1, mustJSON(v))
		}
	}
	// The box's inertia about its centre, unit density:
	// Ixx = V (w^2 + h^2) / 12 with V = 1e5, w = 50, h = 20.
	near(t, "inertia xx", num(t, props, "inertia", 0, 0), 1e5*(2500+400)/12, 1e-6)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A kernel that is not in the contract is refused, naming the healthy
// ones: by the schema through the server, and by the adapter itself
// for a caller in process.
func TestUnknownKernelIsRefusedNamingTheHealthyOnes(t *testing.T) {
	reg, _ := catalog(t)
	args := map[string]any{"shape_type": "box", "kernel": "solidworks"}
	if _, err := run(t, reg, cad.ToolCreateParametric, args); err == nil || !strings.Contains(err.Error(), "kernel") {
		t.Errorf("the schema check let kernel solidworks through: %v", err)
	}
	_, err := callDirect(t, reg, cad.ToolCreateParametric, args)
	mustFail(t, err, protocol.InvalidParams, `kernel "solidworks" is not one of cadquery, freecad`, "healthy now: cadquery, freecad")
	// An argument neither the kernels nor cad take is named, with those
	// it takes, the kernels' and kernel.
	_, err = callDirect(t, reg, cad.ToolCreateParametric, map[string]any{"shape_type": "box", "radius": 3})
	mustFail(t, err, protocol.InvalidParams, "unknown argument radius", "shape_type", "output_path", "kernel")
}

// A registry whose cadquery points at a Python that does not exist: its
// Health fails, so a call without kernel runs on freecad, and a call
// that asks for cadquery is refused with why and which kernel is healthy.
func TestUnhealthyKernelIsSkipped(t *testing.T) {
	_, ws := catalog(t)
	mesher := gmsh.New(ws)
	broken := cadquery.New(ws, cadquery.Options{Python: "/nonexistent/python3"})
	t.Cleanup(func() { _ = broken.Close() })
	reg := adapters.NewRegistry()
	for _, a := range []adapters.Adapter{broken, freecad.New(ws, freecad.Options{Mesher: mesher}), mesher, cad.New(reg)} {
		if err := reg.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	part := mustRun(t, reg, cad.ToolCreateParametric, map[string]any{"shape_type": "cylinder"})
	if part["kernel"] != cad.KernelFreeCAD {
		t.Fatalf("with cadquery unhealthy the part was made by %v, want freecad", part["kernel"])
	}
	// d 20, h 50 by default: pi/4 d^2 h.
	near(t, "cylinder volume", num(t, part, "volume_mm3"), 3.14159265358979*100*50, 1e-3)
	mesh := mustRun(t, reg, cad.ToolGenerateMesh, map[string]any{"input_file": part["cad_file"], "element_order": 1})
	if mesh["kernel"] != cad.KernelFreeCAD || mesh["element_type"] != "C3D4" {
		t.Errorf("mesh: kernel %v, element_type %v", mesh["kernel"], mesh["element_type"])
	}
	_, err := run(t, reg, cad.ToolCreateParametric, map[string]any{"shape_type": "cylinder", "kernel": "cadquery"})
	mustFail(t, err, protocol.ToolUnavailable, "kernel cadquery cannot serve cad.create_parametric", "/nonexistent/python3",
		"healthy now: freecad")
	a, _ := reg.Adapter(cad.AdapterID)
	if _, err := a.Health(ctx(t)); err != nil {
		t.Errorf("cad with freecad healthy is healthy, got %v", err)
	}
}

// With no kernel healthy, a call is refused saying, per kernel, why; so
// is the cad adapter's health.
func TestNoHealthyKernel(t *testing.T) {
	_, ws := catalog(t)
	cq := cadquery.New(ws, cadquery.Options{Python: "/nonexistent/python3"})
	t.Cleanup(func() { _ = cq.Close() })
	reg := adapters.NewRegistry()
	for _, a := range []adapters.Adapter{cq, freecad.New(ws, freecad.Options{Python: "/nonexistent/freecad-python3", Mesher: gmsh.New(ws)}), cad.New(reg)} {
		if err := reg.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	_, err := run(t, reg, cad.ToolBooleanOperation, map[string]any{"input_file_a": "a.step", "input_file_b": "b.step", "operation": "union"})
	mustFail(t, err, protocol.ToolUnavailable, "no CAD kernel can serve cad.boolean_operation", "cadquery: unhealthy", "freecad: unhealthy")
	// No gmsh registered: cadquery's mesh member is missing.
	_, err = run(t, reg, cad.ToolGenerateMesh, map[string]any{"input_file": "a.step"})
	mustFail(t, err, protocol.ToolUnavailable, "gmsh.generate_mesh is not registered")
	a, _ := reg.Adapter(cad.AdapterID)
	_, err = a.Health(ctx(t))
	mustFail(t, err, protocol.ToolUnavailable, "no CAD kernel can serve cad.create_parametric, cad.boolean_operation, cad.get_properties, "+
		"cad.export_geometry, cad.generate_mesh", "/nonexistent/python3", "/nonexistent/freecad-python3", "gmsh.generate_mesh is not registered")
}

// A kernel's refusal keeps its code and says which kernel's tool gave
// it; cad.export_geometry offers only the formats every kernel writes.
func TestKernelErrorsSayWhichKernel(t *testing.T) {
	reg, _ := catalog(t)
	for _, k := range cad.Kernels {
		_, err := run(t, reg, cad.ToolGetProperties, map[string]any{"input_file": "no_such_part.step", "kernel": k})
		mustFail(t, err, protocol.InvalidParams, "kernel "+k+" ("+k+".get_properties)", "no_such_part.step")
	}
	part := mustRun(t, reg, cad.ToolCreateParametric, map[string]any{"shape_type": "box"})
	_, err := run(t, reg, cad.ToolExportGeometry, map[string]any{"input_file": part["cad_file"], "output_format": "amf"})
	if err == nil || !strings.Contains(err.Error(), "output_format") {
		t.Errorf("amf, which freecad does not write, passed the schema: %v", err)
	}
	out := mustRun(t, reg, cad.ToolExportGeometry, map[string]any{"input_file": part["cad_file"], "output_format": "step", "kernel": "freecad"})
	if out["kernel"] != cad.KernelFreeCAD || out["format"] != "step" || out["step_base64"] == nil {
		t.Errorf("freecad's STEP export: %v", out)
	}
}
