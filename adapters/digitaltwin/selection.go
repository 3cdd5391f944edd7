package digitaltwin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/metaforge/metaforge/internal/units"
	"math"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// selectionTools records chosen parts against the project's requirements.
func selectionTools() []tool { return []tool{recordComponentSelectionTool()} }

// specValueSchema is one datasheet value: a number (read in the unit of the
// requirement it is held against, and flagged unit_assumed), a string with
// its unit ("75 uA", "3.3V"), a {value, unit} pair, or any other string or
// boolean, recorded but never compared.
const specValueSchema = `{"anyOf":[
  {"type":"number"},
  {"type":"string","maxLength":200},
  {"type":"boolean"},
  {"type":"object","additionalProperties":false,"required":["value"],"properties":{"value":{"type":"number"},"unit":{"type":"string","maxLength":40}}}]}`

func recordComponentSelectionTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.record_component_selection", Name: "Record a component selection", Capability: "twin_write",
		Description: "Record the part chosen for a role in the design (name: the role, e.g. \"main buck regulator\"; choosing another part for the " +
			"same role is the next revision of the same BOM item) with its datasheet specs, and hold the specs against every typed requirement " +
			"in the project's current constraint sets. A requirement is held against this part when its metric names a spec key (ignoring case; " +
			"spaces and hyphens read as underscores: metric quiescent_current matches spec \"Quiescent Current\"), or when its target_node_type " +
			"is component, component_selection, bom or bom_item; an untyped requirement with no target_node_type is reported too. " +
			"The result's requirement_margins gives, per requirement, the spec converted to the requirement's unit, satisfied, and margin " +
			"(signed, in the requirement's unit: positive is slack, negative is overshoot; none for ==); violates names the requirements the " +
			"part does not meet; unchecked_requirements names the ones nothing could be computed for, with a reason (no_matching_spec, " +
			"spec_not_numeric, incompatible_units, requirement_not_bound). The selection is recorded even when it violates a requirement.",
		InputSchema: schema([]string{"name", "mpn"}, projectIDProp+`,
"name":{"type":"string","minLength":1,"maxLength":200,"description":"the role the part fills (\"main buck regulator\", \"IMU\"); the selection's item is keyed by it"},
"mpn":{"type":"string","minLength":1,"maxLength":100,"description":"the manufacturer part number chosen"},
"manufacturer":{"type":"string","maxLength":200},
"description":{"type":"string","maxLength":2000},
"datasheet_url":{"type":"string","maxLength":2000},
"quantity":{"type":"integer","minimum":1,"maximum":1000000,"description":"how many the design uses; 1 when not given"},
"for_item":{"type":"string","minLength":1,"description":"the item the part is chosen for: KEY, KEY@n or a node id (a board, an assembly, a CAD model)"},
"specs":{"type":"object","maxProperties":300,"description":"datasheet values by name, named like the requirements' metrics (quiescent_current, output_voltage, mass, unit_cost). Give the unit: \"75 uA\", \"3.3V\", \"$1.20\" or {\"value\":75,\"unit\":\"uA\"}. A bare number is compared as if in the requirement's unit and flagged unit_assumed.","additionalProperties":`+specValueSchema+`},
`+itemProps),
		Idempotent: true, TimeoutSeconds: 30}, recordComponentSelection}
}

// componentTargets are the target_node_types that name a chosen part.
var componentTargets = map[string]bool{"component": true, "component_selection": true, "bom": true, "bom_item": true}

// metricKey is how a requirement's metric and a spec key are matched:
// ignoring case, with spaces and hyphens read as underscores.
func metricKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' || r == '_' }), "_")
}

// requirementOperators a typed requirement may use.
var requirementOperators = map[string]bool{"<=": true, "<": true, ">=": true, ">": true, "==": true}

// unbound names what a requirement lacks before a value can be held
// against it: metric, operator, limit and unit.
func (c constraint) unbound() []string {
	var out []string
	if strings.TrimSpace(c.Metric) == "" {
		out = append(out, "metric")
	}
	if !requirementOperators[c.Operator] {
		out = append(out, "operator (one of <=, <, >=, >, ==)")
	}
	if c.Limit == nil {
		out = append(out, "limit")
	}
	if strings.TrimSpace(c.Unit) == "" {
		out = append(out, "unit")
	}
	return out
}

// judge holds a value, already in the requirement's unit, against a typed
// requirement. margin is signed in the requirement's unit (positive is
// slack); an == requirement has none and is met within a relative 1e-9.
func judge(c constraint, v float64) (satisfied bool, margin, marginPct *float64) {
	lim := *c.Limit
	var m float64
	switch c.Operator {
	case "<=":
		m, satisfied = lim-v, v <= lim
	case "<":
		m, satisfied = lim-v, v < lim
	case ">=":
		m, satisfied = v-lim, v >= lim
	case ">":
		m, satisfied = v-lim, v > lim
	default: // ==
		return units.Equal(v, lim), nil, nil
	}
	m = roundAt(m, math.Max(math.Abs(lim), math.Abs(v)))
	margin = &m
	if lim != 0 {
		p := units.RoundSig(m/math.Abs(lim)*100, 12)
		marginPct = &p
	}
	return satisfied, margin, marginPct
}

