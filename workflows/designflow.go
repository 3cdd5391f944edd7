package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/flows"
)

// designFlowChange versions the DesignFlow workflow's steps;
// gateLocalChange, judging a gate in a local activity.
const (
	designFlowChange = "design-flow"
	gateLocalChange  = "gate-local-activity"
)

// DesignFlow runs one gated design flow: its phases in order, each done by
// the connected client (claim, submit) or by the steps the template names,
// each closed by a gate whose criteria an activity judges against the twin
// and which a person decides. A patch at a gate continues the run as new.
func DesignFlow(ctx workflow.Context, in flows.DesignFlowInput) (DesignFlowResult, error) {
	workflow.GetVersion(ctx, designFlowChange, workflow.DefaultVersion, 1)
	r := newRun(in)
	if err := r.registerHandlers(ctx); err != nil {
		return DesignFlowResult{}, err
	}
	for r.state.PhaseIndex < len(r.flow.Phases) {
		i := r.state.PhaseIndex
		if r.state.Phases[i].Status != flows.PhaseAtGate {
			if err := r.runPhase(ctx, i); err != nil {
				return DesignFlowResult{}, err
			}
		}
		next, err := r.runGate(ctx, i)
		if err != nil {
			return DesignFlowResult{}, err
		}
		switch {
		case r.pendingPatch != nil:
			return DesignFlowResult{}, r.continueWithPatch(ctx)
		case r.state.Status == flows.RunRejected:
			return DesignFlowResult{State: r.state}, nil
		}
		r.moveTo(ctx, next)
	}
	if err := r.verify(ctx); err != nil {
		return DesignFlowResult{}, err
	}
	return DesignFlowResult{State: r.state}, nil
}

// run is one DesignFlow execution's state.
type run struct {
	in           flows.DesignFlowInput
	flow         flows.Flow
	state        flows.RunState
	decision     *flows.GateDecision
	pendingPatch *flows.PatchRequest
	submitted    bool
}

func newRun(in flows.DesignFlowInput) *run {
	r := &run{in: in, flow: in.Flow}
	if in.Resume != nil {
		r.state = *in.Resume
		return r
	}
	r.state = flows.RunState{RunID: in.RunID, ProjectID: in.ProjectID, Goal: in.Goal, FlowID: in.Flow.ID,
		FlowVersionID: in.FlowVersionID, Status: flows.RunRunning}
	for _, p := range in.Flow.Phases {
		r.state.Phases = append(r.state.Phases, flows.PhaseState{Name: p.Name, Status: flows.PhasePending,
			Gate: flows.GateState{Name: p.Gate.Name, Status: flows.GateNone, WindowSeconds: p.Gate.Window()}})
	}
	if len(r.state.Phases) > 0 {
		r.state.Phase = r.state.Phases[0].Name
	}
	return r
}

