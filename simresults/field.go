package simresults

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/adapters/calculix"
	"github.com/metaforge/metaforge/adapters/call"
	"github.com/metaforge/metaforge/internal/fieldview"
	"github.com/metaforge/metaforge/protocol"
)

// Fields are the field names the route serves, with the CalculiX result
// block each is read from.
var Fields = map[string]fieldSpec{
	"von_mises":    {block: "STRESS", quantity: "von Mises stress", unit: "MPa"},
	"displacement": {block: "DISP", quantity: "displacement magnitude", unit: "mm"},
	"temperature":  {block: "NDTEMP", quantity: "temperature", unit: "°C"},
}

// FieldNames lists Fields in the order the page offers them.
var FieldNames = []string{"von_mises", "displacement", "temperature"}

type fieldSpec struct {
	block, quantity, unit string
}

// errNotStored is a result that has no such field (a modal or failed run,
// another tool's call, a results file since deleted): the page says
// "Field not stored".
var errNotStored = errors.New("field not stored")

func notStored(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errNotStored, fmt.Sprintf(format, args...))
}

// errNoCall is a callId Temporal does not know; errRunning a call that
// has not ended.
var (
	errNoCall  = errors.New("no such call")
	errRunning = errors.New("the call is still running")
)

// feaResult is what the route reads of a calculix.run_fea or run_thermal
// result: where its mesh and results file are, and its boundary
// conditions.
type feaResult struct {
	AnalysisType      string            `json:"analysis_type"`
	MeshFile          string            `json:"mesh_file"`
	Files             map[string]string `json:"files"`
	FixedNodeSet      string            `json:"fixed_node_set"`
	LoadNodeSet       string            `json:"load_node_set"`
	LoadForceN        *float64          `json:"load_force_n"`
	LoadDirection     []float64         `json:"load_direction"`
	HeatSourceNodeSet string            `json:"heat_source_node_set"`
	HeatLoadW         *float64          `json:"heat_load_w"`
	SinkNodeSet       string            `json:"sink_node_set"`
	MaxVonMisesMPa    *float64          `json:"max_von_mises_mpa"`
	MaxDisplacementMM *float64          `json:"max_displacement_mm"`
	PeakTemperatureC  *float64          `json:"peak_temperature_c"`
}

// solverTools are the tools whose results carry a field.
var solverTools = []string{calculix.ToolRunFEA, calculix.ToolRunThermal}

// FieldAnswer is the route's answer: the call, the fields it has, and
// the view of the one asked for.
type FieldAnswer struct {
	CallID       string   `json:"call_id"`
	ToolID       string   `json:"tool_id"`
	AnalysisType string   `json:"analysis_type"`
	Available    []string `json:"available_fields"`
	// ResultPeak is the peak the tool itself reported for this field
	// (max_von_mises_mpa, max_displacement_mm, peak_temperature_c), beside
	// the view's own Max read back from the results file.
	ResultPeak *float64 `json:"result_peak,omitempty"`
	*fieldview.View
}

// solution is a finished solver call read from its files: the mesh, the
// result blocks and what the call said.
type solution struct {
	callID, toolID string
	result         feaResult
	mesh           *calculix.Mesh
	blocks         []*calculix.Block
}

