package digitaltwin

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/internal/materials"
	"github.com/metaforge/metaforge/protocol"
)

// twin.rank_sensitivity: which of a committed tube's parameters its margin
// against a limit is most sensitive to, one parameter at a time, by finite
// differences of the closed-form cantilever; recorded as evidence pinned
// to the revision it was computed on.

func rankSensitivityTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.rank_sensitivity", Name: "Rank a tube's parameters by sensitivity", Capability: "twin_write",
		Description: "Rank the parameters of a committed cad_model read as a rectangular tube cantilever (as twin.optimize_parameter reads it) " +
			"by how much the margin of a metric against its limit (limit - value, in the limit's unit: mm for tip_deflection, kg for " +
			"mass) moves, one parameter at a time. metric tip_deflection (needs load_n) ranks wall_thickness_mm and length_mm; mass " +
			"ranks wall_thickness_mm. A continuous parameter gets the central-difference derivative of the margin (per mm) and the " +
			"margin's change for a step of step_pct percent of its value; each of candidate_materials gets the margin's change from " +
			"swapping the material (categorical, no derivative). Ranked by the size of that change, largest first. The ranking is " +
			"recorded as evidence pinned to the revision.",
		InputSchema: schema([]string{"work_product_id", "metric", "limit"}, projectIDProp+`,
"work_product_id":{"type":"string","minLength":1,"description":"the cad_model: its node id, or its item ref (CAD-...@n, or CAD-... for the current revision)"},
"metric":{"type":"string","enum":["tip_deflection","mass"]},
"load_n":{"type":"number","exclusiveMinimum":0,"description":"tip load, N (tip_deflection)"},
"limit":{"type":"number","exclusiveMinimum":0,"description":"the metric's upper limit: mm for tip_deflection, kg for mass"},
"candidate_materials":{"type":"array","maxItems":20,"items":{"type":"string","minLength":1},"description":"materials (from the materials table) to rank as swaps for the current one"},
"step_pct":{"type":"number","exclusiveMinimum":0,"maximum":50,"default":1,"description":"the step of each continuous parameter, percent of its value"}`),
		Idempotent: true, TimeoutSeconds: 30}, rankSensitivity}
}

// sensitivityRow is one parameter's effect on the margin.
type sensitivityRow struct {
	Rank      int    `json:"rank"`
	Parameter string `json:"parameter"`
	// Kind is continuous (a derivative and a step) or categorical (a
	// swap to Candidate).
	Kind     string   `json:"kind"`
	Baseline any      `json:"baseline"`
	StepMM   *float64 `json:"step_mm,omitempty"`
	// Derivative is d margin / d parameter, in the limit's unit per mm.
	Derivative *float64 `json:"derivative,omitempty"`
	Candidate  string   `json:"candidate,omitempty"`
	// DeltaMargin is the margin's change for the step (or the swap).
	DeltaMargin float64 `json:"delta_margin"`
	// Value and Margin are the metric and its margin after the step (or
	// the swap).
	Value  float64 `json:"value"`
	Margin float64 `json:"margin"`
	Note   string  `json:"note,omitempty"`
}

