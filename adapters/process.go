package adapters

import (
	"context"
	"encoding/json"
)

// Process is a durable process that a tool's work is: a tiered evaluation,
// a design loop, a design-flow run, an approval held in the queue. The
// tool validates its arguments and prepares the process; the call's
// workflow then runs it as its child, so no worker slot waits on it, a
// restart loses nothing, and the Temporal UI shows the call and its child
// side by side. An adapter names the process and its input; it never
// starts one.
type Process struct {
	// Kind is the workflow type that runs it ("EvaluateMetric",
	// "DesignLoop", "DesignFlow", "ToolCall"). Empty: there is nothing to
	// start, and the call only follows the process ID names, which is
	// already running (a flow run reaching its gate).
	Kind string `json:"kind"`
	// ID is the process's identity (its workflow ID): a second start with
	// the same ID finds the first instead of running it twice.
	ID string `json:"id"`
	// Input is the process's input, as JSON.
	Input json.RawMessage `json:"input"`
	// Summary is the one line the Temporal UI shows for it.
	Summary string `json:"summary,omitempty"`
	// SearchAttributes are the keyword search attributes it starts with
	// (MfProject, ...), so it is found the way its siblings are.
	SearchAttributes map[string]string `json:"search_attributes,omitempty"`
	// Memo is what its readers need beside its input (the approvals
	// queue's description of a held call), each value JSON.
	Memo map[string]json.RawMessage `json:"memo,omitempty"`
	// Detached marks a process that outlives the call (a design loop
	// waiting for an approval, a flow run at its gates): the call answers
	// once it has started. Otherwise the call's answer is the process's
	// result, and the call fails as the process does.
	Detached bool `json:"detached,omitempty"`
	// Answer is a detached process's answer to the call, when the tool
	// knows it before the start.
	Answer json.RawMessage `json:"answer,omitempty"`
	// Follow asks the adapter (a ProcessFollower) for the answer after
	// the start instead, again until it says the process has settled or
	// FollowSeconds have passed.
	Follow        bool `json:"follow,omitempty"`
	FollowSeconds int  `json:"follow_seconds,omitempty"`
}

// ProcessStart is how a detached process's start went.
type ProcessStart struct {
	// Duplicate: a process with the same ID had already been started,
	// by another call, and that one is the process.
	Duplicate bool `json:"duplicate"`
}

// ProcessFollower is an adapter whose tools answer from a detached
// process's state (a design loop's search as it stands). It reads the
// state; it never waits for it: the call's workflow asks again, on a
// durable timer, until the answer is settled or the time is up.
type ProcessFollower interface {
	FollowProcess(ctx context.Context, toolID string, p Process, s ProcessStart) (answer json.RawMessage, settled bool, err error)
}
