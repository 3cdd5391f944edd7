package tube

import (
	"math"
	"sort"

	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/internal/materials"
)

// SensitivityRow is one parameter's effect on a margin.
type SensitivityRow struct {
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

// Sensitivity is a metric of a tube as a function of its wall, length and
// material, and the limit its margin is measured against. Metric is
// "tip_deflection" (mm, under LoadN at the tip) or "mass" (kg).
type Sensitivity struct {
	Tube   Tube
	Metric string
	LoadN  float64
	Limit  float64
}

// Value is the metric at a wall, length and material: the tip deflection
// (mm) or the mass (kg).
func (sm Sensitivity) Value(wall, length float64, m materials.Material) float64 {
	c := sm.Tube.Cantilever(wall, length, m)
	if sm.Metric == "mass" {
		return c.MassKg(m.DensityKgM3)
	}
	return c.TipDeflection(sm.LoadN)
}

// Margin is the limit less the value.
func (sm Sensitivity) Margin(wall, length float64, m materials.Material) float64 {
	return sm.Limit - sm.Value(wall, length, m)
}

// Rank is every parameter's row, largest change of margin first: the wall
// (and, for the tip deflection, the length) by central differences with a
// step of stepPct percent, and a swap to each candidate material.
func (sm Sensitivity) Rank(stepPct float64, cands []materials.Material) []SensitivityRow {
	t := sm.Tube
	base := sm.Margin(t.WallMM, t.LengthMM, t.Mat)
	hollow := func(w float64) bool {
		return (beam.HollowRect{Width: t.WidthMM, Height: t.HeightMM, Wall: w}).Check() == nil
	}
	type parameter struct {
		name   string
		x      float64
		valid  func(float64) bool
		margin func(float64) float64
	}
	continuous := []parameter{{beam.ParamWall, t.WallMM, hollow, func(w float64) float64 { return sm.Margin(w, t.LengthMM, t.Mat) }}}
	if sm.Metric == "tip_deflection" {
		continuous = append(continuous, parameter{"length_mm", t.LengthMM, func(l float64) bool { return l > 0 },
			func(l float64) float64 { return sm.Margin(t.WallMM, l, t.Mat) }})
	}
	var rows []SensitivityRow
	for _, p := range continuous {
		h := p.x * stepPct / 100
		row := SensitivityRow{Parameter: p.name, Kind: "continuous", Baseline: p.x, StepMM: &h}
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
		row.DeltaMargin, row.Value = row.Margin-base, sm.Limit-row.Margin
		rows = append(rows, row)
	}
	for _, m := range cands {
		mg := sm.Margin(t.WallMM, t.LengthMM, m)
		row := SensitivityRow{Parameter: "material", Kind: "categorical", Baseline: t.Mat.Name, Candidate: m.Name,
			DeltaMargin: mg - base, Value: sm.Limit - mg, Margin: mg}
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
