package spice

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters"
)

// spiceNumbers are SPICE number strings and their values from the ngspice
// manual's table of scale factors (section 2.3, "Naming conventions"):
// T 1e12, G 1e9, MEG 1e6, K 1e3, MIL 25.4e-6, M 1e-3, U 1e-6, N 1e-9,
// P 1e-12, F 1e-15, any case, letters after the number or the factor
// ignored; the Fortran exponent d is in ngspice's parser (INPevaluate)
// though not in the table. A is a letter ngspice 39 ignores (42 and later
// read it as atto: figure refuses it).
var spiceNumbers = map[string]float64{
	"10k": 10e3, "1.6n": 1.6e-9, "5m": 5e-3, "1meg": 1e6, "2.2u": 2.2e-6, "100p": 100e-12, "1e-3": 1e-3,
	"10kHz": 10e3, "5ms": 5e-3, "1MEG": 1e6, "1Meg": 1e6, "3T": 3e12, "4g": 4e9, "7f": 7e-15, "2a": 2, "2A": 2,
	"1mil": 25.4e-6, "2MIL": 50.8e-6, "1M": 1e-3, "1MHz": 1e-3, "1megHz": 1e6, "1e3k": 1e6, "1.5e-3u": 1.5e-9,
	"1d3": 1e3, "10V": 10, "10Hz": 10, "10dB": 10, "-2.5": -2.5, "+.5": 0.5, "3.": 3, "1e": 1, "159.15": 159.15,
	"1.5915k": 1591.5, " 5m ": 5e-3, "0": 0,
}

// TestParseSpiceNumber checks the table above, then what is refused: what
// ngspice would read as something else without a word.
func TestParseSpiceNumber(t *testing.T) {
	for s, want := range spiceNumbers {
		got, _, ok := parseSpiceNumber(s)
		if !ok || math.Abs(got-want) > 1e-15*math.Abs(want) {
			t.Errorf("parseSpiceNumber(%q) = %g, %v; want %g", s, got, ok, want)
		}
	}
	for _, s := range []string{"", " ", "5 ms", "k", "meg", ".", "-", "+k", "1.2.3", "1e-", "1e+k", "1,5", "10k!", "1e999", "0x10", "µ", "5µs", "NaN", "inf"} {
		if v, _, ok := parseSpiceNumber(s); ok {
			t.Errorf("parseSpiceNumber(%q) = %g, want refused", s, v)
		}
	}
}

// TestSpiceNumbersAsNgspiceReadsThem holds the parser against ngspice
// itself: each string is the value of a DC voltage source, so the
// operating point's node voltage is the number ngspice read. Tolerance 1e-14
// relative: ngspice 39 scales by pow(10, n), a few ULP from the correctly
// rounded value this parser gives.
func TestSpiceNumbersAsNgspiceReadsThem(t *testing.T) {
	needNgspice(t)
	var deck strings.Builder
	deck.WriteString("SPICE numbers\n")
	var names []string
	i := 0
	for s := range spiceNumbers {
		if strings.TrimSpace(s) != s {
			continue // a card's fields are split on blanks
		}
		i++
		fmt.Fprintf(&deck, "V%d n%d 0 DC %s\nR%d n%d 0 1\n", i, i, s, i, i)
		names = append(names, s)
	}
	out := call(t, New(), map[string]any{"netlist": deck.String(), "analysis_type": "op"})
	if !out.Converged {
		t.Fatalf("ngspice did not run the deck: %v", out.Log)
	}
	for k, s := range names {
		v := vector(t, out, fmt.Sprintf("v(n%d)", k+1))
		read := float64(*v.Final)
		mine, _, _ := parseSpiceNumber(s)
		if math.Abs(read-mine) > 1e-14*math.Abs(mine) {
			t.Errorf("%q: ngspice reads %.17g, parseSpiceNumber %.17g", s, read, mine)
		}
	}
}

// RC step, as TestRCTransient: v(cap)(t) = 5 (1 - exp(-t/tau)), tau = RC =
// 1 ms, so at tstop = 5 ms (5 tau) v(cap) = 5 (1 - e^-5) = 4.966310 V.
// tstop "5m" and tstep "10u" write the same card as 5e-3 and 1e-5 and give
// the same final value to the last bit; the closed form within 0.5% (the
// transient's time step error, as in TestRCTransient).
func TestSuffixedTransientIsTheNumericOne(t *testing.T) {
	needNgspice(t)
	inEachForm(t, func(t *testing.T, reach reach) {
		a := reach(New())
		run := func(tstep, tstop any) Output {
			return call(t, a, map[string]any{"netlist": rc, "analysis_type": "transient", "vectors": []string{"v(cap)"},
				"params": map[string]any{"tstep": tstep, "tstop": tstop}})
		}
		str, numeric := run("10u", "5m"), run(1e-5, 5e-3)
		if str.Card != ".tran 1e-05 0.005" || str.Card != numeric.Card {
			t.Fatalf("cards %q and %q, want .tran 1e-05 0.005 for both", str.Card, numeric.Card)
		}
		got, same := float64(*vector(t, str, "v(cap)").Final), float64(*vector(t, numeric, "v(cap)").Final)
		want := 5 * (1 - math.Exp(-5))
		if got != same || math.Abs(got-want)/want > 0.005 {
			t.Fatalf("v(cap)(5 ms) = %.9g from \"5m\", %.9g from 5e-3; want equal and %.6f within 0.5%%", got, same, want)
		}
		t.Logf("card %s: v(cap)(5 tau) = %.6f V (closed form %.6f, error %.3f%%)", str.Card, got, want, 100*(got-want)/want)
	})
}

