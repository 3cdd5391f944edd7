package spice

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

const divider = `5 V divider
V1 in 0 DC 5
R1 in out 1k
R2 out 0 1k
`

// rc is a 1 kOhm / 1 uF low-pass (tau = 1 ms) driven by a 0 -> 5 V step at
// t = 0 (1 ns edge) that also carries an AC source of magnitude 1.
const rc = `RC low-pass
V1 in 0 PULSE(0 5 0 1n 1n 1 2) AC 1
R1 in cap 1k
C1 cap 0 1u
`

func needNgspice(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ngspice"); err != nil {
		t.Skip("ngspice is not installed: apt-get install ngspice")
	}
}

func call(t *testing.T, a adapters.Adapter, args map[string]any) Output {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := a.Call(context.Background(), ToolRunSimulation, raw)
	if err != nil {
		t.Fatalf("Call(%s): %v", raw, err)
	}
	validateOutput(t, res.Data)
	var out Output
	if err := json.Unmarshal(res.Data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func validateOutput(t *testing.T, data []byte) {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(outputSchema), &s); err != nil {
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
		t.Fatalf("result does not match the output schema: %v\n%s", err, data)
	}
}

func vector(t *testing.T, out Output, name string) VectorResult {
	t.Helper()
	for _, v := range out.Vectors {
		if strings.EqualFold(v.Name, name) {
			return v
		}
	}
	t.Fatalf("no vector %s in %+v", name, out.Vectors)
	return VectorResult{}
}

// interp reads y at x by linear interpolation in x (xs increasing).
func interp(t *testing.T, xs, ys []Num, x float64, logX bool) float64 {
	t.Helper()
	f := func(v Num) float64 {
		if logX {
			return math.Log10(float64(v))
		}
		return float64(v)
	}
	xx := x
	if logX {
		xx = math.Log10(x)
	}
	for i := 1; i < len(xs); i++ {
		if f(xs[i-1]) <= xx && xx <= f(xs[i]) {
			x0, x1 := f(xs[i-1]), f(xs[i])
			if x1 == x0 {
				return float64(ys[i])
			}
			return float64(ys[i-1]) + (float64(ys[i])-float64(ys[i-1]))*(xx-x0)/(x1-x0)
		}
	}
	t.Fatalf("x = %g is outside the waveform [%g, %g]", x, xs[0], xs[len(xs)-1])
	return 0
}

func TestManifest(t *testing.T) {
	inEachForm(t, func(t *testing.T, reach reach) {
		r := adapters.NewRegistry()
		if err := r.Register(reach(New())); err != nil {
			t.Fatalf("Register: %v", err)
		}
		m, a, ok := r.Tool(ToolRunSimulation)
		if !ok || a.ID() != AdapterID {
			t.Fatal("spice.run_simulation is not registered to adapter spice")
		}
		if !m.Idempotent || m.TimeoutSeconds != 120 || m.Retries != adapters.DefaultRetries {
			t.Fatalf("manifest %+v", m)
		}
		var out jsonschema.Schema
		if err := json.Unmarshal(m.OutputSchema, &out); err != nil {
			t.Fatal(err)
		}
		if _, err := out.Resolve(nil); err != nil {
			t.Fatalf("output schema does not resolve: %v", err)
		}
	})
}

// Divider: v(out) = 5 x 1k / (1k + 1k) = 2.5 V, with both rawfile formats.
func TestDividerOP(t *testing.T) {
	needNgspice(t)
	inEachForm(t, func(t *testing.T, reach reach) {
		for _, ascii := range []bool{false, true} {
			a := New()
			a.ASCIIRawfile = ascii
			out := call(t, reach(a), map[string]any{"netlist": divider, "analysis_type": "op"})
			if !out.Converged || out.Analysis != "op" || out.Waveform != nil || out.Points != 1 {
				t.Fatalf("ascii=%v: %+v", ascii, out)
			}
			v := vector(t, out, "v(out)")
			if got := float64(*v.Final); math.Abs(got-2.5) > 1e-6 {
				t.Fatalf("ascii=%v: v(out) = %.9g, want 2.5 +- 1e-6", ascii, got)
			}
			i := vector(t, out, "i(v1)")
			if got := float64(*i.Final); math.Abs(got+2.5e-3) > 1e-9 {
				t.Fatalf("ascii=%v: i(v1) = %g, want -2.5 mA", ascii, got)
			}
			t.Logf("ascii=%v: v(out) = %.12g V, i(v1) = %.12g A", ascii, float64(*v.Final), float64(*i.Final))
		}
	})
}

// The netlist's own single card runs without analysis_type; a DC sweep of
// the divider gives v(out) = V1 / 2 at every step.
func TestDCSweepFromNetlistCard(t *testing.T) {
	needNgspice(t)
	inEachForm(t, func(t *testing.T, reach reach) {
		out := call(t, reach(New()), map[string]any{"netlist": divider + ".dc V1 0 5 1\n.end\n", "vectors": []string{"out"}})
		if !out.Converged || out.Analysis != "dc" || out.Points != 6 || len(out.Vectors) != 1 {
			t.Fatalf("%+v", out)
		}
		w := out.Waveform
		for k, s := range w.Scale {
			if got, want := float64(w.Vectors["v(out)"][k]), float64(s)/2; math.Abs(got-want) > 1e-9 {
				t.Fatalf("at V1 = %g: v(out) = %g, want %g", s, got, want)
			}
		}
		t.Logf("scale %s, card %q", out.Scale, out.Card)
	})
}

// RC step: v(cap)(t) = 5 (1 - exp(-t/tau)); at 5 tau = 5 ms, 4.96631 V. The
// value at 5 ms is linearly interpolated between the two nearest time
// points of the undecimated waveform (tstep 10 us); tolerance 0.5%.
func TestRCTransient(t *testing.T) {
	needNgspice(t)
	inEachForm(t, func(t *testing.T, reach reach) {
		for _, ascii := range []bool{false, true} {
			a := New()
			a.ASCIIRawfile = ascii
			out := call(t, reach(a), map[string]any{"netlist": rc, "analysis_type": "transient",
				"params": map[string]any{"tstep": 10e-6, "tstop": 6e-3}, "max_points": 10000})
			if !out.Converged || out.Scale != "time" || out.Waveform.Decimated {
				t.Fatalf("ascii=%v: %+v", ascii, out)
			}
			got := interp(t, out.Waveform.Scale, out.Waveform.Vectors["v(cap)"], 5e-3, false)
			want := 5 * (1 - math.Exp(-5))
			if math.Abs(got-want)/want > 0.005 {
				t.Fatalf("ascii=%v: v(cap)(5 ms) = %.6g, want %.6g within 0.5%%", ascii, got, want)
			}
			v := vector(t, out, "v(cap)")
			t.Logf("ascii=%v: %d points; v(cap)(5 ms) = %.6f V (closed form %.6f, error %.4f%%); final %.6f at 6 ms (closed form %.6f)",
				ascii, out.Points, got, want, 100*(got-want)/want, float64(*v.Final), 5*(1-math.Exp(-6)))
		}
	})
}

// RC AC: |H| = 1 / sqrt(1 + (2 pi f RC)^2). 100 kHz is the sweep's last
// point (magnitude_db.final), so it is read exactly; 159.15 Hz (the corner,
// 1 / (2 pi RC)) lies between points of the 100-per-decade sweep and is
// interpolated linearly in log10(f). Tolerance 0.1 dB.
func TestRCAC(t *testing.T) {
	needNgspice(t)
	inEachForm(t, func(t *testing.T, reach reach) {
		closed := func(f float64) float64 {
			w := 2 * math.Pi * f * 1e3 * 1e-6
			return -10 * math.Log10(1+w*w)
		}
		for _, ascii := range []bool{false, true} {
			a := New()
			a.ASCIIRawfile = ascii
			out := call(t, reach(a), map[string]any{"netlist": rc, "analysis_type": "ac",
				"params": map[string]any{"variation": "dec", "points": 100, "fstart": 10, "fstop": 1e5}, "max_points": 10000})
			if !out.Converged || out.Scale != "frequency" {
				t.Fatalf("ascii=%v: %+v", ascii, out)
			}
			v := vector(t, out, "v(cap)")
			if v.MagnitudeDB == nil || v.PhaseDeg == nil || v.Final != nil {
				t.Fatalf("AC vector %+v", v)
			}
			last := float64(out.Waveform.Scale[len(out.Waveform.Scale)-1])
			if math.Abs(last-1e5) > 1e-3 {
				t.Fatalf("last frequency %g, want 1e5", last)
			}
			hi := float64(v.MagnitudeDB.Final)
			if math.Abs(hi-(-55.96)) > 0.1 {
				t.Fatalf("ascii=%v: |v(cap)| at 100 kHz = %.4f dB, want -55.96 +- 0.1", ascii, hi)
			}
			corner := interp(t, out.Waveform.Scale, out.Waveform.Vectors["v(cap)"], 159.15, true)
			if math.Abs(corner-(-3.01)) > 0.1 {
				t.Fatalf("ascii=%v: |v(cap)| at 159.15 Hz = %.4f dB, want -3.01 +- 0.1", ascii, corner)
			}
			phase := interp(t, out.Waveform.Scale, out.Waveform.PhaseDeg["v(cap)"], 159.15, true)
			if math.Abs(phase-(-45)) > 0.5 {
				t.Fatalf("ascii=%v: phase at the corner %.3f deg, want -45", ascii, phase)
			}
			t.Logf("ascii=%v: %d points; 100 kHz: %.4f dB (closed form %.4f); 159.15 Hz: %.4f dB (closed form %.4f), phase %.3f deg",
				ascii, out.Points, hi, closed(1e5), corner, closed(159.15), phase)
		}
	})
}

// A deck ngspice cannot parse is a result, converged false, with ngspice's
// error line; the next call on the same adapter works.
func TestSyntaxErrorIsAResult(t *testing.T) {
	needNgspice(t)
	inEachForm(t, func(t *testing.T, reach reach) {
		a := reach(New())
		out := call(t, a, map[string]any{"netlist": divider + "X1 out 0 nosuch\n", "analysis_type": "op"})
		if out.Converged {
			t.Fatalf("a bad deck converged: %+v", out)
		}
		joined := strings.Join(out.Log, "\n")
		if !strings.Contains(joined, "unknown subckt: x1 out 0 nosuch") {
			t.Fatalf("log does not carry ngspice's error line:\n%s", joined)
		}
		t.Logf("log: %q", out.Log)

		out = call(t, a, map[string]any{"netlist": divider + ".tran 1u\n"})
		if out.Converged || !strings.Contains(strings.Join(out.Log, "\n"), "TSTOP is invalid") {
			t.Fatalf("bad .tran card: %+v", out)
		}

		out = call(t, a, map[string]any{"netlist": divider, "analysis_type": "op"})
		if !out.Converged || math.Abs(float64(*vector(t, out, "v(out)").Final)-2.5) > 1e-6 {
			t.Fatalf("the call after a failure: %+v", out)
		}
	})
}

// Decimation through the tool: never more than max_points, and every
// vector's min and max (over all points) are in the waveform.
func TestDecimatedWaveformKeepsExtremes(t *testing.T) {
	needNgspice(t)
	inEachForm(t, func(t *testing.T, reach reach) {
		// A 1 kHz square wave through the RC: many ripples to decimate.
		deck := "square\nV1 in 0 PULSE(0 5 0 1u 1u 0.5m 1m)\nR1 in cap 1k\nC1 cap 0 1u\n"
		for _, mp := range []int{1, 7, 50, 200} {
			out := call(t, reach(New()), map[string]any{"netlist": deck, "analysis_type": "transient",
				"params": map[string]any{"tstep": 1e-6, "tstop": 10e-3}, "max_points": mp})
			w := out.Waveform
			if !out.Converged || !w.Decimated || len(w.Scale) > mp || len(w.Scale) == 0 {
				t.Fatalf("max_points %d: %d of %d points, decimated %v", mp, len(w.Scale), out.Points, w.Decimated)
			}
			for name, vals := range w.Vectors {
				if len(vals) != len(w.Scale) {
					t.Fatalf("%s has %d values for %d scale points", name, len(vals), len(w.Scale))
				}
				if mp < 2*len(w.Vectors)+2 {
					continue // too few points to promise extremes
				}
				v := vector(t, out, name)
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, x := range vals {
					lo, hi = math.Min(lo, float64(x)), math.Max(hi, float64(x))
				}
				if lo != float64(*v.Min) || hi != float64(*v.Max) {
					t.Fatalf("max_points %d: %s waveform spans [%g, %g], vector [%g, %g]", mp, name, lo, hi, float64(*v.Min), float64(*v.Max))
				}
			}
			t.Logf("max_points %d: %d of %d points", mp, len(w.Scale), out.Points)
		}
	})
}

func TestDecimate(t *testing.T) {
	n := 10007
	a, b := make([]float64, n), make([]float64, n)
	for i := range a {
		a[i] = math.Sin(float64(i) / 50)
		b[i] = float64(i % 97)
	}
	a[4321], b[77] = 9, -3 // lone spikes
	for _, mp := range []int{6, 10, 99, 500, 10000} {
		idx := Decimate(n, mp, [][]float64{a, b})
		if len(idx) > mp || len(idx) == 0 {
			t.Fatalf("max %d: %d points", mp, len(idx))
		}
		has := map[int]bool{}
		for k, i := range idx {
			if k > 0 && i <= idx[k-1] {
				t.Fatalf("indices not increasing: %v", idx[:k+1])
			}
			has[i] = true
		}
		if !has[4321] || !has[77] || !has[0] || !has[n-1] {
			t.Fatalf("max %d: extremes or ends lost", mp)
		}
	}
	if got := Decimate(5, 10, [][]float64{{1, 2, 3, 4, 5}}); len(got) != 5 {
		t.Fatalf("short series decimated: %v", got)
	}
	if got := Decimate(100, 3, [][]float64{a[:100], b[:100]}); len(got) != 3 {
		t.Fatalf("fallback: %v", got)
	}
}

// Both parsers on real ngspice output: the same decks written binary and
// ASCII parse to the same plots (ASCII holds 16 significant digits).
func TestRawfileParsersAgree(t *testing.T) {
	needNgspice(t)
	decks := map[string]string{
		"op":   divider + ".op\n.end\n",
		"tran": rc + ".tran 10u 6m\n.end\n",
		"ac":   rc + ".ac dec 10 10 1e5\n.end\n",
	}
	for name, deck := range decks {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "deck.cir"), []byte(deck), 0o600); err != nil {
			t.Fatal(err)
		}
		read := func(ascii bool) (Plot, []byte) {
			cmd := exec.Command("ngspice", "-b", "-r", "out.raw", "deck.cir")
			cmd.Dir = dir
			cmd.Env = append(filteredEnv(), "HOME="+dir)
			if ascii {
				cmd.Env = append(cmd.Env, "SPICE_ASCIIRAWFILE=1")
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: ngspice: %v\n%s", name, err, out)
			}
			data, err := os.ReadFile(filepath.Join(dir, "out.raw"))
			if err != nil {
				t.Fatal(err)
			}
			plots, err := ParseRawfile(data)
			if err != nil || len(plots) != 1 {
				t.Fatalf("%s ascii=%v: %d plots, %v", name, ascii, len(plots), err)
			}
			return plots[0], data
		}
		bin, bdata := read(false)
		asc, adata := read(true)
		if !strings.Contains(string(bdata[:min(len(bdata), 2000)]), "Binary:") || !strings.Contains(string(adata), "Values:") {
			t.Fatalf("%s: ngspice did not write the formats asked for", name)
		}
		if bin.Points == 0 || bin.Points != asc.Points || len(bin.Vars) != len(asc.Vars) || bin.Complex != asc.Complex || bin.Complex != (name == "ac") {
			t.Fatalf("%s: binary %d points %d vars complex %v; ascii %d points %d vars complex %v",
				name, bin.Points, len(bin.Vars), bin.Complex, asc.Points, len(asc.Vars), asc.Complex)
		}
		worst := 0.0
		for v := range bin.Vars {
			if bin.Vars[v] != asc.Vars[v] {
				t.Fatalf("%s: variable %d: %v vs %v", name, v, bin.Vars[v], asc.Vars[v])
			}
			for i := 0; i < bin.Points; i++ {
				worst = math.Max(worst, relDiff(bin.Real[v][i], asc.Real[v][i]))
				if bin.Complex && v > 0 { // the scale's imaginary part is unset
					worst = math.Max(worst, relDiff(bin.Imag[v][i], asc.Imag[v][i]))
				}
			}
		}
		if worst > 1e-12 {
			t.Fatalf("%s: binary and ASCII differ by %g (relative)", name, worst)
		}
		t.Logf("%s: %d points x %d vars (%s), binary %d bytes, ascii %d bytes, worst relative difference %.2g",
			name, bin.Points, len(bin.Vars), bin.Plotname, len(bdata), len(adata), worst)
	}
}

