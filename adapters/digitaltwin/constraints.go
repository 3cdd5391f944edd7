package digitaltwin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/metaforge/metaforge/internal/units"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/twin"
)

// constraintTools is the constraint adapter: checks on requirements before
// they are recorded.
func constraintTools() []tool { return []tool{validateConstraintsTool()} }

// constraintItemSchema is one requirement, as twin.record_constraint_set
// takes it.
const constraintItemSchema = `{"type":"object","additionalProperties":false,"required":["name"],"properties":{
  "name":{"type":"string","minLength":1},
  "description":{"type":"string"},
  "metric":{"type":"string","description":"what is measured: tip_deflection, mass, max_von_mises, safety_factor, quiescent_current..."},
  "operator":{"type":"string","enum":["<=","<",">=",">","=="]},
  "limit":{"type":"number"},
  "unit":{"type":"string","description":"the limit's unit: mm, kg, MPa, uA, V, °C, %, $, 1 for a plain ratio"},
  "expression":{"type":"string","description":"a free-form condition, when metric+limit cannot say it"},
  "target_node_type":{"type":"string","description":"what the requirement applies to: cad_model, simulation_result, component..."},
  "verification_method":{"type":"string","enum":["analysis","test","inspection","demonstration","simulation"]},
  "acceptance_criteria":{"type":"string"}}}`

func validateConstraintsTool() tool {
	return tool{adapters.Manifest{ToolID: "constraint.validate", Name: "Validate requirements", Capability: "twin_read",
		Description: "Check a proposed constraint set before recording it with twin.record_constraint_set. Writes nothing. Per requirement: " +
			"checkable (metric, operator, limit and a unit this server reads, so twin.constraint_violations can check it), missing (what " +
			"record_constraint_set's incomplete would name), and issues: a unit that does not read, a unit that does not measure what the " +
			"metric names, a limit no value can meet (mass <= -1 kg, below absolute zero), an exact == bound. Also duplicates (two requirements " +
			"with one name, which record_constraint_set refuses, or two bounds on one metric from the same side) and conflicts: contradictory " +
			"bounds on one metric (<= 1 kg and >= 2 kg) within the set and, when there is a project (project_id or the session's), against the " +
			"project's current constraint sets. Name the set (name or item_key) so its own current revision, which this would replace, is " +
			"not counted as a conflict. valid is false when record_constraint_set would refuse the set, a unit does not read, a requirement " +
			"can never be met, or two requirements conflict.",
		InputSchema: schema([]string{"constraints"}, `"project_id":{"type":"string","description":"the project whose current constraint sets to check for conflicts; defaults to the session's; with neither, only the set itself is checked"},
"name":{"type":"string","maxLength":200,"description":"the constraint set's name, as it would be recorded: its current revision is what this would replace, so it is not checked for conflicts"},
"item_key":{"type":"string","maxLength":200,"description":"the constraint set item this would revise (CS-...), when not found by name"},
"constraints":{"type":"array","minItems":1,"maxItems":500,"items":`+constraintItemSchema+`}`),
		Idempotent: true, TimeoutSeconds: 30}, validateConstraints}
}

// Severities of a finding: an error makes the set invalid.
const (
	findingError   = "error"
	findingWarning = "warning"
	findingInfo    = "info"
)

func constraintFinding(code, severity, format string, args ...any) map[string]any {
	return map[string]any{"code": code, "severity": severity, "message": fmt.Sprintf(format, args...)}
}

