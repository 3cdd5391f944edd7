package kicad

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// ToolAutoRoute routes a board with Freerouting.
const ToolAutoRoute = "kicad.auto_route"

// routeScript exports the board to Specctra DSN and merges the routed
// session back into a copy of it, in pcbnew.
//
//go:embed route.py
var routeScript string

// The routing time: max_seconds' default and bounds, and the time a call
// keeps around Freerouting's own.
const (
	defaultRouteSeconds = 300
	maxRouteSeconds     = 3600
	// startupAllowance covers the JVM's start, reading the DSN and, after
	// Freerouting's own timeout stops the router, writing the session.
	startupAllowance = 20 * time.Second
	// afterRouteReserve is kept for the merge and the DRC once Freerouting
	// is done, out of a call whose deadline would otherwise cut them off.
	afterRouteReserve = 60 * time.Second
)

// RouteRequest is the input of kicad.auto_route.
type RouteRequest struct {
	BoardFile  string `json:"board_file"`
	OutputPath string `json:"output_path,omitempty" jsonschema:"File name of the routed board, written in the call's own folder (a .kicad_pcb name, no folders). Default: <board>-routed.kicad_pcb."`
	MaxSeconds int    `json:"max_seconds,omitempty" jsonschema:"Most seconds Freerouting may route (default 300); the call's own timeout lowers it, keeping time for the merge and the DRC. A route stopped by it returns what was routed by then (stopped_early)."`
	MaxPasses  int    `json:"max_passes,omitempty" jsonschema:"Most autorouter passes (Freerouting's -mp; default: until it stops improving)."`
	Optimize   bool   `json:"optimize,omitempty" jsonschema:"Run Freerouting's route optimizer after routing (shorter tracks, fewer vias), within the same max_seconds. Default false."`
}

// RouteResult is what kicad.auto_route returns.
type RouteResult struct {
	// BoardFile is the routed board in the call's folder; SourceBoard the
	// board it was made from, which is left as it was.
	BoardFile   string `json:"board_file"`
	SourceBoard string `json:"source_board"`
	DSNFile     string `json:"dsn_file"`
	// SESFile is Freerouting's session; "" when it wrote none (stopped
	// from outside before it could).
	SESFile     string `json:"ses_file"`
	TracksAdded int    `json:"tracks_added"`
	ViasAdded   int    `json:"vias_added"`
	// LockedKept counts the source's locked tracks and vias, which the
	// DSN marks fixed, the session leaves out and the board keeps.
	LockedKept int `json:"locked_kept"`
	// CopperKeepouts counts the text and graphics on copper layers that
	// the DSN was given as keepouts (KiCad's export leaves them out).
	CopperKeepouts int              `json:"copper_keepouts"`
	Connections    RouteConnections `json:"connections"`
	// Reported is what Freerouting's log says, for comparison.
	Reported     FreeroutingReport `json:"freerouting_reported"`
	StoppedEarly bool              `json:"stopped_early"`
	StopReason   string            `json:"stop_reason,omitempty"`
	// MaxSeconds is the routing time Freerouting was given.
	MaxSeconds int      `json:"max_seconds"`
	DRC        RouteDRC `json:"drc"`
	// ViasWithDefaultDrill counts vias whose padstack name did not give
	// the drill, drilled with the board's default via drill instead.
	ViasWithDefaultDrill int     `json:"vias_with_default_drill"`
	RoutingS             float64 `json:"routing_s"`
	ElapsedS             float64 `json:"elapsed_s"`
	// Warnings say where the result deserves a look: Freerouting's claims
	// and the board's connectivity disagreeing, errors it logged.
	Warnings []string `json:"warnings"`
}

// RouteConnections are the board's own connectivity (pcbnew's ratsnest).
type RouteConnections struct {
	// Total is every connection the board's nets need: what is unconnected
	// with no copper at all.
	Total int `json:"total"`
	// Routed is Total - Unrouted; Unrouted what is still unconnected after
	// the merge (zones refilled).
	Routed   int `json:"routed"`
	Unrouted int `json:"unrouted"`
	// UnroutedBefore is what was unconnected on the source board.
	UnroutedBefore int `json:"unrouted_before"`
}

// RouteDRC is KiCad's DRC of the routed board, in short.
type RouteDRC struct {
	ReportFile   string `json:"report_file"`
	Passed       bool   `json:"passed"`
	ErrorCount   int    `json:"error_count"`
	WarningCount int    `json:"warning_count"`
	// UnconnectedCount is the DRC's unconnected_items count.
	UnconnectedCount int `json:"unconnected_count"`
	// CopperClearanceErrors are the error-severity clearance violations
	// (clearance, hole_clearance, copper_edge_clearance, tracks_crossing,
	// shorting_items) that name a track or a via: the routed copper's.
	CopperClearanceErrors []Violation `json:"copper_clearance_errors"`
}

