package kicad

import (
	"context"
	_ "embed"
	"encoding/json"
	"os"
	"strings"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
)

// boardScript does the board work inside KiCad's own Python, since KiCad 6
// has no command-line tool for DRC or plotting: pcbnew is the headless API.
//
//go:embed board.py
var boardScript string

// DefaultPython is Debian's system Python, the one its kicad package's
// pcbnew module is built for (a pyenv or venv python3 cannot import it).
const DefaultPython = "/usr/bin/python3"

// PythonEnv names the environment variable that overrides DefaultPython.
const PythonEnv = "METAFORGE_KICAD_PYTHON"

const installKiCad = "apt-get install kicad"

// Markers the script prints, so pcbnew's own chatter on stdout is skipped.
const (
	jsonMarker     = "METAFORGE_JSON "
	noPcbnewMarker = "METAFORGE_NO_PCBNEW"
)

func (a *Adapter) python() string {
	if a.Python != "" {
		return a.Python
	}
	if p := os.Getenv(PythonEnv); p != "" {
		return p
	}
	return DefaultPython
}

// pcbnewMissing is the TOOL_UNAVAILABLE answer when pcbnew does not import.
func (a *Adapter) pcbnewMissing() error {
	return protocol.Unavailable("KiCad's pcbnew Python module is not importable by %s; %s", a.python(), installKiCad)
}

// runBoard runs one command of the board script on a board already
// checked by resolveDesign, writing only into outDir, and decodes the JSON
// it prints into out.
func (a *Adapter) runBoard(ctx context.Context, command, board, outDir string, out any, extra ...string) error {
	return a.runPcbnew(ctx, boardScript, command, board, outDir, out, extra...)
}

// runPcbnew runs one command of a pcbnew script (board.py, route.py) the
// same way: the script's arguments are the command, the board, outDir and
// extra; it answers on its last METAFORGE_JSON line.
func (a *Adapter) runPcbnew(ctx context.Context, script, command, board, outDir string, out any, extra ...string) error {
	if err := a.screenDesign(board, false); err != nil {
		return err
	}
	args := append([]string{"-c", script, command, board, outDir}, extra...)
	res, err := solver.Run(ctx, solver.Command{
		Binary:      a.python(),
		Args:        args,
		Dir:         outDir,
		Install:     installKiCad + " (KiCad's pcbnew needs Debian's /usr/bin/python3; set " + PythonEnv + " to use another)",
		TimeoutHint: "a very large board may need a longer timeout",
	})
	if err != nil {
		return err
	}
	if strings.Contains(res.Stdout, noPcbnewMarker) {
		return a.pcbnewMissing()
	}
	i := strings.LastIndex(res.Stdout, jsonMarker)
	if i < 0 {
		return protocol.Refusal("pcbnew failed on %s (exit status %d): %s", board, res.ExitCode, tail(res.Stderr+res.Stdout, 1500))
	}
	line := res.Stdout[i+len(jsonMarker):]
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	var failure struct {
		Error string `json:"error"`
	}
	if json.Unmarshal([]byte(line), &failure) == nil && failure.Error != "" {
		return protocol.Refusal("%s: %s", board, failure.Error)
	}
	if err := json.Unmarshal([]byte(line), out); err != nil {
		return protocol.Refusal("the board script's answer could not be read: %v", err)
	}
	return nil
}

// tail keeps the last n bytes of a program's output, where its error is.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}

// pcbnewVersion asks the Python for KiCad's version: the health check.
func (a *Adapter) pcbnewVersion(ctx context.Context) (string, error) {
	res, err := solver.Run(ctx, solver.Command{
		Binary:  a.python(),
		Args:    []string{"-c", "import pcbnew; print(pcbnew.Version())"},
		Install: installKiCad,
	})
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return "", a.pcbnewMissing()
	}
	return strings.TrimSpace(res.Stdout), nil
}
