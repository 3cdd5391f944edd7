package calculix

import (
	"fmt"
	"math"
	"sort"

	"github.com/metaforge/metaforge/internal/vec3"
	"github.com/metaforge/metaforge/protocol"
)

// The stress through a section: a plane cut through the part at a stated
// distance from its support, and the stress on it linearised (N/A + M y/I,
// the membrane-plus-bending split of ASME VIII-2 Annex 5-A taken over the
// whole cut). A clamp is a stress singularity: the peak there rises without
// limit as the mesh is refined. The section's stress does converge, and is
// what a beam or plate calculation predicts, so an analyst reads it instead.

// SectionStress is the stress on one cut through the part.
type SectionStress struct {
	// DistanceMM is how far the cut is from the support face, along the
	// face's inward normal.
	DistanceMM float64 `json:"distance_from_support_mm"`
	Support    string  `json:"support"`
	// Basis says why the cut is at this distance.
	Basis    string     `json:"basis"`
	PointMM  [3]float64 `json:"plane_point_mm"`
	Normal   [3]float64 `json:"plane_normal"`
	AreaMM2  float64    `json:"area_mm2"`
	Centroid [3]float64 `json:"centroid_mm"`
	// NormalForceN and BendingMomentNmm are the resultants of the stress
	// normal to the cut, the moment about the cut's centroid in the mesh
	// frame: equilibrium of the part beyond the cut gives them exactly.
	NormalForceN     float64    `json:"normal_force_n"`
	BendingMomentNmm [3]float64 `json:"bending_moment_nmm"`
	// MembraneMPa is the mean normal stress; BendingMPa the largest
	// linear part at the cut's edge.
	MembraneMPa float64 `json:"membrane_stress_mpa"`
	BendingMPa  float64 `json:"bending_stress_mpa"`
	// LinearizedMaxMPa and LinearizedMinMPa are membrane plus bending at
	// the most tensile and most compressive points of the cut;
	// LinearizedPeakMPa the larger in magnitude: the stress a hand
	// calculation (sigma = N/A + M c/I) predicts.
	LinearizedMaxMPa  float64    `json:"linearized_max_mpa"`
	LinearizedMinMPa  float64    `json:"linearized_min_mpa"`
	LinearizedPeakMPa float64    `json:"linearized_peak_mpa"`
	LinearizedPeakAt  [3]float64 `json:"linearized_peak_at_mm"`
	// MaxVonMisesMPa is the raw field's largest von Mises stress on the cut.
	MaxVonMisesMPa float64    `json:"max_von_mises_mpa"`
	MaxVonMisesAt  [3]float64 `json:"max_von_mises_at_mm"`
	ElementsCut    int        `json:"elements_cut"`
	// Equilibrium compares the resultants with what statics says the load
	// beyond the cut puts through it, when the whole load is beyond it.
	Equilibrium *SectionEquilibrium `json:"equilibrium,omitempty"`

	fit linearFit
}

// linearFit is the cut's geometry the linearisation used: its plane
// basis, second moments about the centroid and polygon vertices, so the
// statics check can linearise the expected resultants the same way.
type linearFit struct {
	u, v          vec3.V
	suu, suv, svv float64
	vertices      []vec3.V
}

// gradient is the in-plane stress gradient (MPa/mm along u and v) that
// carries the moment m (N mm, about the centroid) over the cut: since
// u x n = -v and v x n = u, m . u = int sigma v dA and m . v = -int sigma u dA.
func (f linearFit) gradient(m vec3.V) (float64, float64) {
	mu, mv := -vec3.Dot(m, f.v), vec3.Dot(m, f.u)
	det := f.suu*f.svv - f.suv*f.suv
	if det <= 0 {
		return 0, 0
	}
	return (f.svv*mu - f.suv*mv) / det, (f.suu*mv - f.suv*mu) / det
}

