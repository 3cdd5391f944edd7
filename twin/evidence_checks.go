package twin

import (
	"fmt"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// Verdicts of one evidence value against one requirement.
const (
	VerdictSatisfies   = "satisfies"
	VerdictViolates    = "violates"
	VerdictNotCompared = "not_compared"
)

// EvidenceCheck is one evidence value checked against one requirement.
type EvidenceCheck struct {
	Constraint Constraint
	Metric     string
	Value      float64
	Unit       string
	Verdict    string
}

// Limit is the requirement's bound as a phrase: "<= 0.5 mm".
func (ck EvidenceCheck) Limit() string {
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", ck.Constraint.Operator, units.Format(*ck.Constraint.Limit), ck.Constraint.Unit))
}

// Measured is the evidence's value as a phrase: "tip_deflection = 0.7 mm".
func (ck EvidenceCheck) Measured() string {
	return strings.TrimSpace(fmt.Sprintf("%s = %s %s", ck.Metric, units.Format(ck.Value), ck.Unit))
}

// CheckEvidence checks an evidence value against each typed requirement in
// scope that measures the same metric. Evidence without a metric and
// value, or requirements without metric, operator and limit, are not
// checked.
func CheckEvidence(ev Node, scope []Constraint) []EvidenceCheck {
	metric, _ := ev.Properties["metric"].(string)
	value, hasValue := NumberOf(ev.Properties["value"])
	unit, _ := ev.Properties["unit"].(string)
	if metric == "" || !hasValue {
		return nil
	}
	var out []EvidenceCheck
	for _, c := range scope {
		if c.Metric == "" || c.Operator == "" || c.Limit == nil || MetricKey(c.Metric) != MetricKey(metric) {
			continue
		}
		ck := EvidenceCheck{Constraint: c, Metric: metric, Value: value, Unit: unit}
		ok, comparable := satisfies(value, unit, c)
		switch {
		case !comparable:
			ck.Verdict = VerdictNotCompared
		case ok:
			ck.Verdict = VerdictSatisfies
		default:
			ck.Verdict = VerdictViolates
		}
		out = append(out, ck)
	}
	return out
}

// satisfies holds a value against a typed requirement as the requirement
// status does: converted to the requirement's unit, then judged. A value
// and a limit that both have no unit are compared as they are. comparable
// is false when the units do not convert, or the operator is not one a
// requirement may use.
func satisfies(value float64, unit string, c Constraint) (ok, comparable bool) {
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
	ok, _, _ = c.Judge(value)
	return ok, true
}