// phaseIndex finds a phase by name; -1 when the flow has none.
func (r *run) phaseIndex(name string) int {
	for i, p := range r.flow.Phases {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// runPhase does phase i: the server's steps when the run has their input,
// else the client's claim and submission.
func (r *run) runPhase(ctx workflow.Context, i int) error {
	p := r.flow.Phases[i]
	ps := &r.state.Phases[i]
	ps.Attempt++
	ps.Submission, ps.ClaimedBy, ps.ClaimedAt, ps.Steps = nil, "", nil, nil
	if err := r.setPhase(ctx, i, flows.GateNone); err != nil {
		return err
	}
	if steps, ok := r.stepInputs(p); ok {
		ps.Status = flows.PhaseRunningSteps
		r.state.Status = flows.RunRunningSteps
		return r.runSteps(ctx, i, steps, nil)
	}
	if len(p.Steps) > 0 {
		ps.StepsSkipped = fmt.Sprintf("the run has no %s input, so the client does this phase", p.Steps[0].ForEach)
	}
	if len(p.Steps) > 0 && p.Steps[0].ForEach == "load_cases" &&
		workflow.GetVersion(ctx, recordedLoadCasesChange, workflow.DefaultVersion, 1) == 1 {
		ps.Status = flows.PhaseRunningSteps
		r.state.Status = flows.RunRunningSteps
		rc, err := r.recordedLoadCases(ctx, i)
		if err != nil {
			return err
		}
		ps.Steps = append(ps.Steps, rc.failed...)
		if len(rc.cases) > 0 || len(rc.failed) > 0 {
			ps.StepsSkipped = joinSkipped(rc.skipped)
			return r.runSteps(ctx, i, rc.cases, rc.evidence)
		}
		ps.StepsSkipped = fmt.Sprintf("the run has no %s input and the project records no load case ready to solve (twin.record_load_case)%s, so the client does this phase",
			p.Steps[0].ForEach, skippedSuffix(rc.skipped))
	}
	now := workflow.Now(ctx)
	ps.Status, ps.ClaimableAt = flows.PhaseWaitingForClient, &now
	r.state.Status = flows.RunWaitingForClient
	r.submitted = false
	if err := workflow.Await(ctx, func() bool { return r.submitted }); err != nil {
		return err
	}
	r.state.Status = flows.RunRunning
	return nil
}

// runGate judges phase i's gate and waits for a person's decision, the
// gate's window, or a patch. It returns the phase to go to next.
func (r *run) runGate(ctx workflow.Context, i int) (int, error) {
	p := r.flow.Phases[i]
	ps := &r.state.Phases[i]
	if ps.Status != flows.PhaseAtGate || ps.Gate.Result == nil {
		// A gate reached afresh, or re-judged after a patch: a new window.
		ps.Status = flows.PhaseAtGate
		now := workflow.Now(ctx)
		ps.Gate = flows.GateState{Name: p.Gate.Name, Status: flows.GateWaiting, WindowSeconds: p.Gate.Window(), WaitingSince: &now}
		if err := r.evaluateGate(ctx, i); err != nil {
			return 0, err
		}
	}
	r.state.Status = flows.RunAtGate
	if err := r.setPhase(ctx, i, flows.GateWaiting); err != nil {
		return 0, err
	}
	r.decision = nil
	window := time.Duration(ps.Gate.WindowSeconds)*time.Second - workflow.Now(ctx).Sub(*ps.Gate.WaitingSince)
	if window < 0 {
		window = 0
	}
	decided, err := workflow.AwaitWithOptions(ctx, workflow.AwaitOptions{Timeout: window,
		TimerOptions: workflow.TimerOptions{Summary: fmt.Sprintf("gate %s decision window (%ds)", p.Gate.Name, ps.Gate.WindowSeconds)}},
		func() bool { return r.decision != nil || r.pendingPatch != nil })
	if err != nil {
		return 0, err
	}
	if r.pendingPatch != nil {
		return i, nil
	}
	ps.Gate.Allowed = nil
	if !decided {
		r.decision = &flows.GateDecision{Gate: p.Gate.Name, Decision: flows.DecisionReject, Decider: "metaforge", Route: "window",
			Comment: fmt.Sprintf("nobody decided within the gate's %ds window", ps.Gate.WindowSeconds), DecidedAt: workflow.Now(ctx)}
	}
	d := *r.decision
	ps.Gate.Decision = &d
	switch d.Decision {
	case flows.DecisionApprove:
		ps.Gate.Status, ps.Status = flows.GateApproved, flows.PhaseApproved
		now := workflow.Now(ctx)
		ps.CompletedAt = &now
		return i + 1, r.setPhase(ctx, i, flows.GateApproved)
	case flows.DecisionRework:
		to := r.phaseIndex(d.ReworkTo)
		for k := to; k <= i; k++ {
			r.state.Phases[k].Status = flows.PhaseReworked
			r.state.Phases[k].Gate.Status = flows.GateNone
		}
		return to, nil
	default:
		ps.Gate.Status, ps.Status = flows.GateRejected, flows.PhaseRejected
		r.state.Status = flows.RunRejected
		r.state.Reason = fmt.Sprintf("gate %s rejected by %s", p.Gate.Name, d.Decider)
		if d.Comment != "" {
			r.state.Reason += ": " + d.Comment
		}
		return i, r.setPhase(ctx, i, flows.GateRejected)
	}
}

// evaluateGate runs the gate activity for phase i and keeps its judgement.
// From gateLocalChange on it is a local activity of the workflow's own
// worker (which has the twin): a gate judged while a person waits on the
// decision is one workflow task, not two plus an activity dispatched to
// the queue.
func (r *run) evaluateGate(ctx workflow.Context, i int) error {
	p := r.flow.Phases[i]
	retry := &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5}
	req := EvaluateGateRequest{ProjectID: r.state.ProjectID, Phase: p}
	var judged workflow.Future
	if workflow.GetVersion(ctx, gateLocalChange, workflow.DefaultVersion, 1) == 1 {
		judged = workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			StartToCloseTimeout:    time.Minute,
			ScheduleToCloseTimeout: 5 * (time.Minute + retry.MaximumInterval),
			RetryPolicy:            retry,
			Summary:                fmt.Sprintf("judge gate %s of phase %s against the twin", p.Gate.Name, p.Name),
		}), EvaluateGateActivity, req)
	} else {
		judged = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: time.Minute,
			RetryPolicy:         retry,
			Summary:             fmt.Sprintf("judge gate %s of phase %s against the twin", p.Gate.Name, p.Name),
		}), EvaluateGateActivity, req)
	}
	var res flows.GateResult
	if err := judged.Get(ctx, &res); err != nil {
		return err
	}
	now := workflow.Now(ctx)
	g := &r.state.Phases[i].Gate
	g.Result, g.EvaluatedAt = &res, &now
	g.Allowed = r.allowedDecisions(i)
	return nil
}

