package kicad

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

const demos = "/usr/share/kicad/demos"

// needKiCad skips when this machine has no KiCad 6 demos or pcbnew.
func needKiCad(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(demos); err != nil {
		t.Skip("KiCad demos are not installed: apt-get install kicad-demos")
	}
	if err := exec.Command(DefaultPython, "-c", "import pcbnew").Run(); err != nil {
		t.Skip("pcbnew is not importable by " + DefaultPython + ": apt-get install kicad")
	}
}

func demo(rel string) string { return filepath.Join(demos, rel) }

func newAdapter(t *testing.T) (*Adapter, *workspace.Workspace) {
	t.Helper()
	ws := workspace.New(t.TempDir(), demos)
	return New(ws), ws
}

// call runs a tool through a registry, so the arguments are checked
// against the input schema as a real call's are, and checks the result
// against the output schema.
func call[T any](t *testing.T, a *Adapter, tool string, args map[string]any) (T, *adapters.Result) {
	t.Helper()
	var out T
	res, err := callErr(t, a, tool, args)
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	validate(t, a, tool, res.Data)
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	return out, res
}

func callErr(t *testing.T, a *Adapter, tool string, args map[string]any) (*adapters.Result, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	r := adapters.NewRegistry()
	if err := r.Register(a); err != nil {
		t.Fatalf("Register: %v", err)
	}
	if err := r.ValidateArguments(tool, raw); err != nil {
		return nil, err
	}
	return a.Call(context.Background(), tool, raw)
}

func validate(t *testing.T, a *Adapter, tool string, data []byte) {
	t.Helper()
	for _, m := range a.Manifests() {
		if m.ToolID != tool {
			continue
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(m.OutputSchema, &s); err != nil {
			t.Fatal(err)
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		var instance any
		if err := json.Unmarshal(data, &instance); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(instance); err != nil {
			t.Fatalf("%s result does not match its output schema: %v\n%.2000s", tool, err, data)
		}
		return
	}
	t.Fatalf("no manifest for %s", tool)
}

// wantCode checks err is a taxonomy error with the code.
func wantCode(t *testing.T, err error, code protocol.Code) *protocol.Error {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want %s", err, code.Name())
	}
	if pe.Code != code {
		t.Fatalf("code %s (%s), want %s", pe.Code.Name(), pe.Details, code.Name())
	}
	return pe
}

// boardFacts is what pcbnew itself says of a board, computed by the
// test's own Python (not the adapter's script).
type boardFacts struct {
	Violations  int            `json:"violations"`
	Errors      int            `json:"errors"`
	Unconnected int            `json:"unconnected"`
	NetCount    int            `json:"net_count"`
	Footprints  int            `json:"footprints"`
	Layers      []string       `json:"layers"`
	CopperCount int            `json:"copper_count"`
	BOMRefs     []string       `json:"bom_refs"`
	Pads        map[string]int `json:"pads"` // "REF/pad" -> net code
}

const factsScript = `
import json, sys, pcbnew
b = pcbnew.LoadBoard(sys.argv[1])
pcbnew.WriteDRCReport(b, sys.argv[2], pcbnew.EDA_UNITS_MILLIMETRES, True)
f = {"violations": 0, "errors": 0, "unconnected": 0, "pads": {}, "bom_refs": []}
sec = None
for line in open(sys.argv[2]):
    if line.startswith("** Found"):
        sec = "violations" if "DRC violations" in line else "unconnected" if "unconnected" in line else None
    elif line.startswith("[") and sec:
        f[sec] += 1
    elif sec == "violations" and "Severity: error" in line:
        f["errors"] += 1
f["net_count"] = b.GetNetCount()
f["footprints"] = len(b.GetFootprints())
f["layers"] = [b.GetStandardLayerName(l) for l in b.GetEnabledLayers().Seq()]
f["copper_count"] = b.GetCopperLayerCount()
for fp in b.GetFootprints():
    ref = fp.GetReference()
    if not ref.startswith("#") and not fp.GetAttributes() & pcbnew.FP_BOARD_ONLY:
        f["bom_refs"].append(ref)
    for p in fp.Pads():
        if p.GetNetCode() > 0 and p.GetNumber():
            f["pads"][ref + "/" + p.GetNumber()] = p.GetNetCode()
print(json.dumps(f))
`

var (
	factsMu    sync.Mutex
	factsCache = map[string]boardFacts{}
)

// facts loads each board once for the whole test run.
func facts(t *testing.T, board string) boardFacts {
	t.Helper()
	factsMu.Lock()
	defer factsMu.Unlock()
	if f, ok := factsCache[board]; ok {
		return f
	}
	out, err := exec.Command(DefaultPython, "-c", factsScript, board, filepath.Join(t.TempDir(), "facts.rpt")).Output()
	if err != nil {
		t.Fatalf("pcbnew facts of %s: %v", board, err)
	}
	lines := splitLines(string(out))
	var f boardFacts
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &f); err != nil {
		t.Fatalf("pcbnew facts of %s: %v\n%s", board, err, out)
	}
	factsCache[board] = f
	return f
}

func splitLines(s string) []string {
	return strings.Split(strings.TrimSpace(s), "\n")
}

func needDemos(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(demos); err != nil {
		t.Skip("KiCad demos are not installed: apt-get install kicad-demos")
	}
}

func sortNatural(l []string) {
	sort.Slice(l, func(i, j int) bool { return naturalLess(l[i], l[j]) })
}