func relDiff(a, b float64) float64 {
	d := math.Abs(a - b)
	if d == 0 {
		return 0
	}
	return d / math.Max(math.Abs(a), math.Abs(b))
}

// A rawfile cut short (binary or ASCII) keeps its whole points.
func TestRawfileTruncated(t *testing.T) {
	needNgspice(t)
	for _, ascii := range []bool{false, true} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "deck.cir"), []byte(rc+".tran 10u 6m\n.end\n"), 0o600)
		cmd := exec.Command("ngspice", "-b", "-r", "out.raw", "deck.cir")
		cmd.Dir, cmd.Env = dir, append(filteredEnv(), "HOME="+dir)
		if ascii {
			cmd.Env = append(cmd.Env, "SPICE_ASCIIRAWFILE=1")
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ngspice: %v\n%s", err, out)
		}
		data, _ := os.ReadFile(filepath.Join(dir, "out.raw"))
		full, err := ParseRawfile(data)
		if err != nil {
			t.Fatal(err)
		}
		cut, err := ParseRawfile(data[:len(data)-100])
		if err != nil || cut[0].Points >= full[0].Points || cut[0].Points < full[0].Points-4 {
			t.Fatalf("ascii=%v truncated: %v, %d of %d points", ascii, err, cut[0].Points, full[0].Points)
		}
		for v := range cut[0].Vars {
			if len(cut[0].Real[v]) != cut[0].Points {
				t.Fatalf("ascii=%v: variable %d has %d values for %d points", ascii, v, len(cut[0].Real[v]), cut[0].Points)
			}
		}
	}
	if _, err := ParseRawfile([]byte("Title: x\nNo. Variables: 2\n")); err == nil {
		t.Fatal("a header without data parsed")
	}
}

