// Package worker runs MetaForge's Temporal side: it owns the embedded dev
// server, connects to Temporal (or embeds it), registers the search
// attributes, and runs one worker per task queue: the workflows and their
// activities on "metaforge", each adapter's tool activities on
// "adapter-<id>". What the activities work on is given in Deps.
package worker

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/metaforge/metaforge/activities"
	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/knowledge"
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

// StartWorkers starts one worker per queue on the client: the workflows
// on "metaforge", the tool activities on each "adapter-<id>". It serves
// no twin and runs solvers as plain processes; StartWorkersWith says
// otherwise.
func StartWorkers(c client.Client, reg *adapters.Registry, queues []string, logger *slog.Logger) (*Workers, error) {
	return StartWorkersWith(c, reg, queues, logger, Deps{})
}

// Deps are what the workers' activities work on, given explicitly.
type Deps struct {
	// Runtimes say where the adapters' solver runs happen (process,
	// sandbox, docker); WorkspaceRoot and ReadRoots are the files they
	// may read. The zero value runs them as plain processes.
	Runtimes      solver.Runtimes
	WorkspaceRoot string
	ReadRoots     []string
	// Twin is what the workflows' activities read and record (gates,
	// loops, evaluations); nil: those activities fail and say why.
	Twin activities.Twin
	// CadDocuments are this process's live CAD documents (the freecad
	// adapter's): with them, the freecad queue's worker takes CadSession
	// workflows' worker sessions. nil: it takes none.
	CadDocuments activities.CadDocuments
	// Knowledge is the knowledge base documents are ingested into (the
	// KnowledgeIngest workflow's activities); nil: ingests fail and say
	// why.
	Knowledge knowledge.Store
}

// HeartbeatThrottle is the longest a tool's heartbeat waits to be sent.
const HeartbeatThrottle = time.Second

// StartWorkersWith is StartWorkers with its dependencies.
func StartWorkersWith(c client.Client, reg *adapters.Registry, queues []string, logger *slog.Logger, d Deps) (*Workers, error) {
	tools := &activities.Tools{Registry: reg, Runtimes: d.Runtimes, WorkspaceRoot: d.WorkspaceRoot, ReadRoots: d.ReadRoots}
	w := &Workers{queues: queues}
	for _, q := range queues {
		cadSessions := d.CadDocuments != nil && q == workflows.AdapterTaskQueue(workflows.CadSessionAdapter)
		wk := sdkworker.New(c, q, sdkworker.Options{
			// A CAD session's document lives in this process: a worker
			// session pins the session's activities here.
			EnableSessionWorker:              cadSessions,
			MaxConcurrentWorkflowTaskPollers: 4,
			MaxConcurrentActivityTaskPollers: 4,
			// A heartbeat is how a running tool hears that its call
			// was cancelled (tasks/cancel): sent at least every
			// second, a cancelled solver is stopped within about one,
			// not the 8 s the SDK's throttle (0.8 x the heartbeat
			// timeout) would take.
			MaxHeartbeatThrottleInterval: HeartbeatThrottle,
		})
		if q == workflows.TaskQueue {
			workflows.RegisterWith(wk)
			activities.RegisterWorkflowActivities(wk, tools, d.Twin)
			activities.RegisterKnowledgeActivities(wk, &activities.Knowledge{Store: d.Knowledge})
		} else {
			activities.RegisterToolActivities(wk, tools)
		}
		if cadSessions {
			activities.RegisterCadSessionActivities(wk, &activities.CadSessions{Documents: d.CadDocuments, WorkspaceRoot: d.WorkspaceRoot})
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

// Stop stops every worker, letting in-flight activities finish up to the
// worker's stop timeout; what does not finish is retried (if idempotent)
// by Temporal once a worker is back.
func (w *Workers) Stop() {
	for _, wk := range w.workers {
		wk.Stop()
	}
	w.workers = nil
}