// RC AC from the corner to a decade above, given as "159.15" and
// "1.5915k": |H| = 1 / sqrt(1 + (f/fc)^2), fc = 1 / (2 pi RC) = 159.155 Hz.
// Both ends are sweep points, read exactly: at 159.15 Hz -3.0101 dB (the
// magnitude's max, a low-pass falls with f), at 1591.5 Hz (f/fc = 9.9997)
// -20.0430 dB (the last point). Tolerance 0.01 dB.
func TestSuffixedACCorner(t *testing.T) {
	needNgspice(t)
	closed := func(f float64) float64 {
		x := 2 * math.Pi * f * 1e3 * 1e-6
		return -10 * math.Log10(1+x*x)
	}
	out := call(t, New(), map[string]any{"netlist": rc, "analysis_type": "ac", "vectors": []string{"v(cap)"},
		"params": map[string]any{"variation": "dec", "points": 10, "fstart": "159.15", "fstop": "1.5915k"}})
	if out.Card != ".ac dec 10 159.15 1591.5" {
		t.Fatalf("card %q, want .ac dec 10 159.15 1591.5", out.Card)
	}
	m := vector(t, out, "v(cap)").MagnitudeDB
	if lo, want := float64(m.Max), closed(159.15); math.Abs(lo-want) > 0.01 || math.Abs(want-(-3.0101)) > 1e-4 {
		t.Errorf("|v(cap)| at 159.15 Hz = %.4f dB, want %.4f +- 0.01", lo, want)
	}
	if hi, want := float64(m.Final), closed(1591.5); math.Abs(hi-want) > 0.01 || math.Abs(want-(-20.0430)) > 1e-4 {
		t.Errorf("|v(cap)| at 1591.5 Hz = %.4f dB, want %.4f +- 0.01", hi, want)
	}
	t.Logf("card %s: %.4f dB at the corner, %.4f dB a decade up", out.Card, float64(m.Max), float64(m.Final))
}

// A figure that is neither a number nor a SPICE number string is refused
// before anything runs, naming the param and both forms; so is a range
// that an M (milli) made wrong, saying so. The registry's schema lets the
// strings through to these messages and refuses what is neither a number
// nor a string.
func TestBadFigureIsRefused(t *testing.T) {
	a := New()
	a.Binary = "/nonexistent/ngspice"
	r := adapters.NewRegistry()
	if err := r.Register(a); err != nil {
		t.Fatal(err)
	}
	tran := func(tstop any) map[string]any {
		return map[string]any{"netlist": rc, "analysis_type": "transient", "params": map[string]any{"tstep": "10u", "tstop": tstop}}
	}
	for _, c := range []struct {
		args   map[string]any
		schema bool // the registry refuses it too
		want   string
	}{
		{tran("5 ms"), false, `params.tstop "5 ms" is not a number: give 0.005 or "5ms" (SPICE suffixes T G MEG K M U N P F, any case; M is milli (1e-3), MEG is mega (1e6))`},
		{tran("five"), false, `params.tstop "five" is not a number: give a JSON number such as 0.005 or a SPICE number string such as "5m" (SPICE suffixes T G MEG K M U N P F, any case; M is milli (1e-3), MEG is mega (1e6))`},
		{tran("1.2.3"), false, `params.tstop "1.2.3" is not a number`},
		{tran(true), true, `params.tstop is true, not a number: give a JSON number such as 0.005 or a SPICE number string such as "5m"`},
		{map[string]any{"netlist": rc, "analysis_type": "ac", "params": map[string]any{"variation": "dec", "points": 10, "fstart": "10", "fstop": "1MHz"}}, false,
			`params.fstart must be > 0 and params.fstop >= fstart (got 10, 0.001); params.fstop "1MHz" is 0.001: M is milli in SPICE, write MEG for mega (1e6)`},
		{map[string]any{"netlist": divider, "analysis_type": "dc", "params": map[string]any{"source": "V1", "start": 0, "stop": "5", "step": "0m"}}, false, "params.step must not be 0"},
		{map[string]any{"netlist": divider, "analysis_type": "dc", "params": map[string]any{"source": "V1", "start": 0, "stop": "2A", "step": "1"}}, false,
			`params.stop "2A" is ambiguous: ngspice 42 and later read A as atto (2e-18), earlier versions ignore it (2); give 2 or 2e-18`},
	} {
		raw, _ := json.Marshal(c.args)
		_, err := a.Call(context.Background(), ToolRunSimulation, raw)
		wantInvalid(t, err, c.want)
		if verr := r.ValidateArguments(ToolRunSimulation, raw); (verr != nil) != c.schema {
			t.Errorf("%s: registry says %v", raw, verr)
		}
	}
	// Good strings pass the schema and get as far as running ngspice.
	for _, params := range []map[string]any{
		{"tstep": "10u", "tstop": "5ms", "tstart": "1m"},
		{"tstep": 1e-5, "tstop": "5m"},
	} {
		raw, _ := json.Marshal(map[string]any{"netlist": rc, "analysis_type": "transient", "params": params})
		if err := r.ValidateArguments(ToolRunSimulation, raw); err != nil {
			t.Errorf("registry refused %s: %v", raw, err)
		}
		if _, err := a.Call(context.Background(), ToolRunSimulation, raw); err == nil || !strings.Contains(err.Error(), "apt-get install ngspice") {
			t.Errorf("%s: got %v, want only the missing ngspice", raw, err)
		}
	}
}
