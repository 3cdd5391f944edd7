package datasheettest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

//go:embed render.py
var renderPy []byte

// EnvPython names the Python with reportlab; python3 when unset (the one
// deploy/test-deps.sh installs reportlab into).
const EnvPython = "METAFORGE_DATASHEET_PYTHON"

// text is one string drawn at a point of a page, in PDF points from the
// bottom left of a US letter page (612 x 792).
type text struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Font  string  `json:"font"`
	Size  float64 `json:"size"`
	Align string  `json:"align"`
	S     string  `json:"s"`
}

// document is what render.py draws: pages of positioned strings.
type document struct {
	Path   string   `json:"path"`
	Title  string   `json:"title"`
	Author string   `json:"author"`
	Pages  [][]text `json:"pages"`
}

// render writes doc to doc.Path with reportlab. It fails the test, never
// skips it, when reportlab is missing: the knowledge tests are about real
// PDFs.
func render(t testing.TB, doc document) {
	t.Helper()
	python := os.Getenv(EnvPython)
	if python == "" {
		python = "python3"
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "render.py")
	if err := os.WriteFile(script, renderPy, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "No module named 'reportlab'") {
			t.Fatalf("datasheettest: %s has no reportlab; install it with bash deploy/test-deps.sh (or set %s to a Python that has it)", python, EnvPython)
		}
		t.Fatalf("datasheettest: rendering %s with %s: %v: %s", doc.Path, python, err, msg)
	}
}
