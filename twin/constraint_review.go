package twin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// Reviewing a proposed constraint set before it is recorded: what each
// requirement lacks and what looks wrong in it (a unit that does not read,
// a unit that does not measure what the metric names, a limit no value can
// meet, an exact == bound), duplicates, and contradictory bounds on one
// metric within the set and against the project's current sets.

// Severities of a finding: an error makes the set invalid.
const (
	FindingError   = "error"
	FindingWarning = "warning"
	FindingInfo    = "info"
)

// Finding is one thing wrong with, or worth knowing about, a requirement.
type Finding struct {
	Code, Severity, Message string
}

func finding(code, severity, format string, args ...any) Finding {
	return Finding{Code: code, Severity: severity, Message: fmt.Sprintf(format, args...)}
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
	key := "_" + MetricKey(metric) + "_"
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
	key := "_" + MetricKey(metric) + "_"
	for _, w := range []string{"rise", "delta", "difference", "increase", "drop", "gradient"} {
		if strings.Contains(key, "_"+w+"_") {
			return true
		}
	}
	return false
}

// ConstraintReview is what one requirement lacks and what looks wrong in
// it.
type ConstraintReview struct {
	Name string
	// Checkable: metric, operator, limit and a unit that reads, so the
	// requirement status can check it.
	Checkable bool
	// Missing is what recording it would name as incomplete.
	Missing []string
	Issues  []Finding
}

// ReviewConstraint reviews one requirement.
func ReviewConstraint(c Constraint) ConstraintReview {
	row := ConstraintReview{Name: c.Name}
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
		row.Issues = append(row.Issues, finding("partial_binding", FindingWarning,
			"metric, operator and limit go together and this has only some: add %s", strings.Join(lack, " and ")))
	}
	if hasOp && !requirementOperators[c.Operator] {
		row.Issues = append(row.Issues, finding("unknown_operator", FindingError, "operator %q is not one of <=, <, >=, >, ==", c.Operator))
	}
	var dim string
	if u := strings.TrimSpace(c.Unit); u != "" {
		d, err := units.Dimension(u)
		if err != nil {
			row.Issues = append(row.Issues, finding("unknown_unit", FindingError, "unit %s: %v", u, err))
		} else {
			dim = d
		}
	}
	if dim != "" && hasLimit && requirementOperators[c.Operator] {
		row.Issues = append(row.Issues, limitSanity(c, dim)...)
	}
	if dim != "" && hasMetric {
		if want := metricDimension(c.Metric); want != "" && !sameDimension(want, dim) {
			row.Issues = append(row.Issues, finding("unit_metric_mismatch", FindingWarning,
				"metric %s reads as %s, but %s measures %s; check the unit", c.Metric, want, c.Unit, dim))
		}
		if dim == units.Temperature && isDifference(c.Metric) && units.Normalize(c.Unit) != "K" {
			row.Issues = append(row.Issues, finding("temperature_difference_unit", FindingWarning,
				"metric %s is a temperature difference, but %s converts as an absolute temperature (a rise of 40 °C would read as 313.15 K); "+
					"write a difference in K", c.Metric, c.Unit))
		}
	}
	if c.Operator == "==" {
		row.Issues = append(row.Issues, finding("exact_equality", FindingWarning,
			"== is met only by that exact value and reports no margin; unless the quantity is discrete, state a band as two requirements (>= and <=)"))
	}
	if !(hasMetric && hasOp && hasLimit) && strings.TrimSpace(c.Expression) != "" {
		row.Issues = append(row.Issues, finding("expression_not_checked", FindingInfo,
			"only an expression states this requirement: it records, but no tool evaluates expressions, so it will read no_data; give metric, operator, limit and unit to have it checked"))
	}
	_, row.Checkable = c.Typed()
	row.Missing = c.Missing()
	return row
}

