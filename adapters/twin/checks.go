package twin

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

// checkTools checks the project's requirements against what is recorded.
func checkTools() []tool { return []tool{constraintViolationsTool()} }

func constraintViolationsTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.constraint_violations", Name: "Constraint violations", Capability: "twin_read",
		Description: "Check every requirement in the project's current constraint sets (the head revision of each) against what is recorded, " +
			"and list the ones violated. A requirement is checked against evidence with the same metric (ignoring case; spaces and hyphens " +
			"read as underscores) and a value with a unit, converted to the requirement's unit — evidence that names the requirements it " +
			"verifies counts only for that constraint set — against the current component selections with a spec of that name, and " +
			"against the committed geometry: the head revision of each cad_model (twin.commit_geometry) gives envelope_x/y/z (or " +
			"length/width/height) from properties.bounding_box in mm, mass from mass_kg (or volume_mm3 and a known material), volume " +
			"from volume_mm3, surface_area from surface_area_mm2, wall_thickness/min_wall_thickness/thickness from " +
			"min_wall_thickness_mm, wall_thickness_mm or thickness_mm, and yield_strength and youngs_modulus from its material in the " +
			"materials table; a head revision is never stale. " +
			"Each row's status is pass, fail, stale (the only values describe an older revision of what they were pinned to) or no_data " +
			"(nothing to check it against, or the requirement is not typed; missing says what is needed). No data is not a pass: " +
			"all_pass is true only when every requirement passed. When several current values exist, any failing one fails the requirement " +
			"and the row shows the worst. Reads only.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, constraintViolations)
}

func constraintViolations(ctx context.Context, b *Backend, a project.Scope) (any, error) {
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	return RequirementsView(ctx, b.Store, p.ID)
}

// RequirementsView is every current requirement of a project with its
// live status (pass, fail, stale, no_data): what twin.constraint_violations
// returns, for anything else that shows requirement status (its resource,
// GET /v1/requirements).
func RequirementsView(ctx context.Context, s twin.Store, projectID string) (map[string]any, error) {
	rep, err := twin.Requirements(ctx, s, projectID)
	if err != nil {
		return nil, err
	}
	rows, violations := []map[string]any{}, []map[string]any{}
	for _, r := range rep.Requirements {
		row := requirementRow(r)
		rows = append(rows, row)
		if r.Status == twin.StatusFail {
			violations = append(violations, row)
		}
	}
	out := map[string]any{
		"project_id":      projectID,
		"checked_against": rep.CheckedAgainst,
		"requirements":    rows,
		"violations":      violations,
		"summary": map[string]any{"requirements": rep.Summary.Requirements, "pass": rep.Summary.Pass, "fail": rep.Summary.Fail,
			"no_data": rep.Summary.NoData, "stale": rep.Summary.Stale},
		"all_pass": rep.AllPass,
	}
	if rep.Note != "" {
		out["note"] = rep.Note
	}
	return out, nil
}

// requirementRow is one requirement's status as a report row.
func requirementRow(r twin.RequirementStatus) map[string]any {
	row := map[string]any{"requirement": r.Name, "constraint_set": r.Set, "metric": r.Metric, "operator": r.Operator,
		"limit": r.Limit, "unit": r.Unit, "status": r.Status}
	if r.Missing != nil {
		row["missing"] = r.Missing
	}
	if r.Detail != "" {
		row["detail"] = r.Detail
	}
	if len(r.StaleValues) > 0 {
		var list []map[string]any
		for _, v := range r.StaleValues {
			list = append(list, map[string]any{"node_id": v.NodeID, "value": v.Value, "stale_against": v.Against})
		}
		row["stale_evidence"] = list
	}
	if v := r.Shown; v != nil {
		row["value"] = v.Value
		row["satisfied"] = v.Satisfied
		if v.Margin != nil {
			row["margin"] = *v.Margin
		}
		if v.MarginPct != nil {
			row["margin_pct"] = *v.MarginPct
		}
		if v.UnitAssumed {
			row["unit_assumed"] = true
		}
		src := map[string]any{"kind": v.Kind, "node_id": v.NodeID}
		if v.Ref != "" {
			src["item_ref"] = v.Ref
		}
		if v.Given != "" {
			src["as_recorded"] = v.Given
		}
		if v.From != "" {
			src["property"] = v.From
		}
		row["source"] = src
	}
	if r.Evidence != nil {
		row["evidence"], row["selections"], row["cad_models"] = r.Evidence, r.Selections, r.CadModels
	}
	if r.NotCompared != nil {
		row["not_compared"] = r.NotCompared
	}
	return row
}
