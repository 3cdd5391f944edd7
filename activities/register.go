package activities

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"

	"github.com/metaforge/metaforge/workflows"
)

// Twin is the twin as the workflows' activities read and record it: the
// facts a gate is judged on, design loops, and evaluations. The twin's
// backend implements it; nil is a worker without a twin, whose twin
// activities fail and say so.
type Twin interface {
	FactsReader
	LoadCaseTwin
	LoopTwin
	MetricTwin
	ThermalTwin
	ImportTwin
	OverhangTwin
	ChangeTwin
	CadSessionTwin
}

// RegisterToolActivities registers, on an adapter queue's worker, the
// activities that run tools there: InvokeTool, and FollowProcess for a
// tool that answers from the process it started.
func RegisterToolActivities(r worker.ActivityRegistry, t *Tools) {
	r.RegisterActivityWithOptions(t.InvokeTool, activity.RegisterOptions{Name: workflows.InvokeToolActivity})
	r.RegisterActivityWithOptions(t.FollowProcess, activity.RegisterOptions{Name: workflows.FollowProcessActivity})
}

// RegisterWorkflowActivities registers, on the "metaforge" queue's worker,
// the activities the workflows run there: gates and step calls of design
// flows, design loops, the evaluations, engineering changes, and InvokeToolLocal, the
// short tools ToolCall runs as local activities. registry resolves the
// tools a step calls.
func RegisterWorkflowActivities(r worker.ActivityRegistry, tools *Tools, twin Twin) {
	designFlows := &DesignFlows{Registry: tools.Registry, WorkspaceRoot: tools.WorkspaceRoot}
	loops := &DesignLoops{}
	metrics := &Metrics{Steps: designFlows}
	thermal := &Thermal{Steps: designFlows}
	imports := &Imports{Steps: designFlows}
	overhangs := &Overhangs{Steps: designFlows}
	changes := &Changes{Steps: designFlows}
	cadRecords := &CadRecords{}
	if twin != nil {
		designFlows.Facts, designFlows.LoadCases, loops.Twin, metrics.Twin, thermal.Twin = twin, twin, twin, twin, twin
		changes.Twin, imports.Twin, overhangs.Twin, cadRecords.Twin = twin, twin, twin, twin
	} else {
		designFlows.Facts = noTwin{}
	}
	for name, fn := range map[string]any{
		workflows.EvaluateGateActivity:             designFlows.EvaluateGate,
		workflows.VerifyCompletionActivity:         designFlows.VerifyCompletion,
		workflows.PrepareStepCallActivity:          designFlows.PrepareStepCall,
		workflows.PrepareStepEvidenceActivity:      designFlows.PrepareStepEvidence,
		workflows.PlanLoadCasesActivity:            designFlows.PlanLoadCases,
		workflows.BuildLoadCaseStepActivity:        designFlows.BuildLoadCaseStep,
		workflows.EvaluateLoopCandidateActivity:    loops.EvaluateLoopCandidate,
		workflows.RecordLoopActivity:               loops.RecordLoop,
		workflows.RecordLoopIterationActivity:      loops.RecordLoopIteration,
		workflows.RecordLoopOutcomeActivity:        loops.RecordLoopOutcome,
		workflows.Tier0MetricActivity:              metrics.Tier0Metric,
		workflows.PrepareTier2CallActivity:         metrics.PrepareTier2Call,
		workflows.RecordTier2MetricActivity:        metrics.RecordTier2Metric,
		workflows.PrepareThermalCallsActivity:      thermal.PrepareThermalCalls,
		workflows.PrepareThermalCrossCheckActivity: thermal.PrepareThermalCrossCheck,
		workflows.RecordThermalMetricActivity:      thermal.RecordThermalMetric,
		workflows.PrepareImportCallActivity:        imports.PrepareImportCall,
		workflows.RecordImportActivity:             imports.RecordImport,
		workflows.PrepareOverhangCallActivity:      overhangs.PrepareOverhangCall,
		workflows.RecordOverhangActivity:           overhangs.RecordOverhang,
		workflows.InvokeToolLocalActivity:          tools.InvokeToolLocal,
		workflows.AnalyzeChangeActivity:            changes.AnalyzeChange,
		workflows.CommitChangeActivity:             changes.CommitChange,
		workflows.RecordChangeEventActivity:        changes.RecordChangeEvent,
		workflows.PrepareReplayCallActivity:        changes.PrepareReplayCall,
		workflows.ConfirmRevalidationActivity:      changes.ConfirmRevalidation,
		workflows.RecordCadSessionActivity:         cadRecords.RecordCadSession,
	} {
		r.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
}

// RegisterCadSessionActivities registers, on the worker of the queue whose
// adapter holds CAD documents (workflows.CadSessionAdapter), the
// activities a CadSession workflow runs in its worker session.
func RegisterCadSessionActivities(r worker.ActivityRegistry, c *CadSessions) {
	for name, fn := range map[string]any{
		workflows.OpenCadDocumentActivity:  c.OpenCadDocument,
		workflows.ApplyCadEditActivity:     c.ApplyCadEdit,
		workflows.SaveCadDocumentActivity:  c.SaveCadDocument,
		workflows.CloseCadDocumentActivity: c.CloseCadDocument,
	} {
		r.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
}