// SectionEquilibrium is the statics check of one cut: the part beyond it
// carries the applied load, so the stress on the cut must balance it. A
// mesh that locks (C3D4 in bending) fails it.
type SectionEquilibrium struct {
	ExpectedNormalForceN     float64    `json:"expected_normal_force_n"`
	ExpectedBendingMomentNmm [3]float64 `json:"expected_bending_moment_nmm"`
	// ExpectedLinearizedPeakMPa is N/A + M y/I of the expected resultants
	// over this cut: the stress statics alone predicts.
	ExpectedLinearizedPeakMPa float64 `json:"expected_linearized_peak_mpa"`
	// ErrorPct is the largest difference between the FEA's linearised
	// stress and the expected one over the cut, as a percentage of the
	// expected peak.
	ErrorPct float64 `json:"error_pct"`
}

// checkEquilibrium fills Equilibrium for a load of total force f applied
// at loadAt (a uniform traction's centroid), when every loaded node lies
// beyond the cut.
func (s *SectionStress) checkEquilibrium(cut sectionCut, f, loadAt vec3.V, loadNodes []vec3.V) {
	for _, p := range loadNodes {
		if vec3.Dot(vec3.Sub(p, cut.origin), cut.inward) <= cut.distance {
			return
		}
	}
	n := vec3.V(s.Normal)
	force := vec3.Dot(f, n)
	moment := vec3.Cross(vec3.Sub(loadAt, s.Centroid), f)
	// Only the moment about axes in the cut's plane is bending; the part
	// along n is torsion, which the normal stress does not carry.
	moment = vec3.Sub(moment, vec3.Scale(n, vec3.Dot(moment, n)))
	eu, ev := s.fit.gradient(moment)
	fu, fv := s.fit.gradient(vec3.V(s.BendingMomentNmm))
	e := &SectionEquilibrium{ExpectedNormalForceN: force, ExpectedBendingMomentNmm: moment}
	worst := 0.0
	for _, p := range s.fit.vertices {
		r := vec3.Sub(p, s.Centroid)
		a, b := vec3.Dot(r, s.fit.u), vec3.Dot(r, s.fit.v)
		want := force/s.AreaMM2 + eu*a + ev*b
		got := s.NormalForceN/s.AreaMM2 + fu*a + fv*b
		e.ExpectedLinearizedPeakMPa = math.Max(e.ExpectedLinearizedPeakMPa, math.Abs(want))
		worst = math.Max(worst, math.Abs(got-want))
	}
	if e.ExpectedLinearizedPeakMPa > 0 {
		e.ErrorPct = 100 * worst / e.ExpectedLinearizedPeakMPa
	}
	s.Equilibrium = e
}

// sectionCut is where a section is taken: a plane at a distance from a
// planar support face.
type sectionCut struct {
	support  string
	origin   vec3.V // the support face's centroid
	inward   vec3.V // unit normal into the part
	depth    float64
	width    float64 // the support face's largest extent
	distance float64
	basis    string
}

// planarTolerance is how far (as a fraction of the part's size) a support
// face's node may sit off its plane for the face to count as planar.
const planarTolerance = 1e-6

// supportPlane finds the plane of a support face and how far the part
// extends from it. A face that is not planar, or a mesh with no face
// table, has no plane: the reason says which.
func (md *model) supportPlane(support string, ids []int) (*sectionCut, string) {
	if md.table == nil {
		return nil, "the mesh has no face table beside it, so the support face's plane is unknown (mesh with gmsh.generate_mesh)"
	}
	face, ok := md.table.Find(support)
	if !ok {
		return nil, fmt.Sprintf("the face table has no face %q", support)
	}
	n := vec3.V(face.Normal)
	if vec3.Norm(n) < 0.5 {
		return nil, fmt.Sprintf("%s has no single normal", support)
	}
	c := vec3.V(face.CentroidMM)
	size := md.bbox.Size()
	tol := planarTolerance * vec3.Norm(vec3.V(size))
	for _, id := range ids {
		if d := vec3.Dot(vec3.Sub(md.mesh.Nodes[id], c), n); math.Abs(d) > tol {
			return nil, fmt.Sprintf("%s is not planar (a node sits %.3g mm off its mean plane), so no section can be cut parallel to it", support, math.Abs(d))
		}
	}
	cut := &sectionCut{support: face.Name, origin: c, inward: vec3.Scale(vec3.Unit(n), -1)}
	for _, p := range md.mesh.Nodes {
		cut.depth = math.Max(cut.depth, vec3.Dot(vec3.Sub(p, c), cut.inward))
	}
	fs := face.BBoxMM.Size()
	cut.width = math.Max(fs[0], math.Max(fs[1], fs[2]))
	return cut, ""
}

