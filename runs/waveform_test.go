package runs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters/spice"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
)

// rcLowPass is R = 1 kOhm, C = 16 nF: fc = 1 / (2 pi R C) = 9947.18 Hz,
// where |H| = -3.0103 dB and the phase -45 degrees.
const rcLowPass = `RC low-pass
V1 in 0 PULSE(0 1 0 1n 1n 1 2) AC 1
R1 in out 1k
C1 out 0 16n
`

// The waveform route reads a real ngspice run's result out of its
// ToolCall workflow: the AC sweep as magnitude and phase traces on a log
// frequency axis, decimated to the points asked for with the extremes
// kept; a transient as values against time; and refuses what is not a
// SPICE waveform, saying what to pass.
func TestWaveformRoute(t *testing.T) {
	if _, err := exec.LookPath("ngspice"); err != nil {
		t.Fatal("ngspice is not installed: apt-get install ngspice (or bash deploy/install-solvers.sh)")
	}
	stack := mcptest.Start(t, spice.New())
	cs := stack.Connect(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	call := func(tool string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		id, _ := res.Meta["callId"].(string)
		if id == "" {
			t.Fatalf("%s: no callId in _meta: %v", tool, res.Meta)
		}
		return id
	}
	ac := call(spice.ToolRunSimulation, map[string]any{"netlist": rcLowPass, "analysis_type": "ac", "max_points": 10000, "vectors": []string{"out"},
		"params": map[string]any{"variation": "dec", "points": 100, "fstart": 10, "fstop": 1e6}})
	tran := call(spice.ToolRunSimulation, map[string]any{"netlist": rcLowPass, "analysis_type": "transient", "vectors": []string{"out"},
		"params": map[string]any{"tstep": "1u", "tstop": "160u"}})
	health := call("health.check", map[string]any{})

	mux := http.NewServeMux()
	runs.Waveforms{Runs: &runs.Service{Client: stack.Temporal.Client}}.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(path string, into any) int {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return resp.StatusCode
	}

	var v runs.WaveformView
	if code := get("/v1/results/"+ac+"/waveform", &v); code != http.StatusOK {
		t.Fatalf("AC waveform: %d %+v", code, v)
	}
	// 5 decades at 100 per decade: 501 points, all kept by the call and
	// all returned under the default 1000.
	if v.Analysis != "ac" || !v.Scale.Log || v.Scale.Unit != "Hz" || v.SimulatedPoints != 501 || v.Points != 501 || len(v.Traces) != 2 {
		t.Fatalf("AC view: analysis %q log %v unit %q simulated %d points %d traces %d", v.Analysis, v.Scale.Log, v.Scale.Unit,
			v.SimulatedPoints, v.Points, len(v.Traces))
	}
	mag, phase := v.Traces[0], v.Traces[1]
	if mag.Name != "v(out) magnitude" || mag.Unit != "dB" || phase.Kind != "phase" || phase.Unit != "deg" {
		t.Fatalf("traces %q %q %q %q", mag.Name, mag.Unit, phase.Kind, phase.Unit)
	}
	const fc = 9947.18
	if got := logInterp(t, v.Scale.Values, mag.Values, fc); math.Abs(got-(-3.0103)) > 0.05 {
		t.Errorf("|v(out)| at %g Hz = %.4f dB, want -3.0103 +- 0.05", fc, got)
	}
	if got := logInterp(t, v.Scale.Values, phase.Values, fc); math.Abs(got-(-45)) > 0.5 {
		t.Errorf("phase at %g Hz = %.3f deg, want -45 +- 0.5", fc, got)
	}

	// Decimated to 40 points: the extremes of each trace survive.
	var d runs.WaveformView
	if code := get("/v1/results/"+ac+"/waveform?points=40", &d); code != http.StatusOK {
		t.Fatalf("decimated: %d", code)
	}
	if d.Points > 40 || d.Points < 20 || len(d.Scale.Values) != d.Points || !strings.Contains(d.Decimation, "minimum and maximum") {
		t.Fatalf("decimated to %d points (scale %d): %q", d.Points, len(d.Scale.Values), d.Decimation)
	}
	for i := range d.Traces {
		if *d.Traces[i].Stats != *v.Traces[i].Stats {
			t.Errorf("%s: extremes %+v after decimation, %+v before", d.Traces[i].Name, *d.Traces[i].Stats, *v.Traces[i].Stats)
		}
	}
	if d.Scale.Values[0] != 10 || math.Abs(d.Scale.Values[d.Points-1]-1e6) > 1e-3 {
		t.Errorf("decimation dropped an end: %g .. %g", d.Scale.Values[0], d.Scale.Values[d.Points-1])
	}

	// The transient: v(out) = 1 - exp(-t / 16 us); at 160 us (10 tau)
	// 0.99995 V.
	var tr runs.WaveformView
	if code := get("/v1/results/"+tran+"/waveform", &tr); code != http.StatusOK {
		t.Fatalf("transient: %d", code)
	}
	if tr.Scale.Log || tr.Scale.Unit != "s" || len(tr.Traces) != 1 || tr.Traces[0].Kind != "value" || tr.Traces[0].Unit != "V" {
		t.Fatalf("transient view %+v", tr.Scale)
	}
	last := tr.Traces[0].Values[tr.Points-1]
	if last == nil || math.Abs(*last-(1-math.Exp(-10))) > 1e-3 {
		t.Errorf("v(out) at 160 us = %v, want %.5f", last, 1-math.Exp(-10))
	}

	var e struct{ Error string }
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{"/v1/results/" + ac + "/waveform?point=10", http.StatusBadRequest, "unknown parameter point: pass only points=N"},
		{"/v1/results/" + ac + "/waveform?points=3", http.StatusBadRequest, "pass a whole number from 16 to 10000"},
		{"/v1/results/00000000deadbeef/waveform", http.StatusNotFound, "no call 00000000deadbeef"},
		{"/v1/results/" + health + "/waveform", http.StatusUnprocessableEntity, "is a health.check call, not spice.run_simulation"},
	} {
		e.Error = ""
		if code := get(c.path, &e); code != c.code || !strings.Contains(e.Error, c.want) {
			t.Errorf("GET %s: %d %q; want %d saying %q", c.path, code, e.Error, c.code, c.want)
		}
	}

	// The list: both SPICE calls, the newest first; not the health check.
	var list struct {
		Calls []runs.WaveformCall `json:"calls"`
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if code := get("/v1/results/waveforms", &list); code != http.StatusOK {
			t.Fatalf("list: %d", code)
		}
		if len(list.Calls) >= 2 || time.Now().After(deadline) {
			break
		}
	}
	got := []string{}
	for _, c := range list.Calls {
		got = append(got, fmt.Sprintf("%s %s", c.CallID, c.Analysis))
	}
	if want := []string{tran + " transient", ac + " ac"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("listed %v, want %v", got, want)
	}
}

// logInterp reads ys at x, linear in log10(x) between neighbouring points.
func logInterp(t *testing.T, xs []float64, ys []*float64, x float64) float64 {
	t.Helper()
	for i := 1; i < len(xs); i++ {
		if xs[i] >= x {
			f := (math.Log10(x) - math.Log10(xs[i-1])) / (math.Log10(xs[i]) - math.Log10(xs[i-1]))
			return *ys[i-1] + f*(*ys[i]-*ys[i-1])
		}
	}
	t.Fatalf("%g is beyond the sweep", x)
	return 0
}
