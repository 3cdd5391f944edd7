package twin

import (
	"context"
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/internal/materials"
	tubes "github.com/metaforge/metaforge/internal/tube"
	"github.com/metaforge/metaforge/protocol"
)

// twin.rank_sensitivity: which of a committed tube's parameters its margin
// against a limit is most sensitive to, one parameter at a time, by finite
// differences of the closed-form cantilever; recorded as evidence pinned
// to the revision it was computed on.

func rankSensitivityTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.rank_sensitivity", Name: "Rank a tube's parameters by sensitivity", Capability: "twin_write",
		Description: "Rank the parameters of a committed cad_model read as a rectangular tube cantilever (as twin.optimize_parameter reads it) " +
			"by how much the margin of a metric against its limit (limit - value, in the limit's unit: mm for tip_deflection, kg for " +
			"mass) moves, one parameter at a time. metric tip_deflection (needs load_n) ranks wall_thickness_mm and length_mm; mass " +
			"ranks wall_thickness_mm. A continuous parameter gets the central-difference derivative of the margin (per mm) and the " +
			"margin's change for a step of step_pct percent of its value; each of candidate_materials gets the margin's change from " +
			"swapping the material (categorical, no derivative). Ranked by the size of that change, largest first. The ranking is " +
			"recorded as evidence pinned to the revision.",
		Idempotent: true, TimeoutSeconds: 30}, rankSensitivity,
		adapters.At("work_product_id", adapters.MinLength(1)),
		adapters.At("metric", adapters.Enum("tip_deflection", "mass")),
		adapters.At("load_n", adapters.ExclusiveMinimum(0)),
		adapters.At("limit", adapters.ExclusiveMinimum(0)),
		adapters.At("candidate_materials", adapters.MaxItems(20)), adapters.At("candidate_materials[]", adapters.MinLength(1)),
		adapters.At("step_pct", adapters.ExclusiveMinimum(0), adapters.Maximum(50), adapters.Default(1)))
}

type rankSensitivityArgs struct {
	project.Scope
	WorkProductID      string   `json:"work_product_id" jsonschema:"the cad_model: its node id, or its item ref (CAD-...@n, or CAD-... for the current revision)"`
	Metric             string   `json:"metric"`
	LoadN              *float64 `json:"load_n,omitempty" jsonschema:"tip load, N (tip_deflection)"`
	Limit              *float64 `json:"limit" jsonschema:"the metric's upper limit: mm for tip_deflection, kg for mass"`
	CandidateMaterials []string `json:"candidate_materials,omitempty" jsonschema:"materials (from the materials table) to rank as swaps for the current one"`
	StepPct            *float64 `json:"step_pct,omitempty" jsonschema:"the step of each continuous parameter, percent of its value"`
}

func rankSensitivity(ctx context.Context, b *Backend, a rankSensitivityArgs) (any, error) {
	unit := map[string]string{"tip_deflection": "mm", "mass": "kg"}[a.Metric]
	if unit == "" {
		return nil, protocol.Invalid("metric %q has no sensitivity model: use tip_deflection or mass", a.Metric)
	}
	switch {
	case a.Limit == nil || !(*a.Limit > 0):
		return nil, protocol.Refusal("Missing: limit. Give the %s limit (%s) the margin is measured against", a.Metric, unit)
	case a.Metric == "tip_deflection" && (a.LoadN == nil || !(*a.LoadN > 0)):
		return nil, protocol.Refusal("Missing: load_n. tip_deflection needs the tip load (N)")
	}
	step := 1.0
	if a.StepPct != nil {
		step = *a.StepPct
	}
	if !(step > 0 && step <= 50) {
		return nil, protocol.Invalid("step_pct must be in (0, 50], got %g", step)
	}
	cands := make([]materials.Material, 0, len(a.CandidateMaterials))
	for _, name := range a.CandidateMaterials {
		m, err := materials.Lookup(name)
		if err != nil {
			return nil, err
		}
		cands = append(cands, m)
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	tube, err := b.TubeGeometryIn(ctx, p.ID, a.WorkProductID)
	if err != nil {
		return nil, err
	}
	sm := tubes.Sensitivity{Tube: tube.Tube, Metric: a.Metric, Limit: *a.Limit}
	if a.LoadN != nil {
		sm.LoadN = *a.LoadN
	}
	value := sm.Value(tube.WallMM, tube.LengthMM, tube.Mat)
	rows := sm.Rank(step, cands)

	limit := map[string]any{"value": *a.Limit, "unit": unit}
	data := map[string]any{"metric": a.Metric, "unit": unit, "limit": *a.Limit, "value": value, "margin": *a.Limit - value,
		"step_pct": step, "ranking": rows, "geometry": tubeEntry(tube), "formulas": tubes.Formulas,
		"method": "one-at-a-time finite differences of the closed-form cantilever"}
	if a.Metric == "tip_deflection" {
		data["load_n"] = sm.LoadN
	}
	evOut, err := recordEvidenceAs(ctx, b, map[string]any{"project_id": p.ID,
		"name": fmt.Sprintf("Sensitivity of the %s margin of %s", a.Metric, tube.ItemRef), "kind": "analysis",
		"metric": "sensitivity_" + a.Metric, "valid_against": []string{tube.ItemRef}, "data": data})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"project_id": p.ID, "work_product": map[string]any{"node_id": tube.WorkProductID, "item_ref": tube.ItemRef},
		"metric": a.Metric, "unit": unit, "limit": limit, "value": value, "margin": *a.Limit - value, "step_pct": step,
		"ranking": rows, "formulas": tubes.Formulas, "evidence_id": evOut["node_id"], "valid_against": evOut["valid_against"]}
	if len(rows) > 0 {
		out["most_sensitive"] = rows[0].Parameter
		if rows[0].Candidate != "" {
			out["most_sensitive"] = rows[0].Parameter + ":" + rows[0].Candidate
		}
	}
	return out, nil
}