// limitSanity flags a limit that no value, or every value, meets.
func limitSanity(c Constraint, dim string) []Finding {
	lim, op := *c.Limit, c.Operator
	bound := fmt.Sprintf("%s %g %s", op, lim, c.Unit)
	if dim == units.Temperature {
		k, err := units.Convert(lim, c.Unit, "K")
		if err == nil && (k < 0 || k == 0 && (op == "<" || op == "<=" || op == "==")) {
			return []Finding{finding("never_met", FindingError, "%s is at or below absolute zero: no temperature can meet it", bound)}
		}
		return nil
	}
	if units.CanBeNegative(dim) {
		return nil
	}
	switch {
	case lim < 0 && (op == "<=" || op == "<" || op == "=="), lim == 0 && op == "<":
		return []Finding{finding("never_met", FindingError, "%s is never negative, so %s can never be met; check the sign", dim, bound)}
	case lim == 0 && op == "<=":
		return []Finding{finding("only_zero", FindingWarning, "%s is never negative, so %s is met only by exactly zero", dim, bound)}
	case lim < 0 || lim == 0 && op == ">=":
		return []Finding{finding("always_met", FindingWarning, "%s is never negative, so %s is always met and checks nothing; check the sign", dim, bound)}
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

func boundStatement(c Constraint) string {
	return fmt.Sprintf("%s %s %g %s", c.Metric, c.Operator, *c.Limit, c.Unit)
}

// comparableRequirements says whether two requirements bound the same
// thing: the same metric, and the same target_node_type when both name
// one.
func comparableRequirements(a, b Constraint) bool {
	if MetricKey(a.Metric) != MetricKey(b.Metric) {
		return false
	}
	ta, tb := MetricKey(a.TargetNodeType), MetricKey(b.TargetNodeType)
	return ta == "" || tb == "" || ta == tb
}

// BoundFinding is a duplicate or a conflict between two requirements.
type BoundFinding struct {
	// Kind is same_name, identical_bound or same_side_bound (duplicates);
	// contradictory_bounds or incompatible_units (conflicts).
	Kind, Metric, Detail string
	// Requirement is the proposed requirement, With the one it meets;
	// for same_name, Requirements are the two names instead.
	Requirement  string
	With         *BoundRef
	Requirements []string
}

// BoundRef names a requirement in a constraint set (KEY@n, or "(this
// set)").
type BoundRef struct{ Requirement, ConstraintSet string }

// Kinds of pair finding.
const (
	pairConflict  = "conflict"
	pairDuplicate = "duplicate"
)

// pairFinding compares two typed requirements on one metric: a conflict,
// a duplicate, or nothing.
func pairFinding(a, b Constraint) (kind string, f *BoundFinding) {
	bLimit, err := units.Convert(*b.Limit, b.Unit, a.Unit)
	if errors.Is(err, units.ErrIncompatibleUnits) {
		return pairConflict, &BoundFinding{Kind: "incompatible_units", Metric: a.Metric,
			Detail: fmt.Sprintf("%q bounds %s in %s and %q in %s: %v; one of the units is wrong", a.Name, a.Metric, a.Unit, b.Name, b.Unit, err)}
	}
	if err != nil {
		return "", nil
	}
	ia, ib := allowedInterval(a.Operator, *a.Limit), allowedInterval(b.Operator, bLimit)
	if !intervalsOverlap(ia, ib) {
		return pairConflict, &BoundFinding{Kind: "contradictory_bounds", Metric: a.Metric,
			Detail: fmt.Sprintf("%s (%q) and %s (%q) cannot both hold", boundStatement(a), a.Name, boundStatement(b), b.Name)}
	}
	if boundSide(a.Operator) != boundSide(b.Operator) {
		return "", nil
	}
	if a.Operator == b.Operator && units.Equal(*a.Limit, bLimit) {
		return pairDuplicate, &BoundFinding{Kind: "identical_bound", Metric: a.Metric,
			Detail: fmt.Sprintf("%q and %q both say %s; keep one", a.Name, b.Name, boundStatement(a))}
	}
	if boundSide(a.Operator) == "exactly" {
		return "", nil // two different == bounds do not both hold: reported above
	}
	return pairDuplicate, &BoundFinding{Kind: "same_side_bound", Metric: a.Metric,
		Detail: fmt.Sprintf("%s (%q) and %s (%q) both bound %s from %s: only the stricter can matter; drop the other or give them different target_node_types",
			boundStatement(a), a.Name, boundStatement(b), b.Name, a.Metric, boundSide(a.Operator))}
}

// ConstraintValidation is a proposed constraint set reviewed.
type ConstraintValidation struct {
	Requirements []ConstraintReview
	Checkable    int
	Duplicates   []BoundFinding
	Conflicts    []BoundFinding
	// Valid is false when recording would refuse the set, a unit does
	// not read, a requirement can never be met, or two conflict.
	Valid bool
	Notes []string
	// ProjectID is the project checked against ("" for none), with the
	// constraint set revisions read and the set this would revise.
	ProjectID               string
	ConflictsCheckedAgainst []string
	Revises                 string
}

// ValidateConstraints reviews a proposed constraint set, writing nothing.
// With a projectID, its requirements are also checked for conflicts
// against the project's current constraint sets, except the set it would
// revise (itemKey, else the set named name).
func ValidateConstraints(ctx context.Context, s Store, projectID, name, itemKey string, cs []Constraint) (ConstraintValidation, error) {
	v := ConstraintValidation{Valid: true, Requirements: make([]ConstraintReview, 0, len(cs)), Duplicates: []BoundFinding{},
		Conflicts: []BoundFinding{}}
	for _, c := range cs {
		row := ReviewConstraint(c)
		if row.Checkable {
			v.Checkable++
		}
		for _, is := range row.Issues {
			if is.Severity == FindingError {
				v.Valid = false
			}
		}
		v.Requirements = append(v.Requirements, row)
	}
	byName := map[string]string{}
	for _, c := range cs {
		k := strings.ToLower(strings.TrimSpace(c.Name))
		if first, dup := byName[k]; dup {
			v.Valid = false
			v.Duplicates = append(v.Duplicates, BoundFinding{Kind: "same_name", Requirements: []string{first, c.Name},
				Detail: fmt.Sprintf("two requirements are named %q: twin.record_constraint_set refuses the set; rename one", c.Name)})
			continue
		}
		byName[k] = c.Name
	}
	for i, ca := range cs {
		if _, ok := ca.Typed(); !ok {
			continue
		}
		for _, cb := range cs[i+1:] {
			if _, ok := cb.Typed(); !ok || !comparableRequirements(ca, cb) {
				continue
			}
			kind, f := pairFinding(ca, cb)
			if f == nil {
				continue
			}
			f.Requirement, f.With = ca.Name, &BoundRef{Requirement: cb.Name, ConstraintSet: "(this set)"}
			if kind == pairConflict {
				v.Conflicts = append(v.Conflicts, *f)
			} else {
				v.Duplicates = append(v.Duplicates, *f)
			}
		}
	}
	v.Notes = []string{"nothing was written: record the set with twin.record_constraint_set"}
	if projectID == "" {
		v.Notes = append(v.Notes, "no project: conflicts were checked within this set only; pass project_id to check against the project's current constraint sets")
	} else {
		revises, err := revisedSet(ctx, s, projectID, name, itemKey)
		if err != nil {
			return ConstraintValidation{}, err
		}
		current, err := CurrentRequirements(ctx, s, projectID)
		if err != nil {
			return ConstraintValidation{}, err
		}
		against := []string{}
		for _, r := range current {
			if r.SetKey == revises {
				continue
			}
			if len(against) == 0 || against[len(against)-1] != r.Set {
				against = append(against, r.Set)
			}
			if _, ok := r.Typed(); !ok {
				continue
			}
			for _, c := range cs {
				if _, ok := c.Typed(); !ok || !comparableRequirements(c, r.Constraint) {
					continue
				}
				if kind, f := pairFinding(c, r.Constraint); kind == pairConflict {
					f.Requirement, f.With = c.Name, &BoundRef{Requirement: r.Name, ConstraintSet: r.Set}
					v.Conflicts = append(v.Conflicts, *f)
				}
			}
		}
		v.ProjectID, v.ConflictsCheckedAgainst, v.Revises = projectID, against, revises
	}
	if len(v.Conflicts) > 0 {
		v.Valid = false
	}
	return v, nil
}

// revisedSet is the key of the constraint set a proposal would revise: the
// item_key given, else the set of the same name (as the store resolves a
// write without a key), else "".
func revisedSet(ctx context.Context, s Store, projectID, name, itemKey string) (string, error) {
	if strings.TrimSpace(itemKey) != "" {
		key, _, err := ParseItemRef(itemKey)
		return key, err
	}
	if strings.TrimSpace(name) == "" {
		return "", nil
	}
	items, err := s.Items(ctx, projectID)
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