func wantInvalid(t *testing.T, err error, contains string) {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.InvalidParams || pe.ToolID != ToolRunSimulation {
		t.Fatalf("got %v, want INVALID_PARAMS for %s", err, ToolRunSimulation)
	}
	if !strings.Contains(pe.Details, contains) {
		t.Fatalf("error %q does not say %q", pe.Details, contains)
	}
}

// Bad input is refused before anything runs: the adapter's Binary names no
// program, so a call that got as far as running would be TOOL_UNAVAILABLE.
func TestBadInputRunsNothing(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	sibling := filepath.Join(base, "root2")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(sibling, 0o755)
	inside := filepath.Join(root, "ok.cir")
	outside := filepath.Join(sibling, "x.cir")
	os.WriteFile(inside, []byte(divider), 0o600)
	os.WriteFile(outside, []byte(divider), 0o600)
	link := filepath.Join(root, "escape.cir")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}

	inEachForm(t, func(t *testing.T, reach reach) {
		bare := New(root)
		bare.Binary = filepath.Join(base, "no-ngspice-here")
		a := reach(bare)
		cases := []struct {
			name string
			args map[string]any
			want string
		}{
			{"outside roots (sibling prefix)", map[string]any{"netlist_path": outside, "analysis_type": "op"}, "outside the allowed roots"},
			{"symlink escaping the root", map[string]any{"netlist_path": link, "analysis_type": "op"}, "outside the allowed roots"},
			{"dot-dot escaping the root", map[string]any{"netlist_path": root + "/../root2/x.cir", "analysis_type": "op"}, "outside the allowed roots"},
			{"missing file", map[string]any{"netlist_path": filepath.Join(root, "nope.cir"), "analysis_type": "op"}, "does not exist"},
			{"a directory", map[string]any{"netlist_path": root, "analysis_type": "op"}, "not a regular file"},
			{"both", map[string]any{"netlist": divider, "netlist_path": inside, "analysis_type": "op"}, "exactly one of netlist"},
			{"neither", map[string]any{"analysis_type": "op"}, "exactly one of netlist"},
			{".control block", map[string]any{"netlist": divider + ".control\nshell rm -rf /tmp/x\n.endc\n", "analysis_type": "op"}, ".control"},
			{"no card, no analysis_type", map[string]any{"netlist": divider}, "no analysis card"},
			{"two cards", map[string]any{"netlist": divider + ".op\n.tran 1u 1m\n"}, ".op; .tran 1u 1m"},
			{"card and analysis_type", map[string]any{"netlist": divider + ".op\n", "analysis_type": "op"}, "its own analysis card"},
			{"unsupported analysis", map[string]any{"netlist": divider + ".noise v(out) V1 dec 10 1 1k\n"}, ".noise"},
			{"missing params", map[string]any{"netlist": divider, "analysis_type": "transient", "params": map[string]any{"tstep": 1e-6}}, "tstop"},
			{"foreign param", map[string]any{"netlist": divider, "analysis_type": "dc", "params": map[string]any{"source": "V1", "start": 0, "stop": 5, "step": 1, "tstop": 1}}, "tstop"},
			{"bad source name", map[string]any{"netlist": divider, "analysis_type": "dc", "params": map[string]any{"source": "V1 0 0 0\n.control", "start": 0, "stop": 5, "step": 1}}, "source"},
			{"max_points 0", map[string]any{"netlist": divider, "analysis_type": "op", "max_points": 0}, "max_points"},
			{"max_points too big", map[string]any{"netlist": divider, "analysis_type": "op", "max_points": 10001}, "max_points"},
			{"unknown field", map[string]any{"netlist": divider, "analysis_type": "op", "analysis": "op"}, "unknown argument analysis; this tool takes"},
		}
		r := adapters.NewRegistry()
		if err := r.Register(a); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				raw, _ := json.Marshal(c.args)
				_, err := a.Call(context.Background(), ToolRunSimulation, raw)
				wantInvalid(t, err, c.want)
			})
		}
		// What the schema can say, the registry says too.
		for _, c := range []string{"both", "neither", "missing params", "foreign param", "max_points 0", "max_points too big", "unknown field"} {
			for _, cc := range cases {
				if cc.name == c {
					raw, _ := json.Marshal(cc.args)
					if err := r.ValidateArguments(ToolRunSimulation, raw); err == nil {
						t.Errorf("registry accepted %s", c)
					}
				}
			}
		}
		for _, good := range []map[string]any{
			{"netlist": divider, "analysis_type": "op"},
			{"netlist_path": inside, "analysis_type": "dc", "params": map[string]any{"source": "V1", "start": 0, "stop": 5, "step": 1}},
			{"netlist": divider + ".op\n", "vectors": []string{"v(out)"}, "max_points": 10},
			{"netlist": rc, "analysis_type": "ac", "params": map[string]any{"variation": "dec", "points": 10, "fstart": 1, "fstop": 1e5}},
			{"netlist": rc, "analysis_type": "transient", "params": map[string]any{"tstep": 1e-5, "tstop": 1e-3, "tstart": 1e-4}},
		} {
			raw, _ := json.Marshal(good)
			if err := r.ValidateArguments(ToolRunSimulation, raw); err != nil {
				t.Errorf("registry refused %s: %v", raw, err)
			}
			// Good input gets past validation and fails only for want of ngspice.
			_, err := a.Call(context.Background(), ToolRunSimulation, raw)
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != protocol.ToolUnavailable || !strings.Contains(pe.Details, "apt-get install ngspice") {
				t.Errorf("%s: got %v, want TOOL_UNAVAILABLE naming apt-get install ngspice", raw, err)
			}
		}
		// Health says the same.
		if _, err := a.Health(context.Background()); err == nil || !strings.Contains(err.Error(), "apt-get install ngspice") {
			t.Errorf("Health without ngspice: %v", err)
		}
	})
}