// at places the cut at distance (default: one support width in, where by
// Saint-Venant's principle the clamp's local disturbance has died out,
// but no further than half the part's depth).
func (c sectionCut) at(distance *float64) sectionCut {
	if distance != nil {
		c.distance = *distance
		c.basis = "the distance the call asked for"
		return c
	}
	c.distance = c.width
	c.basis = fmt.Sprintf("one support width (%.4g mm) from %s: by Saint-Venant's principle the support's local disturbance has died out there", c.width, c.support)
	if c.distance > c.depth/2 {
		c.distance = c.depth / 2
		c.basis = fmt.Sprintf("half the part's depth from %s (one support width, %.4g mm, would pass the middle)", c.support, c.width)
	}
	return c
}

// sectionCuts are the sections a static solve reports: at the distances
// the call asked for, or one by default. A support with no plane gets
// none, with the reason; asking for distances from one is an error.
func (md *model) sectionCuts(support string, ids []int, distances []float64) ([]sectionCut, string, error) {
	plane, why := md.supportPlane(support, ids)
	if plane == nil {
		if len(distances) > 0 {
			return nil, "", protocol.Invalid("section_distances_mm: no section can be cut from fixed_node_set %q: %s; leave section_distances_mm out", support, why)
		}
		return nil, why, nil
	}
	if len(distances) == 0 {
		return []sectionCut{plane.at(nil)}, "", nil
	}
	cuts := make([]sectionCut, 0, len(distances))
	for i, d := range distances {
		if !(d > 0) || d >= plane.depth {
			return nil, "", protocol.Invalid("section_distances_mm[%d] %g is not inside the part: give a distance between 0 and %.4g mm (how far the part extends from %s)", i, d, plane.depth, support)
		}
		cuts = append(cuts, plane.at(&d))
	}
	return cuts, "", nil
}

// Shape functions of the tetrahedra the mesher writes, by barycentric
// coordinates: CalculiX's C3D10 node order is the four corners, then the
// mid-sides of edges 1-2, 2-3, 3-1, 1-4, 2-4, 3-4.
var tetEdges = [6][2]int{{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}}

func tetShape(nodes int, L [4]float64) []float64 {
	if nodes == 4 {
		return L[:]
	}
	N := make([]float64, 10)
	for i := range 4 {
		N[i] = L[i] * (2*L[i] - 1)
	}
	for k, e := range tetEdges {
		N[4+k] = 4 * L[e[0]] * L[e[1]]
	}
	return N
}

// Dunavant's 6-point rule on a triangle (degree 4): exact for the cubic
// integrands of a quadratic stress field's moments.
var triangleRule = [6]struct{ a, b, c, w float64 }{
	{0.445948490915965, 0.445948490915965, 0.108103018168070, 0.223381589678011},
	{0.445948490915965, 0.108103018168070, 0.445948490915965, 0.223381589678011},
	{0.108103018168070, 0.445948490915965, 0.445948490915965, 0.223381589678011},
	{0.091576213509771, 0.091576213509771, 0.816847572980459, 0.109951743655322},
	{0.091576213509771, 0.816847572980459, 0.091576213509771, 0.109951743655322},
	{0.816847572980459, 0.091576213509771, 0.091576213509771, 0.109951743655322},
}

// cutPoint is a point of the cut inside one element: where it is and its
// barycentric coordinates in the element's corner tetrahedron.
type cutPoint struct {
	pos vec3.V
	bar [4]float64
}

// sample is the stress tensor at a point of the cut, with its area weight.
type sample struct {
	pos    vec3.V
	sigma  [6]float64 // SXX SYY SZZ SXY SYZ SZX
	weight float64
}