// roundAt rounds x to 12 significant digits of scale, so a difference of
// two rounded values carries no floating-point residue (3.6 - 3.3 is 0.3).
func roundAt(x, scale float64) float64 {
	if scale == 0 || x == 0 {
		return x
	}
	q := math.Pow(10, math.Floor(math.Log10(scale))-11)
	return units.RoundSig(math.Round(x/q)*q, 12)
}

// specReading is a spec value in a requirement's unit, or why it is not one.
type specReading struct {
	value       float64
	unitAssumed bool
	given       string // as written, when it was converted
	reason      string // an unchecked reason when it could not be read
	detail      string
}

// readSpec reads a spec value (as the tool takes it, or as stored) in unit.
func readSpec(raw any, unit string) specReading {
	var q units.Quantity
	switch v := raw.(type) {
	case float64:
		q = units.Quantity{Value: v}
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return specReading{reason: "spec_not_numeric", detail: err.Error()}
		}
		q = units.Quantity{Value: f}
	case string:
		parsed, err := units.Parse(v)
		if errors.Is(err, units.ErrUnknownUnit) {
			return specReading{reason: "incompatible_units", detail: fmt.Sprintf("spec %q: %v", v, err)}
		}
		if err != nil {
			return specReading{reason: "spec_not_numeric", detail: fmt.Sprintf("spec %q is not one number with a unit: %v", v, err)}
		}
		q = parsed
	case map[string]any:
		val, ok := v["value"].(float64)
		if !ok {
			return specReading{reason: "spec_not_numeric", detail: "spec object has no numeric value"}
		}
		u, _ := v["unit"].(string)
		q = units.Quantity{Value: val, Unit: strings.TrimSpace(u)}
	default:
		return specReading{reason: "spec_not_numeric", detail: fmt.Sprintf("spec is a %T, not a number", raw)}
	}
	if q.Unit == "" {
		// A bare number against a plain ratio is not an assumption.
		return specReading{value: q.Value, unitAssumed: !units.IsPlainRatio(unit)}
	}
	v, err := units.Convert(q.Value, q.Unit, unit)
	if err != nil {
		return specReading{reason: "incompatible_units", detail: fmt.Sprintf("spec %s cannot be compared to a limit in %s: %v", q, unit, err)}
	}
	r := specReading{value: v}
	if units.Normalize(q.Unit) != units.Normalize(unit) {
		r.given = q.String()
	}
	return r
}

// selectionCheck is a part's specs held against the current requirements.
type selectionCheck struct {
	Margins   []map[string]any
	Violates  []string
	Unchecked []map[string]any
	// sets are the constraint sets with a requirement that applied, by ref.
	sets map[string]string // ref -> node id
}

// indexSpecs maps each spec's metricKey to its key as given; two keys
// naming the same metric are an error.
func indexSpecs(specs map[string]any) (map[string]string, error) {
	idx := map[string]string{}
	keys := make([]string, 0, len(specs))
	for k := range specs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		mk := metricKey(k)
		if mk == "" {
			return nil, protocol.Refusal("specs has an empty key; name each spec like the metric it is held against (quiescent_current)")
		}
		if other, dup := idx[mk]; dup {
			return nil, protocol.Refusal("specs %q and %q name the same metric (%s); keep one", other, k, mk)
		}
		idx[mk] = k
	}
	return idx, nil
}

// appliesToSelection says whether a requirement is held against a part with these
// specs (see the tool's description for the rule).
func appliesToSelection(r setRequirement, idx map[string]string) bool {
	if _, ok := idx[metricKey(r.Metric)]; ok && r.Metric != "" {
		return true
	}
	target := metricKey(r.TargetNodeType)
	return componentTargets[target] || (target == "" && strings.TrimSpace(r.Metric) == "")
}

// checkSelection holds specs against requirements.
func checkSelection(reqs []setRequirement, specs map[string]any, idx map[string]string) selectionCheck {
	out := selectionCheck{Margins: []map[string]any{}, Violates: []string{}, Unchecked: []map[string]any{}, sets: map[string]string{}}
	for _, r := range reqs {
		if !appliesToSelection(r, idx) {
			continue
		}
		out.sets[r.set] = r.setNode
		unchecked := func(reason, detail string) map[string]any {
			u := map[string]any{"requirement": r.Name, "constraint_set": r.set, "reason": reason, "detail": detail}
			if r.Metric != "" {
				u["metric"] = r.Metric
			}
			out.Unchecked = append(out.Unchecked, u)
			return u
		}
		if missing := r.unbound(); len(missing) > 0 {
			u := unchecked("requirement_not_bound", "the requirement lacks "+strings.Join(missing, ", ")+
				"; revise the constraint set (twin.record_constraint_set) to type it")
			u["missing"] = missing
			continue
		}
		key, ok := idx[metricKey(r.Metric)]
		if !ok {
			unchecked("no_matching_spec", fmt.Sprintf("no spec is named %s; add it to specs to have it checked", r.Metric))
			continue
		}
		sr := readSpec(specs[key], r.Unit)
		if sr.reason != "" {
			u := unchecked(sr.reason, sr.detail)
			u["spec"] = key
			continue
		}
		row := marginRow(r, sr)
		row["spec"] = key
		out.Margins = append(out.Margins, row)
		if row["satisfied"] == false {
			out.Violates = append(out.Violates, r.Name)
		}
	}
	return out
}