// copperClearanceRules are DRC checks a badly placed track or via breaks.
var copperClearanceRules = map[string]bool{
	"clearance": true, "hole_clearance": true, "copper_edge_clearance": true,
	"tracks_crossing": true, "shorting_items": true,
}

// exported is route.py export's answer.
type exported struct {
	DSNFile          string   `json:"dsn_file"`
	ConnectionsTotal int      `json:"connections_total"`
	UnroutedBefore   int      `json:"unrouted_before"`
	LockedTracks     int      `json:"locked_tracks"`
	CopperKeepouts   int      `json:"copper_keepouts"`
	CopperLayers     []string `json:"copper_layers"`
}

// merged is route.py merge's answer.
type merged struct {
	RoutedBoard          string   `json:"routed_board"`
	TracksAdded          int      `json:"tracks_added"`
	ViasAdded            int      `json:"vias_added"`
	LockedKept           int      `json:"locked_kept"`
	Unrouted             int      `json:"unrouted"`
	ViasWithDefaultDrill int      `json:"vias_with_default_drill"`
	UnknownLayers        []string `json:"unknown_layers"`
	UnknownNets          []string `json:"unknown_nets"`
	CopperLayers         []string `json:"copper_layers"`
}

// copperFile is what merge reads: the session's copper, and whether it
// replaces the board's unlocked tracks (false when there is no session).
type copperFile struct {
	session
	Replace bool `json:"replace"`
}

