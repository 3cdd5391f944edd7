package flows

import (
	"fmt"
	"sort"
	"strings"
)

// A check criterion judges what a checker (ERC, DRC) last found: the
// latest evidence of its metric must be about the current revision and
// count nothing. Latest, not worst: a check re-run after a fix replaces
// what it found before, where a requirement is held against every current
// value.

// checkCriterion ties a criterion kind to the metric it reads.
type checkCriterion struct {
	kind, metric string
	// what the metric counts, plural, for messages.
	what string
	// record says how to give the criterion current evidence.
	record string
}

var checkCriteria = []checkCriterion{
	{CriterionERCClean, "erc_errors", "ERC errors",
		"run kicad.run_erc on the current schematic and record its error_count with twin.record_evidence (metric erc_errors, unit 1, " +
			"valid_against the revision checked)"},
	{CriterionDRCClean, "drc_errors", "DRC errors",
		"run kicad.run_drc on the current board and record its error_count with twin.record_evidence (metric drc_errors, unit 1, " +
			"valid_against the revision checked)"},
	{CriterionRoutingComplete, "unrouted_connections", "unrouted connections",
		"route the board (kicad.auto_route), run kicad.run_drc on it and record its unconnected_items count with twin.record_evidence " +
			"(metric unrouted_connections, unit 1, valid_against the revision checked)"},
}

// CheckMetrics are the metrics the check criteria read, sorted: what the
// twin's facts give the latest evidence of.
func CheckMetrics() []string {
	out := make([]string, len(checkCriteria))
	for i, c := range checkCriteria {
		out[i] = c.metric
	}
	sort.Strings(out)
	return out
}

// CheckMetric is the metric check criterion kind reads, "" for a kind
// that is not a check.
func CheckMetric(kind string) string {
	for _, c := range checkCriteria {
		if c.kind == kind {
			return c.metric
		}
	}
	return ""
}

// detailFindings is how many findings a criterion's detail names; the
// rest are in its Findings.
const detailFindings = 5

// judgeCheck judges a check criterion on the latest evidence of its
// metric: no evidence, stale evidence or evidence without a value is
// no_data; 0 passes; anything else fails, naming what was found.
func judgeCheck(kind string, checks []CheckEvidence) CriterionResult {
	var c checkCriterion
	for _, cc := range checkCriteria {
		if cc.kind == kind {
			c = cc
		}
	}
	r := CriterionResult{Kind: kind}
	var ev *CheckEvidence
	for i := range checks {
		if NormaliseMetric(checks[i].Metric) == c.metric {
			ev = &checks[i]
		}
	}
	switch {
	case ev == nil:
		r.Status, r.Detail = StatusNoData, fmt.Sprintf("no %s evidence is recorded", c.metric)
		r.Missing = []string{fmt.Sprintf("%s evidence: %s", c.metric, c.record)}
	case ev.Stale:
		r.Status = StatusNoData
		r.Detail = fmt.Sprintf("the latest %s evidence (%s) is about an older revision: %s", c.metric, ev.EvidenceID,
			strings.Join(ev.StaleAgainst, ", "))
		r.Missing = []string{fmt.Sprintf("current %s evidence: %s", c.metric, c.record)}
	case ev.Value == nil:
		r.Status, r.Detail = StatusNoData, fmt.Sprintf("the latest %s evidence (%s) holds no value", c.metric, ev.EvidenceID)
		r.Missing = []string{fmt.Sprintf("%s evidence with a value: %s", c.metric, c.record)}
	case *ev.Value == 0:
		r.Status = StatusPass
		r.Detail = fmt.Sprintf("no %s: %s is 0 on evidence %s%s", c.what, c.metric, ev.EvidenceID, fromCall(*ev))
	default:
		r.Status = StatusFail
		r.Findings = ev.Findings
		r.Detail = fmt.Sprintf("%s is %s on evidence %s%s", c.metric, formatNumber(*ev.Value), ev.EvidenceID, fromCall(*ev))
		if len(ev.Findings) > 0 {
			shown := ev.Findings
			if len(shown) > detailFindings {
				shown = shown[:detailFindings]
			}
			r.Detail += ": " + strings.Join(shown, "; ")
			if more := max(ev.FindingsTotal, len(ev.Findings)) - len(shown); more > 0 {
				r.Detail += fmt.Sprintf("; and %d more", more)
			}
		}
		r.Detail += fmt.Sprintf(". Fix them and check again; %s", c.record)
	}
	return r
}

// fromCall names the tool call evidence records, when a step recorded it.
func fromCall(ev CheckEvidence) string {
	switch {
	case ev.ToolID != "" && ev.CallID != "":
		return fmt.Sprintf(" (%s, call %s)", ev.ToolID, ev.CallID)
	case ev.ToolID != "":
		return fmt.Sprintf(" (%s)", ev.ToolID)
	}
	return ""
}
