package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/metaforge/metaforge/adapters/spice"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/workflows"
)

// Waveforms serves a SPICE call's waveforms to the /circuits page: GET
// /v1/results/{callId}/waveform (the vectors of one spice.run_simulation
// call, decimated to what a screen shows) and GET /v1/results/waveforms
// (the recent completed calls to pick from). A call's result lives in
// its ToolCall workflow, call-<callId>, in Temporal, and is read from
// there; nothing is copied or stored.
type Waveforms struct {
	Runs *Service
}

// Register adds the routes to mux.
func (h Waveforms) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/results/{callId}/waveform", h.waveform)
	mux.HandleFunc("GET /v1/results/waveforms", h.list)
}

// Pages is none: /circuits is the dashboard's.
func (h Waveforms) Pages() []string { return nil }

// Waveform points: a screen is at most a few thousand pixels wide, and a
// plot keeps each bucket's minimum and maximum, so 1000 by default shows
// every peak; the tool itself keeps at most spice.MaxMaxPoints.
const (
	waveformDefaultPoints = 1000
	waveformMinPoints     = 16
)

var waveformParams = []string{"points"}

// waveformCallID is a call id as the server makes them (16 hex digits) or
// as a REST write names its own (rest-<hex>).
var waveformCallID = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)

// WaveformTrace is one plotted series: a vector's values (transient, DC),
// or an AC vector's magnitude in dB or phase in degrees.
type WaveformTrace struct {
	Name   string        `json:"name"`
	Vector string        `json:"vector"`
	Kind   string        `json:"kind"` // value, magnitude or phase
	Unit   string        `json:"unit,omitempty"`
	Values []*float64    `json:"values"`
	Stats  *WaveformStat `json:"stats,omitempty"`
}

// WaveformStat is a trace's extremes over the returned points.
type WaveformStat struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// WaveformScale is the x axis: time, frequency or the swept source.
type WaveformScale struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit,omitempty"`
	Log    bool      `json:"log"`
	Values []float64 `json:"values"`
}

// WaveformView is what GET /v1/results/{callId}/waveform answers.
type WaveformView struct {
	CallID   string          `json:"call_id"`
	ToolID   string          `json:"tool_id"`
	Analysis string          `json:"analysis"`
	Card     string          `json:"analysis_card"`
	Plotname string          `json:"plotname,omitempty"`
	Scale    WaveformScale   `json:"scale"`
	Traces   []WaveformTrace `json:"traces"`
	// SimulatedPoints is how many points ngspice computed, StoredPoints
	// how many the call's result kept (its max_points), Points how many
	// are returned here.
	SimulatedPoints int        `json:"simulated_points"`
	StoredPoints    int        `json:"stored_points"`
	Points          int        `json:"points"`
	Decimation      string     `json:"decimation"`
	Converged       bool       `json:"converged"`
	Log             []string   `json:"log,omitempty"`
	ClosedAt        *time.Time `json:"closed_at,omitempty"`
}

func (h Waveforms) waveform(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for k := range q {
		if !slices.Contains(waveformParams, k) {
			httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("unknown parameter %s: pass only points=N (%d to %d, default %d), "+
				"the most points per trace to return", k, waveformMinPoints, spice.MaxMaxPoints, waveformDefaultPoints))
			return
		}
	}
	points := waveformDefaultPoints
	if s := q.Get("points"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < waveformMinPoints || n > spice.MaxMaxPoints {
			httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("points %q: pass a whole number from %d to %d (about the plot's width in pixels)",
				s, waveformMinPoints, spice.MaxMaxPoints))
			return
		}
		points = n
	}
	callID := r.PathValue("callId")
	if !waveformCallID.MatchString(callID) {
		httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("%q is not a call id: pass the callId a spice.run_simulation call returned in _meta", callID))
		return
	}
	res, closed, status, err := h.callResult(r.Context(), callID)
	if err != nil {
		httpjson.Error(w, status, err.Error())
		return
	}
	view, status, err := waveformOf(res, points)
	if err != nil {
		httpjson.Error(w, status, err.Error())
		return
	}
	view.ClosedAt = closed
	httpjson.Write(w, http.StatusOK, view)
}

// results reads ended calls' results (only ever asked of a call seen
// completed, so it never waits).
func (h Waveforms) results() approvals.Queue {
	return approvals.Queue{Client: h.Runs.Client, Namespace: h.Runs.namespace()}
}

