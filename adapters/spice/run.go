package spice

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
)

// Output is what spice.run_simulation returns.
type Output struct {
	Converged bool           `json:"converged"`
	Analysis  string         `json:"analysis"`
	Card      string         `json:"analysis_card"`
	Plotname  string         `json:"plotname,omitempty"`
	Scale     string         `json:"scale,omitempty"`
	Points    int            `json:"points"`
	Vectors   []VectorResult `json:"vectors"`
	Waveform  *Waveform      `json:"waveform,omitempty"`
	Log       []string       `json:"log,omitempty"`
}

// VectorResult summarises one vector. Real analyses fill Final/Min/Max; AC
// fills MagnitudeDB and PhaseDeg instead.
type VectorResult struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Unit        string `json:"unit,omitempty"`
	Final       *Num   `json:"final,omitempty"`
	Min         *Num   `json:"min,omitempty"`
	Max         *Num   `json:"max,omitempty"`
	MagnitudeDB *Stats `json:"magnitude_db,omitempty"`
	PhaseDeg    *Stats `json:"phase_deg,omitempty"`
}

// Stats is a final/min/max triple.
type Stats struct {
	Final Num `json:"final"`
	Min   Num `json:"min"`
	Max   Num `json:"max"`
}

// Waveform is the decimated data keyed by the scale: Vectors holds values
// (AC: magnitude in dB), PhaseDeg the AC phase in degrees.
type Waveform struct {
	ScaleName string           `json:"scale_name"`
	Scale     []Num            `json:"scale"`
	Vectors   map[string][]Num `json:"vectors"`
	PhaseDeg  map[string][]Num `json:"phase_deg,omitempty"`
	Decimated bool             `json:"decimated"`
}

// Num is a float that encodes NaN and infinities as null.
type Num float64

// MarshalJSON writes null for a value JSON cannot hold.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return []byte(fmt.Sprintf("%.10g", f)), nil
}

func numPtr(f float64) *Num { n := Num(f); return &n }

var units = map[string]string{"voltage": "V", "current": "A", "time": "s", "frequency": "Hz"}

// failure lines in ngspice's output that mean the run did not produce a
// trustworthy result.
// ngspice warns ("singular matrix", "gmin stepping failed") on its way to
// a solution it then finds, so only these lines, or a non-zero exit, count.
var failureLine = regexp.MustCompile(`(?i)(^\s*error|simulation interrupted|timestep too small|circuit not parsed|simulation\(s\) aborted)`)

// logLine picks ngspice's error and warning lines.
var logLine = regexp.MustCompile(`(?i)(error|warning|interrupted|timestep too small|singular|convergence|iteration limit|failed|aborted|unknown|can't find|invalid)`)