// A netlist_path inside the roots runs, and a vector asked for that the run
// does not have is a refusal naming the ones it has.
func TestNetlistPathAndVectors(t *testing.T) {
	needNgspice(t)
	inEachForm(t, func(t *testing.T, reach reach) {
		root := t.TempDir()
		p := filepath.Join(root, "div.cir")
		os.WriteFile(p, []byte(divider+".op\n.end\n"), 0o600)
		out := call(t, reach(New(root)), map[string]any{"netlist_path": p, "vectors": []string{"v(out)"}})
		if !out.Converged || len(out.Vectors) != 1 || math.Abs(float64(*out.Vectors[0].Final)-2.5) > 1e-6 {
			t.Fatalf("%+v", out)
		}
		_, err := reach(New()).Call(context.Background(), ToolRunSimulation, json.RawMessage(`{"netlist_path": "`+p+`", "vectors": ["v(nowhere)"]}`))
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.ToolExecutionError || pe.Retryable || !strings.Contains(pe.Details, "v(out)") {
			t.Fatalf("unknown vector: %v", err)
		}
	})
}

// A run past the deadline is killed and reported as a timeout, promptly.
func TestDeadlineKillsNgspice(t *testing.T) {
	needNgspice(t)
	inEachForm(t, func(t *testing.T, reach reach) {
		a := reach(New())
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		args := `{"netlist": "slow\nV1 in 0 SIN(0 1 1e9)\nR1 in out 1k\nC1 out 0 1p\n", "analysis_type": "transient", "params": {"tstep": 1e-13, "tstop": 1}}`
		_, err := a.Call(ctx, ToolRunSimulation, json.RawMessage(args))
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.ToolTimeout {
			t.Fatalf("got %v, want TOOL_TIMEOUT", err)
		}
		if el := time.Since(start); el > 4*time.Second {
			t.Fatalf("took %s to give up", el)
		}
	})
}