// load reads call callID's outcome and its files: its mesh and its
// results file, confined to the workspace's roots.
func (h Handler) load(ctx context.Context, callID string) (*solution, error) {
	out, err := h.Calls.CallOutcome(ctx, callID, 0)
	if errors.Is(err, call.ErrNotFound) {
		return nil, fmt.Errorf("%w %s: give the callId of a calculix.run_fea or calculix.run_thermal call (its _meta.callId, or a result listed by GET /v1/simulation/results?project=)", errNoCall, callID)
	}
	if err != nil {
		return nil, protocol.Unavailable("cannot read call %s from Temporal: %v", callID, err)
	}
	if out.State == "running" {
		return nil, fmt.Errorf("%w: call %s (%s) has not ended; its field is served once it has", errRunning, callID, out.ToolID)
	}
	if !slices.Contains(solverTools, out.ToolID) {
		return nil, notStored("call %s is a %s call, which stores no FEA field; only calculix.run_fea (static_stress) and calculix.run_thermal results have one", callID, orUnknown(out.ToolID))
	}
	if out.State != "completed" {
		return nil, notStored("call %s ended %s without a result", callID, out.State)
	}
	var tc struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  *struct {
			Details string `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out.Result, &tc); err != nil {
		return nil, fmt.Errorf("call %s's result cannot be read: %v", callID, err)
	}
	if tc.Status != "success" {
		why := "an error"
		if tc.Error != nil {
			why = tc.Error.Details
		}
		return nil, notStored("call %s failed (%s), so it wrote no field", callID, why)
	}
	s := &solution{callID: callID, toolID: out.ToolID}
	if err := json.Unmarshal(tc.Data, &s.result); err != nil {
		return nil, fmt.Errorf("call %s's %s result cannot be read: %v", callID, out.ToolID, err)
	}
	if s.result.AnalysisType == "modal" {
		return nil, notStored("call %s is a modal analysis: its results file holds mode shapes of arbitrary amplitude, not a field; its frequencies are in its result (frequencies_hz)", callID)
	}
	frd := s.result.Files["frd"]
	if frd == "" {
		return nil, notStored("call %s's result names no results file (files.frd)", callID)
	}
	frdPath, err := h.Files.ResolveRead("files.frd", frd)
	if err != nil {
		return nil, notStored("the results file of call %s is gone or out of reach (%v)", callID, err)
	}
	meshPath, err := h.meshOf(s.result, frdPath)
	if err != nil {
		return nil, notStored("the mesh of call %s is gone or out of reach (%v)", callID, err)
	}
	if s.mesh, err = calculix.ReadMesh(meshPath); err != nil {
		return nil, notStored("the mesh %s of call %s cannot be read: %v", meshPath, callID, err)
	}
	if _, s.blocks, err = calculix.ReadFRD(frdPath, "DISP", "STRESS", "NDTEMP"); err != nil {
		return nil, notStored("the results file %s of call %s cannot be read: %v", frdPath, callID, err)
	}
	return s, nil
}

// meshOf is the call's mesh: the mesh_file its result names, else the
// copy (a link) the solve left beside its results file.
func (h Handler) meshOf(r feaResult, frdPath string) (string, error) {
	if r.MeshFile != "" {
		if p, err := h.Files.ResolveRead("mesh_file", r.MeshFile); err == nil {
			return p, nil
		}
	}
	return h.Files.ResolveRead("mesh_file", filepath.Join(filepath.Dir(frdPath), "mesh.inp"))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown tool's"
	}
	return s
}

// available are the fields the solution's results file holds.
func (s *solution) available() []string {
	var out []string
	for _, name := range FieldNames {
		if calculix.Find(s.blocks, Fields[name].block) != nil {
			out = append(out, name)
		}
	}
	return out
}

// view builds field name's view, at most limit triangles.
func (s *solution) view(name string, limit int) (*FieldAnswer, error) {
	spec := Fields[name]
	b := calculix.Find(s.blocks, spec.block)
	if b == nil {
		return nil, notStored("call %s (%s, %s) has no %s field; it has: %s", s.callID, s.toolID, orUnknown(s.result.AnalysisType), name,
			orNone(strings.Join(s.available(), ", ")))
	}
	f := fieldview.Field{Name: name, Quantity: spec.quantity, Unit: spec.unit}
	var disp map[int][3]float64
	if d := calculix.Find(s.blocks, "DISP"); d != nil {
		disp = make(map[int][3]float64, len(d.Values))
		for id, u := range d.Values {
			if len(u) >= 3 {
				disp[id] = [3]float64{u[0], u[1], u[2]}
			}
		}
	}
	f.Displacements = disp
	switch name {
	case "von_mises":
		f.Values = b.VonMises()
	case "displacement":
		f.Values = make(map[int]float64, len(disp))
		for id, u := range disp {
			f.Values[id] = math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
		}
	case "temperature":
		f.Values = b.Scalar()
	}
	m := fieldview.Mesh{Nodes: s.mesh.Nodes, Elements: s.mesh.Elements, ElementType: s.mesh.ElementType}
	v, err := fieldview.Build(m, f, limit, s.sets())
	if err != nil {
		return nil, notStored("call %s's %s field cannot be drawn: %v", s.callID, name, err)
	}
	a := &FieldAnswer{CallID: s.callID, ToolID: s.toolID, AnalysisType: s.result.AnalysisType, Available: s.available(), View: v}
	switch name {
	case "von_mises":
		a.ResultPeak = s.result.MaxVonMisesMPa
	case "displacement":
		a.ResultPeak = s.result.MaxDisplacementMM
	case "temperature":
		a.ResultPeak = s.result.PeakTemperatureC
	}
	return a, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// sets are the result's fixtures and loads, by the node sets it names.
func (s *solution) sets() []fieldview.Set {
	r := s.result
	var out []fieldview.Set
	add := func(name, role string, dir []float64, mag *float64, unit string) {
		if name == "" {
			return
		}
		ids, ok := s.mesh.NodeSet(name)
		if !ok {
			return
		}
		out = append(out, fieldview.Set{Name: name, Role: role, Nodes: ids, Direction: dir, Magnitude: mag, Unit: unit})
	}
	add(r.FixedNodeSet, "fixed", nil, nil, "")
	add(r.LoadNodeSet, "load", r.LoadDirection, r.LoadForceN, "N")
	add(r.SinkNodeSet, "sink", nil, nil, "")
	add(r.HeatSourceNodeSet, "heat_source", nil, r.HeatLoadW, "W")
	return out
}
