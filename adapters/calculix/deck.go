package calculix

import (
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/internal/materials"
	"github.com/metaforge/metaforge/internal/meshfile"
)

// Units: the decks use the consistent mm, N, s, tonne system, so stress is
// MPa, density tonne/mm^3, conductivity mW/(mm K) (numerically W/(m K)),
// power mW and temperature degrees C.
const (
	gpaToMPa          = 1e3
	kgM3ToTonneMM3    = 1e-12
	wattsToMilliwatts = 1e3
)

// nodalLoad is a force (or heat flow) on one node.
type nodalLoad struct {
	Node  int
	Value [3]float64
}

// deck writes a CalculiX input deck.
type deck struct{ b strings.Builder }

func (d *deck) line(format string, args ...any) { fmt.Fprintf(&d.b, format+"\n", args...) }

func (d *deck) String() string { return d.b.String() }

// header includes the mesh and declares the material and its sections.
func (d *deck) header(title, meshName string, m *Mesh, mat materials.Material, elastic, thermal bool) {
	d.line("** MetaForge %s", title)
	d.line("*INCLUDE, INPUT=%s", meshName)
	d.line("*MATERIAL, NAME=MF_MATERIAL")
	if elastic {
		d.line("*ELASTIC")
		d.line("%.6g, %.6g", mat.YoungsModulusGPa*gpaToMPa, mat.PoissonRatio)
	}
	if mat.DensityKgM3 > 0 {
		d.line("*DENSITY")
		d.line("%.6e", mat.DensityKgM3*kgM3ToTonneMM3)
	}
	if thermal {
		d.line("*CONDUCTIVITY")
		d.line("%.6g", mat.ConductivityWMK)
	}
	for _, es := range m.ElementSets {
		d.line("*SOLID SECTION, ELSET=%s, MATERIAL=MF_MATERIAL", es)
	}
}

// nodeSet declares a node set of the given ids.
func (d *deck) nodeSet(name string, ids []int) {
	d.line("*NSET, NSET=%s", name)
	for i := 0; i < len(ids); i += 16 {
		parts := make([]string, 0, 16)
		for _, id := range ids[i:min(i+16, len(ids))] {
			parts = append(parts, fmt.Sprint(id))
		}
		d.line("%s,", strings.Join(parts, ", "))
	}
}

// spread splits total over a face's nodes by the consistent weights of its
// surface triangles when the mesh has a face table, else equally over the
// set's nodes (exact only for linear elements; the caller warns).
func spread(m *Mesh, table *meshfile.Table, set string, total [3]float64) ([]nodalLoad, bool, error) {
	if table != nil {
		if f, ok := table.Find(set); ok && len(f.Triangles) > 0 {
			w, err := f.ConsistentWeights(m.TriangleArea)
			if err != nil {
				return nil, false, err
			}
			out := make([]nodalLoad, 0, len(w))
			for _, n := range meshfile.SortedNodes(w) {
				out = append(out, nodalLoad{Node: n, Value: [3]float64{total[0] * w[n], total[1] * w[n], total[2] * w[n]}})
			}
			return out, true, nil
		}
	}
	ids, _ := m.NodeSet(set)
	out := make([]nodalLoad, 0, len(ids))
	share := 1 / float64(len(ids))
	for _, n := range ids {
		out = append(out, nodalLoad{Node: n, Value: [3]float64{total[0] * share, total[1] * share, total[2] * share}})
	}
	return out, false, nil
}

// cload writes nodal forces, one line per non-zero component.
func (d *deck) cload(loads []nodalLoad) {
	d.line("*CLOAD")
	for _, l := range loads {
		for k := range 3 {
			if l.Value[k] != 0 {
				d.line("%d, %d, %.9e", l.Node, k+1, l.Value[k])
			}
		}
	}
}

// cflux writes nodal heat flows (degree of freedom 11), in mW.
func (d *deck) cflux(loads []nodalLoad) {
	d.line("*CFLUX")
	for _, l := range loads {
		d.line("%d, 11, %.9e", l.Node, l.Value[0])
	}
}