// section integrates the stress field over the cut. It needs a tetrahedral
// mesh and a nodal stress tensor at every node of each element cut.
func (md *model) section(cut sectionCut, stress *Block) (*SectionStress, string) {
	nodesPer := 0
	switch md.mesh.ElementType {
	case "C3D4":
		nodesPer = 4
	case "C3D10":
		nodesPer = 10
	default:
		return nil, fmt.Sprintf("sections are cut through tetrahedral meshes (C3D4, C3D10), not %s", md.mesh.ElementType)
	}
	n := cut.inward
	p0 := vec3.Add(cut.origin, vec3.Scale(n, cut.distance))
	u, v := planeBasis(n)
	var samples []sample
	var vertices []sample
	cutCount := 0
	for _, el := range md.mesh.Elements {
		if len(el) != nodesPer {
			continue
		}
		var corner [4]vec3.V
		var d [4]float64
		pos, neg := 0, 0
		for i := range 4 {
			corner[i] = md.mesh.Nodes[el[i]]
			d[i] = vec3.Dot(vec3.Sub(corner[i], p0), n)
			if d[i] >= 0 {
				pos++
			} else {
				neg++
			}
		}
		if pos == 0 || neg == 0 {
			continue
		}
		tensors := make([][]float64, nodesPer)
		for i, id := range el {
			s, ok := stress.Values[id]
			if !ok || len(s) < 6 {
				return nil, fmt.Sprintf("the results have no stress at node %d", id)
			}
			tensors[i] = s
		}
		at := func(b [4]float64) [6]float64 {
			var s [6]float64
			for i, w := range tetShape(nodesPer, b) {
				for k := range 6 {
					s[k] += w * tensors[i][k]
				}
			}
			return s
		}
		poly := cutPolygon(corner, d, u, v)
		cutCount++
		for _, p := range poly {
			vertices = append(vertices, sample{pos: p.pos, sigma: at(p.bar)})
		}
		for k := 1; k+1 < len(poly); k++ {
			a, b, c := poly[0], poly[k], poly[k+1]
			area := vec3.Norm(vec3.Cross(vec3.Sub(b.pos, a.pos), vec3.Sub(c.pos, a.pos))) / 2
			for _, q := range triangleRule {
				var bar [4]float64
				for i := range 4 {
					bar[i] = q.a*a.bar[i] + q.b*b.bar[i] + q.c*c.bar[i]
				}
				pos := vec3.Add(vec3.Add(vec3.Scale(a.pos, q.a), vec3.Scale(b.pos, q.b)), vec3.Scale(c.pos, q.c))
				samples = append(samples, sample{pos: pos, sigma: at(bar), weight: q.w * area})
			}
		}
	}
	if cutCount == 0 {
		return nil, fmt.Sprintf("no element crosses the plane %.4g mm from %s", cut.distance, cut.support)
	}
	return linearize(cut, p0, n, u, v, samples, vertices, cutCount), ""
}

