package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/workflows"
)

// childProcess carries the process a tool prepared to its call's workflow.
func childProcess(p *adapters.Process) *workflows.ChildProcess {
	if p == nil {
		return nil
	}
	return &workflows.ChildProcess{Kind: p.Kind, ID: p.ID, Input: p.Input, Summary: p.Summary, SearchAttributes: p.SearchAttributes,
		Memo: p.Memo, Detached: p.Detached, Answer: p.Answer, Follow: p.Follow, FollowSeconds: p.FollowSeconds}
}

func adapterProcess(p workflows.ChildProcess) adapters.Process {
	return adapters.Process{Kind: p.Kind, ID: p.ID, Input: p.Input, Summary: p.Summary, SearchAttributes: p.SearchAttributes,
		Memo: p.Memo, Detached: p.Detached, Answer: p.Answer, Follow: p.Follow, FollowSeconds: p.FollowSeconds}
}

// FollowProcess asks the tool's adapter for its detached process's answer
// as it stands. It reads, never waits: the call's workflow asks again on a
// timer until the answer is settled.
func (t *Tools) FollowProcess(ctx context.Context, req workflows.FollowProcessRequest) (workflows.FollowProcessResponse, error) {
	_, adapter, ok := t.Registry.Tool(req.ToolID)
	if !ok {
		return workflows.FollowProcessResponse{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("no adapter on this worker serves %s; start a worker that has it", req.ToolID), protocol.ToolUnavailable.Name(), nil)
	}
	follower, ok := adapter.(adapters.ProcessFollower)
	if !ok {
		return workflows.FollowProcessResponse{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s asked to follow its process, but its adapter %s cannot read one", req.ToolID, adapter.ID()), protocol.ToolExecutionError.Name(), nil)
	}
	ctx = adapters.WithCallInfo(ctx, adapters.CallInfo{CallID: req.CallID})
	data, settled, err := follower.FollowProcess(ctx, req.ToolID, adapterProcess(req.Process), adapters.ProcessStart{Duplicate: req.Duplicate})
	if err != nil {
		var perr *protocol.Error
		if errors.As(err, &perr) && !perr.Retryable {
			return workflows.FollowProcessResponse{}, temporal.NewNonRetryableApplicationError(perr.Details, perr.Code.Name(), nil)
		}
		return workflows.FollowProcessResponse{}, err
	}
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	return workflows.FollowProcessResponse{Data: data, Settled: settled}, nil
}
