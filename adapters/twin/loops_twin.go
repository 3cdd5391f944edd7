package twin

import (
	"context"
	"fmt"
	"sort"

	"github.com/metaforge/metaforge/internal/beam"
	"github.com/metaforge/metaforge/twin"
)

// A design loop in the twin: one design_loop node (its parameter and
// constraints), one design_loop_iteration node per candidate evaluated
// (CONSTRAINED_BY the loop, SUPERSEDES the iteration before it), and one
// design_loop_outcome node per way it ended (converged, then approved).
// Every write is keyed by the loop and the iteration's index, so an
// activity retried after a crash persists each iteration once.
const (
	loopNodeType      = "design_loop"
	iterationNodeType = "design_loop_iteration"
	outcomeNodeType   = "design_loop_outcome"
	edgeOutcomeOf     = "OUTCOME_OF"
)

// RecordDesignLoop writes the loop's node once and returns its id.
func (b *Backend) RecordDesignLoop(ctx context.Context, r twin.LoopRecord) (string, error) {
	props := map[string]any{"loop_id": r.LoopID, "parameter_name": r.Parameter, "work_product_id": r.WorkProductID}
	for k, v := range r.Constraints {
		props[k] = v
	}
	n, err := b.Store.RecordNode(ctx, twin.RecordWrite{ProjectID: r.ProjectID, Type: loopNodeType,
		Name: fmt.Sprintf("design loop %s over %s", r.LoopID, r.Parameter), Properties: props,
		Links:          []twin.Link{{Type: twin.EdgeDependsOn, To: r.WorkProductID}},
		IdempotencyKey: "design-loop/" + r.LoopID})
	return n.ID, err
}

// RecordLoopIteration persists one iteration once.
func (b *Backend) RecordLoopIteration(ctx context.Context, r twin.IterationRecord) (string, error) {
	links := []twin.Link{{Type: twin.EdgeConstrains, To: r.LoopNodeID}}
	if r.PreviousID != "" {
		links = append(links, twin.Link{Type: twin.EdgeSupersedes, To: r.PreviousID})
	}
	n, err := b.Store.RecordNode(ctx, twin.RecordWrite{ProjectID: r.ProjectID, Type: iterationNodeType,
		Name: fmt.Sprintf("design loop %s iteration %d: %s = %.6g mm", r.LoopID, r.Index, r.Parameter, r.Value),
		Properties: map[string]any{"loop_id": r.LoopID, "index": r.Index, "parameter_name": r.Parameter, "value": r.Value,
			"objective_mass_kg": r.ObjectiveKg, "tip_deflection_mm": r.DeflectionMM, "max_bending_stress_mpa": r.StressMPa,
			"safety_factor": r.SafetyFactor, "feasible": r.Feasible, "status": r.Status},
		Links:          links,
		IdempotencyKey: fmt.Sprintf("design-loop/%s/iteration/%d", r.LoopID, r.Index)})
	return n.ID, err
}

