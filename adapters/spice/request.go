package spice

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// Analysis types.
const (
	AnalysisOP        = "op"
	AnalysisDC        = "dc"
	AnalysisAC        = "ac"
	AnalysisTransient = "transient"
)

// Limits of one call.
const (
	DefaultMaxPoints = 500
	MaxMaxPoints     = 10000
	maxNetlistBytes  = 4 << 20
)

// Request is the input of spice.run_simulation.
type Request struct {
	Netlist      *string  `json:"netlist,omitempty" jsonschema:"SPICE netlist text. Line 1 is the title. .control ... .endc blocks are refused. Give this or netlist_path, not both."`
	NetlistPath  *string  `json:"netlist_path,omitempty" jsonschema:"Path of a netlist file to read (must be inside the server's allowed roots, if set). Give this or netlist, not both."`
	AnalysisType string   `json:"analysis_type,omitempty" jsonschema:"The analysis to run; the tool writes its card from params. Leave out only when the netlist carries exactly one .op, .dc, .ac or .tran card of its own."`
	Params       *Params  `json:"params,omitempty" jsonschema:"Figures of the analysis card, SI units. dc: source, start, stop, step (V or A). ac: variation (dec, oct, lin), points (per decade/octave, or total for lin), fstart, fstop (Hz). transient: tstep, tstop, optional tstart (s). op: none."`
	Vectors      []string `json:"vectors,omitempty" jsonschema:"Vectors to report, e.g. [\"v(out)\", \"i(v1)\"]; a bare node name means its voltage. Default: all."`
	MaxPoints    *int     `json:"max_points,omitempty" jsonschema:"Most waveform points returned; the waveform is min-max decimated so each vector keeps its extremes."`
}

// Params are the figures of the analysis card, in SI units (volts or amps,
// hertz, seconds). Which are allowed depends on the analysis type. Each
// figure but points is a JSON number or a string in SPICE's notation
// ("10k", "1.6n", "5ms"), read as ngspice reads a number on a card (see
// parseSpiceNumber); points is a count, a JSON integer only.
type Params struct {
	Source    *string         `json:"source,omitempty" jsonschema:"dc: name of the swept source, e.g. V1."`
	Start     json.RawMessage `json:"start,omitempty" jsonschema:"dc: first value (V or A)."`
	Stop      json.RawMessage `json:"stop,omitempty" jsonschema:"dc: last value (V or A)."`
	Step      json.RawMessage `json:"step,omitempty" jsonschema:"dc: increment (not 0)."`
	Variation *string         `json:"variation,omitempty" jsonschema:"ac: sweep spacing."`
	Points    *int            `json:"points,omitempty" jsonschema:"ac: points per decade or octave, or in total for lin; a JSON integer (no SPICE suffix)."`
	FStart    json.RawMessage `json:"fstart,omitempty" jsonschema:"ac: start frequency, Hz."`
	FStop     json.RawMessage `json:"fstop,omitempty" jsonschema:"ac: stop frequency, Hz."`
	TStep     json.RawMessage `json:"tstep,omitempty" jsonschema:"transient: print step, s."`
	TStop     json.RawMessage `json:"tstop,omitempty" jsonschema:"transient: end time, s."`
	TStart    json.RawMessage `json:"tstart,omitempty" jsonschema:"transient: time from which results are kept, s (default 0)."`
}

// figures are the params a SPICE number string may give, in card order.
var figures = []string{"start", "stop", "step", "fstart", "fstop", "tstep", "tstop", "tstart"}

// raw is the figure params.<name> as given, nil when left out.
func (p *Params) raw(name string) json.RawMessage {
	return map[string]json.RawMessage{
		"start": p.Start, "stop": p.Stop, "step": p.Step, "fstart": p.FStart, "fstop": p.FStop,
		"tstep": p.TStep, "tstop": p.TStop, "tstart": p.TStart,
	}[name]
}

// job is a validated request: the deck to run and how to report it.
type job struct {
	deck      string
	analysis  string
	card      string
	vectors   []string
	maxPoints int
}

// decodeRequest decodes the arguments strictly: an unknown field is a
// typo the caller should hear about, named with the ones there are.
func decodeRequest(args json.RawMessage) (Request, error) {
	var req Request
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return Request{}, err
	}
	return req, nil
}

