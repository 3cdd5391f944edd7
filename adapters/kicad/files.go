package kicad

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// A design file kind: its extension and the keyword its first list opens with.
type fileKind struct {
	ext, token, noun string
}

var (
	boardKind     = fileKind{ext: ".kicad_pcb", token: "kicad_pcb", noun: "KiCad board"}
	schematicKind = fileKind{ext: ".kicad_sch", token: "kicad_sch", noun: "KiCad schematic"}
)

// resolveDesign checks a file argument before anything runs: inside the
// allowed roots, the right extension, and the right first S-expression
// token, so pcbnew is never handed a text file or a schematic.
func (a *Adapter) resolveDesign(what, path string, kind fileKind) (string, error) {
	real, err := a.ws.ResolveRead(what, path)
	if err != nil {
		return "", err
	}
	token, err := firstToken(real)
	if err != nil {
		return "", protocol.Invalid("%s %q cannot be read: %v", what, path, err)
	}
	other := boardKind
	if kind == boardKind {
		other = schematicKind
	}
	switch {
	case token == kind.token && strings.EqualFold(filepath.Ext(real), kind.ext):
		return real, nil
	case token == other.token:
		return "", protocol.Invalid("%s %q is a %s, not a %s (%s)", what, path, other.noun, kind.noun, kind.ext)
	case token == kind.token:
		return "", protocol.Invalid("%s %q holds a %s but its name does not end in %s", what, path, kind.noun, kind.ext)
	default:
		return "", protocol.Invalid("%s %q is not a %s: a KiCad 6 %s file starts with (%s", what, path, kind.noun, kind.ext, kind.token)
	}
}

// firstToken is the keyword of the file's first list, "" when the file
// does not start with a list.
func firstToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 64)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	s := strings.TrimLeft(strings.TrimPrefix(string(head[:n]), "\ufeff"), " \t\r\n")
	if !strings.HasPrefix(s, "(") {
		return "", nil
	}
	s = s[1:]
	end := strings.IndexAny(s, " \t\r\n()")
	if end < 0 {
		return s, nil
	}
	return s[:end], nil
}
