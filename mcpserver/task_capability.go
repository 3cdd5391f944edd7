package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
)

// tasksCapability is capabilities.tasks: tasks/list, tasks/cancel, and
// task-augmented tools/call.
var tasksCapability = map[string]any{
	"list":     map[string]any{},
	"cancel":   map[string]any{},
	"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}},
}

// patchedResult is an SDK result sent with fields the SDK's types lack
// (capabilities.tasks, a tool's execution), set on its JSON.
type patchedResult struct {
	mcp.Result
	patch func(m map[string]any)
}

func (p patchedResult) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(p.Result)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers in schemas pass exactly as they were
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	p.patch(m)
	return json.Marshal(m)
}

// showTasks is the middleware that shows Tasks to a session on 2025-11-25
// or later: capabilities.tasks in its initialize answer, and each tool's
// execution.taskSupport in tools/list. An older session sees neither.
func (s *Server) showTasks(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.InitializeResult:
			if negotiatedRevision(r.ProtocolVersion) >= tasksRevision {
				return patchedResult{Result: r, patch: func(m map[string]any) {
					if caps, ok := m["capabilities"].(map[string]any); ok {
						caps["tasks"] = tasksCapability
					}
				}}, nil
			}
		case *mcp.ListToolsResult:
			if ss, _ := req.GetSession().(*mcp.ServerSession); speaksTasks(ss) {
				return patchedResult{Result: r, patch: s.withTaskSupport}, nil
			}
		}
		return res, nil
	}
}

// withTaskSupport sets execution.taskSupport on each listed tool.
func (s *Server) withTaskSupport(m map[string]any) {
	tools, _ := m["tools"].([]any)
	for _, t := range tools {
		tool, ok := t.(map[string]any)
		if !ok {
			continue
		}
		name, _ := tool["name"].(string)
		tool["execution"] = map[string]any{"taskSupport": s.taskSupport(name)}
	}
}

// taskSupport is a tool's execution.taskSupport: what its manifest says,
// else optional (every call is a durable workflow, so any can be a task).
func (s *Server) taskSupport(toolID string) string {
	if m, _, ok := s.opts.Registry.Tool(toolID); ok && m.TaskSupport == adapters.TaskRequired {
		return adapters.TaskRequired
	}
	return adapters.TaskOptional
}
