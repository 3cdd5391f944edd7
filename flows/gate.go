package flows

import (
	"fmt"
	"strings"
)

// Requirement statuses as twin.constraint_violations reports them; stale
// is a requirement judged on evidence about an older revision.
const StatusStale = "stale"

// Evaluate judges each criterion of p's gate against facts read from the
// twin, applies approved waivers, and sums them up: fail if any criterion
// fails unwaived, else no_data if any lacks data unwaived, else pass. No
// data is never a pass; a person still decides at the gate.
func Evaluate(p Phase, f Facts) GateResult {
	r := GateResult{Gate: p.Gate.Name, Phase: p.Name, Criteria: make([]CriterionResult, 0, len(p.Gate.Criteria))}
	for _, c := range p.Gate.Criteria {
		cr := judge(c.Kind, p, f)
		cr.WaivedBy = waiverFor(cr, f.Waivers)
		r.Criteria = append(r.Criteria, cr)
	}
	r.Status = summarise(r.Criteria)
	return r
}

// Blocking lists the criteria that neither passed nor were waived: what
// stands between the gate and a pass.
func (r GateResult) Blocking() []CriterionResult {
	var out []CriterionResult
	for _, c := range r.Criteria {
		if c.Status != StatusPass && c.WaivedBy == "" {
			out = append(out, c)
		}
	}
	return out
}

// summarise is a gate's status from its judged criteria.
func summarise(cs []CriterionResult) string {
	status := StatusPass
	for _, c := range cs {
		if c.WaivedBy != "" || c.Status == StatusPass {
			continue
		}
		if c.Status == StatusFail {
			return StatusFail
		}
		status = StatusNoData
	}
	return status
}

// judge evaluates one criterion kind; an unknown kind (which Check refuses)
// is no_data rather than a silent pass.
func judge(kind string, p Phase, f Facts) CriterionResult {
	switch kind {
	case CriterionDeliverables:
		return judgeDeliverables(p, f)
	case CriterionRequirementsRecorded:
		return judgeRequirementsRecorded(f.Requirements)
	case CriterionGeometry:
		return judgeRows(kind, ClassGeometry, f.Requirements)
	case CriterionSimulation:
		return judgeRows(kind, ClassSimulation, f.Requirements)
	case CriterionNoStaleEvidence:
		return judgeNoStale(f.Requirements)
	case CriterionAllRequirements:
		return judgeRows(kind, "", f.Requirements)
	case CriterionERCClean, CriterionDRCClean, CriterionRoutingComplete:
		return judgeCheck(kind, f.Checks)
	}
	return CriterionResult{Kind: kind, Status: StatusNoData, Detail: fmt.Sprintf("%q is not a criterion this server can judge", kind)}
}

func judgeDeliverables(p Phase, f Facts) CriterionResult {
	r := CriterionResult{Kind: CriterionDeliverables}
	for _, d := range p.Deliverables {
		if countOf(f.NodeTypes, d) == 0 {
			r.Missing = append(r.Missing, fmt.Sprintf("a %s (record it with %s)", d, RecordingTool(d)))
		}
	}
	if len(r.Missing) > 0 {
		r.Status = StatusNoData
		r.Detail = fmt.Sprintf("%d of %d deliverables not recorded", len(r.Missing), len(p.Deliverables))
		return r
	}
	r.Status = StatusPass
	r.Detail = fmt.Sprintf("all %d deliverables recorded: %s", len(p.Deliverables), strings.Join(p.Deliverables, ", "))
	return r
}

// countOf is how many nodes of type t the project holds.
func countOf(counts []TypeCount, t string) int {
	n := 0
	for _, c := range counts {
		if c.Type == t {
			n += c.Count
		}
	}
	return n
}

