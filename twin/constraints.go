package twin

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/internal/units"
)

// Constraint is one typed requirement, as a constraint set revision
// stores it in its "constraints" property.
type Constraint struct {
	Name               string   `json:"name"`
	Description        string   `json:"description,omitempty"`
	Metric             string   `json:"metric,omitempty"`
	Operator           string   `json:"operator,omitempty"`
	Limit              *float64 `json:"limit,omitempty"`
	Unit               string   `json:"unit,omitempty"`
	Expression         string   `json:"expression,omitempty"`
	TargetNodeType     string   `json:"target_node_type,omitempty"`
	VerificationMethod string   `json:"verification_method,omitempty"`
	AcceptanceCriteria string   `json:"acceptance_criteria,omitempty"`
}

// Missing names what a requirement lacks before anything can check it.
func (c Constraint) Missing() []string {
	var out []string
	typed := c.Metric != "" && c.Operator != "" && c.Limit != nil
	if !typed && c.Expression == "" {
		out = append(out, "expression or metric+operator+limit")
	}
	if c.Limit != nil && c.Unit == "" {
		out = append(out, "unit (a limit without a unit cannot be compared to a quantity)")
	}
	if c.VerificationMethod == "" {
		out = append(out, "verification_method")
	}
	return out
}

// requirementOperators a typed requirement may use.
var requirementOperators = map[string]bool{"<=": true, "<": true, ">=": true, ">": true, "==": true}

// Unbound names what a requirement lacks before a value can be held
// against it: metric, operator, limit and unit.
func (c Constraint) Unbound() []string {
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

// Typed says whether a requirement has metric, a known operator and a
// limit, and a unit that reads; dim is its unit's dimension.
func (c Constraint) Typed() (dim string, ok bool) {
	if len(c.Unbound()) > 0 {
		return "", false
	}
	dim, err := units.Dimension(c.Unit)
	return dim, err == nil
}

// Judge holds a value, already in the requirement's unit, against a typed
// requirement. margin is signed in the requirement's unit (positive is
// slack); an == requirement has none and is met within a relative 1e-9.
func (c Constraint) Judge(v float64) (satisfied bool, margin, marginPct *float64) {
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

// MetricKey is how a requirement's metric and a spec key or an evidence
// metric are matched: ignoring case, with spaces and hyphens read as
// underscores.
func MetricKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' || r == '_' }), "_")
}

// ReadConstraints reads a constraint set revision's requirements, stored
// as a list or as its JSON text. Any other node states none.
func ReadConstraints(n Node) ([]Constraint, error) {
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
	var out []Constraint
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("constraint set %s: its constraints cannot be read: %w", n.Ref(), err)
	}
	return out, nil
}

// FindConstraint finds a requirement by name, ignoring case and
// surrounding space.
func FindConstraint(cs []Constraint, name string) (Constraint, bool) {
	for _, c := range cs {
		if strings.EqualFold(strings.TrimSpace(c.Name), strings.TrimSpace(name)) {
			return c, true
		}
	}
	return Constraint{}, false
}

// constraintNames lists requirement names for a message: "a", "b", or
// none.
func constraintNames(cs []Constraint) string {
	var names []string
	for _, c := range cs {
		names = append(names, strconv.Quote(c.Name))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// NumberOf reads a stored number: what JSON, Neo4j or a Go caller made of
// it.
func NumberOf(v any) (float64, bool) {
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