// linearize fits N/A + M y/I to the stress normal to the cut: the mean is
// the membrane stress, the area-weighted least-squares slope the bending.
func linearize(cut sectionCut, p0, n, u, v vec3.V, samples, vertices []sample, cutCount int) *SectionStress {
	normal := func(s [6]float64) float64 {
		// n . sigma . n with sigma symmetric.
		return s[0]*n[0]*n[0] + s[1]*n[1]*n[1] + s[2]*n[2]*n[2] +
			2*(s[3]*n[0]*n[1]+s[4]*n[1]*n[2]+s[5]*n[2]*n[0])
	}
	var area, force float64
	var centroid vec3.V
	for _, s := range samples {
		area += s.weight
		force += s.weight * normal(s.sigma)
		centroid = vec3.Add(centroid, vec3.Scale(s.pos, s.weight))
	}
	centroid = vec3.Scale(centroid, 1/area)
	var suu, suv, svv, mu, mv float64
	var moment vec3.V
	for _, s := range samples {
		r := vec3.Sub(s.pos, centroid)
		a, b, sn := vec3.Dot(r, u), vec3.Dot(r, v), normal(s.sigma)
		suu += s.weight * a * a
		suv += s.weight * a * b
		svv += s.weight * b * b
		mu += s.weight * sn * a
		mv += s.weight * sn * b
		moment = vec3.Add(moment, vec3.Cross(r, vec3.Scale(n, s.weight*sn)))
	}
	membrane := force / area
	det := suu*svv - suv*suv
	var gu, gv float64 // the stress gradient in the plane, MPa/mm
	if det > 0 {
		gu = (svv*mu - suv*mv) / det
		gv = (suu*mv - suv*mu) / det
	}
	out := &SectionStress{
		DistanceMM: cut.distance, Support: cut.support, Basis: cut.basis,
		PointMM: p0, Normal: n, AreaMM2: area, Centroid: centroid,
		NormalForceN: force, BendingMomentNmm: moment, MembraneMPa: membrane,
		LinearizedMaxMPa: math.Inf(-1), LinearizedMinMPa: math.Inf(1), ElementsCut: cutCount,
		fit: linearFit{u: u, v: v, suu: suu, suv: suv, svv: svv},
	}
	// Vertices are sorted so that ties resolve the same way every run.
	sort.Slice(vertices, func(i, j int) bool { return lessPoint(vertices[i].pos, vertices[j].pos) })
	for _, s := range vertices {
		out.fit.vertices = append(out.fit.vertices, s.pos)
		r := vec3.Sub(s.pos, centroid)
		bending := gu*vec3.Dot(r, u) + gv*vec3.Dot(r, v)
		lin := membrane + bending
		out.BendingMPa = math.Max(out.BendingMPa, math.Abs(bending))
		out.LinearizedMaxMPa = math.Max(out.LinearizedMaxMPa, lin)
		out.LinearizedMinMPa = math.Min(out.LinearizedMinMPa, lin)
		if math.Abs(lin) > out.LinearizedPeakMPa {
			out.LinearizedPeakMPa, out.LinearizedPeakAt = math.Abs(lin), s.pos
		}
		if vm := vonMises(s.sigma[:]); vm > out.MaxVonMisesMPa {
			out.MaxVonMisesMPa, out.MaxVonMisesAt = vm, s.pos
		}
	}
	for _, s := range samples {
		if vm := vonMises(s.sigma[:]); vm > out.MaxVonMisesMPa {
			out.MaxVonMisesMPa, out.MaxVonMisesAt = vm, s.pos
		}
	}
	return out
}

// cutPolygon is where the plane (signed distances d of the corners) cuts
// a tetrahedron: a triangle or a quadrilateral, its points in order
// around it.
func cutPolygon(corner [4]vec3.V, d [4]float64, u, v vec3.V) []cutPoint {
	var pts []cutPoint
	for _, e := range tetEdges {
		i, j := e[0], e[1]
		if (d[i] >= 0) == (d[j] >= 0) {
			continue
		}
		t := d[i] / (d[i] - d[j])
		var bar [4]float64
		bar[i], bar[j] = 1-t, t
		pts = append(pts, cutPoint{pos: vec3.Add(corner[i], vec3.Scale(vec3.Sub(corner[j], corner[i]), t)), bar: bar})
	}
	if len(pts) == 4 {
		var c vec3.V
		for _, p := range pts {
			c = vec3.Add(c, vec3.Scale(p.pos, 0.25))
		}
		angle := func(p cutPoint) float64 {
			r := vec3.Sub(p.pos, c)
			return math.Atan2(vec3.Dot(r, v), vec3.Dot(r, u))
		}
		sort.Slice(pts, func(a, b int) bool { return angle(pts[a]) < angle(pts[b]) })
	}
	return pts
}

// planeBasis is two unit vectors spanning the plane normal to n.
func planeBasis(n vec3.V) (vec3.V, vec3.V) {
	// Start from the axis least aligned with n, so the cross product is
	// never near zero.
	k := 0
	for i := 1; i < 3; i++ {
		if math.Abs(n[i]) < math.Abs(n[k]) {
			k = i
		}
	}
	var axis vec3.V
	axis[k] = 1
	u := vec3.Unit(vec3.Cross(n, axis))
	return u, vec3.Cross(n, u)
}

func lessPoint(a, b vec3.V) bool {
	for k := range 3 {
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return false
}

// vonMises of a stress tensor SXX SYY SZZ SXY SYZ SZX.
func vonMises(s []float64) float64 {
	d := (s[0]-s[1])*(s[0]-s[1]) + (s[1]-s[2])*(s[1]-s[2]) + (s[2]-s[0])*(s[2]-s[0])
	return math.Sqrt(0.5*d + 3*(s[3]*s[3]+s[4]*s[4]+s[5]*s[5]))
}
