package twin

import (
	"context"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// Requirement status: every requirement in a project's current constraint
// sets (the head revision of each), held against what is recorded:
// evidence with its metric and a value with a unit (only for that
// constraint set when the evidence names the requirements it verifies),
// the current component selections with a spec of that name, and the
// committed geometry (the head revision of each cad_model, never stale).
// Each is pass, fail, stale (the only values describe an older revision of
// what they were pinned to) or no_data. No data is not a pass.

// Requirement statuses.
const (
	StatusPass   = "pass"
	StatusFail   = "fail"
	StatusStale  = "stale"
	StatusNoData = "no_data"
)

// SetRequirement is a requirement with the constraint set revision it is
// in.
type SetRequirement struct {
	Constraint
	// Set is the revision's KEY@n, SetKey its item key, SetNode its node
	// id.
	Set, SetKey, SetNode string
}

// CurrentRequirements is every requirement in the head revision of each of
// the project's constraint sets, by set key and then as written.
func CurrentRequirements(ctx context.Context, s Store, projectID string) ([]SetRequirement, error) {
	sets, err := HeadRevisions(ctx, s, projectID, "constraint_set")
	if err != nil {
		return nil, err
	}
	var out []SetRequirement
	for _, n := range sets {
		cs, err := ReadConstraints(n)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			out = append(out, SetRequirement{Constraint: c, Set: n.Ref(), SetKey: n.ItemKey, SetNode: n.ID})
		}
	}
	return out, nil
}

// SetRefs names the constraint set revisions requirements are in (KEY@n),
// once each, in order.
func SetRefs(reqs []SetRequirement) []string {
	refs := []string{}
	for _, r := range reqs {
		if len(refs) == 0 || refs[len(refs)-1] != r.Set {
			refs = append(refs, r.Set)
		}
	}
	return refs
}

// HeldValue is one recorded value held against one requirement.
type HeldValue struct {
	// Kind is evidence, component_selection or cad_model.
	Kind   string
	NodeID string
	// Ref is the selection's or cad_model's KEY@n; From where on a
	// cad_model the value came from.
	Ref, From string
	// Value is in the requirement's unit; UnitAssumed when a bare number
	// was read as if in it; Given is the value as recorded, when it was
	// converted.
	Value       float64
	UnitAssumed bool
	Given       string
	Satisfied   bool
	// Margin is signed in the requirement's unit (positive is slack);
	// none for ==. MarginPct is it as a percent of the limit.
	Margin, MarginPct *float64
	// Stale evidence describes an older revision of what it was pinned
	// to (Against).
	Stale   bool
	Against []StalePin
}

// RequirementStatus is one requirement's live status.
type RequirementStatus struct {
	SetRequirement
	// Status is pass, fail, stale or no_data.
	Status string
	// Missing says what a no_data requirement needs; Detail why it is
	// no_data or stale.
	Missing []string
	Detail  string
	// StaleValues are the values computed against replaced revisions.
	StaleValues []HeldValue
	// Shown is the value the status rests on: the deciding current value
	// (the worst), else the last stale one; nil for no_data.
	Shown *HeldValue
	// Evidence (node ids), Selections and CadModels (KEY@n) are the
	// current values' sources; nil unless there is a current value.
	Evidence, Selections, CadModels []string
	// NotCompared are values that name the metric but could not be held
	// against it, for a requirement that has a status other than no_data.
	NotCompared []string
}

// RequirementSummary counts a report's statuses.
type RequirementSummary struct {
	Requirements, Pass, Fail, NoData, Stale int
}

// RequirementsReport is every current requirement of a project with its
// live status.
type RequirementsReport struct {
	ProjectID string
	// CheckedAgainst are the constraint set revisions read (KEY@n).
	CheckedAgainst []string
	Requirements   []RequirementStatus
	Summary        RequirementSummary
	// AllPass is true only when there are requirements and every one
	// passed.
	AllPass bool
	// Note says why an empty report passed nothing.
	Note string
}

// Violations are the requirements that failed, in order.
func (r RequirementsReport) Violations() []RequirementStatus {
	out := []RequirementStatus{}
	for _, row := range r.Requirements {
		if row.Status == StatusFail {
			out = append(out, row)
		}
	}
	return out
}