func (a *Adapter) autoRoute(ctx context.Context, args json.RawMessage) (res *RouteResult, err error) {
	start := time.Now()
	var req RouteRequest
	if err := adapters.DecodeArguments(args, &req); err != nil {
		return nil, err
	}
	if err := req.check(); err != nil {
		return nil, err
	}
	board, err := a.resolveDesign("board_file", req.BoardFile, boardKind)
	if err != nil {
		return nil, err
	}
	fr, err := locateFreerouting()
	if err != nil {
		return nil, err
	}
	dir, err := a.callDir(ctx)
	if err != nil {
		return nil, err
	}
	name := req.OutputPath
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(board), filepath.Ext(board)) + "-routed.kicad_pcb"
	}
	routed, err := a.ws.ResolveWrite(dir, "output_path", name)
	if err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	if filepath.Clean(routed) == filepath.Clean(board) {
		_ = os.Remove(dir)
		return nil, protocol.Invalid("output_path %q would overwrite board_file; give another name", req.OutputPath)
	}
	// What the call writes, removed if it fails: a failed call leaves no files.
	stem := strings.TrimSuffix(routed, filepath.Ext(routed))
	base := safeName.ReplaceAllString(filepath.Base(stem), "_")
	dsn, ses := base+".dsn", base+".ses"
	copper := filepath.Join(dir, "."+base+"-copper.json")
	written := []string{routed, stem + ".kicad_pro", stem + ".kicad_prl", stem + ".kicad_dru", stem + "-drc.rpt",
		filepath.Join(dir, dsn), filepath.Join(dir, ses), copper}
	defer func() {
		_ = os.Remove(copper)
		if err != nil {
			for _, f := range written {
				_ = os.Remove(f)
			}
			_ = os.Remove(dir) // only if nothing else is in it
		}
	}()

	var ex exported
	if err := a.runPcbnew(ctx, routeScript, "export", board, dir, &ex, filepath.Join(dir, dsn)); err != nil {
		return nil, err
	}
	budget, err := routeBudget(ctx, req.MaxSeconds)
	if err != nil {
		return nil, err
	}
	run := routeRun{dir: dir, dsn: dsn, ses: ses, jobSeconds: budget, maxPasses: req.MaxPasses, optimize: req.Optimize}
	outcome, err := a.route(ctx, fr, run, time.Duration(budget)*time.Second+startupAllowance)
	if err != nil {
		return nil, err
	}
	res = &RouteResult{SourceBoard: board, DSNFile: filepath.Join(dir, dsn), MaxSeconds: budget,
		Reported: outcome.report, RoutingS: round3(outcome.elapsed.Seconds())}
	cf := copperFile{session: session{Tracks: []sesTrack{}, Vias: []sesVia{}}}
	switch {
	case outcome.killed:
		// Freerouting writes its session only at its end: a run killed
		// before then leaves none, or a partial one that is not read.
		_ = os.Remove(filepath.Join(dir, ses))
		res.StoppedEarly = true
		res.StopReason = "Freerouting did not stop by itself within its time and was killed before writing a session: nothing was routed; give it more time (max_seconds, the call's timeout)"
		if ex.LockedTracks > 0 {
			res.StopReason += "; the board's " + strconv.Itoa(ex.LockedTracks) + " locked tracks and vias went to Freerouting as fixed wiring, " +
				"on which Freerouting " + FreeroutingVersion + " can fail without ending: unlock them to have them routed anew"
		}
	default:
		text, err := os.ReadFile(filepath.Join(dir, ses))
		if err != nil {
			return nil, protocol.Transient("Freerouting's session %s cannot be read: %v", ses, err)
		}
		s, err := parseSession(string(text))
		if err != nil {
			return nil, protocol.Refusal("Freerouting's session %s could not be read: %v", ses, err)
		}
		cf.session, cf.Replace = *s, true
		res.SESFile = filepath.Join(dir, ses)
		if c := outcome.report.Completion; c != "" && c != "completed" {
			res.StoppedEarly = true
			res.StopReason = "Freerouting's run " + c + " after " + strconv.Itoa(budget) + " s (max_seconds, or what the call's timeout left): the board has what it had routed by then"
		}
	}
	body, err := json.Marshal(cf)
	if err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the session's copper cannot be encoded: " + err.Error()}
	}
	if err := os.WriteFile(copper, body, 0o644); err != nil {
		return nil, protocol.Transient("cannot write %s: %v", copper, err)
	}
	var m merged
	if err := a.runPcbnew(ctx, routeScript, "merge", board, dir, &m, copper, routed); err != nil {
		return nil, err
	}
	// The routed board's DRC must apply the source's rules: its project
	// (netclasses, severities) and custom rules. pcbnew's SaveBoard writes
	// the project only when it could lock the source's, which a read-only
	// folder (the sandbox's workspace) prevents, so both are copied.
	for _, ext := range []string{".kicad_pro", ".kicad_dru"} {
		if err := copyCompanion(board, stem, ext); err != nil {
			return nil, err
		}
	}
	if len(m.UnknownLayers) > 0 || len(m.UnknownNets) > 0 {
		return nil, protocol.Refusal("Freerouting's session names what %s does not have (layers: %s; nets: %s; its copper layers are %s); "+
			"the board was probably changed while it was being routed: route it again", board, orNone(m.UnknownLayers), orNone(m.UnknownNets), strings.Join(m.CopperLayers, ", "))
	}
	drc, err := a.checkBoard(ctx, routed, dir)
	if err != nil {
		return nil, err
	}
	res.BoardFile = routed
	res.TracksAdded, res.ViasAdded, res.LockedKept, res.ViasWithDefaultDrill = m.TracksAdded, m.ViasAdded, m.LockedKept, m.ViasWithDefaultDrill
	res.CopperKeepouts = ex.CopperKeepouts
	res.Connections = RouteConnections{Total: ex.ConnectionsTotal, Unrouted: m.Unrouted, Routed: ex.ConnectionsTotal - m.Unrouted, UnroutedBefore: ex.UnroutedBefore}
	res.DRC = summarizeDRC(drc)
	res.Warnings = routeWarnings(res, ex.LockedTracks)
	res.ElapsedS = round3(time.Since(start).Seconds())
	return res, nil
}

// routeWarnings points at what a caller should not take on trust.
func routeWarnings(r *RouteResult, locked int) []string {
	w := []string{}
	if rep := r.Reported; rep.HasSummary && rep.FinalUnrouted != r.Connections.Unrouted {
		w = append(w, fmt.Sprintf("Freerouting claims %d connections unrouted, the routed board's connectivity has %d: connections is the board's own count", rep.FinalUnrouted, r.Connections.Unrouted))
	}
	if len(r.Reported.Errors) > 0 {
		msg := "Freerouting logged errors (freerouting_reported.errors); check the routed board"
		if locked > 0 {
			msg += fmt.Sprintf(": the board's %d locked tracks and vias went to it as fixed wiring, which Freerouting %s handles badly; unlock them to have them routed anew", locked, FreeroutingVersion)
		}
		w = append(w, msg)
	}
	if r.ViasWithDefaultDrill > 0 {
		w = append(w, fmt.Sprintf("%d vias' padstacks did not name a drill; they have the board's default via drill", r.ViasWithDefaultDrill))
	}
	return w
}