func TestHealth(t *testing.T) {
	needNgspice(t)
	inEachForm(t, func(t *testing.T, reach reach) {
		h, err := reach(New()).Health(context.Background())
		if err != nil || h.Status != "healthy" || !strings.Contains(h.Version, "ngspice-") || h.ToolsAvailable != 1 {
			t.Fatalf("%+v %v", h, err)
		}
		t.Logf("health version %q", h.Version)
	})
}

// Two voltage sources in parallel cannot be solved: converged false, with
// ngspice's failure in log. A floating capacitor makes ngspice warn
// (singular matrix, gmin stepping failed) before it finds the operating
// point: that converged, and the warnings are in log.
func TestNonConvergence(t *testing.T) {
	needNgspice(t)
	inEachForm(t, func(t *testing.T, reach reach) {
		out := call(t, reach(New()), map[string]any{"netlist": "loop\nV1 a 0 5\nV2 a 0 3\nR1 a 0 1k\n", "analysis_type": "op"})
		joined := strings.Join(out.Log, "\n")
		if out.Converged || !strings.Contains(joined, "Timestep too small") {
			t.Fatalf("voltage loop: converged %v, log:\n%s", out.Converged, joined)
		}
		t.Logf("voltage loop log (%d lines): %q", len(out.Log), out.Log)
		out = call(t, reach(New()), map[string]any{"netlist": "float\nV1 a 0 5\nR1 a 0 1k\nC1 b c 1u\n", "analysis_type": "op"})
		if !out.Converged || math.Abs(float64(*vector(t, out, "v(a)").Final)-5) > 1e-6 || len(out.Log) == 0 {
			t.Fatalf("floating capacitor: %+v", out)
		}
		t.Logf("floating capacitor: converged with %d warning lines, first %q", len(out.Log), out.Log[0])
	})
}

