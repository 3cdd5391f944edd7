package digitaltwin

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/metaforge/metaforge/internal/units"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

// checkTools checks the project's requirements against what is recorded.
func checkTools() []tool { return []tool{constraintViolationsTool()} }

func constraintViolationsTool() tool {
	return tool{adapters.Manifest{ToolID: "twin.constraint_violations", Name: "Constraint violations", Capability: "twin_read",
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
		InputSchema: schema(nil, projectIDProp),
		Idempotent:  true, TimeoutSeconds: 30}, constraintViolations}
}

// setRequirement is a requirement with the constraint set revision it is in.
type setRequirement struct {
	constraint
	set     string // KEY@n
	setKey  string
	setNode string
}

// currentRequirements is every requirement in the head revision of each of
// the project's constraint sets, by set key and then as written.
func currentRequirements(ctx context.Context, b *Backend, projectID string) ([]setRequirement, error) {
	sets, err := headRevisions(ctx, b, projectID, "constraint_set")
	if err != nil {
		return nil, err
	}
	var out []setRequirement
	for _, n := range sets {
		cs, err := readConstraints(n)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			out = append(out, setRequirement{constraint: c, set: n.Ref(), setKey: n.ItemKey, setNode: n.ID})
		}
	}
	return out, nil
}

// readConstraints reads a constraint set revision's requirements, stored
// as a list or as its JSON text. Any other node states none.
func readConstraints(n twin.Node) ([]constraint, error) {
	if n.Type != "constraint_set" {
		return nil, nil
	}
	var raw []byte
	switch v := n.Properties["constraints"].(type) {
	case nil:
		return nil, nil
	case string:
		raw = []byte(v)
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	var out []constraint
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("constraint set %s: its constraints cannot be read: %w", n.Ref(), err)
	}
	return out, nil
}

// setRefs names the constraint set revisions requirements are in (KEY@n),
// once each, in order.
func setRefs(reqs []setRequirement) []string {
	refs := []string{}
	for _, r := range reqs {
		if len(refs) == 0 || refs[len(refs)-1] != r.set {
			refs = append(refs, r.set)
		}
	}
	return refs
}

