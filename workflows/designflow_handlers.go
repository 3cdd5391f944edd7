package workflows

import (
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/flows"
)

// registerHandlers installs the run's query and Updates. Every Update has a
// validator, so a refused request leaves nothing in the run's history.
func (r *run) registerHandlers(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, RunStateQuery, func() (flows.RunState, error) { return r.state, nil }); err != nil {
		return err
	}
	handlers := []struct {
		name      string
		handler   any
		validator any
	}{
		{ClaimUpdate, r.claim, r.validateClaim},
		{SubmitUpdate, r.submit, r.validateSubmit},
		{EvaluateGateUpdate, r.reevaluate, r.validateAtGate},
		{DecideGateUpdate, r.decide, r.validateDecision},
		{PatchUpdate, r.patch, r.validatePatch},
		{ProposeDecisionUpdate, r.propose, r.validateProposal},
	}
	for _, h := range handlers {
		if err := workflow.SetUpdateHandlerWithOptions(ctx, h.name, h.handler,
			workflow.UpdateHandlerOptions{Validator: h.validator}); err != nil {
			return err
		}
	}
	return nil
}

// current is the phase the run is at, or nil when it has ended.
func (r *run) current() (*flows.PhaseState, *flows.Phase) {
	i := r.state.PhaseIndex
	if i < 0 || i >= len(r.flow.Phases) || r.state.Status == flows.RunRejected {
		return nil, nil
	}
	return &r.state.Phases[i], &r.flow.Phases[i]
}

func (r *run) validateClaim(ctx workflow.Context, c flows.ClaimRequest) error {
	ps, _ := r.current()
	switch {
	case strings.TrimSpace(c.ClaimedBy) == "":
		return fmt.Errorf("claimed_by: say who is taking the phase")
	case ps == nil:
		return fmt.Errorf("run %s has ended (%s): nothing to claim", r.state.RunID, r.state.Status)
	case c.Phase != "" && c.Phase != ps.Name:
		return fmt.Errorf("phase %q is not waiting for a client: run %s is at phase %s (%s)", c.Phase, r.state.RunID, ps.Name, ps.Status)
	case ps.Status == flows.PhaseClaimed && ps.ClaimedBy != c.ClaimedBy:
		return fmt.Errorf("phase %s of run %s is already claimed by %s", ps.Name, r.state.RunID, ps.ClaimedBy)
	case ps.Status != flows.PhaseWaitingForClient && ps.Status != flows.PhaseClaimed:
		return fmt.Errorf("phase %s of run %s is not waiting for a client: it is %s", ps.Name, r.state.RunID, ps.Status)
	}
	return nil
}

// claim takes the waiting phase and returns its brief. Claiming again as
// the same claimant returns the brief again.
func (r *run) claim(ctx workflow.Context, c flows.ClaimRequest) (flows.PhaseBrief, error) {
	ps, p := r.current()
	now := workflow.Now(ctx)
	ps.Status, ps.ClaimedBy, ps.ClaimedAt = flows.PhaseClaimed, c.ClaimedBy, &now
	b := flows.PhaseBrief{RunID: r.state.RunID, ProjectID: r.state.ProjectID, Goal: r.state.Goal, Phase: p.Name, Attempt: ps.Attempt,
		Brief: p.Brief, Deliverables: p.Deliverables, Tools: p.Tools, Gate: p.Gate.Name, Criteria: p.Gate.Criteria}
	if ps.Attempt > 1 {
		b.LastGate = ps.Gate.Result
	}
	return b, nil
}

func (r *run) validateSubmit(ctx workflow.Context, s flows.Submission) error {
	ps, _ := r.current()
	switch {
	case ps == nil:
		return fmt.Errorf("run %s has ended (%s): nothing to submit", r.state.RunID, r.state.Status)
	case s.Phase != ps.Name:
		return fmt.Errorf("phase %q is not the one in progress: run %s is at phase %s (%s)", s.Phase, r.state.RunID, ps.Name, ps.Status)
	case ps.Status != flows.PhaseClaimed:
		return fmt.Errorf("phase %s of run %s is %s, not claimed: claim it first (phase.claim)", ps.Name, r.state.RunID, ps.Status)
	case s.SubmittedBy != ps.ClaimedBy:
		return fmt.Errorf("phase %s of run %s is claimed by %s; only the claimant submits it", ps.Name, r.state.RunID, ps.ClaimedBy)
	case strings.TrimSpace(s.Summary) == "":
		return fmt.Errorf("summary: say what was done in phase %s", ps.Name)
	}
	return nil
}

func (r *run) submit(ctx workflow.Context, s flows.Submission) (flows.RunState, error) {
	ps, _ := r.current()
	s.SubmittedAt = workflow.Now(ctx)
	ps.Submission = &s
	r.submitted = true
	return r.state, nil
}

func (r *run) validateAtGate(ctx workflow.Context) error {
	ps, _ := r.current()
	if ps == nil || ps.Status != flows.PhaseAtGate || ps.Gate.Status != flows.GateWaiting || ps.Gate.Result == nil {
		return r.notAtGate()
	}
	return nil
}

func (r *run) notAtGate() error {
	ps, _ := r.current()
	if ps == nil {
		return fmt.Errorf("run %s has ended (%s): no gate is waiting", r.state.RunID, r.state.Status)
	}
	return fmt.Errorf("no gate of run %s is waiting for a decision: it is at phase %s (%s)", r.state.RunID, ps.Name, ps.Status)
}

