// Package constraint serves constraint.validate: checks on a proposed
// constraint set before twin.record_constraint_set records it. It writes
// nothing. The adapter runs over the twin's backend (adapters/twin.New
// serves it); the checks live in package twin (twin.ValidateConstraints).
package constraint

import (
	"context"
	"errors"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

// Service is what the constraint tools work on.
type Service struct {
	Store    twin.Store
	Sessions twin.SessionBindings
}

// Tools are the constraint adapter's tools: checks on requirements before
// they are recorded.
func Tools() []adapters.Declared[*Service] {
	rules := append([]adapters.SchemaRule{
		adapters.At("name", adapters.MaxLength(200)),
		adapters.At("item_key", adapters.MaxLength(200)),
		adapters.At("constraints", adapters.MinItems(1), adapters.MaxItems(500)),
	}, itemRules("constraints[]")...)
	return []adapters.Declared[*Service]{
		adapters.Declare(adapters.Manifest{ToolID: "constraint.validate", Name: "Validate requirements", Capability: "twin_read",
			Description: "Check a proposed constraint set before recording it with twin.record_constraint_set. Writes nothing. Per requirement: " +
				"checkable (metric, operator, limit and a unit this server reads, so twin.constraint_violations can check it), missing (what " +
				"record_constraint_set's incomplete would name), and issues: a unit that does not read, a unit that does not measure what the " +
				"metric names, a limit no value can meet (mass <= -1 kg, below absolute zero), an exact == bound. Also duplicates (two requirements " +
				"with one name, which record_constraint_set refuses, or two bounds on one metric from the same side) and conflicts: contradictory " +
				"bounds on one metric (<= 1 kg and >= 2 kg) within the set and, when there is a project (project_id or the session's), against the " +
				"project's current constraint sets. Name the set (name or item_key) so its own current revision, which this would replace, is " +
				"not counted as a conflict. valid is false when record_constraint_set would refuse the set, a unit does not read, a requirement " +
				"can never be met, or two requirements conflict.",
			Idempotent: true, Short: true, TimeoutSeconds: 30}, validateConstraints, rules...),
	}
}

// itemRules are the schema rules of one proposed requirement (a
// twin.Constraint) at path.
func itemRules(path string) []adapters.SchemaRule {
	at := func(field string, edits ...adapters.SchemaEdit) adapters.SchemaRule {
		return adapters.At(path+"."+field, edits...)
	}
	return []adapters.SchemaRule{
		at("name", adapters.MinLength(1)),
		at("metric", adapters.Describe("what is measured: tip_deflection, mass, max_von_mises, safety_factor, quiescent_current...")),
		at("operator", adapters.Enum("<=", "<", ">=", ">", "==")),
		at("unit", adapters.Describe("the limit's unit: mm, kg, MPa, uA, V, °C, %, $, 1 for a plain ratio")),
		at("expression", adapters.Describe("a free-form condition, when metric+limit cannot say it")),
		at("target_node_type", adapters.Describe("what the requirement applies to: cad_model, simulation_result, component...")),
		at("verification_method", adapters.Enum("analysis", "test", "inspection", "demonstration", "simulation")),
	}
}

type validateArgs struct {
	ProjectID   string            `json:"project_id,omitempty" jsonschema:"the project whose current constraint sets to check for conflicts; defaults to the session's; with neither, only the set itself is checked"`
	Name        string            `json:"name,omitempty" jsonschema:"the constraint set's name, as it would be recorded: its current revision is what this would replace, so it is not checked for conflicts"`
	ItemKey     string            `json:"item_key,omitempty" jsonschema:"the constraint set item this would revise (CS-...), when not found by name"`
	Constraints []twin.Constraint `json:"constraints"`
}

// sessionProjectIfAny is the named project, else the session's, else none.
func sessionProjectIfAny(ctx context.Context, s *Service, named string) (*twin.Project, error) {
	sid := adapters.CallInfoFrom(ctx).SessionID
	if named == "" {
		if sid == "" {
			return nil, nil
		}
		id, err := s.Sessions.SessionProject(ctx, sid)
		if errors.Is(err, twin.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		named = id
	}
	p, err := twin.ProjectFor(ctx, s.Store, s.Sessions, sid, named)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

func validateConstraints(ctx context.Context, s *Service, a validateArgs) (any, error) {
	p, err := sessionProjectIfAny(ctx, s, a.ProjectID)
	if err != nil {
		return nil, err
	}
	projectID := ""
	if p != nil {
		projectID = p.ID
	}
	v, err := twin.ValidateConstraints(ctx, s.Store, projectID, a.Name, a.ItemKey, a.Constraints)
	if err != nil {
		return nil, err
	}
	rows := make([]map[string]any, 0, len(v.Requirements))
	for _, r := range v.Requirements {
		row := map[string]any{"name": r.Name, "checkable": r.Checkable}
		if len(r.Missing) > 0 {
			row["missing"] = r.Missing
		}
		if r.Issues != nil {
			issues := make([]map[string]any, 0, len(r.Issues))
			for _, f := range r.Issues {
				issues = append(issues, map[string]any{"code": f.Code, "severity": f.Severity, "message": f.Message})
			}
			row["issues"] = issues
		}
		rows = append(rows, row)
	}
	out := map[string]any{"requirement_count": len(a.Constraints), "checkable_count": v.Checkable, "requirements": rows,
		"duplicates": boundFindings(v.Duplicates), "conflicts": boundFindings(v.Conflicts), "written": false, "valid": v.Valid,
		"notes": v.Notes}
	if v.ProjectID != "" {
		out["project_id"] = v.ProjectID
		out["conflicts_checked_against"] = v.ConflictsCheckedAgainst
		if v.Revises != "" {
			out["revises"] = v.Revises
		}
	}
	return out, nil
}

// boundFindings are duplicates or conflicts as constraint.validate lists
// them.
func boundFindings(fs []twin.BoundFinding) []map[string]any {
	out := []map[string]any{}
	for _, f := range fs {
		row := map[string]any{"kind": f.Kind, "detail": f.Detail}
		if f.Requirements != nil {
			row["requirements"] = f.Requirements
		} else {
			row["metric"], row["requirement"] = f.Metric, f.Requirement
		}
		if f.With != nil {
			row["with"] = map[string]any{"requirement": f.With.Requirement, "constraint_set": f.With.ConstraintSet}
		}
		out = append(out, row)
	}
	return out
}
