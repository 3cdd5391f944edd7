package runs

import (
	"context"
	"fmt"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/metaforge/metaforge/adapters/flow"
	"github.com/metaforge/metaforge/workflows"
)

// OpenRuns counts a project's design-flow runs that have not ended
// (running, waiting for a client or at a gate): its run workflows still
// running, as Temporal's visibility counts them, without reading each
// run's state.
func (s *Service) OpenRuns(ctx context.Context, projectID string) (int, error) {
	if !projectIDPattern.MatchString(projectID) {
		return 0, fmt.Errorf("project %q is not a project id: %w", projectID, flow.ErrRefused)
	}
	resp, err := s.Client.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: s.namespace(),
		Query: fmt.Sprintf("WorkflowType = 'DesignFlow' AND ExecutionStatus = 'Running' AND %s = '%s'",
			workflows.AttrProject.GetName(), projectID)})
	if err != nil {
		return 0, fmt.Errorf("count the open runs of project %s: %w", projectID, err)
	}
	return int(resp.GetCount()), nil
}
