package twin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/internal/beam"
	tubes "github.com/metaforge/metaforge/internal/tube"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// twin.optimize_parameter: the minimum-mass wall of a committed tube,
// found by bisection on the closed-form cantilever (internal/beam), with
// the search recorded as evidence pinned to the revision it was computed
// on and, when it converges, the winner recorded as a decision that rests
// on that revision and is SUPPORTED_BY that evidence.

func optimizeParameterTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.optimize_parameter", Name: "Optimise a tube's wall thickness", Capability: "twin_write",
		Description: "Find the minimum-mass wall_thickness_mm of a committed cad_model read as a rectangular tube cantilever (bounding_box " +
			"x the length, y the width, z the height; properties.wall_thickness_mm; material from the materials table), fixed at one " +
			"end with load_n at the tip, that keeps the tip deflection within deflection_limit_mm and the safety factor against yield " +
			"at least sf_limit. Both constraints loosen as the wall thickens and the mass grows with it, so bisection over " +
			"[min_mm, max_mm] to tolerance_mm finds the exact minimum (closed-form hand calculation, no FEA). The search (every " +
			"candidate tried) is recorded as evidence pinned to the revision (it goes stale when the part gets a new revision); a " +
			"converged winner is also recorded as a decision (each rejected candidate an alternative) that depends on the revision " +
			"and is SUPPORTED_BY the evidence. A numeric recommendation only: no geometry is changed. status is converged, " +
			"infeasible (even the thickest wall fails) or out_of_budget (max_iterations ran out; the best feasible wall found is given).",
		Idempotent: true, TimeoutSeconds: 60}, optimizeParameter,
		adapters.At("work_product_id", adapters.MinLength(1)),
		adapters.At("parameter", adapters.Enum("wall_thickness_mm"), adapters.Default("wall_thickness_mm")),
		adapters.At("load_n", adapters.ExclusiveMinimum(0)),
		adapters.At("deflection_limit_mm", adapters.ExclusiveMinimum(0)),
		adapters.At("sf_limit", adapters.ExclusiveMinimum(0), adapters.Default(1.5)),
		adapters.At("min_mm", adapters.ExclusiveMinimum(0)),
		adapters.At("max_mm", adapters.ExclusiveMinimum(0)),
		adapters.At("tolerance_mm", adapters.ExclusiveMinimum(0), adapters.Default(0.01)),
		adapters.At("max_iterations", adapters.Minimum(1), adapters.Maximum(1000)))
}

// optimizeArgs are twin.optimize_parameter's arguments.
type optimizeArgs struct {
	project.Scope
	WorkProductID string   `json:"work_product_id" jsonschema:"the cad_model: its node id, or its item ref (CAD-...@n, or CAD-... for the current revision)"`
	Parameter     string   `json:"parameter,omitempty" jsonschema:"the parameter searched"`
	LoadN         *float64 `json:"load_n" jsonschema:"tip load, N"`
	Deflection    *float64 `json:"deflection_limit_mm" jsonschema:"the largest tip deflection allowed, mm"`
	SFLimit       *float64 `json:"sf_limit,omitempty" jsonschema:"the smallest safety factor against yield allowed"`
	MinMM         *float64 `json:"min_mm,omitempty" jsonschema:"the thinnest wall to consider, mm; default 0.5"`
	MaxMM         *float64 `json:"max_mm,omitempty" jsonschema:"the thickest wall to consider, mm; default just under half the smaller of width and height"`
	ToleranceMM   *float64 `json:"tolerance_mm,omitempty" jsonschema:"the width of the final interval, mm"`
	MaxIterations int      `json:"max_iterations,omitempty" jsonschema:"the budget of halvings; default enough for the tolerance, ceil(log2(range / tolerance))"`
}

// search is the bisection the arguments ask for on a tube, defaults
// filled in.
func (a optimizeArgs) search(t TubeGeometry) (beam.TubeSearch, error) {
	if a.Parameter != "" && a.Parameter != beam.ParamWall {
		return beam.TubeSearch{}, protocol.Invalid("parameter %q cannot be optimised: use %s", a.Parameter, beam.ParamWall)
	}
	var missing []string
	if a.LoadN == nil {
		missing = append(missing, "load_n")
	}
	if a.Deflection == nil {
		missing = append(missing, "deflection_limit_mm")
	}
	if len(missing) > 0 {
		return beam.TubeSearch{}, protocol.Refusal("Missing: %s. Give the tip load (N) and the largest tip deflection allowed (mm)", strings.Join(missing, ", "))
	}
	s, err := t.WallSearch(tubes.WallLimits{LoadN: *a.LoadN, DeflectionLimitMM: *a.Deflection, SafetyFactor: a.SFLimit, MinMM: a.MinMM,
		MaxMM: a.MaxMM, ToleranceMM: a.ToleranceMM, MaxIterations: a.MaxIterations})
	if err != nil {
		return beam.TubeSearch{}, protocol.Refusal("%s", err)
	}
	return s, nil
}

