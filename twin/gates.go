package twin

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// The maturity gates G3..G8, evaluated against the twin as it is now. Each
// gate is a list of checks; a check is pass, fail or no_data, and says
// what to record to pass. No data is not a pass: a gate passes only when
// every check passes. The gates report; twin.create_release_package is
// the one consumer with teeth (it refuses unless G8 passes).
//
//	G3 Preliminary feasibility: typed requirements, a budget, each budget
//	   held by what is recorded (the rolled-up mass for a mass budget, the
//	   sum of its allocations otherwise).
//	G4 Architecture: a design item (cad_model or component_selection) and
//	   the risks recorded.
//	G5 Concept selection: a trade study (two or more concept_options) and
//	   a decision that records the alternatives it rejected.
//	G6 Design complete: committed geometry; every requirement has data; none
//	   fails on current values.
//	G7 Verification readiness: every requirement says how it is verified
//	   (verification_method); verification cases recorded.
//	G8 Release: the configuration baseline fixed; no stale evidence that is
//	   not superseded; every requirement passing on current values (or
//	   waived); every waiver approved; a release approval approved.

// Gate check statuses (requirement statuses reuse pass, fail and no_data).
const (
	GatePass   = StatusPass
	GateFail   = StatusFail
	GateNoData = StatusNoData
)

// GateCheck is one check of a gate.
type GateCheck struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	// Missing says what to record for the check to pass; Failing names
	// what fails it.
	Missing []string `json:"missing"`
	Failing []string `json:"failing"`
}

// Gate is one maturity gate and its checks.
type Gate struct {
	ID     string      `json:"gate"`
	Name   string      `json:"name"`
	Status string      `json:"status"`
	Passed bool        `json:"passed"`
	Checks []GateCheck `json:"checks"`
}

// NotPassing are the checks that stand between the gate and a pass.
func (g Gate) NotPassing() []GateCheck {
	var out []GateCheck
	for _, c := range g.Checks {
		if c.Status != GatePass {
			out = append(out, c)
		}
	}
	return out
}

