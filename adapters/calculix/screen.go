package calculix

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// The mesh a deck *INCLUDEs is the caller's file, and CalculiX acts on
// every keyword in it, not only the *NODE, *ELEMENT and *NSET the mesh
// reader takes: *INCLUDE and the parameters naming a file (INPUT=,
// STIFFNESSFILE=, MASSFILE= read one; OUTPUT= and FILENAME= write one).
// screenMesh reads the mesh, and each file it includes, the way CalculiX
// reads its input before the solver runs: a file it reads must be inside
// the read roots, like mesh_file itself, and a file it writes is refused.

// ccxLineMax is how much of a line CalculiX reads at once (fgets into 1320
// bytes): the rest of a longer line is read as the next line.
const ccxLineMax = 1319

// ccxIncludeDepth is how deep CalculiX nests *INCLUDE.
const ccxIncludeDepth = 9

// ccxFileParams are the parameters CalculiX keeps the case of, as file
// names, and whether it reads the file (else writes it).
var ccxFileParams = []struct {
	key  string
	read bool
}{
	{"STIFFNESSFILE=", true}, {"MASSFILE=", true}, {"FILENAME=", false},
	{"OUTPUT=", false}, {"INPUT=", true}, {"FILE=", true},
}

// meshScreen walks a mesh and its includes; dir is CalculiX's working
// folder, which relative names are taken against.
type meshScreen struct {
	a       *Adapter
	dir     string
	heading bool // inside *HEADING's text, which CalculiX leaves as it is
}

// screenMesh checks mesh (resolved) as CalculiX will read it from the
// call folder dir.
func (a *Adapter) screenMesh(mesh, dir string) error {
	s := &meshScreen{a: a, dir: dir}
	return s.file(mesh, "mesh_file "+mesh, 1)
}

func (s *meshScreen) file(path, name string, depth int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return protocol.Invalid("%s cannot be read: %v", name, err)
	}
	n := 0
	for len(data) > 0 {
		// One fgets: up to and with the newline, at most ccxLineMax bytes.
		end := len(data)
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			end = i + 1
		}
		end = min(end, ccxLineMax)
		chunk := data[:end]
		data = data[end:]
		n++
		if i := bytes.IndexAny(chunk, "\x00\r\n"); i >= 0 {
			chunk = chunk[:i]
		}
		if s.heading {
			if len(chunk) < 2 || chunk[0] != '*' || chunk[1] == '*' {
				continue // a line of the heading's text
			}
			s.heading = false
		}
		if line := bytes.TrimLeft(chunk, " \t"); len(line) == 0 || line[0] != '*' {
			continue // a data line (nodes, elements): only a keyword line names a file
		}
		card := ccxCase(bytes.Map(func(r rune) rune {
			if r == ' ' || r == '\t' {
				return -1
			}
			return r
		}, chunk))
		if len(card) == 0 || card[0] != '*' || strings.HasPrefix(card, "**") {
			continue
		}
		where := fmt.Sprintf("%s line %d", name, n)
		switch {
		case strings.HasPrefix(card, "*HEADING"):
			s.heading = true
		case strings.HasPrefix(card, "*INCLUDE"):
			if err := s.include(card, where, depth); err != nil {
				return err
			}
		default:
			if err := s.params(card, where); err != nil {
				return err
			}
		}
	}
	return nil
}

// include checks the file an *INCLUDE line names: what follows its first
// "=", in double quotes or to the end of the line, as CalculiX reads it.
func (s *meshScreen) include(card, where string, depth int) error {
	_, name, ok := strings.Cut(card, "=")
	if ok && strings.HasPrefix(name, `"`) {
		name, _, ok = strings.Cut(name[1:], `"`)
	}
	if !ok || name == "" {
		return protocol.Invalid("%s: *INCLUDE names no file", where)
	}
	if depth >= ccxIncludeDepth {
		return protocol.Invalid("%s: *INCLUDE files are nested more than %d deep", where, ccxIncludeDepth)
	}
	real, err := s.resolve(where+": *INCLUDE", name)
	if err != nil {
		return err
	}
	return s.file(real, "included file "+real, depth+1)
}

// params checks a keyword line's parameters that name a file.
func (s *meshScreen) params(card, where string) error {
	parts := strings.Split(card, ",")
	for _, p := range parts[1:] {
		for _, fp := range ccxFileParams {
			if !strings.HasPrefix(p, fp.key) {
				continue // keys are upper case already (ccxCase)
			}
			value := p[len(fp.key):]
			kw := parts[0] + ", " + fp.key
			if fp.key == "OUTPUT=" && (strings.EqualFold(value, "2D") || strings.EqualFold(value, "3D")) {
				break // *NODE FILE, OUTPUT=3D: a form of output, not a file
			}
			if !fp.read {
				return protocol.Invalid("%s: %s%s is refused: it names a file for CalculiX to write; a mesh holds nodes, elements and sets", where, kw, value)
			}
			if _, err := s.resolve(where+": "+kw, value); err != nil {
				return err
			}
			break
		}
	}
	return nil
}

// resolve confines a file CalculiX would open: a relative name is taken
// against its working folder.
func (s *meshScreen) resolve(what, name string) (string, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = s.dir + string(filepath.Separator) + path
	}
	return s.a.ws.ResolveRead(what, path)
}

// ccxCase upper-cases a keyword line as CalculiX does: all but the value
// of a parameter ending in FILE=, INPUT=, OUTPUT=, FILENAME=, MASSFILE= or
// STIFFNESSFILE=, up to the next comma.
func ccxCase(line []byte) string {
	b := bytes.Clone(line)
	file := false
	for j := 0; j < len(b); j++ {
		for _, key := range []string{"FILE=", "INPUT=", "OUTPUT=", "FILENAME=", "MASSFILE=", "STIFFNESSFILE="} {
			if j >= len(key) && string(b[j-len(key):j]) == key {
				file = true
			}
		}
		if file {
			for j < len(b) && b[j] != ',' {
				j++
			}
			file = false
			continue
		}
		if c := b[j]; c >= 'a' && c <= 'z' {
			b[j] = c - 'a' + 'A'
		}
	}
	return string(b)
}