var sourceName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.]*$`)

// num writes a figure for a SPICE card.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// analysisCard builds the one analysis card from analysis_type and params,
// refusing params that do not belong to the type.
func analysisCard(typ string, p *Params) (string, error) {
	if p == nil {
		p = &Params{}
	}
	allowed := map[string][]string{
		AnalysisOP:        {},
		AnalysisDC:        {"source", "start", "stop", "step"},
		AnalysisAC:        {"variation", "points", "fstart", "fstop"},
		AnalysisTransient: {"tstep", "tstop", "tstart"},
	}
	names, ok := allowed[typ]
	if !ok {
		return "", protocol.Invalid("analysis_type %q is not one of op, dc, ac, transient", typ)
	}
	given := map[string]bool{
		"source": p.Source != nil, "variation": p.Variation != nil, "points": p.Points != nil,
	}
	for _, k := range figures {
		given[k] = p.raw(k) != nil
	}
	for _, k := range []string{"source", "start", "stop", "step", "variation", "points", "fstart", "fstop", "tstep", "tstop", "tstart"} {
		if given[k] && !contains(names, k) {
			return "", protocol.Invalid("params.%s does not apply to a %s analysis (it takes: %s)", k, typ, listOrNone(names))
		}
	}
	for _, k := range names {
		if !given[k] && k != "tstart" {
			return "", protocol.Invalid("params.%s is required for a %s analysis (it takes: %s)", k, typ, strings.Join(names, ", "))
		}
	}
	v := map[string]float64{}
	for _, k := range figures {
		if given[k] {
			f, err := figure(k, p.raw(k))
			if err != nil {
				return "", err
			}
			v[k] = f
		}
	}
	switch typ {
	case AnalysisOP:
		return ".op", nil
	case AnalysisDC:
		if !sourceName.MatchString(*p.Source) {
			return "", protocol.Invalid("params.source %q is not a source name such as V1", *p.Source)
		}
		if v["step"] == 0 {
			return "", protocol.Invalid("params.step must not be 0")
		}
		if (v["stop"]-v["start"])/v["step"] < 0 {
			return "", protocol.Invalid("params.step %s goes away from stop %s%s", num(v["step"]), num(v["stop"]), megaHint(p, "start", "stop", "step"))
		}
		return ".dc " + *p.Source + " " + num(v["start"]) + " " + num(v["stop"]) + " " + num(v["step"]), nil
	case AnalysisAC:
		variation := *p.Variation
		if variation != "dec" && variation != "oct" && variation != "lin" {
			return "", protocol.Invalid("params.variation %q is not one of dec, oct, lin", variation)
		}
		if *p.Points < 1 {
			return "", protocol.Invalid("params.points must be at least 1")
		}
		if v["fstart"] <= 0 || v["fstop"] < v["fstart"] {
			return "", protocol.Invalid("params.fstart must be > 0 and params.fstop >= fstart (got %s, %s)%s", num(v["fstart"]), num(v["fstop"]), megaHint(p, "fstart", "fstop"))
		}
		return ".ac " + variation + " " + strconv.Itoa(*p.Points) + " " + num(v["fstart"]) + " " + num(v["fstop"]), nil
	default: // transient
		if v["tstep"] <= 0 || v["tstop"] <= 0 {
			return "", protocol.Invalid("params.tstep and params.tstop must be > 0")
		}
		card := ".tran " + num(v["tstep"]) + " " + num(v["tstop"])
		if given["tstart"] {
			if v["tstart"] < 0 || v["tstart"] >= v["tstop"] {
				return "", protocol.Invalid("params.tstart must be >= 0 and < tstop (got %s, %s)%s", num(v["tstart"]), num(v["tstop"]), megaHint(p, "tstart", "tstop"))
			}
			card += " " + num(v["tstart"])
		}
		return card, nil
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "no params"
	}
	return strings.Join(l, ", ")
}

// cardTypes maps a netlist's own analysis card to an analysis type. Other
// analyses (.noise, .tf, .pz, .sens, .disto, .pss, .sp) are refused: the
// tool reports only these four.
var cardTypes = map[string]string{".op": AnalysisOP, ".dc": AnalysisDC, ".ac": AnalysisAC, ".tran": AnalysisTransient}

var otherAnalyses = map[string]bool{".noise": true, ".tf": true, ".pz": true, ".sens": true, ".disto": true, ".pss": true, ".sp": true}

// prepare validates a request and builds the deck. It runs nothing.
func (a *Adapter) prepare(req Request) (job, error) {
	var j job
	if (req.Netlist == nil) == (req.NetlistPath == nil) {
		return j, protocol.Invalid("give exactly one of netlist (the netlist text) or netlist_path (a file to read)")
	}
	var text, base string
	if req.Netlist != nil {
		text = *req.Netlist
	} else {
		t, real, err := a.readNetlist(*req.NetlistPath)
		if err != nil {
			return j, err
		}
		text, base = t, filepath.Dir(real)
	}
	inc := &includes{a: a, seen: map[string]bool{}}
	if len(text) > maxNetlistBytes {
		return j, protocol.Invalid("netlist is %d bytes, more than the %d allowed", len(text), maxNetlistBytes)
	}
	if strings.TrimSpace(text) == "" {
		return j, protocol.Invalid("netlist is empty")
	}
	if strings.ContainsRune(text, 0) {
		return j, protocol.Invalid("netlist holds a NUL byte: it is not a text netlist")
	}
	j.maxPoints = DefaultMaxPoints
	if req.MaxPoints != nil {
		if *req.MaxPoints < 1 || *req.MaxPoints > MaxMaxPoints {
			return j, protocol.Invalid("max_points %d is outside 1..%d", *req.MaxPoints, MaxMaxPoints)
		}
		j.maxPoints = *req.MaxPoints
	}
	for _, v := range req.Vectors {
		if strings.TrimSpace(v) == "" {
			return j, protocol.Invalid("vectors holds an empty name")
		}
	}
	j.vectors = req.Vectors

	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if err := inc.cards(lines, source{name: "netlist", dir: base}); err != nil {
		return j, err
	}
	var body []string
	var cards []string // the netlist's own analysis cards, as written
	cardType := ""
	// Line 1 of a SPICE deck is its title, whatever it says.
	for i, line := range lines {
		if i == 0 {
			body = append(body, line)
			continue
		}
		t := strings.ToLower(strings.TrimSpace(line))
		word := t
		if f := strings.Fields(t); len(f) > 0 {
			word = f[0]
		}
		switch {
		case word == ".end":
			continue // the deck's end is written after the analysis card
		case cardTypes[word] != "":
			cards = append(cards, strings.TrimSpace(line))
			cardType = cardTypes[word]
		case otherAnalyses[word]:
			return j, protocol.Invalid("netlist line %d: %s analysis is not supported; this tool runs op, dc, ac or transient", i+1, word)
		}
		body = append(body, line)
	}
	if req.AnalysisType == "" {
		if req.Params != nil {
			return j, protocol.Invalid("params given without analysis_type")
		}
		switch len(cards) {
		case 0:
			return j, protocol.Invalid("the netlist has no analysis card (.op, .dc, .ac, .tran): give analysis_type and params")
		case 1:
			j.analysis, j.card = cardType, cards[0]
		default:
			return j, protocol.Invalid("the netlist has %d analysis cards (%s): keep one, or remove them and give analysis_type and params", len(cards), strings.Join(cards, "; "))
		}
	} else {
		if len(cards) > 0 {
			return j, protocol.Invalid("analysis_type %s was given but the netlist has its own analysis card(s) (%s): remove them or leave out analysis_type", req.AnalysisType, strings.Join(cards, "; "))
		}
		card, err := analysisCard(req.AnalysisType, req.Params)
		if err != nil {
			return j, err
		}
		j.analysis, j.card = req.AnalysisType, card
		body = append(body, card)
	}
	body = append(body, ".end", "")
	j.deck = strings.Join(body, "\n")
	return j, nil
}

// readNetlist reads netlist_path, which must be a readable regular file
// inside the allowed roots (see readConfined).
func (a *Adapter) readNetlist(path string) (string, string, error) {
	return a.readConfined("netlist_path", path)
}

// readConfined reads a file named by what (netlist_path, an .include): it
// must exist, be a regular file of at most maxNetlistBytes, and lie inside
// the read roots of Files, else AllowedRoots when those are set. It returns
// the text and the resolved path.
func (a *Adapter) readConfined(what, path string) (string, string, error) {
	real, err := a.resolve(what, path)
	if err != nil {
		return "", "", err
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", "", protocol.Invalid("%s %q: %v", what, path, err)
	}
	if st.Size() > maxNetlistBytes {
		return "", "", protocol.Invalid("%s %q is %d bytes, more than the %d allowed", what, path, st.Size(), maxNetlistBytes)
	}
	b, err := os.ReadFile(real)
	if err != nil {
		return "", "", protocol.Invalid("%s %q cannot be read: %v", what, path, err)
	}
	return string(b), real, nil
}

// roots are the folders the deck may read from; nil when unconfined.
func (a *Adapter) roots() []string {
	switch {
	case a.Files != nil:
		return a.Files.Roots()
	case len(a.AllowedRoots) > 0:
		return a.AllowedRoots
	}
	return nil
}

// resolve checks a file the deck reads the same way every adapter does.
// With neither Files nor AllowedRoots (a standalone adapter started
// without --allowed-root) any existing regular file will do.
func (a *Adapter) resolve(what, path string) (string, error) {
	switch {
	case a.Files != nil:
		return a.Files.ResolveRead(what, path)
	case len(a.AllowedRoots) > 0:
		return (&workspace.Workspace{Extra: a.AllowedRoots}).ResolveRead(what, path)
	}
	if strings.TrimSpace(path) == "" {
		return "", protocol.Invalid("%s is empty", what)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", protocol.Invalid("%s %q: %v", what, path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", protocol.Invalid("%s %q does not exist", what, path)
		}
		return "", protocol.Invalid("%s %q cannot be resolved: %v", what, path, err)
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return "", protocol.Invalid("%s %q is not a regular file", what, path)
	}
	return real, nil
}