// metricDimensionHints say what a metric named with one of these words
// measures, first match first. An empty dimension means: do not guess.
var metricDimensionHints = []struct {
	phrases []string
	dim     string
}{
	{[]string{"thermal_resistance", "thermal_impedance"}, ""},
	{[]string{"von_mises", "stress", "strength", "pressure", "modulus"}, units.Pressure},
	{[]string{"safety_factor", "factor_of_safety", "efficiency", "ratio", "duty_cycle"}, units.Dimensionless},
	{[]string{"mass", "weight"}, units.Mass},
	{[]string{"temperature", "temp"}, units.Temperature},
	{[]string{"voltage"}, units.Voltage},
	{[]string{"current"}, units.Current},
	{[]string{"power", "dissipation"}, units.Power},
	{[]string{"frequency", "bandwidth"}, units.Frequency},
	{[]string{"capacitance"}, units.Capacitance},
	{[]string{"resistance", "impedance"}, units.Resistance},
	{[]string{"torque"}, units.Torque},
	{[]string{"force"}, units.Force},
	{[]string{"energy"}, units.Energy},
	{[]string{"area"}, units.Area},
	{[]string{"volume"}, units.Volume},
	{[]string{"cost", "price"}, units.Currency},
	{[]string{"angle", "tilt"}, units.Angle},
	{[]string{"time", "duration", "latency", "lifetime", "runtime", "delay"}, units.Time},
	{[]string{"deflection", "displacement", "length", "width", "height", "thickness", "diameter", "radius", "clearance",
		"gap", "depth", "envelope", "travel", "distance", "stroke"}, units.Length},
}

// metricDimension guesses what a metric measures from its name, or "".
func metricDimension(metric string) string {
	key := "_" + metricKey(metric) + "_"
	for _, h := range metricDimensionHints {
		for _, p := range h.phrases {
			if strings.Contains(key, "_"+p+"_") {
				return h.dim
			}
		}
	}
	return ""
}

func sameDimension(want, got string) bool {
	if want == units.Currency {
		return strings.HasPrefix(got, units.Currency)
	}
	return want == got
}

// isDifference says whether a metric names a change rather than a level.
func isDifference(metric string) bool {
	key := "_" + metricKey(metric) + "_"
	for _, w := range []string{"rise", "delta", "difference", "increase", "drop", "gradient"} {
		if strings.Contains(key, "_"+w+"_") {
			return true
		}
	}
	return false
}

// typedConstraint says whether a requirement has metric, a known operator
// and a limit, and a unit that reads; dim is its unit's dimension.
func typedConstraint(c constraint) (dim string, ok bool) {
	if len(c.unbound()) > 0 {
		return "", false
	}
	dim, err := units.Dimension(c.Unit)
	return dim, err == nil
}

// reviewConstraint is what one requirement lacks and what looks wrong in it.
func reviewConstraint(c constraint) map[string]any {
	row := map[string]any{"name": c.Name}
	var issues []map[string]any
	hasMetric, hasOp, hasLimit := strings.TrimSpace(c.Metric) != "", c.Operator != "", c.Limit != nil
	if (hasMetric || hasOp || hasLimit) && !(hasMetric && hasOp && hasLimit) {
		var lack []string
		for _, f := range []struct {
			has  bool
			name string
		}{{hasMetric, "metric"}, {hasOp, "operator"}, {hasLimit, "limit"}} {
			if !f.has {
				lack = append(lack, f.name)
			}
		}
		issues = append(issues, constraintFinding("partial_binding", findingWarning,
			"metric, operator and limit go together and this has only some: add %s", strings.Join(lack, " and ")))
	}
	if hasOp && !requirementOperators[c.Operator] {
		issues = append(issues, constraintFinding("unknown_operator", findingError, "operator %q is not one of <=, <, >=, >, ==", c.Operator))
	}
	var dim string
	if u := strings.TrimSpace(c.Unit); u != "" {
		d, err := units.Dimension(u)
		if err != nil {
			issues = append(issues, constraintFinding("unknown_unit", findingError, "unit %s: %v", u, err))
		} else {
			dim = d
		}
	}
	if dim != "" && hasLimit && requirementOperators[c.Operator] {
		issues = append(issues, limitSanity(c, dim)...)
	}
	if dim != "" && hasMetric {
		if want := metricDimension(c.Metric); want != "" && !sameDimension(want, dim) {
			issues = append(issues, constraintFinding("unit_metric_mismatch", findingWarning,
				"metric %s reads as %s, but %s measures %s; check the unit", c.Metric, want, c.Unit, dim))
		}
		if dim == units.Temperature && isDifference(c.Metric) && units.Normalize(c.Unit) != "K" {
			issues = append(issues, constraintFinding("temperature_difference_unit", findingWarning,
				"metric %s is a temperature difference, but %s converts as an absolute temperature (a rise of 40 °C would read as 313.15 K); "+
					"write a difference in K", c.Metric, c.Unit))
		}
	}
	if c.Operator == "==" {
		issues = append(issues, constraintFinding("exact_equality", findingWarning,
			"== is met only by that exact value and reports no margin; unless the quantity is discrete, state a band as two requirements (>= and <=)"))
	}
	if !(hasMetric && hasOp && hasLimit) && strings.TrimSpace(c.Expression) != "" {
		issues = append(issues, constraintFinding("expression_not_checked", findingInfo,
			"only an expression states this requirement: it records, but no tool evaluates expressions, so it will read no_data; give metric, operator, limit and unit to have it checked"))
	}
	_, checkable := typedConstraint(c)
	row["checkable"] = checkable
	if m := c.missing(); len(m) > 0 {
		row["missing"] = m
	}
	if issues != nil {
		row["issues"] = issues
	}
	return row
}

