package calculix

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/internal/vec3"

	"github.com/metaforge/metaforge/internal/meshfile"
)

// Mesh is what the FEA deck builder needs of an .inp mesh: node
// coordinates, solid elements and node sets.
type Mesh struct {
	Nodes map[int][3]float64
	// Elements are the solid elements' node ids, in the deck's order.
	Elements    [][]int
	ElementType string
	// ElementSets are the names of the *ELEMENT sets, upper case as
	// CalculiX reads them; ElementSetOf gives each element's set (an index
	// into ElementSets, -1 for none).
	ElementSets  []string
	ElementSetOf []int
	// NodeSets are the *NSET sets by upper-case name.
	NodeSets map[string][]int
	// setNames keeps each set's name as written.
	setNames map[string]string
}

// solidTypes are the element types a meshed solid may use.
var solidTypes = map[string]bool{"C3D4": true, "C3D10": true, "C3D8": true, "C3D20": true, "C3D6": true, "C3D15": true}

// ReadMesh parses an Abaqus/CalculiX .inp mesh: *NODE, *ELEMENT and *NSET
// (keywords and names are case-insensitive). Anything else is skipped.
func ReadMesh(path string) (*Mesh, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &Mesh{Nodes: map[int][3]float64{}, NodeSets: map[string][]int{}, setNames: map[string]string{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	section, set := "", ""
	elset := -1
	var pending []int // an element continued on the next line
	line := 0
	for sc.Scan() {
		line++
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "**") {
			continue
		}
		if strings.HasPrefix(l, "*") {
			section, set = keyword(l)
			if section == "*ELEMENT" {
				typ := strings.ToUpper(param(l, "TYPE"))
				if !solidTypes[typ] {
					return nil, fmt.Errorf("line %d: element type %q is not a solid element; the mesh must hold only solid elements (C3D4, C3D10, ...)", line, typ)
				}
				if m.ElementType != "" && m.ElementType != typ {
					return nil, fmt.Errorf("line %d: the mesh mixes element types %s and %s", line, m.ElementType, typ)
				}
				m.ElementType = typ
				elset = -1
				if es := strings.ToUpper(param(l, "ELSET")); es != "" {
					elset = slices.Index(m.ElementSets, es)
					if elset < 0 {
						m.ElementSets = append(m.ElementSets, es)
						elset = len(m.ElementSets) - 1
					}
				}
			}
			if section == "*NSET" {
				if strings.Contains(strings.ToUpper(l), "GENERATE") {
					section = "*NSET-GENERATE"
				}
				m.setNames[strings.ToUpper(set)] = set
				set = strings.ToUpper(set)
			}
			continue
		}
		fields := splitNumbers(l)
		switch section {
		case "*NODE":
			if len(fields) < 4 {
				return nil, fmt.Errorf("line %d: a node needs an id and three coordinates: %q", line, l)
			}
			id, err1 := strconv.Atoi(fields[0])
			x, err2 := strconv.ParseFloat(fields[1], 64)
			y, err3 := strconv.ParseFloat(fields[2], 64)
			z, err4 := strconv.ParseFloat(fields[3], 64)
			if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
				return nil, fmt.Errorf("line %d: cannot read node %q", line, l)
			}
			m.Nodes[id] = [3]float64{x, y, z}
		case "*ELEMENT":
			ids, err := atois(fields)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
			pending = append(pending, ids...)
			if strings.HasSuffix(l, ",") {
				continue // continued on the next line
			}
			if len(pending) > 1 {
				m.Elements = append(m.Elements, pending[1:])
				m.ElementSetOf = append(m.ElementSetOf, elset)
			}
			pending = nil
		case "*NSET":
			ids, err := atois(fields)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
			m.NodeSets[set] = append(m.NodeSets[set], ids...)
		case "*NSET-GENERATE":
			ids, err := atois(fields)
			if err != nil || len(ids) < 2 {
				return nil, fmt.Errorf("line %d: a generated node set needs first, last[, step]", line)
			}
			step := 1
			if len(ids) > 2 && ids[2] > 0 {
				step = ids[2]
			}
			for n := ids[0]; n <= ids[1]; n += step {
				m.NodeSets[set] = append(m.NodeSets[set], n)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(m.Nodes) == 0 {
		return nil, fmt.Errorf("it has no *NODE section")
	}
	if len(m.Elements) == 0 {
		return nil, fmt.Errorf("it has no solid *ELEMENT section")
	}
	return m, nil
}

func keyword(l string) (kw, set string) {
	parts := strings.Split(l, ",")
	kw = strings.ToUpper(strings.TrimSpace(parts[0]))
	return kw, param(l, "NSET")
}

// param reads NAME=value from a keyword line.
func param(l, name string) string {
	for _, p := range strings.Split(l, ",")[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func splitNumbers(l string) []string {
	var out []string
	for _, f := range strings.Split(l, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func atois(fields []string) ([]int, error) {
	out := make([]int, 0, len(fields))
	for _, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer id", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// SetNames lists the node sets as written in the mesh, sorted.
func (m *Mesh) SetNames() []string {
	out := make([]string, 0, len(m.NodeSets))
	for k := range m.NodeSets {
		out = append(out, m.setNames[k])
	}
	sort.Strings(out)
	return out
}

// NodeSet finds a node set by name, case ignored.
func (m *Mesh) NodeSet(name string) ([]int, bool) {
	ids, ok := m.NodeSets[strings.ToUpper(name)]
	return ids, ok
}

// BBox is the bounding box of the given nodes (all nodes when ids is nil).
func (m *Mesh) BBox(ids []int) meshfile.BBox {
	b := meshfile.BBox{Min: [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, Max: [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	grow := func(p [3]float64) {
		for k := range 3 {
			b.Min[k] = math.Min(b.Min[k], p[k])
			b.Max[k] = math.Max(b.Max[k], p[k])
		}
	}
	if ids == nil {
		for _, p := range m.Nodes {
			grow(p)
		}
		return b
	}
	for _, id := range ids {
		if p, ok := m.Nodes[id]; ok {
			grow(p)
		}
	}
	return b
}

// TriangleArea is the area of the triangle through three nodes; NaN when
// a node is unknown.
func (m *Mesh) TriangleArea(a, b, c int) float64 {
	pa, ok1 := m.Nodes[a]
	pb, ok2 := m.Nodes[b]
	pc, ok3 := m.Nodes[c]
	if !ok1 || !ok2 || !ok3 {
		return math.NaN()
	}
	u := vec3.Sub(pb, pa)
	v := vec3.Sub(pc, pa)
	return vec3.Norm(vec3.Cross(u, v)) / 2
}
