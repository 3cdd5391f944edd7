package activities

import (
	"context"
	"errors"

	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// LoopTwin is the twin as a design loop uses it: judging a candidate on a
// work product's recorded geometry, and persisting the loop.
type LoopTwin interface {
	EvaluateTubeCandidate(ctx context.Context, c twin.TubeCandidateRequest) (beam.Candidate, error)
	RecordDesignLoop(ctx context.Context, r twin.LoopRecord) (string, error)
	RecordLoopIteration(ctx context.Context, r twin.IterationRecord) (string, error)
	RecordLoopOutcome(ctx context.Context, r twin.OutcomeRecord) error
}

// errNoLoopTwin is a worker that serves no twin: a loop cannot run there.
var errNoLoopTwin = errors.New("this worker serves no twin, so a design loop cannot run here: run it with the twin's tools registered")

// DesignLoops are the DesignLoop workflow's activities.
type DesignLoops struct {
	Twin LoopTwin
}

// EvaluateLoopCandidate judges one value of the loop's parameter with the
// closed-form tube model on the work product's recorded geometry.
func (d *DesignLoops) EvaluateLoopCandidate(ctx context.Context, req workflows.LoopCandidateRequest) (workflows.LoopIteration, error) {
	if d.Twin == nil {
		return workflows.LoopIteration{}, errNoLoopTwin
	}
	l := req.Loop
	c, err := d.Twin.EvaluateTubeCandidate(ctx, twin.TubeCandidateRequest{WorkProductID: l.WorkProductID, Parameter: l.Parameter,
		Value: req.Value, LoadN: l.LoadN, DeflectionLimitMM: l.DeflectionMM, SFLimit: l.SFLimit})
	if err != nil {
		return workflows.LoopIteration{}, err
	}
	return workflows.LoopIteration{Parameter: l.Parameter, Value: req.Value, Objective: c.MassKg, DeflectionMM: c.DeflectionMM,
		StressMPa: c.StressMPa, SafetyFactor: c.SafetyFactor, Feasible: c.Feasible}, nil
}

// RecordLoop records the loop's node.
func (d *DesignLoops) RecordLoop(ctx context.Context, req workflows.RecordLoopRequest) (string, error) {
	l := req.Loop
	return d.Twin.RecordDesignLoop(ctx, twin.LoopRecord{LoopID: l.LoopID, ProjectID: l.ProjectID, WorkProductID: l.WorkProductID,
		Parameter: l.Parameter, Constraints: map[string]any{"load_n": l.LoadN, "deflection_limit_mm": l.DeflectionMM, "sf_limit": l.SFLimit,
			"min_mm": l.MinMM, "max_mm": l.MaxMM, "tolerance_mm": l.ToleranceMM, "max_iterations": l.MaxIterations}})
}

// RecordLoopIteration persists one iteration, once.
func (d *DesignLoops) RecordLoopIteration(ctx context.Context, req workflows.RecordLoopIterationRequest) (string, error) {
	it := req.Iteration
	return d.Twin.RecordLoopIteration(ctx, twin.IterationRecord{LoopID: req.Loop.LoopID, LoopNodeID: req.LoopNodeID,
		ProjectID: req.Loop.ProjectID, PreviousID: req.PreviousID, Index: it.Index, Parameter: it.Parameter, Value: it.Value,
		ObjectiveKg: it.Objective, DeflectionMM: it.DeflectionMM, StressMPa: it.StressMPa, SafetyFactor: it.SafetyFactor,
		Feasible: it.Feasible, Status: it.Status})
}

// RecordLoopOutcome records how the loop ended, and its approval.
func (d *DesignLoops) RecordLoopOutcome(ctx context.Context, req workflows.RecordLoopOutcomeRequest) error {
	st := req.State
	r := twin.OutcomeRecord{LoopID: st.LoopID, LoopNodeID: req.LoopNodeID, ProjectID: st.ProjectID, Status: st.Status,
		Reason: st.Reason, Parameter: st.Parameter}
	if st.Winner != nil {
		r.WinnerNodeID, r.WinnerValue = st.Winner.NodeID, st.Winner.Value
	}
	if st.Approval != nil {
		r.Approver, r.ApproverVerified, r.Comment = st.Approval.Approver, st.Approval.ApproverVerified, st.Approval.Comment
	}
	return d.Twin.RecordLoopOutcome(ctx, r)
}