// limitSanity flags a limit that no value, or every value, meets.
func limitSanity(c constraint, dim string) []map[string]any {
	lim, op := *c.Limit, c.Operator
	bound := fmt.Sprintf("%s %g %s", op, lim, c.Unit)
	if dim == units.Temperature {
		k, err := units.Convert(lim, c.Unit, "K")
		if err == nil && (k < 0 || k == 0 && (op == "<" || op == "<=" || op == "==")) {
			return []map[string]any{constraintFinding("never_met", findingError, "%s is at or below absolute zero: no temperature can meet it", bound)}
		}
		return nil
	}
	if units.CanBeNegative(dim) {
		return nil
	}
	switch {
	case lim < 0 && (op == "<=" || op == "<" || op == "=="), lim == 0 && op == "<":
		return []map[string]any{constraintFinding("never_met", findingError, "%s is never negative, so %s can never be met; check the sign", dim, bound)}
	case lim == 0 && op == "<=":
		return []map[string]any{constraintFinding("only_zero", findingWarning, "%s is never negative, so %s is met only by exactly zero", dim, bound)}
	case lim < 0 || lim == 0 && op == ">=":
		return []map[string]any{constraintFinding("always_met", findingWarning, "%s is never negative, so %s is always met and checks nothing; check the sign", dim, bound)}
	}
	return nil
}

// boundInterval is what one requirement allows, in some unit.
type boundInterval struct {
	lo, hi             *float64
	loStrict, hiStrict bool
}

func allowedInterval(op string, v float64) boundInterval {
	switch op {
	case "<=", "<":
		return boundInterval{hi: &v, hiStrict: op == "<"}
	case ">=", ">":
		return boundInterval{lo: &v, loStrict: op == ">"}
	}
	return boundInterval{lo: &v, hi: &v}
}

// intervalsOverlap says whether two intervals overlap.
func intervalsOverlap(a, b boundInterval) bool {
	lo, loStrict := a.lo, a.loStrict
	if b.lo != nil && (lo == nil || *b.lo > *lo || units.Equal(*b.lo, *lo) && b.loStrict) {
		lo, loStrict = b.lo, b.loStrict
	}
	hi, hiStrict := a.hi, a.hiStrict
	if b.hi != nil && (hi == nil || *b.hi < *hi || units.Equal(*b.hi, *hi) && b.hiStrict) {
		hi, hiStrict = b.hi, b.hiStrict
	}
	if lo == nil || hi == nil {
		return true
	}
	if units.Equal(*lo, *hi) {
		return !loStrict && !hiStrict
	}
	return *lo < *hi
}

