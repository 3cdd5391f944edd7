// Package worker runs MetaForge's Temporal side: it owns the embedded dev
// server, connects to Temporal, and runs the workers that execute workflows
// and adapter activities on their task queues.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/metaforge/metaforge/activities"
	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/workflows"
)

// Workers are the running Temporal workers of this process.
type Workers struct {
	workers []sdkworker.Worker
	queues  []string
}

// Queues names the task queues these workers serve.
func (w *Workers) Queues() []string { return w.queues }

// AllQueues is every task queue a registry needs served: the workflow queue
// and one queue per adapter.
func AllQueues(reg *adapters.Registry) []string {
	qs := []string{workflows.TaskQueue}
	for _, id := range reg.AdapterIDs() {
		qs = append(qs, workflows.AdapterTaskQueue(id))
	}
	return qs
}

// ParseQueues turns --queues (comma separated; "all", a queue name, or an
// adapter id) into task queue names, refusing names nobody serves.
func ParseQueues(spec string, reg *adapters.Registry) ([]string, error) {
	all := AllQueues(reg)
	if strings.TrimSpace(spec) == "" || spec == "all" {
		return all, nil
	}
	var out []string
	for _, q := range strings.Split(spec, ",") {
		q = strings.TrimSpace(q)
		if q == "" {
			continue
		}
		if !slices.Contains(all, q) && slices.Contains(all, workflows.AdapterTaskQueue(q)) {
			q = workflows.AdapterTaskQueue(q)
		}
		if !slices.Contains(all, q) {
			return nil, fmt.Errorf("unknown task queue %q in --queues; known: %s", q, strings.Join(all, ", "))
		}
		if !slices.Contains(out, q) {
			out = append(out, q)
		}
	}
	return out, nil
}

// StartWorkers starts one worker per queue on the client: the ToolCall
// workflow on "metaforge", InvokeTool on each "adapter-<id>".
func StartWorkers(c client.Client, reg *adapters.Registry, queues []string, logger *slog.Logger) (*Workers, error) {
	return StartWorkersWith(c, reg, queues, logger, Solvers{})
}

// Solvers say where the adapters' solver runs happen: the runtime per
// adapter (process, sandbox, docker) and the workspace they may read. The
// zero value runs them as plain processes.
type Solvers struct {
	Runtimes      solver.Runtimes
	WorkspaceRoot string
	ReadRoots     []string
}

