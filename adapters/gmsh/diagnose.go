package gmsh

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
)

var (
	// errorLine is a gmsh error, or an OpenCASCADE reader's ("**** ERR").
	errorLine   = regexp.MustCompile(`^(Error\s*:|\*+\s*ERR\b)`)
	warningLine = regexp.MustCompile(`^Warning\s*:`)
	terminalEsc = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	// levelPad is the padding gmsh puts after "Error" and "Warning".
	levelPad = regexp.MustCompile(`^(Error|Warning)\s*:\s*`)
)

// maxLogLines bounds the gmsh lines a result or an error carries.
const maxLogLines = 20

// gmshLines picks the lines of gmsh's output that pick matches, each once,
// without colour codes or OpenCASCADE's asterisk frames.
func gmshLines(out solver.Output, pick *regexp.Regexp) []string {
	seen := map[string]bool{}
	var lines []string
	for _, l := range strings.Split(out.Stderr+"\n"+out.Stdout, "\n") {
		l = strings.TrimSpace(terminalEsc.ReplaceAllString(l, ""))
		if !pick.MatchString(l) {
			continue
		}
		l = levelPad.ReplaceAllString(strings.TrimSpace(strings.Trim(l, "*")), "$1: ")
		if seen[l] {
			continue
		}
		seen[l] = true
		if len(lines) == maxLogLines {
			lines = append(lines, "... more lines left out")
			break
		}
		lines = append(lines, l)
	}
	return lines
}

// failure is the refusal for a gmsh run in folder work that wrote no usable
// mesh, carrying gmsh's own error lines, in which the input's link in the
// (removed) scratch folder is named as the caller named the input.
func failure(input, work string, out solver.Output) error {
	name := filepath.Base(input)
	lines := gmshLines(out, errorLine)
	if len(lines) == 0 {
		lines = []string{fmt.Sprintf("gmsh exited with status %d and printed no error", out.ExitCode)}
	}
	detail := strings.ReplaceAll(strings.Join(lines, "; "), filepath.Join(work, stepLink), name)
	if strings.Contains(detail, "Could not read file '"+name+"'") {
		return protocol.Refusal("input_file %s is not a STEP file gmsh can read: %s", name, detail)
	}
	return protocol.Refusal("gmsh could not mesh %s: %s", name, detail)
}
