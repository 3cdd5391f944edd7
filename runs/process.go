package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/workflows"
)

// process describes a workflow a call runs as its child, found in the
// Temporal UI by its project like every run of it.
func process(kind, id string, input any, projectID, summary string) (adapters.Process, error) {
	raw, err := json.Marshal(input)
	if err != nil {
		return adapters.Process{}, fmt.Errorf("encode the input of %s: %w", id, err)
	}
	p := adapters.Process{Kind: kind, ID: id, Input: raw, Summary: summary, SearchAttributes: map[string]string{}}
	if projectID != "" {
		p.SearchAttributes[workflows.AttrProject.GetName()] = projectID
	}
	return p, nil
}

// Start starts a process from outside a workflow, with the options a
// call's workflow gives its child. A process that exists is a success:
// its ID is its identity.
func (s *Service) Start(ctx context.Context, p adapters.Process) error {
	attrs := make([]temporal.SearchAttributeUpdate, 0, len(p.SearchAttributes))
	for name, v := range p.SearchAttributes {
		attrs = append(attrs, temporal.NewSearchAttributeKeyKeyword(name).ValueSet(v))
	}
	var memo map[string]any
	if len(p.Memo) > 0 {
		memo = make(map[string]any, len(p.Memo))
		for k, v := range p.Memo {
			memo[k] = workflows.JSONValue(v)
		}
	}
	_, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                                       p.ID,
		TaskQueue:                                workflows.TaskQueue,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		StaticSummary:                            p.Summary,
		TypedSearchAttributes:                    temporal.NewSearchAttributes(attrs...),
		Memo:                                     memo,
	}, p.Kind, workflows.JSONValue(p.Input))
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err != nil && !errors.As(err, &started) {
		return fmt.Errorf("start %s: %w", p.ID, err)
	}
	return nil
}
