package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/protocol"
)

// MCP Tasks (2025-11-25, SEP-1686) as this server speaks them: a task is a
// protocol view of a ToolCall workflow, its taskId the callId. The Go SDK
// has no Tasks, so the shapes are here, and the methods are served by
// this server's own handlers (tasks.go).

// tasksRevision is the first MCP revision with Tasks. An older session is
// served as before: no tasks capability, no tasks/* methods, and a task
// field on tools/call ignored, as the specification asks.
const tasksRevision = "2025-11-25"

// relatedTaskKey is the _meta key that ties a message to its task.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// immediateResponseKey is CreateTaskResult's _meta sentence for the model
// while the task works (the specification's provisional key).
const immediateResponseKey = "io.modelcontextprotocol/model-immediate-response"

// taskMetaKey carries a tools/call's task field past the SDK, which drops
// params it does not know: the screen moves params.task there
// (carryTaskParam) and the task middleware reads it back.
const taskMetaKey = "io.metaforge/task"

// Task statuses.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// Defaults of the task options.
const (
	// DefaultTaskMaxTTL is the longest a task is kept from its creation:
	// the embedded Temporal's retention of a closed workflow (24 h), which
	// starts at its close, so a task is never gone before its ttl.
	DefaultTaskMaxTTL = 24 * time.Hour
	// DefaultTaskPollInterval is the polling interval suggested to clients.
	DefaultTaskPollInterval = time.Second
)

// taskPageSize is how many tasks one tasks/list page holds.
const taskPageSize = 50

// task is the Task object of the specification.
type task struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTL is in milliseconds; never null here (a task is never kept
	// forever).
	TTL          int64 `json:"ttl"`
	PollInterval int64 `json:"pollInterval,omitempty"`
}

// taskResult answers tasks/get and tasks/cancel: the task, flat.
type taskResult struct {
	mcp.ResultBase
	task
}

// createTaskResult answers a task-augmented tools/call.
type createTaskResult struct {
	mcp.ResultBase
	Task task `json:"task"`
}

// listTasksResult answers tasks/list.
type listTasksResult struct {
	mcp.ResultBase
	Tasks      []task `json:"tasks"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// taskIDParams are the params of tasks/get, tasks/result and tasks/cancel.
type taskIDParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// taskListParams are the params of tasks/list.
type taskListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// taskRequest is a tools/call's task field.
type taskRequest struct {
	// TTL is the lifetime asked for, in milliseconds; nil for the
	// server's choice.
	TTL *float64 `json:"ttl,omitempty"`
}

// relatedTask is the _meta that ties a message to task id.
func relatedTask(id string) map[string]any {
	return map[string]any{"taskId": id}
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// carryTaskParam moves a tools/call's params.task into
// params._meta[taskMetaKey], where the SDK keeps it; any other frame
// passes unchanged. A task field that is not an object with an optional
// number ttl is refused here.
func carryTaskParam(frame []byte) verdict {
	if !bytes.Contains(frame, []byte(`"task"`)) {
		return verdict{}
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(frame, &msg) != nil {
		return verdict{}
	}
	var method string
	if json.Unmarshal(msg["method"], &method) != nil || method != "tools/call" {
		return verdict{}
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil {
		return verdict{}
	}
	raw, ok := params["task"]
	if !ok {
		return verdict{}
	}
	var t taskRequest
	if err := json.Unmarshal(raw, &t); err != nil || bytes.TrimSpace(raw)[0] != '{' || (t.TTL != nil && *t.TTL < 0) {
		return errorVerdict(idOf(frame), protocol.InvalidParams,
			fmt.Sprintf("invalid params of tools/call: task must be an object such as {\"ttl\": 60000} (ttl in milliseconds, optional), not %s", raw), 200)
	}
	delete(params, "task")
	meta := map[string]json.RawMessage{}
	if m, ok := params["_meta"]; ok && json.Unmarshal(m, &meta) != nil {
		return verdict{}
	}
	meta[taskMetaKey] = raw
	params["_meta"], _ = json.Marshal(meta)
	msg["params"], _ = json.Marshal(params)
	out, err := json.Marshal(msg)
	if err != nil {
		return verdict{}
	}
	return verdict{frame: out}
}

// taskRequested is the task field of a tools/call the screen carried, if
// it had one.
func taskRequested(p *mcp.CallToolParamsRaw) (taskRequest, bool) {
	if p == nil {
		return taskRequest{}, false
	}
	raw, ok := p.GetMeta()[taskMetaKey]
	if !ok {
		return taskRequest{}, false
	}
	var t taskRequest
	b, _ := json.Marshal(raw)
	_ = json.Unmarshal(b, &t)
	return t, true
}

// speaksTasks says whether a session negotiated a revision with Tasks.
func speaksTasks(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && negotiatedRevision(p.ProtocolVersion) >= tasksRevision
}
