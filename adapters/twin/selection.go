package twin

import (
	"context"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/project"
	"github.com/metaforge/metaforge/twin"
)

// selectionTools records chosen parts against the project's requirements.
func selectionTools() []tool { return []tool{recordComponentSelectionTool()} }

// specValue is one datasheet value: a number (read in the unit of the
// requirement it is held against, and flagged unit_assumed), a string with
// its unit ("75 uA", "3.3V"), a {value, unit} pair, or any other string or
// boolean, recorded but never compared.
func specValue(s *jsonschema.Schema) {
	maxLen := func(n int) *int { return &n }
	pair, err := jsonschema.For[struct {
		Value float64 `json:"value"`
		Unit  string  `json:"unit,omitempty"`
	}](nil)
	if err != nil {
		panic(err)
	}
	pair.Properties["unit"].MaxLength = maxLen(40)
	s.AdditionalProperties = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
		{Type: "number"}, {Type: "string", MaxLength: maxLen(200)}, {Type: "boolean"}, pair}}
}

func recordComponentSelectionTool() tool {
	return adapters.Declare(adapters.Manifest{ToolID: "twin.record_component_selection", Name: "Record a component selection", Capability: "twin_write",
		Description: "Record the part chosen for a role in the design (name: the role, e.g. \"main buck regulator\"; choosing another part for the " +
			"same role is the next revision of the same BOM item) with its datasheet specs, and hold the specs against every typed requirement " +
			"in the project's current constraint sets. A requirement is held against this part when its metric names a spec key (ignoring case; " +
			"spaces and hyphens read as underscores: metric quiescent_current matches spec \"Quiescent Current\"), or when its target_node_type " +
			"is component, component_selection, bom or bom_item; an untyped requirement with no target_node_type is reported too. " +
			"The result's requirement_margins gives, per requirement, the spec converted to the requirement's unit, satisfied, and margin " +
			"(signed, in the requirement's unit: positive is slack, negative is overshoot; none for ==); violates names the requirements the " +
			"part does not meet; unchecked_requirements names the ones nothing could be computed for, with a reason (no_matching_spec, " +
			"spec_not_numeric, incompatible_units, requirement_not_bound). The selection is recorded even when it violates a requirement.",
		Idempotent: true, Short: true, TimeoutSeconds: 30}, recordComponentSelection, withItemRules(
		adapters.At("name", adapters.MinLength(1), adapters.MaxLength(200)),
		adapters.At("mpn", adapters.MinLength(1), adapters.MaxLength(100)),
		adapters.At("manufacturer", adapters.MaxLength(200)),
		adapters.At("description", adapters.MaxLength(2000)),
		adapters.At("datasheet_url", adapters.MaxLength(2000)),
		adapters.At("quantity", adapters.Minimum(1), adapters.Maximum(1000000)),
		adapters.At("for_item", adapters.MinLength(1)),
		adapters.At("specs", adapters.MaxProperties(300), specValue))...)
}

type recordComponentSelectionArgs struct {
	project.Scope
	Name         string         `json:"name" jsonschema:"the role the part fills (\"main buck regulator\", \"IMU\"); the selection's item is keyed by it"`
	MPN          string         `json:"mpn" jsonschema:"the manufacturer part number chosen"`
	Manufacturer string         `json:"manufacturer,omitempty"`
	Description  string         `json:"description,omitempty"`
	DatasheetURL string         `json:"datasheet_url,omitempty"`
	Quantity     *int           `json:"quantity,omitempty" jsonschema:"how many the design uses; 1 when not given"`
	ForItem      string         `json:"for_item,omitempty" jsonschema:"the item the part is chosen for: KEY, KEY@n or a node id (a board, an assembly, a CAD model)"`
	Specs        map[string]any `json:"specs,omitempty" jsonschema:"datasheet values by name, named like the requirements' metrics (quiescent_current, output_voltage, mass, unit_cost). Give the unit: \"75 uA\", \"3.3V\", \"$1.20\" or {\"value\":75,\"unit\":\"uA\"}. A bare number is compared as if in the requirement's unit and flagged unit_assumed."`
	itemArgs
}

func recordComponentSelection(ctx context.Context, b *Backend, a recordComponentSelectionArgs) (any, error) {
	w := twin.SelectionWrite{Name: a.Name, MPN: a.MPN, Manufacturer: a.Manufacturer, Description: a.Description,
		DatasheetURL: a.DatasheetURL, Quantity: a.Quantity, ForItem: a.ForItem, Specs: a.Specs, WriteInfo: writeInfo(ctx, a.itemArgs)}
	if err := w.Check(); err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	w.ProjectID = p.ID
	sel, err := twin.RecordComponentSelection(ctx, b.Store, w)
	if err != nil {
		return nil, err
	}
	out := written(sel.Node, sel.Item)
	out["project_id"] = p.ID
	out["mpn"] = strings.TrimSpace(a.MPN)
	out["quantity"] = sel.Quantity
	if a.Manufacturer != "" {
		out["manufacturer"] = a.Manufacturer
	}
	if sel.ForItem != "" {
		out["for_item"] = sel.ForItem
	}
	addRequirementCheck(out, sel.Check)
	return out, nil
}

// addRequirementCheck adds how a selection's specs held against the
// project's current requirements to a result.
func addRequirementCheck(out map[string]any, check twin.SelectionCheck) {
	margins := make([]map[string]any, 0, len(check.Margins))
	for _, m := range check.Margins {
		margins = append(margins, marginRow(m))
	}
	unchecked := make([]map[string]any, 0, len(check.Unchecked))
	for _, u := range check.Unchecked {
		row := map[string]any{"requirement": u.Name, "constraint_set": u.Set, "reason": u.Reason, "detail": u.Detail}
		if u.Metric != "" {
			row["metric"] = u.Metric
		}
		if u.Missing != nil {
			row["missing"] = u.Missing
		}
		if u.Spec != "" {
			row["spec"] = u.Spec
		}
		unchecked = append(unchecked, row)
	}
	out["checked_against"] = check.CheckedAgainst()
	out["requirement_margins"] = margins
	out["violates"] = check.Violates
	out["unchecked_requirements"] = unchecked
}

// marginRow is a spec held against a typed requirement, as a result lists
// it.
func marginRow(m twin.SpecMargin) map[string]any {
	row := map[string]any{"requirement": m.Name, "constraint_set": m.Set, "metric": m.Metric, "operator": m.Operator,
		"limit": *m.Limit, "unit": m.Unit, "spec_value": m.Value, "satisfied": m.Satisfied, "spec": m.Spec}
	if m.Margin != nil {
		row["margin"] = *m.Margin
	}
	if m.MarginPct != nil {
		row["margin_pct"] = *m.MarginPct
	}
	if m.UnitAssumed {
		row["unit_assumed"] = true
	}
	if m.Given != "" {
		row["spec_as_given"] = m.Given
	}
	return row
}