// Requirements is every current requirement of a project with its live
// status (pass, fail, stale, no_data).
func Requirements(ctx context.Context, s Store, projectID string) (RequirementsReport, error) {
	reqs, err := CurrentRequirements(ctx, s, projectID)
	if err != nil {
		return RequirementsReport{}, err
	}
	evidence, err := s.NodesByType(ctx, projectID, "evidence")
	if err != nil {
		return RequirementsReport{}, err
	}
	selections, err := HeadRevisions(ctx, s, projectID, "component_selection")
	if err != nil {
		return RequirementsReport{}, err
	}
	cadModels, err := HeadRevisions(ctx, s, projectID, "cad_model")
	if err != nil {
		return RequirementsReport{}, err
	}
	rc := &recorded{ctx: ctx, s: s, evidence: evidence, selections: selections, cadModels: cadModels, fresh: map[string]Freshness{},
		verifies: map[string]map[string]bool{}}
	rep := RequirementsReport{ProjectID: projectID, CheckedAgainst: SetRefs(reqs), Requirements: []RequirementStatus{}}
	for _, r := range reqs {
		row, err := rc.status(r)
		if err != nil {
			return RequirementsReport{}, err
		}
		rep.Requirements = append(rep.Requirements, row)
		switch row.Status {
		case StatusPass:
			rep.Summary.Pass++
		case StatusFail:
			rep.Summary.Fail++
		case StatusStale:
			rep.Summary.Stale++
		default:
			rep.Summary.NoData++
		}
	}
	rep.Summary.Requirements = len(rep.Requirements)
	rep.AllPass = len(rep.Requirements) > 0 && rep.Summary.Pass == len(rep.Requirements)
	if len(rep.Requirements) == 0 {
		rep.Note = "no requirements are recorded in this project, so nothing was checked (and nothing passed): record them with twin.record_constraint_set"
	}
	return rep, nil
}

// recorded is what the project holds that requirements are checked
// against, with what has been read of it so far.
type recorded struct {
	ctx        context.Context
	s          Store
	evidence   []Node
	selections []Node
	cadModels  []Node // the head revision of each cad_model item
	fresh      map[string]Freshness
	verifies   map[string]map[string]bool // evidence id -> item keys (or node ids) it verifies
}

func (rc *recorded) freshness(id string) (Freshness, error) {
	if f, ok := rc.fresh[id]; ok {
		return f, nil
	}
	f, err := Staleness(rc.ctx, rc.s, id)
	if err != nil {
		return Freshness{}, err
	}
	rc.fresh[id] = f
	return f, nil
}

// verifiesOther says whether evidence names the requirements it verifies
// and setKey's constraint set is not among them.
func (rc *recorded) verifiesOther(id, setKey string) (bool, error) {
	v, ok := rc.verifies[id]
	if !ok {
		ns, err := rc.s.Neighbors(rc.ctx, id, Outgoing, EdgeVerifies)
		if err != nil {
			return false, err
		}
		v = map[string]bool{}
		for _, n := range ns {
			if n.Node.ItemKey != "" {
				v[n.Node.ItemKey] = true
			} else {
				v[n.Node.ID] = true
			}
		}
		rc.verifies[id] = v
	}
	return len(v) > 0 && !v[setKey], nil
}

// readings collects every recorded value for a typed requirement, and notes
// the ones that name its metric but cannot be compared.
func (rc *recorded) readings(r SetRequirement) ([]HeldValue, []string, error) {
	var out []HeldValue
	var notes []string
	key := MetricKey(r.Metric)
	for _, ev := range rc.evidence {
		m, _ := ev.Properties["metric"].(string)
		if MetricKey(m) != key {
			continue
		}
		other, err := rc.verifiesOther(ev.ID, r.SetKey)
		if err != nil {
			return nil, nil, err
		}
		if other {
			continue
		}
		v, ok := NumberOf(ev.Properties["value"])
		if !ok {
			notes = append(notes, fmt.Sprintf("a value on evidence %s", ev.ID))
			continue
		}
		unit, _ := ev.Properties["unit"].(string)
		if strings.TrimSpace(unit) == "" {
			notes = append(notes, fmt.Sprintf("a unit on evidence %s (its value %g cannot be compared to a limit in %s)", ev.ID, v, r.Unit))
			continue
		}
		inUnit, err := units.Convert(v, unit, r.Unit)
		if err != nil {
			notes = append(notes, fmt.Sprintf("evidence %s in a unit comparable to %s (%v)", ev.ID, r.Unit, err))
			continue
		}
		f, err := rc.freshness(ev.ID)
		if err != nil {
			return nil, nil, err
		}
		rd := HeldValue{Kind: "evidence", NodeID: ev.ID, Value: inUnit, Stale: f.Stale, Against: f.Against}
		if units.Normalize(unit) != units.Normalize(r.Unit) {
			rd.Given = units.Quantity{Value: v, Unit: units.Normalize(unit)}.String()
		}
		out = append(out, rd)
	}
	for _, s := range rc.selections {
		specs, _ := s.Properties["specs"].(map[string]any)
		var specKey string
		for k := range specs {
			if MetricKey(k) == key {
				specKey = k
				break
			}
		}
		if specKey == "" {
			continue
		}
		sr := ReadSpec(specs[specKey], r.Unit)
		if sr.Reason != "" {
			notes = append(notes, fmt.Sprintf("a numeric %s spec on %s (%s: %s)", r.Metric, s.Ref(), sr.Reason, sr.Detail))
			continue
		}
		out = append(out, HeldValue{Kind: "component_selection", NodeID: s.ID, Ref: s.Ref(), Value: sr.Value, UnitAssumed: sr.UnitAssumed,
			Given: sr.Given})
	}
	cad, cadNotes := rc.cadReadings(r)
	out, notes = append(out, cad...), append(notes, cadNotes...)
	for i := range out {
		out[i].Satisfied, out[i].Margin, out[i].MarginPct = r.Judge(out[i].Value)
	}
	return out, notes, nil
}