func rankSensitivity(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID          string   `json:"project_id"`
		WorkProductID      string   `json:"work_product_id"`
		Metric             string   `json:"metric"`
		LoadN              *float64 `json:"load_n"`
		Limit              *float64 `json:"limit"`
		CandidateMaterials []string `json:"candidate_materials"`
		StepPct            *float64 `json:"step_pct"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
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
	sm := sensitivityModel{tube: tube, metric: a.Metric, limit: *a.Limit}
	if a.LoadN != nil {
		sm.loadN = *a.LoadN
	}
	value := sm.value(tube.WallMM, tube.LengthMM, tube.Mat)
	rows := sm.rank(step, cands)

	limit := map[string]any{"value": *a.Limit, "unit": unit}
	data := map[string]any{"metric": a.Metric, "unit": unit, "limit": *a.Limit, "value": value, "margin": *a.Limit - value,
		"step_pct": step, "ranking": rows, "geometry": tubeEntry(tube), "formulas": tubeFormulas,
		"method": "one-at-a-time finite differences of the closed-form cantilever"}
	if a.Metric == "tip_deflection" {
		data["load_n"] = sm.loadN
	}
	evOut, err := recordEvidenceAs(ctx, b, map[string]any{"project_id": p.ID,
		"name": fmt.Sprintf("Sensitivity of the %s margin of %s", a.Metric, tube.ItemRef), "kind": "analysis",
		"metric": "sensitivity_" + a.Metric, "valid_against": []string{tube.ItemRef}, "data": data})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"project_id": p.ID, "work_product": map[string]any{"node_id": tube.WorkProductID, "item_ref": tube.ItemRef},
		"metric": a.Metric, "unit": unit, "limit": limit, "value": value, "margin": *a.Limit - value, "step_pct": step,
		"ranking": rows, "formulas": tubeFormulas, "evidence_id": evOut["node_id"], "valid_against": evOut["valid_against"]}
	if len(rows) > 0 {
		out["most_sensitive"] = rows[0].Parameter
		if rows[0].Candidate != "" {
			out["most_sensitive"] = rows[0].Parameter + ":" + rows[0].Candidate
		}
	}
	return out, nil
}

// sensitivityModel is a metric of a tube as a function of its wall,
// length and material.
type sensitivityModel struct {
	tube   TubeGeometry
	metric string
	loadN  float64
	limit  float64
}

// value is the metric at a wall, length and material: the tip deflection
// (mm) or the mass (kg).
func (sm sensitivityModel) value(wall, length float64, m materials.Material) float64 {
	c := sm.tube.cantilever(wall, length, m)
	if sm.metric == "mass" {
		return c.MassKg(m.DensityKgM3)
	}
	return c.TipDeflection(sm.loadN)
}

func (sm sensitivityModel) margin(wall, length float64, m materials.Material) float64 {
	return sm.limit - sm.value(wall, length, m)
}

// rank is every parameter's row, largest change of margin first.
func (sm sensitivityModel) rank(stepPct float64, cands []materials.Material) []sensitivityRow {
	t := sm.tube
	base := sm.margin(t.WallMM, t.LengthMM, t.Mat)
	hollow := func(w float64) bool {
		return (beam.HollowRect{Width: t.WidthMM, Height: t.HeightMM, Wall: w}).Check() == nil
	}
	continuous := []struct {
		name   string
		x      float64
		valid  func(float64) bool
		margin func(float64) float64
	}{{beam.ParamWall, t.WallMM, hollow, func(w float64) float64 { return sm.margin(w, t.LengthMM, t.Mat) }}}
	if sm.metric == "tip_deflection" {
		continuous = append(continuous, struct {
			name   string
			x      float64
			valid  func(float64) bool
			margin func(float64) float64
		}{"length_mm", t.LengthMM, func(l float64) bool { return l > 0 }, func(l float64) float64 { return sm.margin(t.WallMM, l, t.Mat) }})
	}
	var rows []sensitivityRow
	for _, p := range continuous {
		h := p.x * stepPct / 100
		row := sensitivityRow{Parameter: p.name, Kind: "continuous", Baseline: p.x, StepMM: &h}
		up, down := p.x+h, p.x-h
		var d float64
		switch {
		case p.valid(up) && p.valid(down):
			d = (p.margin(up) - p.margin(down)) / (2 * h)
		case p.valid(up):
			d = (p.margin(up) - base) / h
		default: // a thicker wall would leave no hollow: step down instead
			d = (base - p.margin(down)) / h
			h = -h
			row.StepMM = &h
			row.Note = "a step up leaves no hollow, so the step is down"
		}
		row.Derivative = &d
		row.Margin = p.margin(p.x + h)
		row.DeltaMargin, row.Value = row.Margin-base, sm.limit-row.Margin
		rows = append(rows, row)
	}
	for _, m := range cands {
		mg := sm.margin(t.WallMM, t.LengthMM, m)
		row := sensitivityRow{Parameter: "material", Kind: "categorical", Baseline: t.Mat.Name, Candidate: m.Name,
			DeltaMargin: mg - base, Value: sm.limit - mg, Margin: mg}
		if m.Name == t.Mat.Name {
			row.Note = "the current material"
		}
		rows = append(rows, row)
	}
	sort.SliceStable(rows, func(i, j int) bool { return math.Abs(rows[i].DeltaMargin) > math.Abs(rows[j].DeltaMargin) })
	for i := range rows {
		rows[i].Rank = i + 1
	}
	return rows
}
