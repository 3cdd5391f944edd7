package fieldview

import (
	"fmt"
	"math"
)

// DefaultTriangleCap is the most triangles a view holds. A full-HD screen
// has about two million pixels and a part seldom covers a quarter of it,
// so beyond 100 000 triangles most would be smaller than a pixel: they
// would cost the browser memory and the network bytes (about 70 bytes
// each in the JSON answer) and show nothing more.
const DefaultTriangleCap = 100_000

// triangles chooses the surface's triangles under limit: every node
// (quadratic faces split in four) when they fit, else the faces' corners,
// else the corners clustered on a grid (cluster), the coarsest. detail
// says which.
func triangles(faces []outerFace, nodes map[int][3]float64, value map[int]float64, limit int) (tris [][3]int, full int, detail string) {
	for _, f := range faces {
		full += len(f.fine())
	}
	if full <= limit {
		return collect(faces, outerFace.fine), full, "every node of the surface"
	}
	coarse := collect(faces, outerFace.coarse)
	if len(coarse) <= limit {
		return coarse, full, "the surface's element corners (mid-side nodes left out)"
	}
	tris, cell := cluster(coarse, nodes, value, limit)
	return tris, full, fmt.Sprintf("the surface's element corners clustered on a %.3g mm grid, each cluster drawn at its node of highest value", cell)
}

func collect(faces []outerFace, split func(outerFace) [][3]int) [][3]int {
	var out [][3]int
	for _, f := range faces {
		out = append(out, split(f)...)
	}
	return out
}

// cluster decimates by vertex clustering: the box around the surface is
// cut into cubic cells, every node in a cell is replaced by one of them
// (the one with the highest value, so no peak is averaged away and every
// vertex drawn is a real node with its own value), and triangles whose
// corners fall into fewer than three cells vanish. The cells grow until
// the triangles fit under limit. It returns the triangles and the cell size.
func cluster(tris [][3]int, nodes map[int][3]float64, value map[int]float64, limit int) ([][3]int, float64) {
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, t := range tris {
		for _, id := range t {
			p := nodes[id]
			for k := range 3 {
				lo[k], hi[k] = math.Min(lo[k], p[k]), math.Max(hi[k], p[k])
			}
		}
	}
	size := math.Max(hi[0]-lo[0], math.Max(hi[1]-lo[1], hi[2]-lo[2]))
	if size <= 0 {
		return nil, 0
	}
	// A surface of n triangles over cells of side h keeps about two
	// triangles per cell it crosses; start where that would fit and grow.
	cell := size / math.Sqrt(float64(limit)/2)
	for {
		out := clusterAt(tris, nodes, value, lo, cell)
		if len(out) <= limit {
			return out, cell
		}
		cell *= 1.25
	}
}

func clusterAt(tris [][3]int, nodes map[int][3]float64, value map[int]float64, lo [3]float64, cell float64) [][3]int {
	type key [3]int32
	cellOf := func(id int) key {
		p := nodes[id]
		return key{int32((p[0] - lo[0]) / cell), int32((p[1] - lo[1]) / cell), int32((p[2] - lo[2]) / cell)}
	}
	rep := map[key]int{}
	for _, t := range tris {
		for _, id := range t {
			k := cellOf(id)
			if r, ok := rep[k]; !ok || value[id] > value[r] || (value[id] == value[r] && id < r) {
				rep[k] = id
			}
		}
	}
	seen := map[[3]int]bool{}
	var out [][3]int
	for _, t := range tris {
		a, b, c := rep[cellOf(t[0])], rep[cellOf(t[1])], rep[cellOf(t[2])]
		if a == b || b == c || a == c {
			continue
		}
		// The same three clusters reached from either side of a thin wall
		// are two triangles facing apart; from one side, one.
		k := rotateToMin([3]int{a, b, c})
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, [3]int{a, b, c})
	}
	return out
}

// rotateToMin rotates a triangle so its smallest id is first, keeping
// its winding: two windings of the same corners stay distinct.
func rotateToMin(t [3]int) [3]int {
	switch {
	case t[1] < t[0] && t[1] < t[2]:
		return [3]int{t[1], t[2], t[0]}
	case t[2] < t[0] && t[2] < t[1]:
		return [3]int{t[2], t[0], t[1]}
	}
	return t
}