// callResult reads the result of workflow call-<callID>, with the HTTP
// status and a sentence saying what to do when there is none yet.
func (h Waveforms) callResult(ctx context.Context, callID string) (workflows.ToolCallResult, *time.Time, int, error) {
	id := workflows.CallWorkflowID(callID)
	d, err := h.Runs.Client.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return workflows.ToolCallResult{}, nil, http.StatusNotFound, fmt.Errorf("no call %s (no workflow %s in Temporal): pass the callId "+
				"of a spice.run_simulation call, from its result's _meta, or pick one at /circuits", callID, id)
		}
		return workflows.ToolCallResult{}, nil, http.StatusServiceUnavailable, fmt.Errorf("read workflow %s: %w", id, err)
	}
	info := d.GetWorkflowExecutionInfo()
	switch info.GetStatus() {
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return workflows.ToolCallResult{}, nil, http.StatusConflict, fmt.Errorf("call %s is still running: its waveform is here once it ends", callID)
	default:
		st := strings.ToLower(strings.TrimPrefix(info.GetStatus().String(), "WORKFLOW_EXECUTION_STATUS_"))
		return workflows.ToolCallResult{}, nil, http.StatusUnprocessableEntity, fmt.Errorf("call %s ended %s, without a result: run the simulation again", callID, st)
	}
	res, err := h.results().Result(ctx, callID)
	if err != nil {
		return workflows.ToolCallResult{}, nil, http.StatusServiceUnavailable, fmt.Errorf("read the result of workflow %s: %w", id, err)
	}
	var closed *time.Time
	if t := info.GetCloseTime(); t != nil {
		c := t.AsTime()
		closed = &c
	}
	return res, closed, http.StatusOK, nil
}

// waveformOf is the view of a spice.run_simulation result, decimated to
// at most points per trace.
func waveformOf(res workflows.ToolCallResult, points int) (WaveformView, int, error) {
	if res.ToolID != spice.ToolRunSimulation {
		return WaveformView{}, http.StatusUnprocessableEntity, fmt.Errorf("call %s is a %s call, not %s: only a SPICE simulation has waveforms "+
			"(an FEA result is shown at /sim?result=%s)", res.CallID, res.ToolID, spice.ToolRunSimulation, res.CallID)
	}
	if res.Status != workflows.StatusSuccess {
		msg := "the call failed"
		if res.Error != nil {
			msg = res.Error.Details
		}
		return WaveformView{}, http.StatusUnprocessableEntity, fmt.Errorf("call %s returned an error, not a waveform: %s", res.CallID, msg)
	}
	var out spice.Output
	if err := json.Unmarshal(res.Data, &out); err != nil {
		return WaveformView{}, http.StatusInternalServerError, fmt.Errorf("call %s's result cannot be read as a SPICE result: %v", res.CallID, err)
	}
	if out.Waveform == nil || len(out.Waveform.Scale) == 0 {
		why := "its analysis (" + out.Analysis + ") has no sweep"
		if !out.Converged {
			why = "the simulation did not converge: " + strings.Join(out.Log, "; ")
		}
		return WaveformView{}, http.StatusUnprocessableEntity, fmt.Errorf("call %s has no waveform: %s; run a transient, AC or DC analysis", res.CallID, why)
	}
	wf := out.Waveform
	n := len(wf.Scale)
	// The series decimation keeps the extremes of: each vector's values
	// (AC: magnitude) and each AC phase.
	names := make([]string, 0, len(wf.Vectors))
	for name := range wf.Vectors {
		names = append(names, name)
	}
	order := map[string]int{}
	for i, v := range out.Vectors {
		order[v.Name] = i
	}
	sort.SliceStable(names, func(i, j int) bool { return order[names[i]] < order[names[j]] })
	units := map[string]string{}
	for _, v := range out.Vectors {
		units[v.Name] = v.Unit
	}
	ac := out.Analysis == spice.AnalysisAC
	type series struct {
		vector, kind, unit string
		values             []float64
	}
	var all []series
	for _, name := range names {
		if ac {
			all = append(all, series{name, "magnitude", "dB", floats(wf.Vectors[name])})
			if ph, ok := wf.PhaseDeg[name]; ok {
				all = append(all, series{name, "phase", "deg", floats(ph)})
			}
			continue
		}
		all = append(all, series{name, "value", units[name], floats(wf.Vectors[name])})
	}
	data := make([][]float64, len(all))
	for i, s := range all {
		data[i] = s.values
	}
	idx := spice.Decimate(n, points, data)
	view := WaveformView{CallID: res.CallID, ToolID: res.ToolID, Analysis: out.Analysis, Card: out.Card, Plotname: out.Plotname,
		SimulatedPoints: out.Points, StoredPoints: n, Points: len(idx), Converged: out.Converged, Log: out.Log, Traces: []WaveformTrace{}}
	view.Scale = WaveformScale{Name: wf.ScaleName, Unit: scaleUnit(wf.ScaleName), Log: ac && logSweep(out.Card), Values: make([]float64, len(idx))}
	scale := floats(wf.Scale)
	for k, i := range idx {
		view.Scale.Values[k] = scale[i]
	}
	for _, s := range all {
		t := WaveformTrace{Name: s.vector, Vector: s.vector, Kind: s.kind, Unit: s.unit, Values: make([]*float64, len(idx))}
		if ac {
			t.Name = s.vector + " " + s.kind
		}
		st := WaveformStat{Min: math.Inf(1), Max: math.Inf(-1)}
		for k, i := range idx {
			v := s.values[i]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			t.Values[k] = &v
			st.Min, st.Max = math.Min(st.Min, v), math.Max(st.Max, v)
		}
		if !math.IsInf(st.Min, 1) {
			t.Stats = &st
		}
		view.Traces = append(view.Traces, t)
	}
	view.Decimation = decimationNote(out.Points, n, len(idx), points, wf.Decimated)
	return view, http.StatusOK, nil
}

