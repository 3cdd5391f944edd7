package flow

import (
	"context"
	"errors"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

func phaseTools() []tool {
	return []tool{
		adapters.Declare(adapters.Manifest{ToolID: "phase.list_tasks", Name: "List phase tasks", Capability: "design_flow",
			Description: "Phases of running design flows waiting for a client (or claimed and not yet submitted), optionally in one " +
				"project: run_id, phase, status, claimant and what the phase must deliver. Reads only.",
			Idempotent: true, TimeoutSeconds: 30}, listTasks, adapters.At("project_id", adapters.MinLength(1))),
		adapters.Declare(adapters.Manifest{ToolID: "phase.claim", Name: "Claim a phase", Capability: "design_flow",
			Description: "Take the phase a run is waiting on and get its brief: what to do, which tools to use, what it must deliver " +
				"(twin node types) and what its gate checks. Claiming again from the same session returns the brief again.",
			Idempotent: true, TimeoutSeconds: 30}, claim, runIDRule, adapters.At("phase", adapters.MinLength(1))),
		adapters.Declare(adapters.Manifest{ToolID: "phase.submit", Name: "Submit a phase", Capability: "design_flow",
			Description: "Hand a claimed phase back with a summary and the twin ids recorded in it; the run then judges the phase's " +
				"gate against the twin and waits for a person's decision. Every recorded id must be a node of the run's project.",
			Idempotent: true, TimeoutSeconds: 30}, submit, runIDRule, adapters.At("phase", adapters.MinLength(1)),
			adapters.At("summary", adapters.MinLength(1), adapters.MaxLength(20000)),
			adapters.At("recorded_ids", adapters.MaxItems(200)), adapters.At("recorded_ids[]", adapters.MinLength(1))),
	}
}

type listTasksArgs struct {
	ProjectID string `json:"project_id,omitempty"`
}

type claimArgs struct {
	runIDArgs
	Phase string `json:"phase,omitempty" jsonschema:"the phase expected; refused if the run is elsewhere"`
}

type submitArgs struct {
	runIDArgs
	Phase       string   `json:"phase"`
	Summary     string   `json:"summary"`
	RecordedIDs []string `json:"recorded_ids,omitempty"`
}

func listTasks(ctx context.Context, s *Service, a listTasksArgs) (any, error) {
	runs, err := s.Engine.ListRuns(ctx, a.ProjectID)
	if err != nil {
		return nil, err
	}
	tasks := []map[string]any{}
	for _, r := range runs {
		if r.PhaseIndex >= len(r.Phases) {
			continue
		}
		ps := r.Phases[r.PhaseIndex]
		if ps.Status != flows.PhaseWaitingForClient && ps.Status != flows.PhaseClaimed {
			continue
		}
		t := map[string]any{"task_id": r.RunID + ":" + ps.Name, "run_id": r.RunID, "project_id": r.ProjectID, "flow": r.FlowID,
			"phase": ps.Name, "status": ps.Status, "attempt": ps.Attempt, "goal": r.Goal}
		if ps.ClaimedBy != "" {
			t["claimed_by"] = ps.ClaimedBy
		}
		tasks = append(tasks, t)
	}
	return map[string]any{"tasks": tasks, "count": len(tasks)}, nil
}

func claim(ctx context.Context, s *Service, a claimArgs) (any, error) {
	return s.Engine.Claim(ctx, a.RunID, flows.ClaimRequest{Phase: a.Phase, ClaimedBy: claimant(adapters.CallInfoFrom(ctx))})
}

func submit(ctx context.Context, s *Service, a submitArgs) (any, error) {
	st, err := s.Engine.RunState(ctx, a.RunID)
	if err != nil {
		return nil, err
	}
	for _, id := range a.RecordedIDs {
		n, err := s.Store.GetNode(ctx, id)
		if errors.Is(err, twin.ErrNotFound) || (err == nil && n.ProjectID != st.ProjectID) {
			return nil, protocol.Refusal("recorded_ids: %q is not a node of project %s; name the node ids the twin tools returned", id, st.ProjectID)
		}
		if err != nil {
			return nil, err
		}
	}
	after, err := s.Engine.Submit(ctx, a.RunID, flows.Submission{Phase: a.Phase, Summary: a.Summary, RecordedIDs: a.RecordedIDs,
		SubmittedBy: claimant(adapters.CallInfoFrom(ctx))})
	if err != nil {
		return nil, err
	}
	return map[string]any{"run_id": a.RunID, "phase": a.Phase, "submitted": true, "status": after.Status,
		"next": "the gate is judged against the twin; flow.await_gate returns its criteria and who decides it"}, nil
}