// boundSide is which way a requirement bounds its metric.
func boundSide(op string) string {
	switch op {
	case "<=", "<":
		return "above"
	case ">=", ">":
		return "below"
	}
	return "exactly"
}

func boundStatement(c constraint) string {
	return fmt.Sprintf("%s %s %g %s", c.Metric, c.Operator, *c.Limit, c.Unit)
}

// comparableRequirements says whether two requirements bound the same thing: the same
// metric, and the same target_node_type when both name one.
func comparableRequirements(a, b constraint) bool {
	if metricKey(a.Metric) != metricKey(b.Metric) {
		return false
	}
	ta, tb := metricKey(a.TargetNodeType), metricKey(b.TargetNodeType)
	return ta == "" || tb == "" || ta == tb
}

// pairFinding compares two typed requirements on one metric: a conflict,
// a duplicate, or nothing. kind is "conflict" or "duplicate".
func pairFinding(a, b constraint) (kind string, row map[string]any) {
	bLimit, err := units.Convert(*b.Limit, b.Unit, a.Unit)
	if errors.Is(err, units.ErrIncompatibleUnits) {
		return "conflict", map[string]any{"kind": "incompatible_units", "metric": a.Metric,
			"detail": fmt.Sprintf("%q bounds %s in %s and %q in %s: %v; one of the units is wrong", a.Name, a.Metric, a.Unit, b.Name, b.Unit, err)}
	}
	if err != nil {
		return "", nil
	}
	ia, ib := allowedInterval(a.Operator, *a.Limit), allowedInterval(b.Operator, bLimit)
	if !intervalsOverlap(ia, ib) {
		return "conflict", map[string]any{"kind": "contradictory_bounds", "metric": a.Metric,
			"detail": fmt.Sprintf("%s (%q) and %s (%q) cannot both hold", boundStatement(a), a.Name, boundStatement(b), b.Name)}
	}
	if boundSide(a.Operator) != boundSide(b.Operator) {
		return "", nil
	}
	if a.Operator == b.Operator && units.Equal(*a.Limit, bLimit) {
		return "duplicate", map[string]any{"kind": "identical_bound", "metric": a.Metric,
			"detail": fmt.Sprintf("%q and %q both say %s; keep one", a.Name, b.Name, boundStatement(a))}
	}
	if boundSide(a.Operator) == "exactly" {
		return "", nil // two different == bounds do not both hold: reported above
	}
	return "duplicate", map[string]any{"kind": "same_side_bound", "metric": a.Metric,
		"detail": fmt.Sprintf("%s (%q) and %s (%q) both bound %s from %s: only the stricter can matter; drop the other or give them different target_node_types",
			boundStatement(a), a.Name, boundStatement(b), b.Name, a.Metric, boundSide(a.Operator))}
}