// decimationNote says how the points shown were chosen.
func decimationNote(simulated, stored, returned, asked int, toolDecimated bool) string {
	var b strings.Builder
	if toolDecimated {
		fmt.Fprintf(&b, "ngspice computed %d points; the call's result kept %d (its max_points), min-max decimated", simulated, stored)
	} else {
		fmt.Fprintf(&b, "all %d points ngspice computed", stored)
	}
	if returned < stored {
		fmt.Fprintf(&b, "; %d shown: the points cut into buckets, each keeping every trace's minimum and maximum and the first and last "+
			"points (at most points=%d)", returned, asked)
	} else {
		b.WriteString(", all shown")
	}
	return b.String()
}

// logSweep says whether an AC card sweeps by decade or octave (a log
// frequency axis) rather than linearly.
func logSweep(card string) bool {
	f := strings.Fields(strings.ToLower(card))
	return len(f) >= 2 && (f[1] == "dec" || f[1] == "oct")
}

func scaleUnit(name string) string {
	switch strings.ToLower(name) {
	case "time":
		return "s"
	case "frequency":
		return "Hz"
	}
	return ""
}

// floats reads JSON numbers, null as NaN.
func floats(in []spice.Num) []float64 {
	out := make([]float64, len(in))
	for i, v := range in {
		out[i] = float64(v)
	}
	return out
}

// waveformListLimit bounds the calls listed.
const waveformListLimit = 50

// WaveformCall is one completed spice.run_simulation call to pick from.
type WaveformCall struct {
	CallID    string    `json:"call_id"`
	ProjectID string    `json:"project_id,omitempty"`
	ClosedAt  time.Time `json:"closed_at"`
	// Analysis, Card and Vectors are read from the call's result; empty
	// when it cannot be read now.
	Analysis string   `json:"analysis,omitempty"`
	Card     string   `json:"analysis_card,omitempty"`
	Vectors  []string `json:"vectors,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// list answers the newest completed SPICE calls, newest first.
func (h Waveforms) list(w http.ResponseWriter, r *http.Request) {
	for k := range r.URL.Query() {
		httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("unknown parameter %s: GET /v1/results/waveforms takes none", k))
		return
	}
	query := fmt.Sprintf("WorkflowType = 'ToolCall' AND %s = '%s' AND ExecutionStatus = 'Completed'", workflows.AttrTool.GetName(), spice.ToolRunSimulation)
	var calls []WaveformCall
	var token []byte
	for {
		resp, err := h.Runs.Client.ListWorkflow(r.Context(), &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: h.Runs.namespace(), Query: query, NextPageToken: token, PageSize: 500})
		if err != nil {
			httpjson.Error(w, http.StatusServiceUnavailable, fmt.Sprintf("list SPICE calls: %v", err))
			return
		}
		for _, e := range resp.GetExecutions() {
			c := WaveformCall{CallID: strings.TrimPrefix(e.GetExecution().GetWorkflowId(), "call-"), ClosedAt: e.GetCloseTime().AsTime()}
			if p, ok := e.GetSearchAttributes().GetIndexedFields()[workflows.AttrProject.GetName()]; ok {
				_ = json.Unmarshal(p.GetData(), &c.ProjectID)
			}
			calls = append(calls, c)
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].ClosedAt.After(calls[j].ClosedAt) })
	total := len(calls)
	if len(calls) > waveformListLimit {
		calls = calls[:waveformListLimit]
	}
	if calls == nil {
		calls = []WaveformCall{}
	}
	for i := range calls {
		h.describeCall(r.Context(), &calls[i])
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"calls": calls, "count": len(calls), "total": total})
}

// describeCall fills what a listed call simulated from its result.
func (h Waveforms) describeCall(ctx context.Context, c *WaveformCall) {
	res, err := h.results().Result(ctx, c.CallID)
	if err != nil {
		c.Error = "its result cannot be read now: " + err.Error()
		return
	}
	if res.Status != workflows.StatusSuccess {
		c.Error = "the call returned an error"
		if res.Error != nil {
			c.Error += ": " + res.Error.Details
		}
		return
	}
	var out spice.Output
	if err := json.Unmarshal(res.Data, &out); err != nil {
		c.Error = "its result is not a SPICE result"
		return
	}
	c.Analysis, c.Card = out.Analysis, out.Card
	for _, v := range out.Vectors {
		c.Vectors = append(c.Vectors, v.Name)
	}
	if out.Waveform == nil {
		c.Error = "no waveform (an operating point, or it did not converge)"
	}
}
