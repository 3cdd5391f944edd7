package main

import (
	"context"
	"log/slog"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/worker"
)

// always and never are runWorkers answers for commands that know already.
func always(*worker.Temporal) bool { return true }
func never(*worker.Temporal) bool  { return false }

// runtime is what serve, mcp and worker share: Temporal, the catalogue,
// and (unless turned off) the workers.
type runtime struct {
	temporal *worker.Temporal
	registry *adapters.Registry
	health   *health.Checker
	workers  *worker.Workers
}

// startRuntime connects to (or embeds) Temporal, builds the catalogue, and
// starts workers for queueSpec ("" or "all": every queue) when runWorkers
// says so for the Temporal it found.
func startRuntime(ctx context.Context, opts worker.TemporalOptions, runWorkers func(*worker.Temporal) bool, queueSpec string, logger *slog.Logger) (*runtime, error) {
	t, err := worker.ConnectTemporal(ctx, opts)
	if err != nil {
		return nil, err
	}
	rt := &runtime{temporal: t}
	rt.registry, rt.health, err = catalog(t)
	if err != nil {
		rt.stop()
		return nil, err
	}
	if runWorkers(t) {
		queues, err := worker.ParseQueues(queueSpec, rt.registry)
		if err != nil {
			rt.stop()
			return nil, err
		}
		rt.workers, err = worker.StartWorkers(t.Client, rt.registry, queues, logger)
		if err != nil {
			rt.stop()
			return nil, err
		}
	}
	return rt, nil
}

// stop stops the workers, then Temporal. Workflows in flight stay in
// Temporal's database.
func (rt *runtime) stop() {
	if rt.workers != nil {
		rt.workers.Stop()
	}
	rt.temporal.Close()
}
