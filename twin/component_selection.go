package twin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// A component selection is the part chosen for a role in the design, with
// its datasheet specs, held against every typed requirement in the
// project's current constraint sets. A requirement is held against the
// part when its metric names a spec key (by MetricKey), or when its
// target_node_type names a chosen part; an untyped requirement with no
// target_node_type is reported too.

// componentTargets are the target_node_types that name a chosen part.
var componentTargets = map[string]bool{"component": true, "component_selection": true, "bom": true, "bom_item": true}

// SpecReading is a spec value in a requirement's unit, or why it is not
// one.
type SpecReading struct {
	Value float64
	// UnitAssumed: a bare number read as if in the requirement's unit.
	UnitAssumed bool
	// Given is the spec as written, when it was converted.
	Given string
	// Reason (spec_not_numeric, incompatible_units) and Detail say why
	// the spec could not be read; Reason is "" when it could.
	Reason, Detail string
}

// ReadSpec reads a spec value (as a caller gives it, or as stored) in
// unit: a number, a string with its unit ("75 uA"), or {value, unit}.
func ReadSpec(raw any, unit string) SpecReading {
	var q units.Quantity
	switch v := raw.(type) {
	case float64:
		q = units.Quantity{Value: v}
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return SpecReading{Reason: "spec_not_numeric", Detail: err.Error()}
		}
		q = units.Quantity{Value: f}
	case string:
		parsed, err := units.Parse(v)
		if errors.Is(err, units.ErrUnknownUnit) {
			return SpecReading{Reason: "incompatible_units", Detail: fmt.Sprintf("spec %q: %v", v, err)}
		}
		if err != nil {
			return SpecReading{Reason: "spec_not_numeric", Detail: fmt.Sprintf("spec %q is not one number with a unit: %v", v, err)}
		}
		q = parsed
	case map[string]any:
		val, ok := v["value"].(float64)
		if !ok {
			return SpecReading{Reason: "spec_not_numeric", Detail: "spec object has no numeric value"}
		}
		u, _ := v["unit"].(string)
		q = units.Quantity{Value: val, Unit: strings.TrimSpace(u)}
	default:
		return SpecReading{Reason: "spec_not_numeric", Detail: fmt.Sprintf("spec is a %T, not a number", raw)}
	}
	if q.Unit == "" {
		// A bare number against a plain ratio is not an assumption.
		return SpecReading{Value: q.Value, UnitAssumed: !units.IsPlainRatio(unit)}
	}
	v, err := units.Convert(q.Value, q.Unit, unit)
	if err != nil {
		return SpecReading{Reason: "incompatible_units", Detail: fmt.Sprintf("spec %s cannot be compared to a limit in %s: %v", q, unit, err)}
	}
	r := SpecReading{Value: v}
	if units.Normalize(q.Unit) != units.Normalize(unit) {
		r.Given = q.String()
	}
	return r
}

// SpecMargin is a spec held against a typed requirement.
type SpecMargin struct {
	SetRequirement
	// Spec is the spec's key as given.
	Spec string
	SpecReading
	Satisfied         bool
	Margin, MarginPct *float64
}

// UncheckedRequirement is a requirement that applied to a part but could
// not be checked: Reason is requirement_not_bound (Missing says what it
// lacks), no_matching_spec, spec_not_numeric or incompatible_units.
type UncheckedRequirement struct {
	SetRequirement
	Reason, Detail string
	Missing        []string
	// Spec is the spec that could not be read, if one was.
	Spec string
}

// SelectionCheck is a part's specs held against the current requirements.
type SelectionCheck struct {
	Margins   []SpecMargin
	Violates  []string
	Unchecked []UncheckedRequirement
	// Sets are the constraint sets with a requirement that applied: node
	// id by KEY@n.
	Sets map[string]string
}