// marginRow is a reading held against a typed requirement.
func marginRow(r setRequirement, sr specReading) map[string]any {
	sat, margin, pct := judge(r.constraint, sr.value)
	row := map[string]any{"requirement": r.Name, "constraint_set": r.set, "metric": r.Metric, "operator": r.Operator,
		"limit": *r.Limit, "unit": r.Unit, "spec_value": sr.value, "satisfied": sat}
	if margin != nil {
		row["margin"] = *margin
	}
	if pct != nil {
		row["margin_pct"] = *pct
	}
	if sr.unitAssumed {
		row["unit_assumed"] = true
	}
	if sr.given != "" {
		row["spec_as_given"] = sr.given
	}
	return row
}

func recordComponentSelection(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID    string         `json:"project_id"`
		Name         string         `json:"name"`
		MPN          string         `json:"mpn"`
		Manufacturer string         `json:"manufacturer"`
		Description  string         `json:"description"`
		DatasheetURL string         `json:"datasheet_url"`
		Quantity     *int           `json:"quantity"`
		ForItem      string         `json:"for_item"`
		Specs        map[string]any `json:"specs"`
		itemArgs
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	a.Name, a.MPN = strings.TrimSpace(a.Name), strings.TrimSpace(a.MPN)
	if a.Name == "" {
		return nil, protocol.Refusal("name is blank: name the role the part fills (\"main buck regulator\")")
	}
	if a.MPN == "" {
		return nil, protocol.Refusal("mpn is blank: give the manufacturer part number chosen")
	}
	qty := 1
	if a.Quantity != nil {
		if *a.Quantity < 1 {
			return nil, protocol.Refusal("quantity %d: a selection is used at least once", *a.Quantity)
		}
		qty = *a.Quantity
	}
	if a.Specs == nil {
		a.Specs = map[string]any{}
	}
	idx, err := indexSpecs(a.Specs)
	if err != nil {
		return nil, err
	}
	p, err := projectFor(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	props := map[string]any{"mpn": a.MPN, "quantity": qty, "specs": a.Specs}
	var links []twin.Link
	if a.ForItem != "" {
		n, err := resolveRef(ctx, b, p.ID, a.ForItem)
		if err != nil {
			return nil, fmt.Errorf("for_item %s: %w", a.ForItem, err)
		}
		if n.ItemKey == "" {
			return nil, protocol.Refusal("for_item %s: that is a %s record, not a revision of an item; name the board, assembly or part the component is for", a.ForItem, n.Type)
		}
		links = append(links, twin.Link{Type: twin.EdgeDependsOn, To: n.ID, Properties: map[string]any{"ref": n.Ref(), "as": "for_item"}})
		props["for_item"] = n.Ref()
	}
	reqs, err := currentRequirements(ctx, b, p.ID)
	if err != nil {
		return nil, err
	}
	check := checkSelection(reqs, a.Specs, idx)
	checked := sortedSetRefs(check.sets)
	for _, ref := range checked {
		links = append(links, twin.Link{Type: twin.EdgeConstrains, To: check.sets[ref], Properties: map[string]any{"ref": ref}})
	}
	if a.Manufacturer != "" {
		props["manufacturer"] = a.Manufacturer
	}
	if a.Description != "" {
		props["description"] = a.Description
	}
	if a.DatasheetURL != "" {
		props["datasheet_url"] = a.DatasheetURL
	}
	props["requirement_check"] = map[string]any{"checked_against": checked, "violates": check.Violates,
		"unchecked": len(check.Unchecked), "margins": len(check.Margins)}
	n, it, err := b.Store.CommitRevision(ctx, revisionWrite(ctx, p.ID, "component_selection", a.Name, a.itemArgs, props, links))
	if err != nil {
		return nil, err
	}
	out := written(n, it)
	out["project_id"] = p.ID
	out["mpn"] = a.MPN
	out["quantity"] = qty
	if a.Manufacturer != "" {
		out["manufacturer"] = a.Manufacturer
	}
	if ref, ok := props["for_item"]; ok {
		out["for_item"] = ref
	}
	out["checked_against"] = checked
	out["requirement_margins"] = check.Margins
	out["violates"] = check.Violates
	out["unchecked_requirements"] = check.Unchecked
	return out, nil
}

func sortedSetRefs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