// Summary says, in one line per check, why the gate does not pass.
func (g Gate) Summary() string {
	var parts []string
	for _, c := range g.NotPassing() {
		s := fmt.Sprintf("%s (%s): %s", c.Name, c.Status, c.Detail)
		if len(c.Failing) > 0 {
			s += "; failing: " + strings.Join(c.Failing, "; ")
		}
		if len(c.Missing) > 0 {
			s += "; record: " + strings.Join(c.Missing, "; ")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " | ")
}

// newGate sums up checks: fail if any fails, else no_data if any lacks
// data, else pass.
func newGate(id, name string, checks ...GateCheck) Gate {
	g := Gate{ID: id, Name: name, Status: GatePass, Checks: checks}
	for i := range g.Checks {
		c := &g.Checks[i]
		if c.Missing == nil {
			c.Missing = []string{}
		}
		if c.Failing == nil {
			c.Failing = []string{}
		}
		switch {
		case c.Status == GateFail:
			g.Status = GateFail
		case c.Status != GatePass && g.Status == GatePass:
			g.Status = GateNoData
		}
	}
	g.Passed = g.Status == GatePass
	return g
}

// MaturityGates evaluates G3..G8 against the project now.
func MaturityGates(ctx context.Context, s Store, projectID string) ([]Gate, error) {
	r := &gateReader{ctx: ctx, s: s, projectID: projectID, byType: map[string][]Node{}}
	var out []Gate
	for _, eval := range []func() (Gate, error){r.g3, r.g4, r.g5, r.g6, r.g7, r.g8} {
		g, err := eval()
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// ReleaseGate evaluates G8 alone: what a release package needs.
func ReleaseGate(ctx context.Context, s Store, projectID string) (Gate, error) {
	r := &gateReader{ctx: ctx, s: s, projectID: projectID, byType: map[string][]Node{}}
	return r.g8()
}

// gateReader reads what the gates need once.
type gateReader struct {
	ctx       context.Context
	s         Store
	projectID string
	reqs      *RequirementsReport
	byType    map[string][]Node
	waivers   []ApprovedWaiver
	readWaive bool
}

func (r *gateReader) requirements() (RequirementsReport, error) {
	if r.reqs == nil {
		rep, err := Requirements(r.ctx, r.s, r.projectID)
		if err != nil {
			return RequirementsReport{}, err
		}
		r.reqs = &rep
	}
	return *r.reqs, nil
}

// nodes are the project's nodes of a type: an item type's heads, or a
// record type's records.
func (r *gateReader) nodes(t string) ([]Node, error) {
	if ns, ok := r.byType[t]; ok {
		return ns, nil
	}
	heads, err := HeadRevisions(r.ctx, r.s, r.projectID, t)
	if err != nil {
		return nil, err
	}
	if len(heads) == 0 {
		if heads, err = r.s.NodesByType(r.ctx, r.projectID, t); err != nil {
			return nil, err
		}
	}
	r.byType[t] = heads
	return heads, nil
}

func (r *gateReader) approvedWaivers() ([]ApprovedWaiver, error) {
	if !r.readWaive {
		ws, err := ApprovedWaivers(r.ctx, r.s, r.projectID)
		if err != nil {
			return nil, err
		}
		r.waivers, r.readWaive = ws, true
	}
	return r.waivers, nil
}

// recordedCheck passes when at least one node of type t is recorded.
func (r *gateReader) recordedCheck(id, name, t, how string) (GateCheck, error) {
	ns, err := r.nodes(t)
	if err != nil {
		return GateCheck{}, err
	}
	if len(ns) == 0 {
		return GateCheck{ID: id, Name: name, Status: GateNoData, Detail: fmt.Sprintf("no %s is recorded", t),
			Missing: []string{how}}, nil
	}
	var names []string
	for _, n := range ns {
		names = append(names, n.Label())
	}
	return GateCheck{ID: id, Name: name, Status: GatePass, Detail: fmt.Sprintf("%d recorded: %s", len(ns), strings.Join(names, ", "))}, nil
}

func (r *gateReader) g3() (Gate, error) {
	typed, err := r.requirementsTyped()
	if err != nil {
		return Gate{}, err
	}
	recorded, err := r.recordedCheck("budgets_recorded", "Budgets recorded", "budget",
		"a budget (twin.record_engineering_entity entity_type budget, with metric, unit and system_total in properties)")
	if err != nil {
		return Gate{}, err
	}
	held, err := r.budgetsHeld()
	if err != nil {
		return Gate{}, err
	}
	return newGate("G3", "Preliminary feasibility", typed, recorded, held), nil
}

// requirementsTyped passes when there are requirements and each can be
// checked (metric, operator, limit and unit).
func (r *gateReader) requirementsTyped() (GateCheck, error) {
	c := GateCheck{ID: "requirements_typed", Name: "Requirements recorded and typed"}
	rep, err := r.requirements()
	if err != nil {
		return GateCheck{}, err
	}
	if len(rep.Requirements) == 0 {
		c.Status, c.Detail = GateNoData, "no requirement is recorded"
		c.Missing = []string{"a constraint set with typed requirements (twin.record_constraint_set)"}
		return c, nil
	}
	for _, row := range rep.Requirements {
		if missing := row.Unbound(); len(missing) > 0 {
			c.Failing = append(c.Failing, fmt.Sprintf("%s in %s lacks %s", row.Name, row.Set, strings.Join(missing, ", ")))
		}
	}
	if len(c.Failing) > 0 {
		c.Status, c.Detail = GateFail, fmt.Sprintf("%d of %d requirements are not typed: revise the constraint set", len(c.Failing), len(rep.Requirements))
		return c, nil
	}
	c.Status, c.Detail = GatePass, fmt.Sprintf("%d requirements in %s, all typed", len(rep.Requirements), strings.Join(rep.CheckedAgainst, ", "))
	return c, nil
}

// budgetsHeld holds each budget against what is recorded (HoldBudgets):
// the product hierarchy's roll-up of its metric, or the sum of its
// allocations; an allocation to a position is held against its branch. A
// budget nothing holds is no_data.
func (r *gateReader) budgetsHeld() (GateCheck, error) {
	c := GateCheck{ID: "budgets_held", Name: "Budgets held by what is recorded"}
	budgets, err := HoldBudgets(r.ctx, r.s, r.projectID)
	if err != nil {
		return GateCheck{}, err
	}
	if len(budgets) == 0 {
		c.Status, c.Detail = GateNoData, "no budget to hold"
		c.Missing = []string{"a budget (twin.record_engineering_entity entity_type budget)"}
		return c, nil
	}
	var held []string
	for _, b := range budgets {
		line := fmt.Sprintf("budget %q: %s", b.Name, b.Detail)
		switch b.Status {
		case GateFail:
			c.Failing = append(c.Failing, line)
		case GateNoData:
			c.Missing = append(c.Missing, strings.Join(b.Missing, "; "))
		default:
			held = append(held, line)
		}
	}
	switch {
	case len(c.Failing) > 0:
		c.Status, c.Detail = GateFail, fmt.Sprintf("%d budget(s) exceeded", len(c.Failing))
	case len(c.Missing) > 0:
		c.Status, c.Detail = GateNoData, fmt.Sprintf("%d budget(s) have nothing recorded to hold them against", len(c.Missing))
	default:
		c.Status, c.Detail = GatePass, strings.Join(held, "; ")
	}
	return c, nil
}

func (r *gateReader) g4() (Gate, error) {
	design := GateCheck{ID: "design_items", Name: "Design items recorded"}
	var found []string
	for _, t := range []string{"cad_model", "component_selection"} {
		ns, err := r.nodes(t)
		if err != nil {
			return Gate{}, err
		}
		for _, n := range ns {
			found = append(found, n.Label())
		}
	}
	if len(found) == 0 {
		design.Status, design.Detail = GateNoData, "no part or component is recorded"
		design.Missing = []string{"a cad_model (twin.commit_geometry) or a component_selection (twin.record_component_selection)"}
	} else {
		design.Status, design.Detail = GatePass, strings.Join(found, ", ")
	}
	risks, err := r.recordedCheck("risks_recorded", "Risks recorded", "risk",
		"a risk (twin.record_engineering_entity entity_type risk)")
	if err != nil {
		return Gate{}, err
	}
	return newGate("G4", "Architecture", design, risks), nil
}

func (r *gateReader) g5() (Gate, error) {
	opts, err := r.nodes("concept_option")
	if err != nil {
		return Gate{}, err
	}
	study := GateCheck{ID: "trade_study", Name: "Trade study performed"}
	if len(opts) < 2 {
		study.Status, study.Detail = GateNoData, fmt.Sprintf("%d concept_option(s) recorded; a trade study compares at least two", len(opts))
		study.Missing = []string{fmt.Sprintf("%d more concept_option(s) (twin.record_engineering_entity entity_type concept_option)", 2-len(opts))}
	} else {
		study.Status, study.Detail = GatePass, fmt.Sprintf("%d concept options", len(opts))
	}
	decs, err := r.nodes("decision")
	if err != nil {
		return Gate{}, err
	}
	chosen := GateCheck{ID: "concept_decided", Name: "Concept decision with rejected alternatives"}
	for _, d := range decs {
		if alts, ok := d.Properties["alternatives"].([]any); ok && len(alts) > 0 {
			chosen.Status, chosen.Detail = GatePass, fmt.Sprintf("%s rejects %d alternative(s)", d.Label(), len(alts))
			break
		}
	}
	if chosen.Status == "" {
		chosen.Status, chosen.Detail = GateNoData, "no decision records the alternatives it rejected"
		chosen.Missing = []string{"a decision with alternatives (twin.record_decision)"}
	}
	return newGate("G5", "Concept selection", study, chosen), nil
}

func (r *gateReader) g6() (Gate, error) {
	geometry, err := r.recordedCheck("geometry_committed", "Geometry committed", "cad_model", "a cad_model (twin.commit_geometry)")
	if err != nil {
		return Gate{}, err
	}
	rep, err := r.requirements()
	if err != nil {
		return Gate{}, err
	}
	data := GateCheck{ID: "requirements_have_data", Name: "Every requirement has data"}
	holds := GateCheck{ID: "requirements_hold", Name: "No requirement fails"}
	if len(rep.Requirements) == 0 {
		data.Status, data.Detail = GateNoData, "no requirement is recorded"
		data.Missing = []string{"a constraint set with typed requirements (twin.record_constraint_set)"}
		holds.Status, holds.Detail, holds.Missing = data.Status, data.Detail, data.Missing
		return newGate("G6", "Design complete", geometry, data, holds), nil
	}
	for _, row := range rep.Requirements {
		switch row.Status {
		case StatusNoData:
			data.Missing = append(data.Missing, fmt.Sprintf("%s: %s", row.Name, strings.Join(row.Missing, "; ")))
		case StatusFail:
			holds.Failing = append(holds.Failing, fmt.Sprintf("%s: %s", row.Name, shownValue(row)))
		}
	}
	if len(data.Missing) > 0 {
		data.Status, data.Detail = GateNoData, fmt.Sprintf("%d of %d requirements have no data", len(data.Missing), len(rep.Requirements))
	} else {
		data.Status, data.Detail = GatePass, fmt.Sprintf("all %d requirements have data", len(rep.Requirements))
	}
	if len(holds.Failing) > 0 {
		holds.Status, holds.Detail = GateFail, fmt.Sprintf("%d requirement(s) fail", len(holds.Failing))
	} else {
		holds.Status, holds.Detail = GatePass, "none of the requirements with data fails"
	}
	return newGate("G6", "Design complete", geometry, data, holds), nil
}

// shownValue says what value a requirement's status rests on.
func shownValue(row RequirementStatus) string {
	if row.Shown == nil {
		return row.Status
	}
	src := row.Shown.NodeID
	if row.Shown.Ref != "" {
		src = row.Shown.Ref
	}
	return fmt.Sprintf("%g %s from %s %s against %s %g %s", row.Shown.Value, row.Unit, row.Shown.Kind, src, row.Operator, deref(row.Limit), row.Unit)
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

func (r *gateReader) g7() (Gate, error) {
	rep, err := r.requirements()
	if err != nil {
		return Gate{}, err
	}
	methods := GateCheck{ID: "verification_methods", Name: "Every requirement says how it is verified"}
	if len(rep.Requirements) == 0 {
		methods.Status, methods.Detail = GateNoData, "no requirement is recorded"
		methods.Missing = []string{"a constraint set with typed requirements (twin.record_constraint_set)"}
	} else {
		for _, row := range rep.Requirements {
			if strings.TrimSpace(row.VerificationMethod) == "" {
				methods.Failing = append(methods.Failing, fmt.Sprintf("%s in %s has no verification_method", row.Name, row.Set))
			}
		}
		if len(methods.Failing) > 0 {
			methods.Status, methods.Detail = GateFail, "revise the constraint set with a verification_method (analysis, simulation, test, inspection) on each"
		} else {
			methods.Status, methods.Detail = GatePass, fmt.Sprintf("all %d requirements declare a verification_method", len(rep.Requirements))
		}
	}
	cases, err := r.recordedCheck("verification_cases", "Verification cases recorded", "verification_case",
		"a verification_case per requirement (twin.record_engineering_entity entity_type verification_case)")
	if err != nil {
		return Gate{}, err
	}
	return newGate("G7", "Verification readiness", methods, cases), nil
}

func (r *gateReader) g8() (Gate, error) {
	var checks []GateCheck
	for _, f := range []func() (GateCheck, error){r.baselineFixed, r.noStaleEvidence, r.verificationComplete, r.waiversApproved, r.releaseApproved} {
		c, err := f()
		if err != nil {
			return Gate{}, err
		}
		checks = append(checks, c)
	}
	return newGate("G8", "Release", checks...), nil
}

// baselineFixed passes when a baseline exists and no item moved (or was
// added) since the latest one.
func (r *gateReader) baselineFixed() (GateCheck, error) {
	c := GateCheck{ID: "baseline_fixed", Name: "Configuration baseline fixed"}
	bs, err := Baselines(r.ctx, r.s, r.projectID)
	if err != nil {
		return GateCheck{}, err
	}
	if len(bs) == 0 {
		c.Status, c.Detail = GateNoData, "no baseline is recorded"
		c.Missing = []string{"a baseline of the configuration to release (twin.create_baseline, approved by a person)"}
		return c, nil
	}
	latest := bs[len(bs)-1]
	moved, err := MovedSince(r.ctx, r.s, latest)
	if err != nil {
		return GateCheck{}, err
	}
	if len(moved) > 0 {
		c.Status, c.Failing = GateFail, moved
		c.Detail = fmt.Sprintf("%d item(s) moved since %s (%s): baseline the configuration again (twin.create_baseline)", len(moved), latest.Node.Name, latest.Node.ID)
		return c, nil
	}
	c.Status = GatePass
	c.Detail = fmt.Sprintf("%s (%s) pins %d item revision(s); none moved since", latest.Node.Name, latest.Node.ID, len(latest.Items))
	return c, nil
}

// noStaleEvidence fails on each evidence computed against a replaced
// revision that no fresh evidence supersedes.
func (r *gateReader) noStaleEvidence() (GateCheck, error) {
	c := GateCheck{ID: "no_stale_evidence", Name: "No stale evidence"}
	evs, err := r.s.NodesByType(r.ctx, r.projectID, "evidence")
	if err != nil {
		return GateCheck{}, err
	}
	superseded := 0
	for _, ev := range evs {
		f, err := Staleness(r.ctx, r.s, ev.ID)
		if err != nil {
			return GateCheck{}, err
		}
		if !f.Stale {
			continue
		}
		by, err := SupersededBy(r.ctx, r.s, ev.ID)
		if err != nil {
			return GateCheck{}, err
		}
		if len(by) > 0 {
			superseded++
			continue
		}
		var pins []string
		for _, p := range f.Against {
			pins = append(pins, fmt.Sprintf("%s (now %s)", p.Pinned, p.Head))
		}
		c.Failing = append(c.Failing, fmt.Sprintf("evidence %s %q was computed against %s", ev.ID, ev.Name, strings.Join(pins, ", ")))
	}
	if len(c.Failing) > 0 {
		c.Status = GateFail
		c.Detail = fmt.Sprintf("%d stale evidence: re-run each on the current revision and record it superseding the stale one", len(c.Failing))
		return c, nil
	}
	c.Status = GatePass
	c.Detail = fmt.Sprintf("%d evidence, none stale", len(evs))
	if superseded > 0 {
		c.Detail = fmt.Sprintf("%d evidence; the %d stale one(s) are superseded by fresh evidence", len(evs), superseded)
	}
	return c, nil
}

// waiverFor is the approved waiver that names a requirement, or nil.
func waiverFor(ws []ApprovedWaiver, requirement string) *ApprovedWaiver {
	for i, w := range ws {
		if slices.ContainsFunc(w.Waives, func(s string) bool { return strings.EqualFold(s, requirement) }) {
			return &ws[i]
		}
	}
	return nil
}

// verificationComplete passes when every current requirement passes on
// current values (evidence, a component's spec or the committed geometry,
// as the requirement matrix holds them), or fails or lacks data and an
// approved waiver names it.
func (r *gateReader) verificationComplete() (GateCheck, error) {
	c := GateCheck{ID: "verification_complete", Name: "Verification coverage complete"}
	rep, err := r.requirements()
	if err != nil {
		return GateCheck{}, err
	}
	if len(rep.Requirements) == 0 {
		c.Status, c.Detail = GateNoData, "no requirement is recorded, so nothing is verified"
		c.Missing = []string{"a constraint set with typed requirements (twin.record_constraint_set)"}
		return c, nil
	}
	ws, err := r.approvedWaivers()
	if err != nil {
		return GateCheck{}, err
	}
	waived := 0
	for _, row := range rep.Requirements {
		switch {
		case row.Status == StatusPass:
		case (row.Status == StatusFail || row.Status == StatusNoData) && waiverFor(ws, row.Name) != nil:
			waived++
		case row.Status == StatusNoData:
			c.Missing = append(c.Missing, fmt.Sprintf("%s: %s", row.Name, strings.Join(row.Missing, "; ")))
		case row.Status == StatusStale:
			c.Failing = append(c.Failing, fmt.Sprintf("%s: only stale evidence (%s)", row.Name, row.Detail))
		default:
			c.Failing = append(c.Failing, fmt.Sprintf("%s fails: %s", row.Name, shownValue(row)))
		}
	}
	switch {
	case len(c.Failing) > 0:
		c.Status, c.Detail = GateFail, fmt.Sprintf("%d of %d requirements fail or rest on stale evidence", len(c.Failing), len(rep.Requirements))
	case len(c.Missing) > 0:
		c.Status, c.Detail = GateNoData, fmt.Sprintf("%d of %d requirements have no verifying evidence", len(c.Missing), len(rep.Requirements))
	default:
		c.Status, c.Detail = GatePass, fmt.Sprintf("all %d requirements pass on current values (%d waived)", len(rep.Requirements), waived)
	}
	return c, nil
}

// waiversApproved fails on each waiver no one approved; no waiver at all
// passes (there is nothing unapproved).
func (r *gateReader) waiversApproved() (GateCheck, error) {
	c := GateCheck{ID: "waivers_approved", Name: "Waivers approved"}
	ws, err := r.s.NodesByType(r.ctx, r.projectID, "waiver")
	if err != nil {
		return GateCheck{}, err
	}
	for _, w := range ws {
		aps, err := ApprovalsOf(r.ctx, r.s, w.ID)
		if err != nil {
			return GateCheck{}, err
		}
		if len(aps) == 0 {
			c.Failing = append(c.Failing, fmt.Sprintf("waiver %s %q is not approved (twin.approve_engineering_entity)", w.ID, w.Name))
		}
	}
	if len(c.Failing) > 0 {
		c.Status, c.Detail = GateFail, fmt.Sprintf("%d of %d waivers not approved", len(c.Failing), len(ws))
		return c, nil
	}
	c.Status, c.Detail = GatePass, fmt.Sprintf("%d waiver(s), all approved", len(ws))
	return c, nil
}

// releaseApproved passes when a release_approval entity has an approval.
func (r *gateReader) releaseApproved() (GateCheck, error) {
	c := GateCheck{ID: "release_approved", Name: "Release approval recorded"}
	ras, err := r.s.NodesByType(r.ctx, r.projectID, "release_approval")
	if err != nil {
		return GateCheck{}, err
	}
	if len(ras) == 0 {
		c.Status, c.Detail = GateNoData, "no release_approval is recorded"
		c.Missing = []string{"a release_approval (twin.record_engineering_entity entity_type release_approval), approved by a person " +
			"(twin.approve_engineering_entity)"}
		return c, nil
	}
	var unapproved []string
	for _, ra := range ras {
		aps, err := ApprovalsOf(r.ctx, r.s, ra.ID)
		if err != nil {
			return GateCheck{}, err
		}
		if len(aps) > 0 {
			by, _ := aps[0].Properties["approved_by"].(string)
			c.Status, c.Detail = GatePass, fmt.Sprintf("release_approval %s %q approved by %s", ra.ID, ra.Name, by)
			return c, nil
		}
		unapproved = append(unapproved, fmt.Sprintf("release_approval %s %q is not approved (twin.approve_engineering_entity)", ra.ID, ra.Name))
	}
	c.Status, c.Failing, c.Detail = GateFail, unapproved, "no release_approval is approved"
	return c, nil
}
