package gmsh

import (
	"bufio"
	"io"
	"strconv"
)

// SolidSet is the element set every solid element is in.
const SolidSet = "SOLID"

// setIDsPerLine is how many ids an *NSET data line holds: Abaqus allows 16.
const setIDsPerLine = 16

// writeDeck writes the CalculiX mesh deck: *NODE (mm, gmsh's ids), one
// *ELEMENT block of the solid elements (numbered from 1, gmsh's node order,
// which its Abaqus writer already gives in Abaqus order), and one *NSET per
// face. Surface elements are left out: CalculiX would take them for shells.
func writeDeck(w io.Writer, m *gmshMesh, faces []meshFace) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var line []byte
	bw.WriteString("*NODE\n")
	for _, id := range m.nodeIDs {
		p := m.at(id)
		line = strconv.AppendInt(line[:0], int64(id), 10)
		for _, c := range p {
			line = append(line, ", "...)
			line = strconv.AppendFloat(line, c, 'g', -1, 64)
		}
		bw.Write(append(line, '\n'))
	}
	bw.WriteString("*ELEMENT, TYPE=" + m.tetType + ", ELSET=" + SolidSet + "\n")
	for i := range m.tetCount() {
		line = strconv.AppendInt(line[:0], int64(i+1), 10)
		for _, n := range m.tet(i) {
			line = append(line, ", "...)
			line = strconv.AppendInt(line, int64(n), 10)
		}
		bw.Write(append(line, '\n'))
	}
	for _, f := range faces {
		bw.WriteString("*NSET, NSET=" + f.Name + "\n")
		for start := 0; start < len(f.nodes); start += setIDsPerLine {
			line = line[:0]
			for k, n := range f.nodes[start:min(start+setIDsPerLine, len(f.nodes))] {
				if k > 0 {
					line = append(line, ", "...)
				}
				line = strconv.AppendInt(line, int64(n), 10)
			}
			bw.Write(append(line, '\n'))
		}
	}
	return bw.Flush()
}