func optimizeParameter(ctx context.Context, b *Backend, a optimizeArgs) (any, error) {
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	tube, err := b.TubeGeometryIn(ctx, p.ID, a.WorkProductID)
	if err != nil {
		return nil, err
	}
	s, err := a.search(tube)
	if err != nil {
		return nil, err
	}
	r, err := beam.MinimumTube(s)
	if err != nil {
		return nil, protocol.Refusal("the search cannot run on %s: %v", tube.ItemRef, err)
	}
	win, feasible := r.Winner()
	current := s.Evaluate(tube.WallMM)
	constraints := map[string]any{"load_n": s.LoadN, "deflection_limit_mm": s.DeflectionLimitMM, "sf_limit": s.SafetyFactor}
	searchRange := map[string]any{"min_mm": s.MinMM, "max_mm": s.MaxMM, "tolerance_mm": s.ToleranceMM}
	data := map[string]any{"parameter": r.Parameter, "status": r.Status, "iterations": r.Iterations, "max_iterations": r.Budget,
		"candidates": r.Candidates, "constraints": constraints, "search": searchRange, "objective": "minimum mass",
		"geometry": tubeEntry(tube), "current": current, "formulas": tubes.Formulas, "method": "bisection on closed-form cantilever hand calculations"}
	if r.Reason != "" {
		data["reason"] = r.Reason
	}
	ev := map[string]any{"project_id": p.ID, "name": fmt.Sprintf("Minimum-mass wall thickness search on %s", tube.ItemRef),
		"kind": "analysis", "metric": "optimized_" + beam.ParamWall, "valid_against": []string{tube.ItemRef}, "data": data}
	if feasible {
		ev["value"], ev["unit"] = win.Value, "mm"
		data["wall_thickness_mm"], data["mass_kg"] = win.Value, win.MassKg
	}
	evOut, err := recordEvidenceAs(ctx, b, ev)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"project_id": p.ID, "work_product": map[string]any{"node_id": tube.WorkProductID, "item_ref": tube.ItemRef},
		"parameter": r.Parameter, "status": r.Status, "wall_thickness_mm": nil, "mass_kg": nil, "iterations": r.Iterations,
		"max_iterations": r.Budget, "candidates": r.Candidates, "constraints": constraints, "search": searchRange,
		"current": current, "formulas": tubes.Formulas, "evidence_id": evOut["node_id"], "valid_against": evOut["valid_against"]}
	if r.Reason != "" {
		out["reason"] = r.Reason
	}
	if feasible {
		out["wall_thickness_mm"], out["mass_kg"] = win.Value, win.MassKg
	}
	if r.Status != beam.Converged || !feasible {
		return out, nil
	}
	evID, _ := evOut["node_id"].(string)
	d := wallDecision(subCall(ctx, "decision"), tube, s, r, win, evID)
	d.ProjectID = p.ID
	dn, _, _, err := twin.RecordDecision(ctx, b.Store, d)
	if err != nil {
		return nil, err
	}
	out["decision_id"], out["decision_ref"] = dn.ID, dn.Ref()
	return out, nil
}

// wallDecision is the converged winner as a decision resting on the
// tube's revision and SUPPORTED_BY the search's evidence, written with the
// context's callId.
func wallDecision(ctx context.Context, t TubeGeometry, s beam.TubeSearch, r beam.WallResult, win beam.Candidate, evidenceID string) twin.DecisionWrite {
	d := tubes.WallDecision(t.ItemRef, t.Tube, s, r, win, evidenceID)
	alts := make([]twin.Alternative, 0, len(d.Alternatives))
	for _, a := range d.Alternatives {
		alts = append(alts, twin.Alternative{Option: a.Option, Reason: a.Reason})
	}
	return twin.DecisionWrite{Name: d.Name, Decision: d.Decision, Rationale: d.Rationale, Alternatives: alts,
		DependsOn: []string{t.ItemRef}, SupportedBy: []string{evidenceID}, WriteInfo: writeInfo(ctx, itemArgs{})}
}

// tubeEntry is the tube as a result shows it.
func tubeEntry(t TubeGeometry) map[string]any {
	return map[string]any{"node_id": t.WorkProductID, "item_ref": t.ItemRef, "length_mm": t.LengthMM, "width_mm": t.WidthMM,
		"height_mm": t.HeightMM, "wall_thickness_mm": t.WallMM, "material": t.Mat.Name, "youngs_modulus_gpa": t.Mat.YoungsModulusGPa,
		"yield_strength_mpa": t.Mat.YieldStrengthMPa, "density_kg_m3": t.Mat.DensityKgM3}
}

// recordEvidenceAs records evidence through twin.record_evidence's own
// path (its checks, its valid_against pinning), with the call's callId as
// the idempotency key. args are that tool's arguments; values become JSON
// values, as a tool's arguments are. A refusal is the protocol's, as the
// tool's would be.
func recordEvidenceAs(ctx context.Context, b *Backend, args map[string]any) (map[string]any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	var a recordEvidenceArgs
	if err := adapters.DecodeArguments(raw, &a); err != nil {
		return nil, err
	}
	res, err := recordEvidence(ctx, b, a)
	if err != nil {
		return nil, asProtocolRefusal(err)
	}
	out, _ := res.(map[string]any)
	return out, nil
}

// subCall is the context of a call's second write: its idempotency key is
// the callId with a suffix, so a retried call repeats neither write.
func subCall(ctx context.Context, suffix string) context.Context {
	ci := adapters.CallInfoFrom(ctx)
	if ci.CallID == "" {
		return ctx
	}
	ci.CallID += "/" + suffix
	return adapters.WithCallInfo(ctx, ci)
}