func judgeRequirementsRecorded(rows []Requirement) CriterionResult {
	r := CriterionResult{Kind: CriterionRequirementsRecorded}
	if len(rows) == 0 {
		r.Status, r.Detail = StatusNoData, "no requirement is recorded"
		r.Missing = []string{"a constraint set with typed requirements (record it with twin.record_constraint_set)"}
		return r
	}
	for _, q := range rows {
		if len(q.Missing) > 0 && strings.TrimSpace(q.Metric) == "" {
			r.Failing = append(r.Failing, q.Name)
		}
	}
	if len(r.Failing) > 0 {
		r.Status = StatusFail
		r.Detail = fmt.Sprintf("not typed: %d of %d requirements have no metric (give each metric, operator, limit and unit)",
			len(r.Failing), len(rows))
		return r
	}
	r.Status, r.Detail = StatusPass, fmt.Sprintf("%d requirements recorded, all typed", len(rows))
	return r
}

func judgeNoStale(rows []Requirement) CriterionResult {
	r := CriterionResult{Kind: CriterionNoStaleEvidence}
	for _, q := range rows {
		if q.Status == StatusStale {
			r.Failing = append(r.Failing, q.Name)
		}
	}
	if len(r.Failing) > 0 {
		r.Status = StatusFail
		r.Detail = fmt.Sprintf("%d requirements are judged on stale evidence: record it again for the current revision", len(r.Failing))
		return r
	}
	r.Status, r.Detail = StatusPass, "no requirement is judged on stale evidence"
	return r
}

// judgeRows judges the requirements of one metric class (all of them when
// class is ""): any failure fails, then any row without current data is
// no_data, else pass.
func judgeRows(kind, class string, rows []Requirement) CriterionResult {
	r := CriterionResult{Kind: kind}
	var considered, noData []Requirement
	for _, q := range rows {
		if class == "" || MetricClass(q.Metric) == class {
			considered = append(considered, q)
		}
	}
	if len(considered) == 0 {
		r.Status = StatusNoData
		if class == "" {
			r.Detail = "no requirement is recorded"
			r.Missing = []string{"a constraint set with typed requirements (record it with twin.record_constraint_set)"}
		} else {
			r.Detail = fmt.Sprintf("no %s requirement is recorded", class)
			r.Missing = []string{fmt.Sprintf("a typed %s requirement (record it with twin.record_constraint_set)", class)}
		}
		return r
	}
	for _, q := range considered {
		switch q.Status {
		case StatusPass:
		case StatusFail:
			r.Failing = append(r.Failing, q.Name)
		default: // no_data, stale, or a status this package does not know
			noData = append(noData, q)
		}
	}
	switch {
	case len(r.Failing) > 0:
		r.Status = StatusFail
		r.Detail = fmt.Sprintf("%d of %d requirements fail", len(r.Failing), len(considered))
	case len(noData) > 0:
		r.Status = StatusNoData
		r.Detail = fmt.Sprintf("%d of %d requirements have no current value to judge", len(noData), len(considered))
		r.Missing = missingFor(noData)
	default:
		r.Status = StatusPass
		r.Detail = fmt.Sprintf("all %d requirements pass", len(considered))
	}
	return r
}

// missingFor says what each unjudged requirement needs: the row's own
// missing list, or current evidence when its evidence is stale.
func missingFor(rows []Requirement) []string {
	var out []string
	for _, q := range rows {
		switch {
		case q.Status == StatusStale:
			out = append(out, fmt.Sprintf("current evidence for %s", q.Name))
		case len(q.Missing) > 0:
			for _, m := range q.Missing {
				out = append(out, fmt.Sprintf("%s: %s", q.Name, m))
			}
		default:
			out = append(out, fmt.Sprintf("a value for %s", q.Name))
		}
	}
	return out
}

// waiverFor names the first approved waiver that excuses a failing or
// no_data criterion: one that waives its kind, or (for a failure) every
// requirement that failed it. A waiver no one approved excuses nothing.
func waiverFor(c CriterionResult, ws []Waiver) string {
	if c.Status == StatusPass {
		return ""
	}
	for _, w := range ws {
		if strings.TrimSpace(w.ApprovedBy) == "" {
			continue
		}
		if contains(w.Waives, c.Kind) || c.Status == StatusFail && len(c.Failing) > 0 && containsAll(w.Waives, c.Failing) {
			switch {
			case w.ID != "":
				return w.ID
			case w.Name != "":
				return w.Name
			}
			return "a waiver approved by " + w.ApprovedBy
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsAll(list, want []string) bool {
	for _, s := range want {
		if !contains(list, s) {
			return false
		}
	}
	return true
}