// StartWorkersWith is StartWorkers with the solver runtimes configured.
func StartWorkersWith(c client.Client, reg *adapters.Registry, queues []string, logger *slog.Logger, s Solvers) (*Workers, error) {
	tools := &activities.Tools{Registry: reg, Runtimes: s.Runtimes, WorkspaceRoot: s.WorkspaceRoot, ReadRoots: s.ReadRoots}
	designFlows := &activities.DesignFlows{Facts: factsReader(reg), Registry: reg}
	designLoops := &activities.DesignLoops{Twin: loopTwin(reg)}
	metrics := &activities.Metrics{Twin: metricTwin(reg), Steps: designFlows}
	thermal := &activities.Thermal{Twin: thermalTwin(reg), Steps: designFlows}
	w := &Workers{queues: queues}
	for _, q := range queues {
		wk := sdkworker.New(c, q, sdkworker.Options{
			MaxConcurrentWorkflowTaskPollers: 4,
			MaxConcurrentActivityTaskPollers: 4,
		})
		if q == workflows.TaskQueue {
			wk.RegisterWorkflowWithOptions(workflows.ToolCall, workflow.RegisterOptions{Name: "ToolCall"})
			wk.RegisterWorkflowWithOptions(workflows.DesignFlow, workflow.RegisterOptions{Name: "DesignFlow"})
			wk.RegisterActivityWithOptions(designFlows.EvaluateGate, activity.RegisterOptions{Name: workflows.EvaluateGateActivity})
			wk.RegisterActivityWithOptions(designFlows.VerifyCompletion, activity.RegisterOptions{Name: workflows.VerifyCompletionActivity})
			wk.RegisterActivityWithOptions(designFlows.PrepareStepCall, activity.RegisterOptions{Name: workflows.PrepareStepCallActivity})
			wk.RegisterActivityWithOptions(designFlows.PrepareStepEvidence, activity.RegisterOptions{Name: workflows.PrepareStepEvidenceActivity})
			wk.RegisterWorkflowWithOptions(workflows.DesignLoop, workflow.RegisterOptions{Name: "DesignLoop"})
			wk.RegisterActivityWithOptions(designLoops.EvaluateLoopCandidate, activity.RegisterOptions{Name: workflows.EvaluateLoopCandidateActivity})
			wk.RegisterActivityWithOptions(designLoops.RecordLoop, activity.RegisterOptions{Name: workflows.RecordLoopActivity})
			wk.RegisterActivityWithOptions(designLoops.RecordLoopIteration, activity.RegisterOptions{Name: workflows.RecordLoopIterationActivity})
			wk.RegisterActivityWithOptions(designLoops.RecordLoopOutcome, activity.RegisterOptions{Name: workflows.RecordLoopOutcomeActivity})
			wk.RegisterWorkflowWithOptions(workflows.EvaluateMetric, workflow.RegisterOptions{Name: "EvaluateMetric"})
			wk.RegisterActivityWithOptions(metrics.Tier0Metric, activity.RegisterOptions{Name: workflows.Tier0MetricActivity})
			wk.RegisterActivityWithOptions(metrics.PrepareTier2Call, activity.RegisterOptions{Name: workflows.PrepareTier2CallActivity})
			wk.RegisterActivityWithOptions(metrics.RecordTier2Metric, activity.RegisterOptions{Name: workflows.RecordTier2MetricActivity})
			wk.RegisterWorkflowWithOptions(workflows.EvaluateThermal, workflow.RegisterOptions{Name: "EvaluateThermal"})
			wk.RegisterActivityWithOptions(thermal.PrepareThermalCalls, activity.RegisterOptions{Name: workflows.PrepareThermalCallsActivity})
			wk.RegisterActivityWithOptions(thermal.PrepareThermalCrossCheck, activity.RegisterOptions{Name: workflows.PrepareThermalCrossCheckActivity})
			wk.RegisterActivityWithOptions(thermal.RecordThermalMetric, activity.RegisterOptions{Name: workflows.RecordThermalMetricActivity})
		} else {
			wk.RegisterActivityWithOptions(tools.InvokeTool, activity.RegisterOptions{Name: workflows.InvokeToolActivity})
		}
		if err := wk.Start(); err != nil {
			w.Stop()
			return nil, fmt.Errorf("start worker for task queue %s: %w", q, err)
		}
		w.workers = append(w.workers, wk)
	}
	logger.Info("workers started", "queues", strings.Join(queues, ","))
	return w, nil
}

// factsReader is the served adapter that reads the twin for gates (the
// twin's own tools); without one, a gate's judgement fails and says so.
func factsReader(reg *adapters.Registry) activities.FactsReader {
	for _, a := range reg.Adapters() {
		if f, ok := a.(activities.FactsReader); ok {
			return f
		}
	}
	return noTwin{}
}

// loopTwin is the served adapter that persists design loops (the twin's
// own tools), or nil: a loop activity then fails and says why.
func loopTwin(reg *adapters.Registry) activities.LoopTwin {
	for _, a := range reg.Adapters() {
		if l, ok := a.(activities.LoopTwin); ok {
			return l
		}
	}
	return nil
}

// metricTwin is the served adapter that records tiered evaluations.
func metricTwin(reg *adapters.Registry) activities.MetricTwin {
	for _, a := range reg.Adapters() {
		if m, ok := a.(activities.MetricTwin); ok {
			return m
		}
	}
	return nil
}

// thermalTwin is the served adapter that records thermal evaluations.
func thermalTwin(reg *adapters.Registry) activities.ThermalTwin {
	for _, a := range reg.Adapters() {
		if t, ok := a.(activities.ThermalTwin); ok {
			return t
		}
	}
	return nil
}

type noTwin struct{}

func (noTwin) FlowFacts(context.Context, string) (flows.Facts, error) {
	return flows.Facts{}, errors.New("this worker serves no twin, so a gate cannot be judged: run it with the twin's tools registered")
}

// Stop stops every worker, letting in-flight activities finish up to the
// worker's stop timeout; what does not finish is retried (if idempotent)
// by Temporal once a worker is back.
func (w *Workers) Stop() {
	for _, wk := range w.workers {
		wk.Stop()
	}
	w.workers = nil
}
