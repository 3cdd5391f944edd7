package mcpserver

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/workflows"
)

// Engine is all the MCP server asks of Temporal. It is small so the server's
// tests can run it against the real embedded server with nothing mocked.
type Engine interface {
	// RunCall starts the ToolCall workflow for a call and waits for its
	// result. If ctx ends first (the client went away), the workflow runs
	// on; its result stays available by callId.
	RunCall(ctx context.Context, in workflows.ToolCallInput) (workflows.ToolCallResult, error)
}

// TemporalEngine runs calls as ToolCall workflows.
type TemporalEngine struct {
	Client client.Client
	// Eager asks the server to hand the first workflow task straight back
	// to a worker on this same client, saving a round trip. Only valid when
	// this process runs the "metaforge" queue's worker.
	Eager bool
}

// RunCall starts workflow call-<callId> with its search attributes and
// waits for it.
func (e TemporalEngine) RunCall(ctx context.Context, in workflows.ToolCallInput) (workflows.ToolCallResult, error) {
	attrs := []temporal.SearchAttributeUpdate{
		workflows.AttrTool.ValueSet(in.ToolID),
		workflows.AttrAdapter.ValueSet(in.AdapterID),
		workflows.AttrCaller.ValueSet(in.Caller),
		workflows.AttrHold.ValueSet("none"),
	}
	if in.Client != "" {
		attrs = append(attrs, workflows.AttrClient.ValueSet(in.Client))
	}
	run, err := e.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                    workflows.CallWorkflowID(in.CallID),
		TaskQueue:             workflows.TaskQueue,
		TypedSearchAttributes: temporal.NewSearchAttributes(attrs...),
		EnableEagerStart:      e.Eager,
	}, "ToolCall", in)
	if err != nil {
		return workflows.ToolCallResult{}, fmt.Errorf("start workflow %s: %w", workflows.CallWorkflowID(in.CallID), err)
	}
	var res workflows.ToolCallResult
	if err := run.Get(ctx, &res); err != nil {
		return workflows.ToolCallResult{}, fmt.Errorf("workflow %s: %w", workflows.CallWorkflowID(in.CallID), err)
	}
	return res, nil
}
