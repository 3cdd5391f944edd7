// Package workflows holds MetaForge's Temporal workflows: ToolCall (every
// tool call, its approval hold, and the child process a long tool runs),
// DesignFlow, DesignLoop, EvaluateMetric and EvaluateThermal, registered by
// RegisterWith. Deterministic code only (no I/O, clocks, randomness or
// map-order decisions; workflowcheck checks it); everything that touches
// the world is an activity. A change to a workflow's commands goes behind
// workflow.GetVersion, and the histories in testdata/ must still replay.
//
// It also holds the names the rest of MetaForge shares: task queues,
// workflow IDs, search attributes, activity names and their types.
package workflows

import "go.temporal.io/sdk/temporal"

// TaskQueue is where every MetaForge workflow runs.
const TaskQueue = "metaforge"

// AdapterTaskQueue is the queue an adapter's activities run on, so a site can
// run each solver's queue on the machines that have the solver.
func AdapterTaskQueue(adapterID string) string { return "adapter-" + adapterID }

// CallWorkflowID is the ToolCall workflow's ID: the call's identity, named by
// _meta.callId and findable in the Temporal UI.
func CallWorkflowID(callID string) string { return "call-" + callID }

// Search attributes the workflows set, so the Temporal UI and metaforge
// approvals can filter on them ("every held call in project X").
var (
	AttrTool    = temporal.NewSearchAttributeKeyKeyword("MfTool")
	AttrAdapter = temporal.NewSearchAttributeKeyKeyword("MfAdapter")
	AttrProject = temporal.NewSearchAttributeKeyKeyword("MfProject")
	AttrCaller  = temporal.NewSearchAttributeKeyKeyword("MfCaller")
	AttrClient  = temporal.NewSearchAttributeKeyKeyword("MfClient")
	AttrHold    = temporal.NewSearchAttributeKeyKeyword("MfHold")
	AttrFlow    = temporal.NewSearchAttributeKeyKeyword("MfFlow")
	AttrPhase   = temporal.NewSearchAttributeKeyKeyword("MfPhase")
	AttrGate    = temporal.NewSearchAttributeKeyKeyword("MfGate")
	// AttrOwner is the auth context a task-augmented call belongs to
	// (a verified subject, or a session), so tasks/list finds a caller's
	// own tasks and nobody else's.
	AttrOwner = temporal.NewSearchAttributeKeyKeyword("MfOwner")
	// AttrChange is an engineering change's state (PROPOSED ...
	// ROLLED_BACK). A KeywordList: SQLite visibility's ten Keyword
	// columns are taken.
	AttrChange = temporal.NewSearchAttributeKeyKeywordList("MfChange")
)

// SearchAttributeKeys lists every attribute, for registration at start-up.
var SearchAttributeKeys = []temporal.SearchAttributeKeyKeyword{
	AttrTool, AttrAdapter, AttrProject, AttrCaller, AttrClient, AttrHold, AttrFlow, AttrPhase, AttrGate, AttrOwner,
}

// SearchAttributeListKeys lists the KeywordList attributes, for
// registration at start-up.
var SearchAttributeListKeys = []temporal.SearchAttributeKeyKeywordList{AttrChange}