// cadReadings is what the committed cad_models give for a typed
// requirement, converted to its unit, and notes on the ones that name its
// metric but cannot be compared.
func (rc *recorded) cadReadings(r SetRequirement) ([]HeldValue, []string) {
	key := MetricKey(r.Metric)
	if _, ok := cadMetrics[key]; !ok {
		return nil, nil
	}
	var out []HeldValue
	var notes []string
	for _, n := range rc.cadModels {
		v, ok, note := CadModelValue(n, key)
		if note != "" {
			notes = append(notes, note)
		}
		if !ok {
			continue
		}
		inUnit, err := units.Convert(v.Value, v.Unit, r.Unit)
		if err != nil {
			notes = append(notes, fmt.Sprintf("cad_model %s's %s in a unit comparable to %s (%v)", n.Ref(), v.From, r.Unit, err))
			continue
		}
		rd := HeldValue{Kind: "cad_model", NodeID: n.ID, Ref: n.Ref(), From: v.From, Value: inUnit}
		if units.Normalize(v.Unit) != units.Normalize(r.Unit) {
			rd.Given = units.Quantity{Value: v.Value, Unit: units.Normalize(v.Unit)}.String()
		}
		out = append(out, rd)
	}
	return out, notes
}

// decidingValue is the value that decides: the first failing one with the
// least margin, else the passing one with the least margin.
func decidingValue(rs []HeldValue) HeldValue {
	best := rs[0]
	for _, r := range rs[1:] {
		switch {
		case best.Satisfied && !r.Satisfied:
			best = r
		case best.Satisfied == r.Satisfied && r.Margin != nil && best.Margin != nil && *r.Margin < *best.Margin:
			best = r
		}
	}
	return best
}

// status checks one requirement against what is recorded.
func (rc *recorded) status(r SetRequirement) (RequirementStatus, error) {
	row := RequirementStatus{SetRequirement: r}
	if missing := r.Unbound(); len(missing) > 0 {
		row.Status = StatusNoData
		row.Missing = missing
		row.Detail = "the requirement is not typed, so nothing can check it: revise the constraint set (twin.record_constraint_set) " +
			"with metric, operator, limit and unit"
		return row, nil
	}
	rs, notes, err := rc.readings(r)
	if err != nil {
		return RequirementStatus{}, err
	}
	var current []HeldValue
	for _, rd := range rs {
		if rd.Stale {
			row.StaleValues = append(row.StaleValues, rd)
		} else {
			current = append(current, rd)
		}
	}
	switch {
	case len(current) > 0:
		row.Evidence, row.Selections, row.CadModels = []string{}, []string{}, []string{}
		for _, rd := range current {
			switch rd.Kind {
			case "evidence":
				row.Evidence = append(row.Evidence, rd.NodeID)
			case "cad_model":
				row.CadModels = append(row.CadModels, rd.Ref)
			default:
				row.Selections = append(row.Selections, rd.Ref)
			}
		}
		w := decidingValue(current)
		row.Shown = &w
		row.Status = StatusPass
		if !w.Satisfied {
			row.Status = StatusFail
		}
	case len(row.StaleValues) > 0:
		last := row.StaleValues[len(row.StaleValues)-1]
		row.Shown = &last
		row.Status = StatusStale
		row.Detail = "every value for this requirement was computed against a revision that has since been replaced; " +
			"rerun it against the current revision and record the evidence again"
	default:
		row.Status = StatusNoData
		alt := fmt.Sprintf("a component selection with a %s spec", r.Metric)
		if hint := CadHint(r.Metric); hint != "" {
			alt += ", or " + hint
		}
		row.Missing = append([]string{fmt.Sprintf("evidence with metric %s and a value in %s (or %s)", r.Metric, r.Unit, alt)}, notes...)
	}
	if len(notes) > 0 && row.Status != StatusNoData {
		row.NotCompared = notes
	}
	return row, nil
}