// sessionProjectIfAny is the named project, else the session's, else none.
func sessionProjectIfAny(ctx context.Context, b *Backend, named string) (*twin.Project, error) {
	if named == "" {
		sid := adapters.CallInfoFrom(ctx).SessionID
		if sid == "" {
			return nil, nil
		}
		id, err := b.Sessions.SessionProject(ctx, sid)
		if errors.Is(err, twin.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		named = id
	}
	p, err := projectFor(ctx, b, named)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

func validateConstraints(ctx context.Context, b *Backend, raw json.RawMessage) (any, error) {
	var a struct {
		ProjectID   string       `json:"project_id"`
		Name        string       `json:"name"`
		ItemKey     string       `json:"item_key"`
		Constraints []constraint `json:"constraints"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	valid := true
	rows := make([]map[string]any, 0, len(a.Constraints))
	checkable := 0
	for _, c := range a.Constraints {
		row := reviewConstraint(c)
		if row["checkable"] == true {
			checkable++
		}
		issues, _ := row["issues"].([]map[string]any)
		for _, is := range issues {
			if is["severity"] == findingError {
				valid = false
			}
		}
		rows = append(rows, row)
	}

	duplicates, conflicts := []map[string]any{}, []map[string]any{}
	byName := map[string]string{}
	for _, c := range a.Constraints {
		k := strings.ToLower(strings.TrimSpace(c.Name))
		if first, dup := byName[k]; dup {
			valid = false
			duplicates = append(duplicates, map[string]any{"kind": "same_name", "requirements": []string{first, c.Name},
				"detail": fmt.Sprintf("two requirements are named %q: twin.record_constraint_set refuses the set; rename one", c.Name)})
			continue
		}
		byName[k] = c.Name
	}
	for i, ca := range a.Constraints {
		if _, ok := typedConstraint(ca); !ok {
			continue
		}
		for _, cb := range a.Constraints[i+1:] {
			if _, ok := typedConstraint(cb); !ok || !comparableRequirements(ca, cb) {
				continue
			}
			kind, row := pairFinding(ca, cb)
			if row == nil {
				continue
			}
			row["requirement"], row["with"] = ca.Name, map[string]any{"requirement": cb.Name, "constraint_set": "(this set)"}
			if kind == "conflict" {
				conflicts = append(conflicts, row)
			} else {
				duplicates = append(duplicates, row)
			}
		}
	}

	out := map[string]any{"requirement_count": len(a.Constraints), "checkable_count": checkable, "requirements": rows,
		"duplicates": duplicates, "written": false}
	notes := []string{"nothing was written: record the set with twin.record_constraint_set"}
	p, err := sessionProjectIfAny(ctx, b, a.ProjectID)
	if err != nil {
		return nil, err
	}
	if p == nil {
		notes = append(notes, "no project: conflicts were checked within this set only; pass project_id to check against the project's current constraint sets")
	} else {
		revises, err := revisedSet(ctx, b, p.ID, a.Name, a.ItemKey)
		if err != nil {
			return nil, err
		}
		current, err := currentRequirements(ctx, b, p.ID)
		if err != nil {
			return nil, err
		}
		against := []string{}
		for _, r := range current {
			if r.setKey == revises {
				continue
			}
			if len(against) == 0 || against[len(against)-1] != r.set {
				against = append(against, r.set)
			}
			if _, ok := typedConstraint(r.constraint); !ok {
				continue
			}
			for _, c := range a.Constraints {
				if _, ok := typedConstraint(c); !ok || !comparableRequirements(c, r.constraint) {
					continue
				}
				if kind, row := pairFinding(c, r.constraint); kind == "conflict" {
					row["requirement"], row["with"] = c.Name, map[string]any{"requirement": r.Name, "constraint_set": r.set}
					conflicts = append(conflicts, row)
				}
			}
		}
		out["project_id"] = p.ID
		out["conflicts_checked_against"] = against
		if revises != "" {
			out["revises"] = revises
		}
	}
	if len(conflicts) > 0 {
		valid = false
	}
	out["conflicts"] = conflicts
	out["valid"] = valid
	out["notes"] = notes
	return out, nil
}

// revisedSet is the key of the constraint set a proposal would revise: the
// item_key given, else the set of the same name (as the store resolves a
// write without a key), else "".
func revisedSet(ctx context.Context, b *Backend, projectID, name, itemKey string) (string, error) {
	if strings.TrimSpace(itemKey) != "" {
		key, _, err := twin.ParseItemRef(itemKey)
		return key, err
	}
	if strings.TrimSpace(name) == "" {
		return "", nil
	}
	items, err := b.Store.Items(ctx, projectID)
	if err != nil {
		return "", err
	}
	for _, it := range items {
		if it.ItemType == "constraint_set" && strings.EqualFold(it.Name, strings.TrimSpace(name)) {
			return it.Key, nil
		}
	}
	return "", nil
}
