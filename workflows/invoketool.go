package workflows

import (
	"encoding/json"
	"errors"

	"go.temporal.io/sdk/temporal"
)

// InvokeToolActivity is the activity that runs one tool on its adapter's
// queue. Workflows name it rather than import the activities package, which
// does I/O.
const InvokeToolActivity = "InvokeTool"

// InvokeToolLocalActivity is the same call run as a local activity on the
// worker that runs the call's workflow (ToolCallInput.Local). A worker
// that does not have the tool in its own process answers NotLocal.
const InvokeToolLocalActivity = "InvokeToolLocal"

// NotLocal is the error type of InvokeToolLocal on a worker that cannot run
// the tool itself: the workflow then dispatches it to the adapter's queue.
const NotLocal = "not_local"

// localActivityChange versions running a tool as a local activity
// (workflow.GetVersion).
const localActivityChange = "local-activity"

// InvokeToolRequest is the activity's input. CallID doubles as the
// idempotency key a write passes to the store it writes to.
type InvokeToolRequest struct {
	CallID         string          `json:"call_id"`
	ToolID         string          `json:"tool_id"`
	Arguments      json.RawMessage `json:"arguments"`
	TimeoutSeconds int             `json:"timeout_seconds"`
	SessionID      string          `json:"session_id,omitempty"`
	Caller         string          `json:"caller,omitempty"`
	Client         string          `json:"client,omitempty"`
	// Requester is the verified identity that asked for the call ("" when
	// none): a tool that holds something for approval records it, so the
	// requester cannot approve that either.
	Requester string `json:"requester,omitempty"`
	// Approval is the decision that let a held call run: who approved it
	// is what a human-authority tool records.
	Approval *Approval `json:"approval,omitempty"`
}

// InvokeToolResponse is what the tool returned, and on which attempt.
type InvokeToolResponse struct {
	Data        json.RawMessage `json:"data"`
	OutputFiles []string        `json:"output_files,omitempty"`
	DurationMs  float64         `json:"duration_ms"`
	Attempt     int32           `json:"attempt"`
	// Process is the durable process the tool's work is, for the call to
	// run as its child; nil for a tool that did its work itself.
	Process *ChildProcess `json:"process,omitempty"`
}

// InvokeToolFailure rides as the details of the activity's error, so the
// workflow can report how long the failed attempt took.
type InvokeToolFailure struct {
	DurationMs float64 `json:"duration_ms"`
	Attempt    int32   `json:"attempt"`
}

// isNotLocal says the worker could not run the tool itself, so the call
// goes to the adapter's queue.
func isNotLocal(err error) bool {
	var appErr *temporal.ApplicationError
	return errors.As(err, &appErr) && appErr.Type() == NotLocal
}
