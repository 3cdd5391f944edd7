package kicad

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters/spice"
)

// simulate exports the demo's SPICE deck and runs it with the real spice
// adapter, by path, as an agent would.
func simulate(t *testing.T, sch string) (NetlistResult, spice.Output) {
	t.Helper()
	needDemos(t)
	if _, err := exec.LookPath("ngspice"); err != nil {
		t.Skip("ngspice is not installed: apt-get install ngspice")
	}
	a, ws := newAdapter(t)
	got, res := call[NetlistResult](t, a, ToolExportNetlist, map[string]any{"schematic_file": demo(sch), "format": "spice"})
	if got.Spice == nil || len(res.OutputFiles) != 1 || res.OutputFiles[0] != got.Spice.NetlistFile {
		t.Fatalf("no SPICE deck in %+v / %v", got.Spice, res.OutputFiles)
	}
	deck, _ := os.ReadFile(got.Spice.NetlistFile)
	t.Logf("deck:\n%s", deck)
	if strings.Contains(strings.ToLower(string(deck)), ".control") {
		t.Fatal("the deck holds a .control block")
	}
	args, _ := json.Marshal(map[string]any{"netlist_path": got.Spice.NetlistFile})
	out, err := spice.New(ws.Roots()...).Call(context.Background(), spice.ToolRunSimulation, args)
	if err != nil {
		t.Fatalf("spice.run_simulation: %v", err)
	}
	var sim spice.Output
	if err := json.Unmarshal(out.Data, &sim); err != nil {
		t.Fatal(err)
	}
	if !sim.Converged {
		t.Fatalf("ngspice did not converge: %+v", sim)
	}
	return got, sim
}

// wave is a vector's decimated waveform with its scale.
func wave(t *testing.T, sim spice.Output, name string) (scale, values []float64) {
	t.Helper()
	if sim.Waveform == nil {
		t.Fatal("no waveform")
	}
	for k, v := range sim.Waveform.Vectors {
		if strings.EqualFold(k, name) {
			for i := range v {
				scale = append(scale, float64(sim.Waveform.Scale[i]))
				values = append(values, float64(v[i]))
			}
			return scale, values
		}
	}
	t.Fatalf("no vector %s in the waveform", name)
	return nil, nil
}

// The rectifier: a 1.5 V, 1 kHz sine through a 1N4148 into 100 nF and
// 100 kOhm. Its output is positive and below the source peak (a diode
// drop below, in fact).
func TestSpiceRectifierSimulates(t *testing.T) {
	got, sim := simulate(t, "simulation/rectifier/rectifier.kicad_sch")
	if strings.Join(got.Spice.Simulated, ",") != "C1,D1,R1,R2,V1" || len(got.Spice.Excluded) != 0 {
		t.Errorf("simulated %v, excluded %v", got.Spice.Simulated, got.Spice.Excluded)
	}
	if len(got.Spice.AnalysisCommands) != 1 || !strings.HasPrefix(got.Spice.AnalysisCommands[0], ".tran") {
		t.Errorf("analysis %v, want the schematic's .tran (its .ac is commented out)", got.Spice.AnalysisCommands)
	}
	_, out := wave(t, sim, "v(rect_out)")
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range out {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	t.Logf("rect_out: %.3f .. %.3f V", lo, hi)
	if !(hi > 0.3 && hi < 1.5) {
		t.Errorf("rect_out peaks at %g V; a 1.5 V peak sine through a diode gives between 0.3 and 1.5 V", hi)
	}
	if lo < -0.05 {
		t.Errorf("rect_out goes to %g V: a rectifier's output does not go negative", lo)
	}
}

// Sallen-Key low-pass: unity-gain buffer (AD8051 model), R1 = R2 = 1k,
// C1 = C2 = 100n: gain 1 (0 dB) well below fc = 1/(2 pi R C) = 1.59 kHz,
// falling at 40 dB/decade above it.
func TestSpiceSallenKeySimulates(t *testing.T) {
	got, sim := simulate(t, "simulation/sallen_key/sallen_key.kicad_sch")
	if len(got.Spice.Includes) != 1 || !strings.HasSuffix(got.Spice.Includes[0], "ad8051.lib") {
		t.Errorf("includes %v", got.Spice.Includes)
	}
	freq, db := wave(t, sim, "v(lowpass)")
	t.Logf("lowpass: %.3f dB at %g Hz", db[0], freq[0])
	if math.Abs(db[0]) > 0.2 {
		t.Errorf("gain at %g Hz is %g dB, want 0 dB (unity gain)", freq[0], db[0])
	}
	for i := range freq {
		if freq[i] >= 100e3 {
			t.Logf("lowpass: %.1f dB at %g Hz", db[i], freq[i])
			if db[i] > -50 {
				t.Errorf("gain at %g Hz is %g dB; two poles near 1.6 kHz give about -70 dB", freq[i], db[i])
			}
			break
		}
	}
}
