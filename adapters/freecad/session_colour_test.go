package freecad_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters/freecad"
)

// A supplier's STEP imported with its colours (import_step records the
// Pin's on its object), opened as a session's base and exported with no
// colour argument, comes out with the Pin still coloured [0.8, 0.2, 0.1]
// and the others uncoloured (spec 000, FORGE-519: the imported colour is
// the lowest-priority source); an explicit color then wins over it.
func TestSessionExportKeepsImportedColours(t *testing.T) {
	_, ws := setup(t)
	imported := call(t, freecad.ToolImportStep, map[string]any{"input_file": supplierStep(t)})
	docs := freecad.NewDocuments(ws.Root)
	t.Cleanup(func() { _ = docs.CloseAll() })
	const id = "00000000000000d1"
	if _, err := docs.Open(ctx(t), id, imported["output_file"].(string)); err != nil {
		t.Fatal(err)
	}
	export := func(name string, extra map[string]any) string {
		t.Helper()
		args := map[string]any{"session_id": id, "path": filepath.Join(ws.Root, name)}
		for k, v := range extra {
			args[k] = v
		}
		raw, _ := json.Marshal(args)
		if _, err := docs.Apply(ctx(t), id, "export_model", raw); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(args["path"].(string))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	kept := export("kept.step", nil)
	if n := strings.Count(kept, "COLOUR_RGB"); n != 1 || !strings.Contains(kept, "COLOUR_RGB('',0.800000,0.200000,0.100000)") {
		t.Errorf("exported with no colour argument: %d COLOUR_RGB entities (want the Pin's one, 0.8,0.2,0.1):\n%s", n, colourLines(kept))
	}
	green := export("green.step", map[string]any{"color": []float64{0, 1, 0}})
	if strings.Contains(green, "0.800000,0.200000,0.100000") || strings.Count(green, "COLOUR_RGB('',0.000000,1.000000,0.000000)") != 3 {
		t.Errorf("exported with color [0,1,0]: want every part green, the imported colour overridden:\n%s", colourLines(green))
	}
}

func colourLines(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "COLOUR_RGB") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