// run executes the deck and builds the output. A deck ngspice cannot parse
// or solve is a result with converged false, not an error.
func (a *Adapter) run(ctx context.Context, j job) (*Output, error) {
	bin := a.Binary
	if bin == "" {
		bin = "ngspice"
	}
	dir, err := os.MkdirTemp("", "metaforge-spice-")
	if err != nil {
		return nil, protocol.Transient("cannot make a working directory: %v", err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "deck.cir"), []byte(j.deck), 0o600); err != nil {
		return nil, protocol.Transient("cannot write the deck: %v", err)
	}
	env := append(filteredEnv(), "HOME="+dir) // no user .spiceinit
	if a.ASCIIRawfile {
		env = append(env, "SPICE_ASCIIRAWFILE=1")
	}
	res, err := solver.Run(ctx, solver.Command{
		Binary: bin, Args: []string{"-b", "-r", "out.raw", "deck.cir"}, Dir: dir, Env: env,
		Install:     "install it with `apt-get install ngspice`",
		TimeoutHint: "shorten the analysis (fewer points, shorter tstop) or simplify the circuit",
	})
	if err != nil {
		return nil, err
	}

	out := &Output{Analysis: j.analysis, Card: j.card, Vectors: []VectorResult{}}
	failed := res.ExitCode != 0
	for _, l := range strings.Split(res.Stderr+"\n"+res.Stdout, "\n") {
		if failureLine.MatchString(l) {
			failed = true
		}
	}
	var extra []string
	if res.ExitCode != 0 {
		extra = append(extra, fmt.Sprintf("ngspice exited with status %d", res.ExitCode))
	}
	raw, rerr := os.ReadFile(filepath.Join(dir, "out.raw"))
	var plot *Plot
	if rerr == nil {
		plots, perr := ParseRawfile(raw)
		if perr != nil {
			if !failed { // a failed run's rawfile is expected to be incomplete
				extra = append(extra, "rawfile could not be read: "+perr.Error())
			}
			failed = true
		}
		if len(plots) > 0 {
			plot = &plots[len(plots)-1]
		}
	} else {
		failed = true
		extra = append(extra, "ngspice wrote no rawfile")
	}
	if plot == nil || plot.Points == 0 {
		failed = true
	}
	logs := append(collectLog(res.Stderr, res.Stdout, failed), extra...)
	out.Converged = !failed
	if failed || len(logs) > 0 {
		out.Log = logs
	}
	if plot != nil && plot.Points > 0 {
		if err := summarise(out, plot, j); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// noise is ngspice's progress chatter, left out of a failure's log.
var noise = regexp.MustCompile(`^(Trying gmin|Note:|Supplies reduced|Total |DRAM|Maximum ngspice|Current ngspice|Shared ngspice|Text \(code\)|Stack =|Library pages|Doing analysis|binary raw file|ASCII raw file|No\. of Data|Circuit:)`)

var gminPrefix = regexp.MustCompile(`^Trying gmin =\s*\S+\s*`)

// collectLog picks ngspice's diagnostics, each distinct line once. A failed
// run gets all of stderr but the progress chatter, plus stdout's error and
// warning lines, keeping the end (where the fatal error is) when long; a
// run that worked gets its warning lines only.
func collectLog(stderr, stdout string, failed bool) []string {
	seen := map[string]bool{}
	var logs []string
	add := func(l string) {
		l = strings.TrimSpace(gminPrefix.ReplaceAllString(strings.TrimSpace(l), ""))
		if l == "" || seen[l] {
			return
		}
		seen[l] = true
		logs = append(logs, l)
	}
	for _, l := range strings.Split(stderr, "\n") {
		t := strings.TrimSpace(l)
		if failed && !noise.MatchString(t) || logLine.MatchString(t) {
			add(t)
		}
	}
	for _, l := range strings.Split(stdout, "\n") {
		if logLine.MatchString(l) {
			add(l)
		}
	}
	const keepHead, keepTail = 10, 40
	if len(logs) > keepHead+keepTail {
		cut := len(logs) - keepHead - keepTail
		logs = append(append(logs[:keepHead:keepHead], fmt.Sprintf("... %d lines left out ...", cut)), logs[len(logs)-keepTail:]...)
	}
	return logs
}

// filteredEnv is this process's environment without ngspice's own
// variables (SPICE_*, and NGSPICE_INPUT_DIR, where code models look for a
// relative file) and HOME, so nothing outside the deck steers ngspice.
func filteredEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "SPICE_") || strings.HasPrefix(k, "NGSPICE_") || k == "HOME" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// summarise fills vectors and waveform from a plot.
func summarise(out *Output, p *Plot, j job) error {
	out.Plotname = p.Plotname
	out.Points = p.Points
	first := 0
	hasScale := j.analysis != AnalysisOP && len(p.Vars) > 1
	if hasScale {
		out.Scale = p.Vars[0].Name
		first = 1
	}
	// Pick the vectors asked for.
	chosen := []int{}
	if len(j.vectors) == 0 {
		for v := first; v < len(p.Vars); v++ {
			chosen = append(chosen, v)
		}
	} else {
		var missing []string
		for _, want := range j.vectors {
			found := -1
			for v := first; v < len(p.Vars); v++ {
				n := p.Vars[v].Name
				if strings.EqualFold(n, want) || strings.EqualFold(n, "v("+want+")") {
					found = v
					break
				}
			}
			if found < 0 {
				missing = append(missing, want)
				continue
			}
			if !containsInt(chosen, found) {
				chosen = append(chosen, found)
			}
		}
		if len(missing) > 0 {
			var have []string
			for v := first; v < len(p.Vars); v++ {
				have = append(have, p.Vars[v].Name)
			}
			return protocol.Refusal("vectors %s are not in the results; available: %s", strings.Join(missing, ", "), strings.Join(have, ", "))
		}
	}
	ac := p.Complex
	series := map[int][]float64{}
	phase := map[int][]float64{}
	for _, v := range chosen {
		vr := VectorResult{Name: p.Vars[v].Name, Type: p.Vars[v].Type, Unit: units[p.Vars[v].Type]}
		if ac {
			db := make([]float64, p.Points)
			ph := make([]float64, p.Points)
			for i := range db {
				re, im := p.Real[v][i], p.Imag[v][i]
				db[i] = 20 * math.Log10(math.Hypot(re, im))
				ph[i] = math.Atan2(im, re) * 180 / math.Pi
			}
			series[v], phase[v] = db, ph
			vr.Unit = "dB"
			vr.MagnitudeDB, vr.PhaseDeg = stats(db), stats(ph)
		} else {
			s := p.Real[v]
			series[v] = s
			st := stats(s)
			vr.Final, vr.Min, vr.Max = numPtr(float64(st.Final)), numPtr(float64(st.Min)), numPtr(float64(st.Max))
		}
		out.Vectors = append(out.Vectors, vr)
	}
	if !hasScale {
		return nil
	}
	var all [][]float64
	for _, v := range chosen {
		all = append(all, series[v])
		if ac {
			all = append(all, phase[v])
		}
	}
	idx := Decimate(p.Points, j.maxPoints, all)
	w := &Waveform{ScaleName: out.Scale, Vectors: map[string][]Num{}, Decimated: len(idx) < p.Points}
	for _, i := range idx {
		w.Scale = append(w.Scale, Num(p.Real[0][i]))
	}
	for _, v := range chosen {
		w.Vectors[p.Vars[v].Name] = pick(series[v], idx)
		if ac {
			if w.PhaseDeg == nil {
				w.PhaseDeg = map[string][]Num{}
			}
			w.PhaseDeg[p.Vars[v].Name] = pick(phase[v], idx)
		}
	}
	out.Waveform = w
	return nil
}

func pick(s []float64, idx []int) []Num {
	out := make([]Num, len(idx))
	for k, i := range idx {
		out[k] = Num(s[i])
	}
	return out
}

func stats(s []float64) *Stats {
	st := &Stats{Final: Num(s[len(s)-1]), Min: Num(math.Inf(1)), Max: Num(math.Inf(-1))}
	for _, x := range s {
		if math.IsNaN(x) {
			continue
		}
		st.Min = Num(math.Min(float64(st.Min), x))
		st.Max = Num(math.Max(float64(st.Max), x))
	}
	return st
}

func containsInt(l []int, x int) bool {
	for _, y := range l {
		if y == x {
			return true
		}
	}
	return false
}