// check refuses arguments the schema also refuses, for a direct call.
func (r RouteRequest) check() error {
	if r.MaxSeconds < 0 || r.MaxSeconds > maxRouteSeconds {
		return protocol.Invalid("max_seconds %d is out of range: give 1 to %d seconds, or leave it out for %d", r.MaxSeconds, maxRouteSeconds, defaultRouteSeconds)
	}
	if r.MaxPasses < 0 || r.MaxPasses > 9999 {
		return protocol.Invalid("max_passes %d is out of range: give 1 to 9999, or leave it out", r.MaxPasses)
	}
	if r.OutputPath != "" {
		if filepath.Base(r.OutputPath) != r.OutputPath || r.OutputPath == "." || r.OutputPath == ".." {
			return protocol.Invalid("output_path %q must be a file name, without folders: the routed board is written in the call's own folder", r.OutputPath)
		}
		if !strings.EqualFold(filepath.Ext(r.OutputPath), boardKind.ext) {
			return protocol.Invalid("output_path %q must end in %s", r.OutputPath, boardKind.ext)
		}
	}
	return nil
}

// routeBudget is Freerouting's routing time in seconds: max_seconds (or
// the default), lowered to what the call's deadline leaves after the
// JVM's start and the merge and DRC to follow. Too little left is
// TOOL_TIMEOUT, saying how much more the call needs.
func routeBudget(ctx context.Context, maxSeconds int) (int, error) {
	budget := maxSeconds
	if budget == 0 {
		budget = defaultRouteSeconds
	}
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl) - startupAllowance - afterRouteReserve
		if s := int(left / time.Second); s < budget {
			budget = s
		}
	}
	if budget < 1 {
		need := startupAllowance + afterRouteReserve + time.Second
		return 0, &protocol.Error{Code: protocol.ToolTimeout, Details: "the call's timeout leaves too little time to route after exporting the board; " +
			"allow the call at least " + strconv.Itoa(int(need/time.Second)) + " s more than exporting takes (a timeout of 120 s or more)"}
	}
	return budget, nil
}

// summarizeDRC keeps the DRC's counts and the clearance errors of copper
// the route placed.
func summarizeDRC(d *DRCResult) RouteDRC {
	s := RouteDRC{ReportFile: d.ReportFile, Passed: d.Passed, ErrorCount: d.ErrorCount, WarningCount: d.WarningCount,
		UnconnectedCount: d.Unconnected.Count, CopperClearanceErrors: []Violation{}}
	for _, v := range d.Violations {
		if v.Severity != "error" || !copperClearanceRules[v.Rule] {
			continue
		}
		for _, it := range v.Items {
			if strings.HasPrefix(it.Description, "Track ") || strings.HasPrefix(it.Description, "Via ") {
				s.CopperClearanceErrors = append(s.CopperClearanceErrors, v)
				break
			}
		}
	}
	return s
}

// copyCompanion copies the source board's <stem><ext> (screened with the
// board) to routedStem<ext>, if there is one; a project file's own name
// in it (meta.filename) becomes the routed one's.
func copyCompanion(board, routedStem, ext string) error {
	srcStem := strings.TrimSuffix(board, filepath.Ext(board))
	src, dest := srcStem+ext, routedStem+ext
	text, err := os.ReadFile(src)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return protocol.Invalid("%s beside the board cannot be read: %v", filepath.Base(src), err)
	}
	if ext == ".kicad_pro" {
		text = []byte(strings.Replace(string(text), `"filename": "`+filepath.Base(src)+`"`, `"filename": "`+filepath.Base(dest)+`"`, 1))
	}
	if err := os.WriteFile(dest, text, 0o644); err != nil {
		return protocol.Transient("cannot write %s: %v", dest, err)
	}
	return nil
}

// callDir is the call's own folder, absolute: results name absolute paths.
func (a *Adapter) callDir(ctx context.Context) (string, error) {
	dir, err := a.ws.ForCall(ctx)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", protocol.Transient("the call's folder has no absolute path: %v", err)
	}
	return abs, nil
}

// files are the call's output_files: the paths the result names, and the
// routed board's project (its rules) and custom rules when written.
func (r *RouteResult) files() []string {
	out := []string{r.BoardFile, r.DSNFile}
	if r.SESFile != "" {
		out = append(out, r.SESFile)
	}
	out = append(out, r.DRC.ReportFile)
	stem := strings.TrimSuffix(r.BoardFile, filepath.Ext(r.BoardFile))
	for _, p := range []string{stem + ".kicad_pro", stem + ".kicad_dru"} {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// safeName keeps the file names Freerouting is given to what its -de
// argument does not split.
var safeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