// allowedDecisions are the decisions gate i accepts now: approve only when
// nothing blocks, rework only to a phase already run.
func (r *run) allowedDecisions(i int) []string {
	out := []string{}
	if g := r.state.Phases[i].Gate.Result; g != nil && len(g.Blocking()) == 0 {
		out = append(out, flows.DecisionApprove)
	}
	return append(out, flows.DecisionReject, flows.DecisionRework)
}

// moveTo makes phase next the current one.
func (r *run) moveTo(ctx workflow.Context, next int) {
	r.state.PhaseIndex = next
	if next < len(r.flow.Phases) {
		r.state.Phase = r.flow.Phases[next].Name
	}
}

// setPhase records the current phase and gate state in the run's search
// attributes, so the Temporal UI lists runs by phase and gate.
func (r *run) setPhase(ctx workflow.Context, i int, gate string) error {
	r.state.PhaseIndex, r.state.Phase = i, r.flow.Phases[i].Name
	return workflow.UpsertTypedSearchAttributes(ctx, AttrPhase.ValueSet(r.state.Phase), AttrGate.ValueSet(gate))
}

// verify gives the completion verdict once every gate is approved.
func (r *run) verify(ctx workflow.Context) error {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
		Summary:             "verify completion: every requirement passes with current evidence",
	})
	var v flows.Verdict
	if err := workflow.ExecuteActivity(actx, VerifyCompletionActivity, VerifyCompletionRequest{ProjectID: r.state.ProjectID}).Get(ctx, &v); err != nil {
		return err
	}
	r.state.Verdict = &v
	r.state.Status = v.Verdict
	r.state.Phase = ""
	return nil
}

// continueWithPatch applies the approved patch and continues the run as
// new on the patched flow. A patch to a phase already run re-runs that
// phase and what follows it; a patch to the current phase or a later one
// re-runs nothing: the current gate is judged again, under a fresh window.
func (r *run) continueWithPatch(ctx workflow.Context) error {
	p := *r.pendingPatch
	patched, touched, err := flows.Apply(r.flow, p.Patch)
	if err != nil {
		return err // the Update's validator applied it already
	}
	cur := r.state.PhaseIndex
	state := r.state
	state.Phases = append([]flows.PhaseState(nil), r.state.Phases...)
	resume := cur
	if touched < cur {
		resume = touched
		for k := touched; k <= cur; k++ {
			state.Phases[k].Status = flows.PhaseReworked
			state.Phases[k].Gate.Status = flows.GateNone
		}
	} else {
		g := &state.Phases[cur].Gate
		g.Result, g.WaitingSince, g.Status, g.Allowed = nil, nil, flows.GateNone, nil
	}
	state.Status = flows.RunRunning
	for k := range patched.Phases {
		state.Phases[k].Gate.Name = patched.Phases[k].Gate.Name
		state.Phases[k].Gate.WindowSeconds = patched.Phases[k].Gate.Window()
	}
	state.PhaseIndex, state.Phase = resume, patched.Phases[resume].Name
	state.Patches = append(state.Patches, flows.AppliedPatch{Patch: p.Patch, ApprovedBy: p.ApprovedBy, AtPhase: r.flow.Phases[cur].Name,
		ResumeAt: patched.Phases[resume].Name, AppliedAt: workflow.Now(ctx)})
	next := r.in
	next.Flow, next.Resume = patched, &state
	return workflow.NewContinueAsNewError(ctx, DesignFlow, next)
}
