package runs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/workflows"
)

// dashboardCaller is the caller a REST read runs its tool calls as.
const dashboardCaller = "dashboard"

// ReadCall runs a read-only tool the dashboard needs (a staging of a
// stored file, a conversion for the browser) the way an MCP call runs: a
// ToolCall workflow, call-rest-<hex>, on the tool's adapter queue, seen
// in the Temporal UI, and waits for its result. A tool that is not
// classified read-only is refused: a GET never writes, and a write would
// have to be held for a person (DecidedCall).
func (s *Service) ReadCall(ctx context.Context, toolID string, args any, projectID, summary string) (workflows.ToolCallResult, error) {
	if s.Registry == nil {
		return workflows.ToolCallResult{}, fmt.Errorf("this server has no tool registry to run %s with", toolID)
	}
	m, _, ok := s.Registry.Tool(toolID)
	if !ok {
		return workflows.ToolCallResult{}, fmt.Errorf("%s is not served here: start metaforge with its adapter installed", toolID)
	}
	if a, ok := adapters.AnnotationsFor(toolID); !ok || !a.ReadOnly {
		return workflows.ToolCallResult{}, fmt.Errorf("%s is not a read-only tool: a REST read does not run it", toolID)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return workflows.ToolCallResult{}, fmt.Errorf("encode the arguments of %s: %w", toolID, err)
	}
	if err := s.Registry.ValidateArguments(toolID, raw); err != nil {
		return workflows.ToolCallResult{}, err
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	callID := "rest-" + hex.EncodeToString(b[:])
	in := workflows.ToolCallInput{CallID: callID, ToolID: toolID, AdapterID: m.AdapterID, Arguments: raw,
		TimeoutSeconds: m.TimeoutSeconds, Idempotent: m.Idempotent, Retries: m.Retries, Caller: dashboardCaller}
	p, err := process("ToolCall", workflows.CallWorkflowID(callID), in, projectID, summary)
	if err != nil {
		return workflows.ToolCallResult{}, err
	}
	p.SearchAttributes[workflows.AttrTool.GetName()] = toolID
	p.SearchAttributes[workflows.AttrAdapter.GetName()] = m.AdapterID
	p.SearchAttributes[workflows.AttrCaller.GetName()] = dashboardCaller
	p.SearchAttributes[workflows.AttrHold.GetName()] = workflows.HoldNone
	if err := s.Start(ctx, p); err != nil {
		return workflows.ToolCallResult{}, err
	}
	return approvals.Queue{Client: s.Client, Namespace: s.namespace()}.Result(ctx, callID)
}