// Included files are confined like netlist_path and read for .control
// blocks; a relative include resolves against the including file's
// directory, as ngspice does, and runs from the temporary directory.
func TestIncludes(t *testing.T) {
	needNgspice(t)
	inEachForm(t, func(t *testing.T, reach reach) {
		base := t.TempDir()
		root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
		os.MkdirAll(filepath.Join(root, "models"), 0o755)
		os.MkdirAll(outside, 0o755)
		write := func(p, s string) {
			if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		write(filepath.Join(root, "models", "r2.inc"), "* lower leg\n.include leg.inc\n")
		write(filepath.Join(root, "models", "leg.inc"), "R2 out 0 1k\n")
		write(filepath.Join(root, "div.cir"), "div\nV1 in 0 5\nR1 in out 1k\n.include 'models/r2.inc'\n.op\n.end\n")
		write(filepath.Join(outside, "evil.inc"), ".control\nshell touch /tmp/pwned\n.endc\n")
		write(filepath.Join(root, "models", "ctl.inc"), "R2 out 0 1k\n.control\nrun\n.endc\n")
		write(filepath.Join(root, "models", "escape.inc"), ".inc ../../outside/evil.inc\n")
		write(filepath.Join(root, "ctl.cir"), "div\nV1 in 0 5\nR1 in out 1k\n.include models/ctl.inc\n.op\n")
		write(filepath.Join(root, "esc.cir"), "div\nV1 in 0 5\nR1 in out 1k\n.include models/escape.inc\n.op\n")

		a, unconfined := reach(New(root)), reach(New())
		out := call(t, a, map[string]any{"netlist_path": filepath.Join(root, "div.cir")})
		if !out.Converged || math.Abs(float64(*vector(t, out, "v(out)").Final)-2.5) > 1e-6 {
			t.Fatalf("nested relative include: %+v", out)
		}
		for name, c := range map[string]struct {
			args map[string]any
			want string
		}{
			"include with .control":       {map[string]any{"netlist_path": filepath.Join(root, "ctl.cir")}, ".control blocks are refused"},
			"nested include outside":      {map[string]any{"netlist_path": filepath.Join(root, "esc.cir")}, "outside the allowed roots"},
			"absolute include outside":    {map[string]any{"netlist": divider + ".include " + filepath.Join(outside, "evil.inc") + "\n", "analysis_type": "op"}, "outside the allowed roots"},
			"relative include in text":    {map[string]any{"netlist": divider + ".include models/r2.inc\n", "analysis_type": "op"}, "relative include path"},
			"unconfined still no control": {map[string]any{"netlist": divider + ".lib \"" + filepath.Join(outside, "evil.inc") + "\" sect\n", "analysis_type": "op"}, ".control"},
		} {
			t.Run(name, func(t *testing.T) {
				ad := a
				if name == "unconfined still no control" {
					ad = unconfined
				}
				raw, _ := json.Marshal(c.args)
				_, err := ad.Call(context.Background(), ToolRunSimulation, raw)
				wantInvalid(t, err, c.want)
			})
		}
	})
}
