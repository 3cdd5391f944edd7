package twin

import (
	"fmt"
	"strings"
)

// A hazard analysis: each hazard with its cause, how severe and how likely
// it is, and what mitigates it. Severity and likelihood are ranked 1 to 5
// (severity 1 negligible .. 5 catastrophic; likelihood 1 improbable .. 5
// frequent); the risk index is their product, 1 to 25, classed high from
// 15, medium from 8, low below. A residual rating after mitigation, when
// given, may not be worse than the rating before it.

// Hazard rating bounds.
const (
	MinHazardRank = 1
	MaxHazardRank = 5
)

// Risk classes by risk index (severity x likelihood).
const (
	highRisk   = 15
	mediumRisk = 8
)

// HazardRow is one hazard of an analysis.
type HazardRow struct {
	Hazard     string `json:"hazard" jsonschema:"what can cause harm (pinch point at the elbow joint)"`
	Cause      string `json:"cause" jsonschema:"how it comes about (the arm moves while a hand is in the joint)"`
	Severity   int    `json:"severity" jsonschema:"1 negligible, 2 minor, 3 serious, 4 critical, 5 catastrophic"`
	Likelihood int    `json:"likelihood" jsonschema:"1 improbable, 2 remote, 3 occasional, 4 probable, 5 frequent"`
	Mitigation string `json:"mitigation" jsonschema:"what prevents or limits it (a guard, a torque limit, a warning label)"`
	// Residual ratings after the mitigation, when assessed.
	ResidualSeverity   *int `json:"residual_severity,omitempty" jsonschema:"severity once mitigated, 1 to 5"`
	ResidualLikelihood *int `json:"residual_likelihood,omitempty" jsonschema:"likelihood once mitigated, 1 to 5"`
}

// Risk is the hazard's risk index before mitigation.
func (h HazardRow) Risk() int { return h.Severity * h.Likelihood }

// Residual is the risk index after mitigation, when both residual ratings
// are given.
func (h HazardRow) Residual() (int, bool) {
	if h.ResidualSeverity == nil || h.ResidualLikelihood == nil {
		return 0, false
	}
	return *h.ResidualSeverity * *h.ResidualLikelihood, true
}

// RiskClass is high, medium or low for a risk index.
func RiskClass(index int) string {
	switch {
	case index >= highRisk:
		return "high"
	case index >= mediumRisk:
		return "medium"
	}
	return "low"
}

// HazardAnalysis is the content of a hazard analysis.
type HazardAnalysis struct {
	Method  string      `json:"method,omitempty" jsonschema:"how the hazards were found: PHA, FMEA, HAZOP, ISO 12100 risk assessment"`
	Hazards []HazardRow `json:"hazards" jsonschema:"one row per hazard"`
}

// DocumentType implements TypedDocument.
func (HazardAnalysis) DocumentType() string { return "hazard_analysis" }

// Check implements TypedDocument: at least one row; each with hazard,
// cause and mitigation, ratings 1 to 5, residual ratings given together
// and no worse than before.
func (h HazardAnalysis) Check() error {
	if len(h.Hazards) == 0 {
		return Refusef("hazards is empty: give one row per hazard (hazard, cause, severity, likelihood, mitigation)")
	}
	inRange := func(v int) bool { return v >= MinHazardRank && v <= MaxHazardRank }
	for i, r := range h.Hazards {
		switch {
		case blank(r.Hazard):
			return Refusef("hazards[%d].hazard is blank: say what can cause harm", i)
		case blank(r.Cause):
			return Refusef("hazards[%d] (%s): cause is blank: say how it comes about", i, r.Hazard)
		case blank(r.Mitigation):
			return Refusef("hazards[%d] (%s): mitigation is blank: say what prevents or limits it (\"none yet\" is an answer, and keeps the row open)", i, r.Hazard)
		case !inRange(r.Severity):
			return Refusef("hazards[%d] (%s): severity %d; rate it %d (negligible) to %d (catastrophic)", i, r.Hazard, r.Severity, MinHazardRank, MaxHazardRank)
		case !inRange(r.Likelihood):
			return Refusef("hazards[%d] (%s): likelihood %d; rate it %d (improbable) to %d (frequent)", i, r.Hazard, r.Likelihood, MinHazardRank, MaxHazardRank)
		case (r.ResidualSeverity == nil) != (r.ResidualLikelihood == nil):
			return Refusef("hazards[%d] (%s): give residual_severity and residual_likelihood together, or neither", i, r.Hazard)
		}
		if r.ResidualSeverity == nil {
			continue
		}
		rs, rl := *r.ResidualSeverity, *r.ResidualLikelihood
		switch {
		case !inRange(rs) || !inRange(rl):
			return Refusef("hazards[%d] (%s): residual ratings %d and %d; rate each %d to %d", i, r.Hazard, rs, rl, MinHazardRank, MaxHazardRank)
		case rs > r.Severity || rl > r.Likelihood:
			return Refusef("hazards[%d] (%s): the residual rating (severity %d, likelihood %d) is worse than before mitigation (%d, %d); "+
				"a mitigation does not raise a risk: check the ratings", i, r.Hazard, rs, rl, r.Severity, r.Likelihood)
		}
	}
	return nil
}

// Markdown implements TypedDocument.
func (h HazardAnalysis) Markdown(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nHazard analysis", title)
	if !blank(h.Method) {
		fmt.Fprintf(&b, " (%s)", strings.TrimSpace(h.Method))
	}
	b.WriteString(". Severity and likelihood 1 to 5; risk = severity x likelihood (high from 15, medium from 8).\n\n" +
		"| Hazard | Cause | Severity | Likelihood | Risk | Mitigation | Residual risk |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range h.Hazards {
		residual := "not assessed"
		if v, ok := r.Residual(); ok {
			residual = fmt.Sprintf("%d (%s)", v, RiskClass(v))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d (%s) | %s | %s |\n", mdCell(r.Hazard), mdCell(r.Cause), r.Severity, r.Likelihood,
			r.Risk(), RiskClass(r.Risk()), mdCell(r.Mitigation), residual)
	}
	return b.String()
}

// Summary implements TypedDocument: rows per risk class, the highest risk
// and the hazards it belongs to, and how many still lack a residual
// rating.
func (h HazardAnalysis) Summary() map[string]any {
	classes := map[string]any{"high": 0.0, "medium": 0.0, "low": 0.0}
	highest, worst, unassessed := 0, []any{}, 0.0
	for _, r := range h.Hazards {
		classes[RiskClass(r.Risk())] = classes[RiskClass(r.Risk())].(float64) + 1
		switch {
		case r.Risk() > highest:
			highest, worst = r.Risk(), []any{strings.TrimSpace(r.Hazard)}
		case r.Risk() == highest:
			worst = append(worst, strings.TrimSpace(r.Hazard))
		}
		if _, ok := r.Residual(); !ok {
			unassessed++
		}
	}
	return map[string]any{"hazards": float64(len(h.Hazards)), "by_risk_class": classes, "highest_risk": float64(highest),
		"highest_risk_class": RiskClass(highest), "highest_risk_hazards": worst, "residual_not_assessed": unassessed}
}

// Concerns implements TypedDocument: an analysis names no item itself.
func (HazardAnalysis) Concerns() []string { return nil }
