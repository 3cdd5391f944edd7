package flow

import (
	"context"

	"github.com/metaforge/metaforge/adapters"
)

// The run.* tools are the older names of starting and reading a run.
func runTools() []tool {
	return []tool{
		adapters.Declare(adapters.Manifest{ToolID: "run.start_design_flow", Name: "Start a design flow", Capability: "design_flow",
			Description: "Start a gated design lifecycle run of a flow version a person approved (as flow.start_run): every phase " +
				"gate still requires a person's decision. Returns run_id.",
			Idempotent: true, TimeoutSeconds: 30}, startRun, startRunRules...),
		adapters.Declare(adapters.Manifest{ToolID: "run.get_status", Name: "Get a run's status", Capability: "design_flow",
			Description: "A design-flow run's status, current phase, the gate it waits at and why a rejected run stopped. Reads only.",
			Idempotent:  true, TimeoutSeconds: 15}, runStatus, runIDRule),
	}
}

func runStatus(ctx context.Context, s *Service, a runIDArgs) (any, error) {
	st, err := s.Engine.RunState(ctx, a.RunID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"run_id": st.RunID, "project_id": st.ProjectID, "flow": st.FlowID, "status": st.Status, "phase": st.Phase}
	if st.PhaseIndex < len(st.Phases) {
		g := st.Phases[st.PhaseIndex].Gate
		out["gate"] = map[string]any{"name": g.Name, "status": g.Status, "allowed": g.Allowed}
	}
	if st.Reason != "" {
		out["reason"] = st.Reason
	}
	if st.Verdict != nil {
		out["verdict"] = st.Verdict.Verdict
	}
	return out, nil
}