// RecordLoopOutcome records how the loop ended, once per outcome. An
// approval is also a decision, GENERATED_FROM the winning iteration, so a
// reader walks from the winner to the decision it produced.
func (b *Backend) RecordLoopOutcome(ctx context.Context, r twin.OutcomeRecord) error {
	props := map[string]any{"loop_id": r.LoopID, "status": r.Status, "reason": r.Reason}
	links := []twin.Link{{Type: edgeOutcomeOf, To: r.LoopNodeID}}
	if r.WinnerNodeID != "" {
		props["winner_node_id"], props["winner_value"] = r.WinnerNodeID, r.WinnerValue
		links = append(links, twin.Link{Type: twin.EdgeGeneratedFrom, To: r.WinnerNodeID})
	}
	if r.Approver != "" {
		props["approved_by"], props["approver_verified"], props["comment"] = r.Approver, r.ApproverVerified, r.Comment
	}
	if _, err := b.Store.RecordNode(ctx, twin.RecordWrite{ProjectID: r.ProjectID, Type: outcomeNodeType,
		Name: fmt.Sprintf("design loop %s %s", r.LoopID, r.Status), Properties: props, Links: links,
		IdempotencyKey: fmt.Sprintf("design-loop/%s/outcome/%s", r.LoopID, r.Status)}); err != nil {
		return err
	}
	if r.Approver == "" {
		return nil
	}
	_, _, err := b.Store.CommitRevision(ctx, twin.RevisionWrite{ProjectID: r.ProjectID, ItemType: "decision",
		Name: fmt.Sprintf("design loop %s: %s", r.LoopID, r.Parameter), Author: r.Approver,
		Properties: map[string]any{"decision": fmt.Sprintf("%s = %.6g mm", r.Parameter, r.WinnerValue),
			"rationale":   fmt.Sprintf("the converged winner of design loop %s (%s), approved by %s", r.LoopID, r.Reason, r.Approver),
			"approved_by": r.Approver, "approver_verified": r.ApproverVerified},
		Links:          []twin.Link{{Type: twin.EdgeGeneratedFrom, To: r.WinnerNodeID}},
		IdempotencyKey: fmt.Sprintf("design-loop/%s/decision", r.LoopID)})
	return err
}

// DesignLoopFromTwin reads a finished loop back: its node, its iterations
// by index, and its outcomes (the last one last).
func (b *Backend) DesignLoopFromTwin(ctx context.Context, projectID, loopID string) (map[string]any, error) {
	loops, err := b.Store.NodesByType(ctx, projectID, loopNodeType)
	if err != nil {
		return nil, err
	}
	var loop *twin.Node
	for i := range loops {
		if loops[i].Properties["loop_id"] == loopID {
			loop = &loops[i]
		}
	}
	if loop == nil {
		return nil, fmt.Errorf("design loop %s: %w", loopID, twin.ErrNotFound)
	}
	its, err := b.Store.NodesByType(ctx, projectID, iterationNodeType)
	if err != nil {
		return nil, err
	}
	var timeline []map[string]any
	for _, n := range its {
		if n.Properties["loop_id"] == loopID {
			row := map[string]any{"node_id": n.ID}
			for k, v := range n.Properties {
				row[k] = v
			}
			timeline = append(timeline, row)
		}
	}
	sort.Slice(timeline, func(i, j int) bool {
		a, _ := twin.NumberOf(timeline[i]["index"])
		c, _ := twin.NumberOf(timeline[j]["index"])
		return a < c
	})
	outs, err := b.Store.NodesByType(ctx, projectID, outcomeNodeType)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"loop_id": loopID, "loop_node_id": loop.ID, "parameter_name": loop.Properties["parameter_name"],
		"constraints": loop.Properties, "iterations": timeline, "source": "twin"}
	for _, n := range outs {
		if n.Properties["loop_id"] == loopID {
			out["status"], out["reason"] = n.Properties["status"], n.Properties["reason"]
			if by, ok := n.Properties["approved_by"]; ok {
				out["approved_by"] = by
			}
			if w, ok := n.Properties["winner_value"]; ok {
				out["winner_value"] = w
			}
		}
	}
	return out, nil
}

// EvaluateTubeCandidate judges one value of a loop's parameter with the
// closed-form tube model on the work product's recorded geometry.
func (b *Backend) EvaluateTubeCandidate(ctx context.Context, c twin.TubeCandidateRequest) (beam.Candidate, error) {
	t, err := b.TubeGeometry(ctx, c.WorkProductID)
	if err != nil {
		return beam.Candidate{}, err
	}
	s := beam.TubeSearch{Parameter: c.Parameter, WidthMM: t.WidthMM, HeightMM: t.HeightMM, WallMM: t.WallMM, LengthMM: t.LengthMM,
		LoadN: c.LoadN, YoungsModulusMPa: t.Mat.YoungsModulusGPa * 1000, YieldMPa: t.Mat.YieldStrengthMPa,
		DeflectionLimitMM: c.DeflectionLimitMM, SafetyFactor: c.SFLimit, DensityKgM3: t.Mat.DensityKgM3}
	return s.Evaluate(c.Value), nil
}
