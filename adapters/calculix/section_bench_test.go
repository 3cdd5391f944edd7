package calculix

import (
	"testing"
)

// BenchmarkSectionAndSingularity measures what issue 20 adds to a static
// solve after ccx: cutting the default section through the 2 mm beam
// (22,988 nodes, 12,532 C3D10 elements) and placing the peak against the
// fixed and loaded faces. ccx itself takes about 3 s on that mesh.
//
//	go test ./adapters/calculix -run '^$' -bench SectionAndSingularity -benchtime 20x
func BenchmarkSectionAndSingularity(b *testing.B) {
	ws, m := fixtureMesh(b, "beam.step", 2, 2)
	var r FEAResult
	if err := call(b, New(ws), ToolRunFEA, map[string]any{"mesh_file": m.path, "material": "aluminum_6061_t6",
		"fixed_node_set": m.fixed, "load_node_set": m.loaded, "load_force_n": beamP}, &r); err != nil {
		b.Fatal(err)
	}
	md, err := New(ws).models.load(r.MeshFile)
	if err != nil {
		b.Fatal(err)
	}
	_, blocks, err := ReadFRD(r.Files["frd"], "STRESS")
	if err != nil {
		b.Fatal(err)
	}
	stress := Find(blocks, "STRESS")
	fixed, _ := md.mesh.NodeSet(m.fixed)
	loaded, _ := md.mesh.NodeSet(m.loaded)
	faces := []boundaryFace{{name: m.fixed, role: "fixed", nodes: fixed}, {name: m.loaded, role: "load", nodes: loaded}}
	cuts, _, err := md.sectionCuts(m.fixed, fixed, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if sec, why := md.section(cuts[0], stress); sec == nil {
			b.Fatal(why)
		}
		if md.singularityAt(r.MaxVonMisesNode, faces) == nil {
			b.Fatal("the clamp peak is not placed at the fixed face")
		}
	}
}
