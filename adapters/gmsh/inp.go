package gmsh

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Node counts of the element types gmsh's Abaqus writer uses for a
// tetrahedral mesh: solids, their surface triangles, and the edge and
// point elements of physical groups the adapter never asks for.
var nodesPerElement = map[string]int{
	"C3D4": 4, "C3D10": 10,
	"CPS3": 3, "CPS6": 6,
	"T3D2": 2, "T3D3": 3,
}

// maxNodeID bounds the node ids kept in a dense table; gmsh numbers nodes
// 1..N, so a larger id means a file this parser was not written for.
const maxNodeID = 1 << 27

// gmshMesh is what gmsh's .inp holds that the adapter uses. Node ids and
// the node order inside each element are gmsh's, unchanged.
type gmshMesh struct {
	// nodeIDs lists the nodes in file order; xyz holds their coordinates
	// by id, known says which ids were given.
	nodeIDs []int
	xyz     [][3]float64
	known   []bool
	// tetType is C3D4 or C3D10; tets are its elements' node ids, tetType's
	// node count per element, in file order.
	tetType string
	tets    []int32
	// tris are the surface triangles (CPS3, CPS6) by element id.
	tris   map[int][]int
	elsets map[string][]int
	nsets  map[string][]int
}

// tetSize is the node count of one solid element.
func (m *gmshMesh) tetSize() int { return nodesPerElement[m.tetType] }

// tetCount is the number of solid elements.
func (m *gmshMesh) tetCount() int {
	if m.tetType == "" {
		return 0
	}
	return len(m.tets) / m.tetSize()
}

// tet returns the node ids of solid element i.
func (m *gmshMesh) tet(i int) []int32 {
	n := m.tetSize()
	return m.tets[i*n : (i+1)*n]
}

// at returns the coordinates of node id.
func (m *gmshMesh) at(id int) [3]float64 { return m.xyz[id] }

// has reports whether node id was given.
func (m *gmshMesh) has(id int) bool { return id > 0 && id < len(m.known) && m.known[id] }

// block is the data section being read.
type block int

const (
	skipBlock block = iota
	nodeBlock
	elementBlock
	elsetBlock
	nsetBlock
)

// readGmshINP parses the Abaqus deck gmsh wrote: *NODE, *ELEMENT, *ELSET
// and *NSET sections (one element per line or continued over lines);
// other keywords and their data are skipped.
func readGmshINP(r io.Reader) (*gmshMesh, error) {
	m := &gmshMesh{tris: map[int][]int{}, elsets: map[string][]int{}, nsets: map[string][]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var (
		mode    block
		elType  string
		setName string
		pending []int // an element's numbers, when continued over lines
	)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "**") {
			continue
		}
		if strings.HasPrefix(text, "*") {
			if len(pending) > 0 {
				return nil, fmt.Errorf("line %d: element %d of type %s is cut short", line, pending[0], elType)
			}
			kw, params := keyword(text)
			mode = skipBlock
			switch kw {
			case "*NODE":
				mode = nodeBlock
			case "*ELEMENT":
				mode, elType = elementBlock, strings.ToUpper(params["TYPE"])
				if _, ok := nodesPerElement[elType]; !ok {
					return nil, fmt.Errorf("line %d: element type %q is not one a tetrahedral mesh has", line, params["TYPE"])
				}
				if isSolid(elType) {
					if m.tetType != "" && m.tetType != elType {
						return nil, fmt.Errorf("line %d: the mesh mixes %s and %s elements", line, m.tetType, elType)
					}
					m.tetType = elType
				}
			case "*ELSET":
				mode, setName = elsetBlock, params["ELSET"]
			case "*NSET":
				mode, setName = nsetBlock, params["NSET"]
			}
			continue
		}
		switch mode {
		case nodeBlock:
			if err := m.addNode(text); err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
		case elementBlock:
			ids, err := ints(text)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			pending = append(pending, ids...)
			want := 1 + nodesPerElement[elType]
			if len(pending) > want {
				return nil, fmt.Errorf("line %d: a %s element has %d nodes, want %d", line, elType, len(pending)-1, want-1)
			}
			if len(pending) == want {
				m.addElement(elType, pending)
				pending = pending[:0]
			}
		case elsetBlock, nsetBlock:
			ids, err := ints(text)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			if mode == elsetBlock {
				m.elsets[setName] = append(m.elsets[setName], ids...)
			} else {
				m.nsets[setName] = append(m.nsets[setName], ids...)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(pending) > 0 {
		return nil, fmt.Errorf("the file ends inside element %d", pending[0])
	}
	return m, m.checkNodes()
}

// checkNodes makes sure every element names nodes the file gives, so later
// geometry never reads a missing coordinate.
func (m *gmshMesh) checkNodes() error {
	for _, n := range m.tets {
		if !m.has(int(n)) {
			return fmt.Errorf("a %s element uses node %d, which the file does not give", m.tetType, n)
		}
	}
	for id, tri := range m.tris {
		for _, n := range tri {
			if !m.has(n) {
				return fmt.Errorf("surface element %d uses node %d, which the file does not give", id, n)
			}
		}
	}
	return nil
}

func isSolid(elType string) bool { return elType == "C3D4" || elType == "C3D10" }

// keyword splits "*ELEMENT, type=C3D10, ELSET=Volume1" into the upper-case
// keyword and its parameters (upper-case keys, values as written).
func keyword(text string) (string, map[string]string) {
	parts := strings.Split(text, ",")
	params := map[string]string{}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, "=")
		params[strings.ToUpper(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	return strings.ToUpper(strings.TrimSpace(parts[0])), params
}

func (m *gmshMesh) addNode(text string) error {
	f := strings.Split(text, ",")
	if len(f) < 4 {
		return fmt.Errorf("node line %q has no three coordinates", text)
	}
	id, err := strconv.Atoi(strings.TrimSpace(f[0]))
	if err != nil || id < 1 || id > maxNodeID {
		return fmt.Errorf("node id %q is not a number in 1..%d", f[0], maxNodeID)
	}
	var p [3]float64
	for i := range p {
		if p[i], err = strconv.ParseFloat(strings.TrimSpace(f[1+i]), 64); err != nil {
			return fmt.Errorf("node %d: coordinate %q is not a number", id, f[1+i])
		}
	}
	for len(m.xyz) <= id {
		m.xyz = append(m.xyz, [3]float64{})
		m.known = append(m.known, false)
	}
	if m.known[id] {
		return fmt.Errorf("node %d is given twice", id)
	}
	m.xyz[id], m.known[id] = p, true
	m.nodeIDs = append(m.nodeIDs, id)
	return nil
}

// addElement keeps solids and surface triangles; edge and point elements
// are not part of the deck.
func (m *gmshMesh) addElement(elType string, nums []int) {
	switch {
	case isSolid(elType):
		for _, n := range nums[1:] {
			m.tets = append(m.tets, int32(n))
		}
	case elType == "CPS3" || elType == "CPS6":
		m.tris[nums[0]] = append([]int(nil), nums[1:]...)
	}
}

// ints reads a data line of comma-separated integers; a trailing comma
// (gmsh ends set lines with one) is allowed.
func ints(text string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(text, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}
