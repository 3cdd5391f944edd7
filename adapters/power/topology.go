package power

import (
	"fmt"
	"strconv"
	"strings"
)

// Topologies of a switching rail: which way it may convert.
const (
	TopologyBuck      = "buck"
	TopologyBoost     = "boost"
	TopologyBuckBoost = "buck_boost"
	TopologyInverting = "inverting"
)

// Rules a rail's conversion is checked by, as a check names them.
const (
	RuleLDODropout         = "ldo_dropout"
	RuleBuckStepsDown      = "buck_steps_down"
	RuleBoostStepsUp       = "boost_steps_up"
	RuleSwitchingDirection = "switching_direction"
)

// Statuses of a check; a rule that could not be judged is not_checked.
const (
	CheckPass       = "pass"
	CheckFail       = "fail"
	CheckNotChecked = "not_checked"
)

// DefaultDropoutV is the dropout taken for an LDO whose dropout_v is not
// given: 0.3 V, about the full-load dropout of the common CMOS LDOs (about
// 0.2-0.25 V typical, 0.35-0.4 V at most, e.g. MCP1700, AP2112K), so less
// headroom than that fails even one of those. It bounds nothing for a
// bipolar part (a 1117-class LDO needs up to 1.3 V, a 78xx about 2 V), so
// a pass that rests on it with less than bipolarDropoutV of headroom is
// warned about rather than given silently.
const DefaultDropoutV = 0.3

// bipolarDropoutV is the worst-case dropout of a 1117-class LDO (AMS1117,
// 1.3 V at 800 mA): a headroom below it passes only for a low-dropout part.
const bipolarDropoutV = 1.3

// voltSlack is how far a comparison of volts may be off before it counts:
// 3.6 - 3.3 is 0.2999999999999998 in float64, and a headroom of exactly the
// dropout passes. It is far below any datasheet figure.
const voltSlack = 1e-9

// Check is one rule judged on a rail's conversion.
type Check struct {
	Rule   string `json:"rule"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// topologyChecks judges the rules of rail i's conversion from its input
// rail, and the warnings a reader needs beside them: a direction that was
// not checked, a pass that rests on the default dropout. A supply has none.
func (c *circuit) topologyChecks(i int) ([]Check, []string) {
	rail := c.req.Rails[i]
	if c.parent[i] < 0 {
		return []Check{}, nil
	}
	in := c.req.Rails[c.parent[i]]
	vout, vin := *rail.VoltageV, *in.VoltageV
	conv := fmt.Sprintf("%s V from %s V (rail %s)", volts(vout), volts(vin), in.Name)
	switch rail.SourceKind {
	case KindLDO:
		dropout, defaulted := dropoutOf(rail)
		used := volts(dropout) + " V"
		if defaulted {
			used += " (the default: dropout_v not given)"
		}
		headroom := vin - vout
		if headroom < dropout-voltSlack {
			return []Check{{RuleLDODropout, CheckFail, fmt.Sprintf(
				"ldo_dropout fails: an LDO's output must be below its input by at least its dropout; %s has headroom %s V, dropout %s",
				conv, volts(headroom), used)}}, nil
		}
		var warnings []string
		if defaulted && headroom < bipolarDropoutV-voltSlack {
			warnings = append(warnings, fmt.Sprintf(
				"rail %s: ldo_dropout passes only on the default dropout_v %s V (headroom %s V); a 1117-class LDO needs up to %s V: give the part's dropout at this load in dropout_v",
				rail.Name, volts(DefaultDropoutV), volts(headroom), volts(bipolarDropoutV)))
		}
		return []Check{{RuleLDODropout, CheckPass, fmt.Sprintf(
			"ldo_dropout passes: %s has headroom %s V, at least the dropout %s", conv, volts(headroom), used)}}, warnings
	case KindSwitching:
		if rail.Topology == nil {
			return []Check{{RuleSwitchingDirection, CheckNotChecked, fmt.Sprintf(
					"switching_direction not checked: topology is not given, so whether %s steps the right way is unknown; give topology buck, boost, buck_boost or inverting", conv)}},
				[]string{fmt.Sprintf("rail %s: topology not given, so the direction of its conversion (%s) was not checked; give topology buck, boost, buck_boost or inverting", rail.Name, conv)}
		}
		switch *rail.Topology {
		case TopologyBuck:
			if vout >= vin-voltSlack {
				return []Check{{RuleBuckStepsDown, CheckFail, fmt.Sprintf(
					"buck_steps_down fails: a buck's output must be below its input, and %s is not; if the regulator steps up, give topology boost or buck_boost", conv)}}, nil
			}
			return []Check{{RuleBuckStepsDown, CheckPass, "buck_steps_down passes: " + conv + " steps down"}}, nil
		case TopologyBoost:
			if vout <= vin+voltSlack {
				return []Check{{RuleBoostStepsUp, CheckFail, fmt.Sprintf(
					"boost_steps_up fails: a boost's output must be above its input, and %s is not; if the regulator steps down, give topology buck or buck_boost", conv)}}, nil
			}
			return []Check{{RuleBoostStepsUp, CheckPass, "boost_steps_up passes: " + conv + " steps up"}}, nil
		case TopologyBuckBoost:
			return []Check{{RuleSwitchingDirection, CheckPass, "switching_direction passes: a buck_boost may step " + conv + " either way"}}, nil
		default: // inverting
			return []Check{{RuleSwitchingDirection, CheckPass, "switching_direction passes: an inverting regulator's output (" + conv + ", magnitudes) may be above or below its input"}}, nil
		}
	}
	return []Check{}, nil
}

// dropoutOf is an LDO's dropout as given, or the default and true.
func dropoutOf(r Rail) (float64, bool) {
	if r.DropoutV != nil {
		return *r.DropoutV, false
	}
	return DefaultDropoutV, true
}

// brokenRules names the rules rr fails, for the summary: "5V0: ldo_dropout".
func brokenRules(rr RailReport) string {
	var rules []string
	for _, ch := range rr.Checks {
		if ch.Status == CheckFail {
			rules = append(rules, ch.Rule)
		}
	}
	if len(rules) == 0 {
		return ""
	}
	return rr.Name + ": " + strings.Join(rules, ", ")
}

// volts formats a voltage for a detail line, to 1 mV.
func volts(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		return "0"
	}
	return s
}