// reevaluate judges the waiting gate again, so a decision is taken against
// what the twin holds now.
func (r *run) reevaluate(ctx workflow.Context) (flows.GateState, error) {
	if err := r.evaluateGate(ctx, r.state.PhaseIndex); err != nil {
		return flows.GateState{}, err
	}
	return r.state.Phases[r.state.PhaseIndex].Gate, nil
}

// validateDecision refuses a decision the gate cannot take: a gate not
// waiting, a decider nobody identified, a rework to a phase not yet run,
// or an approval while criteria fail or lack data with no approved waiver.
func (r *run) validateDecision(ctx workflow.Context, d flows.GateDecision) error {
	if err := r.validateAtGate(ctx); err != nil {
		return err
	}
	ps, p := r.current()
	switch {
	case d.Gate != "" && d.Gate != p.Gate.Name:
		return fmt.Errorf("gate %q is not waiting: run %s waits at gate %s", d.Gate, r.state.RunID, p.Gate.Name)
	case strings.TrimSpace(d.Decider) == "":
		return fmt.Errorf("decider: a gate is decided by an identified person; say who is deciding")
	case d.Route == RouteElicitation:
		return fmt.Errorf("a gate is decided by an identified person (dashboard or CLI login, or a verified token), not by an answer in a chat")
	}
	switch d.Decision {
	case flows.DecisionApprove:
		if blocking := ps.Gate.Result.Blocking(); len(blocking) > 0 {
			var parts []string
			for _, c := range blocking {
				parts = append(parts, fmt.Sprintf("%s is %s (%s)", c.Kind, c.Status, c.Detail))
			}
			return fmt.Errorf("gate %s cannot be approved: %s; record what is missing and judge the gate again, or record a waiver naming them and have it approved",
				p.Gate.Name, strings.Join(parts, "; "))
		}
	case flows.DecisionReject:
	case flows.DecisionRework:
		return r.checkReworkTo(d.ReworkTo)
	default:
		return fmt.Errorf("decision %q is not one of approve, reject, rework", d.Decision)
	}
	return nil
}

func (r *run) decide(ctx workflow.Context, d flows.GateDecision) (flows.RunState, error) {
	_, p := r.current()
	d.Gate, d.DecidedAt = p.Gate.Name, workflow.Now(ctx)
	r.decision = &d
	return r.state, nil
}

// validateProposal refuses a proposal the gate could not take: one for
// another gate, or a decision the gate does not allow now.
func (r *run) validateProposal(ctx workflow.Context, d flows.ProposedDecision) error {
	if err := r.validateAtGate(ctx); err != nil {
		return err
	}
	ps, p := r.current()
	switch {
	case d.Gate != "" && d.Gate != p.Gate.Name:
		return fmt.Errorf("gate %q is not waiting: run %s waits at gate %s", d.Gate, r.state.RunID, p.Gate.Name)
	case !slices.Contains(ps.Gate.Allowed, d.Decision):
		return fmt.Errorf("decision %q is not one gate %s allows now (%s)", d.Decision, p.Gate.Name, strings.Join(ps.Gate.Allowed, ", "))
	case d.Decision == flows.DecisionRework:
		return r.checkReworkTo(d.ReworkTo)
	}
	return nil
}

// checkReworkTo refuses a rework to a phase that does not exist or has not
// run yet, naming the phases it can go back to.
func (r *run) checkReworkTo(phase string) error {
	if to := r.phaseIndex(phase); to >= 0 && to <= r.state.PhaseIndex {
		return nil
	}
	var done []string
	for _, q := range r.flow.Phases[:r.state.PhaseIndex+1] {
		done = append(done, q.Name)
	}
	return fmt.Errorf("rework_to %q: rework goes back to a phase already run: one of %s", phase, strings.Join(done, ", "))
}

func (r *run) propose(ctx workflow.Context, d flows.ProposedDecision) (flows.GateState, error) {
	ps, p := r.current()
	d.Gate, d.ProposedAt = p.Gate.Name, workflow.Now(ctx)
	ps.Gate.Proposed = &d
	return ps.Gate, nil
}

// validatePatch refuses a patch anywhere but at a waiting gate, one nobody
// approved, and one that does not apply or breaks an invariant.
func (r *run) validatePatch(ctx workflow.Context, p flows.PatchRequest) error {
	if err := r.validateAtGate(ctx); err != nil {
		return err
	}
	if strings.TrimSpace(p.ApprovedBy) == "" {
		return fmt.Errorf("a patch applies only once an identified person approved it: approved_by is empty")
	}
	if r.pendingPatch != nil {
		return fmt.Errorf("a patch is already being applied to run %s", r.state.RunID)
	}
	_, _, err := flows.Apply(r.flow, p.Patch)
	return err
}

func (r *run) patch(ctx workflow.Context, p flows.PatchRequest) (flows.RunState, error) {
	r.pendingPatch = &p
	return r.state, nil
}

// stepInputs are the cases phase p's steps run over, when the run has them.
func (r *run) stepInputs(p flows.Phase) ([]flows.StepCase, bool) {
	if len(p.Steps) == 0 {
		return nil, false
	}
	cases := r.in.Inputs[p.Steps[0].ForEach]
	return cases, len(cases) > 0
}