// numberOf reads a stored number.
func numberOf(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// heldValue is one recorded value held against one requirement.
type heldValue struct {
	kind    string // evidence | component_selection | cad_model
	nodeID  string
	ref     string // the selection's or cad_model's KEY@n
	from    string // where on a cad_model the value came from
	spec    specReading
	given   string
	sat     bool
	margin  *float64
	pct     *float64
	stale   bool
	against []map[string]any
}

// violationInputs is what the project holds that requirements are checked against.
type violationInputs struct {
	ctx        context.Context
	b          *Backend
	evidence   []twin.Node
	selections []twin.Node
	cadModels  []twin.Node // the head revision of each cad_model item
	fresh      map[string]freshness
	verifies   map[string]map[string]bool // evidence id -> item keys (or node ids) it verifies
}

func (rc *violationInputs) freshness(id string) (freshness, error) {
	if f, ok := rc.fresh[id]; ok {
		return f, nil
	}
	f, err := staleness(rc.ctx, rc.b, id)
	if err != nil {
		return freshness{}, err
	}
	rc.fresh[id] = f
	return f, nil
}

// verifiesOther says whether evidence names the requirements it verifies
// and setKey's constraint set is not among them.
func (rc *violationInputs) verifiesOther(id, setKey string) (bool, error) {
	v, ok := rc.verifies[id]
	if !ok {
		ns, err := rc.b.Store.Neighbors(rc.ctx, id, twin.Outgoing, twin.EdgeVerifies)
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
func (rc *violationInputs) readings(r setRequirement) ([]heldValue, []string, error) {
	var out []heldValue
	var notes []string
	key := metricKey(r.Metric)
	for _, ev := range rc.evidence {
		m, _ := ev.Properties["metric"].(string)
		if metricKey(m) != key {
			continue
		}
		other, err := rc.verifiesOther(ev.ID, r.setKey)
		if err != nil {
			return nil, nil, err
		}
		if other {
			continue
		}
		v, ok := numberOf(ev.Properties["value"])
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
		rd := heldValue{kind: "evidence", nodeID: ev.ID, spec: specReading{value: inUnit}, stale: f.Stale, against: f.Against}
		if units.Normalize(unit) != units.Normalize(r.Unit) {
			rd.given = units.Quantity{Value: v, Unit: units.Normalize(unit)}.String()
		}
		out = append(out, rd)
	}
	for _, s := range rc.selections {
		specs, _ := s.Properties["specs"].(map[string]any)
		var specKey string
		for k := range specs {
			if metricKey(k) == key {
				specKey = k
				break
			}
		}
		if specKey == "" {
			continue
		}
		sr := readSpec(specs[specKey], r.Unit)
		if sr.reason != "" {
			notes = append(notes, fmt.Sprintf("a numeric %s spec on %s (%s: %s)", r.Metric, s.Ref(), sr.reason, sr.detail))
			continue
		}
		out = append(out, heldValue{kind: "component_selection", nodeID: s.ID, ref: s.Ref(), spec: sr, given: sr.given})
	}
	cad, cadNotes := rc.cadReadings(r)
	out, notes = append(out, cad...), append(notes, cadNotes...)
	for i := range out {
		out[i].sat, out[i].margin, out[i].pct = judge(r.constraint, out[i].spec.value)
	}
	return out, notes, nil
}

// decidingValue is the value that decides: the first failing one with the least
// margin, else the passing one with the least margin.
func decidingValue(rs []heldValue) heldValue {
	best := rs[0]
	for _, r := range rs[1:] {
		switch {
		case best.sat && !r.sat:
			best = r
		case best.sat == r.sat && r.margin != nil && best.margin != nil && *r.margin < *best.margin:
			best = r
		}
	}
	return best
}

// requirementStatus checks one requirement against what is recorded.
func (rc *violationInputs) requirementStatus(r setRequirement) (map[string]any, error) {
	row := map[string]any{"requirement": r.Name, "constraint_set": r.set, "metric": r.Metric, "operator": r.Operator,
		"limit": r.Limit, "unit": r.Unit}
	if missing := r.unbound(); len(missing) > 0 {
		row["status"] = "no_data"
		row["missing"] = missing
		row["detail"] = "the requirement is not typed, so nothing can check it: revise the constraint set (twin.record_constraint_set) " +
			"with metric, operator, limit and unit"
		return row, nil
	}
	rs, notes, err := rc.readings(r)
	if err != nil {
		return nil, err
	}
	var current, stale []heldValue
	for _, rd := range rs {
		if rd.stale {
			stale = append(stale, rd)
		} else {
			current = append(current, rd)
		}
	}
	if len(stale) > 0 {
		var list []map[string]any
		for _, rd := range stale {
			list = append(list, map[string]any{"node_id": rd.nodeID, "value": rd.spec.value, "stale_against": rd.against})
		}
		row["stale_evidence"] = list
	}
	show := func(rd heldValue) {
		row["value"] = rd.spec.value
		row["satisfied"] = rd.sat
		if rd.margin != nil {
			row["margin"] = *rd.margin
		}
		if rd.pct != nil {
			row["margin_pct"] = *rd.pct
		}
		if rd.spec.unitAssumed {
			row["unit_assumed"] = true
		}
		src := map[string]any{"kind": rd.kind, "node_id": rd.nodeID}
		if rd.ref != "" {
			src["item_ref"] = rd.ref
		}
		if rd.given != "" {
			src["as_recorded"] = rd.given
		}
		if rd.from != "" {
			src["property"] = rd.from
		}
		row["source"] = src
	}
	switch {
	case len(current) > 0:
		evidence, selections, cadModels := []string{}, []string{}, []string{}
		for _, rd := range current {
			switch rd.kind {
			case "evidence":
				evidence = append(evidence, rd.nodeID)
			case "cad_model":
				cadModels = append(cadModels, rd.ref)
			default:
				selections = append(selections, rd.ref)
			}
		}
		row["evidence"], row["selections"], row["cad_models"] = evidence, selections, cadModels
		w := decidingValue(current)
		show(w)
		row["status"] = "pass"
		if !w.sat {
			row["status"] = "fail"
		}
	case len(stale) > 0:
		show(stale[len(stale)-1])
		row["status"] = "stale"
		row["detail"] = "every value for this requirement was computed against a revision that has since been replaced; " +
			"rerun it against the current revision and record the evidence again"
	default:
		row["status"] = "no_data"
		alt := fmt.Sprintf("a component selection with a %s spec", r.Metric)
		if hint := cadHint(r.Metric); hint != "" {
			alt += ", or " + hint
		}
		row["missing"] = append([]string{fmt.Sprintf("evidence with metric %s and a value in %s (or %s)", r.Metric, r.Unit, alt)}, notes...)
	}
	if len(notes) > 0 && row["status"] != "no_data" {
		row["not_compared"] = notes
	}
	return row, nil
}

func constraintViolations(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	p, err := scopedProject(ctx, b, raw)
	if err != nil {
		return nil, err
	}
	return requirementsReport(ctx, b, p)
}

// requirementsReport is every current requirement of a project with its
// live status (pass, fail, stale, no_data): what twin.constraint_violations
// returns, for anything else that shows requirement status.
func requirementsReport(ctx context.Context, b *Backend, p twin.Project) (map[string]any, error) {
	reqs, err := currentRequirements(ctx, b, p.ID)
	if err != nil {
		return nil, err
	}
	evidence, err := b.Store.NodesByType(ctx, p.ID, "evidence")
	if err != nil {
		return nil, err
	}
	selections, err := headRevisions(ctx, b, p.ID, "component_selection")
	if err != nil {
		return nil, err
	}
	cadModels, err := headRevisions(ctx, b, p.ID, "cad_model")
	if err != nil {
		return nil, err
	}
	rc := &violationInputs{ctx: ctx, b: b, evidence: evidence, selections: selections, cadModels: cadModels, fresh: map[string]freshness{},
		verifies: map[string]map[string]bool{}}
	rows, violations := []map[string]any{}, []map[string]any{}
	counts := map[string]int{"pass": 0, "fail": 0, "no_data": 0, "stale": 0}
	for _, r := range reqs {
		row, err := rc.requirementStatus(r)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
		st := row["status"].(string)
		counts[st]++
		if st == "fail" {
			violations = append(violations, row)
		}
	}
	out := map[string]any{
		"project_id":      p.ID,
		"checked_against": setRefs(reqs),
		"requirements":    rows,
		"violations":      violations,
		"summary": map[string]any{"requirements": len(rows), "pass": counts["pass"], "fail": counts["fail"],
			"no_data": counts["no_data"], "stale": counts["stale"]},
		"all_pass": len(rows) > 0 && counts["pass"] == len(rows),
	}
	if len(rows) == 0 {
		out["note"] = "no requirements are recorded in this project, so nothing was checked (and nothing passed): record them with twin.record_constraint_set"
	}
	return out, nil
}

// Verdicts of one evidence value against one requirement.
const (
	verdictSatisfies   = "satisfies"
	verdictViolates    = "violates"
	verdictNotCompared = "not_compared"
)

// evidenceCheck is one evidence value checked against one requirement.
type evidenceCheck struct {
	c       constraint
	metric  string
	value   float64
	unit    string
	verdict string
}

func (ck evidenceCheck) limit() string {
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", ck.c.Operator, units.Format(*ck.c.Limit), ck.c.Unit))
}

func (ck evidenceCheck) measured() string {
	return strings.TrimSpace(fmt.Sprintf("%s = %s %s", ck.metric, units.Format(ck.value), ck.unit))
}

func (ck evidenceCheck) entry() map[string]any {
	return map[string]any{"requirement": ck.c.Name, "limit": ck.limit(), "verdict": ck.verdict}
}

// checkEvidence checks an evidence value against each typed requirement in
// scope that measures the same metric. Evidence without a metric and value,
// or requirements without metric, operator and limit, are not checked.
func checkEvidence(ev twin.Node, scope []constraint) []evidenceCheck {
	metric, _ := ev.Properties["metric"].(string)
	value, hasValue := numberOf(ev.Properties["value"])
	unit, _ := ev.Properties["unit"].(string)
	if metric == "" || !hasValue {
		return nil
	}
	var out []evidenceCheck
	for _, c := range scope {
		if c.Metric == "" || c.Operator == "" || c.Limit == nil || metricKey(c.Metric) != metricKey(metric) {
			continue
		}
		ck := evidenceCheck{c: c, metric: metric, value: value, unit: unit}
		ok, comparable := satisfies(value, unit, c)
		switch {
		case !comparable:
			ck.verdict = verdictNotCompared
		case ok:
			ck.verdict = verdictSatisfies
		default:
			ck.verdict = verdictViolates
		}
		out = append(out, ck)
	}
	return out
}

// satisfies holds a value against a typed requirement as
// twin.constraint_violations does: converted to the requirement's unit,
// then judged. A value and a limit that both have no unit are compared as
// they are. comparable is false when the units do not convert, or the
// operator is not one a requirement may use.
func satisfies(value float64, unit string, c constraint) (ok, comparable bool) {
	if !requirementOperators[c.Operator] {
		return false, false
	}
	if strings.TrimSpace(unit) != "" || strings.TrimSpace(c.Unit) != "" {
		v, err := units.Convert(value, unit, c.Unit)
		if err != nil {
			return false, false
		}
		value = v
	}
	ok, _, _ = judge(c, value)
	return ok, true
}