// CheckedAgainst is the constraint set revisions that applied, sorted.
func (c SelectionCheck) CheckedAgainst() []string {
	out := make([]string, 0, len(c.Sets))
	for k := range c.Sets {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// indexSpecs maps each spec's MetricKey to its key as given; two keys
// naming the same metric are refused.
func indexSpecs(specs map[string]any) (map[string]string, error) {
	idx := map[string]string{}
	keys := make([]string, 0, len(specs))
	for k := range specs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		mk := MetricKey(k)
		if mk == "" {
			return nil, Refusef("specs has an empty key; name each spec like the metric it is held against (quiescent_current)")
		}
		if other, dup := idx[mk]; dup {
			return nil, Refusef("specs %q and %q name the same metric (%s); keep one", other, k, mk)
		}
		idx[mk] = k
	}
	return idx, nil
}

// appliesToSelection says whether a requirement is held against a part
// with these specs.
func appliesToSelection(r SetRequirement, idx map[string]string) bool {
	if _, ok := idx[MetricKey(r.Metric)]; ok && r.Metric != "" {
		return true
	}
	target := MetricKey(r.TargetNodeType)
	return componentTargets[target] || (target == "" && strings.TrimSpace(r.Metric) == "")
}

// CheckSelection holds specs against requirements. Two spec keys naming
// one metric are refused.
func CheckSelection(reqs []SetRequirement, specs map[string]any) (SelectionCheck, error) {
	idx, err := indexSpecs(specs)
	if err != nil {
		return SelectionCheck{}, err
	}
	out := SelectionCheck{Margins: []SpecMargin{}, Violates: []string{}, Unchecked: []UncheckedRequirement{}, Sets: map[string]string{}}
	for _, r := range reqs {
		if !appliesToSelection(r, idx) {
			continue
		}
		out.Sets[r.Set] = r.SetNode
		if missing := r.Unbound(); len(missing) > 0 {
			out.Unchecked = append(out.Unchecked, UncheckedRequirement{SetRequirement: r, Reason: "requirement_not_bound",
				Detail:  "the requirement lacks " + strings.Join(missing, ", ") + "; revise the constraint set (twin.record_constraint_set) to type it",
				Missing: missing})
			continue
		}
		key, ok := idx[MetricKey(r.Metric)]
		if !ok {
			out.Unchecked = append(out.Unchecked, UncheckedRequirement{SetRequirement: r, Reason: "no_matching_spec",
				Detail: fmt.Sprintf("no spec is named %s; add it to specs to have it checked", r.Metric)})
			continue
		}
		sr := ReadSpec(specs[key], r.Unit)
		if sr.Reason != "" {
			out.Unchecked = append(out.Unchecked, UncheckedRequirement{SetRequirement: r, Reason: sr.Reason, Detail: sr.Detail, Spec: key})
			continue
		}
		m := SpecMargin{SetRequirement: r, Spec: key, SpecReading: sr}
		m.Satisfied, m.Margin, m.MarginPct = r.Judge(sr.Value)
		out.Margins = append(out.Margins, m)
		if !m.Satisfied {
			out.Violates = append(out.Violates, r.Name)
		}
	}
	return out, nil
}

// SelectionWrite is a component selection to record.
type SelectionWrite struct {
	ProjectID string
	// Name is the role the part fills; MPN the part chosen.
	Name, MPN                               string
	Manufacturer, Description, DatasheetURL string
	// Quantity is how many the design uses; nil is 1.
	Quantity *int
	// ForItem is the item the part is chosen for: KEY, KEY@n or a node id.
	ForItem string
	Specs   map[string]any
	WriteInfo
}

// Check refuses a selection with no role, no part, a quantity below one,
// or two specs naming one metric, before anything is read.
func (w SelectionWrite) Check() error {
	if strings.TrimSpace(w.Name) == "" {
		return Refusef("name is blank: name the role the part fills (\"main buck regulator\")")
	}
	if strings.TrimSpace(w.MPN) == "" {
		return Refusef("mpn is blank: give the manufacturer part number chosen")
	}
	if w.Quantity != nil && *w.Quantity < 1 {
		return Refusef("quantity %d: a selection is used at least once", *w.Quantity)
	}
	_, err := indexSpecs(w.Specs)
	return err
}

// Selection is a recorded component selection and how its specs held.
type Selection struct {
	Node     Node
	Item     Item
	Quantity int
	// ForItem is the KEY@n it is for, or "".
	ForItem string
	Check   SelectionCheck
}

// RecordComponentSelection records the part chosen for a role as the next
// revision of the role's BOM item, DEPENDS_ON the item it is for and
// CONSTRAINED_BY each constraint set a requirement applied from, with its
// specs held against the current requirements. It is recorded even when
// it violates one.
func RecordComponentSelection(ctx context.Context, s Store, w SelectionWrite) (Selection, error) {
	w.Name, w.MPN = strings.TrimSpace(w.Name), strings.TrimSpace(w.MPN)
	if w.Specs == nil {
		w.Specs = map[string]any{}
	}
	if err := w.Check(); err != nil {
		return Selection{}, err
	}
	sel := Selection{Quantity: 1}
	if w.Quantity != nil {
		sel.Quantity = *w.Quantity
	}
	props := map[string]any{"mpn": w.MPN, "quantity": sel.Quantity, "specs": w.Specs}
	var links []Link
	if w.ForItem != "" {
		n, err := ResolveRef(ctx, s, w.ProjectID, w.ForItem)
		if err != nil {
			return Selection{}, fmt.Errorf("for_item %s: %w", w.ForItem, err)
		}
		if n.ItemKey == "" {
			return Selection{}, Refusef("for_item %s: that is a %s record, not a revision of an item; name the board, assembly or part the component is for", w.ForItem, n.Type)
		}
		links = append(links, Link{Type: EdgeDependsOn, To: n.ID, Properties: map[string]any{"ref": n.Ref(), "as": "for_item"}})
		sel.ForItem = n.Ref()
		props["for_item"] = sel.ForItem
	}
	reqs, err := CurrentRequirements(ctx, s, w.ProjectID)
	if err != nil {
		return Selection{}, err
	}
	if sel.Check, err = CheckSelection(reqs, w.Specs); err != nil {
		return Selection{}, err
	}
	checked := sel.Check.CheckedAgainst()
	for _, ref := range checked {
		links = append(links, Link{Type: EdgeConstrains, To: sel.Check.Sets[ref], Properties: map[string]any{"ref": ref}})
	}
	if w.Manufacturer != "" {
		props["manufacturer"] = w.Manufacturer
	}
	if w.Description != "" {
		props["description"] = w.Description
	}
	if w.DatasheetURL != "" {
		props["datasheet_url"] = w.DatasheetURL
	}
	props["requirement_check"] = map[string]any{"checked_against": checked, "violates": sel.Check.Violates,
		"unchecked": len(sel.Check.Unchecked), "margins": len(sel.Check.Margins)}
	sel.Node, sel.Item, err = s.CommitRevision(ctx, w.Revision(w.ProjectID, "component_selection", w.Name, props, links))
	if err != nil {
		return Selection{}, err
	}
	return sel, nil
}
