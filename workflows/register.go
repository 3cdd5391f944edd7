package workflows

import (
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// RegisterWith registers every MetaForge workflow on the "metaforge"
// queue's worker, under the names recorded histories carry.
func RegisterWith(r worker.WorkflowRegistry) {
	for _, w := range []struct {
		name string
		fn   any
	}{
		{"ToolCall", ToolCall},
		{"DesignFlow", DesignFlow},
		{"DesignLoop", DesignLoop},
		{"EngineeringChange", EngineeringChange},
		{"EvaluateMetric", EvaluateMetric},
		{"EvaluateThermal", EvaluateThermal},
		{"ImportWorkProduct", ImportWorkProduct},
		{"EvaluateOverhang", EvaluateOverhang},
		{KnowledgeIngestWorkflow, KnowledgeIngest},
		{CadSessionWorkflow, CadSession},
	} {
		r.RegisterWorkflowWithOptions(w.fn, workflow.RegisterOptions{Name: w.name})
	}
}
