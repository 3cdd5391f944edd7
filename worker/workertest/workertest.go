// Package workertest starts the real embedded Temporal dev server (in
// memory, no UI) and MetaForge's workers for tests, so tests exercise the
// durable path itself rather than a mock of it.
package workertest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/worker"
)

// QuietLogger discards everything below errors.
func QuietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}))
}

// StartTemporal starts an in-memory embedded Temporal server and connects to
// it; both stop when the test ends.
func StartTemporal(t testing.TB) *worker.Temporal {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmp, err := worker.ConnectTemporal(ctx, worker.TemporalOptions{Logger: QuietLogger()})
	if err != nil {
		t.Fatalf("start embedded Temporal: %v", err)
	}
	t.Cleanup(tmp.Close)
	return tmp
}

// StartWorkers runs workers for every queue of reg until the test ends.
func StartWorkers(t testing.TB, tmp *worker.Temporal, reg *adapters.Registry) *worker.Workers {
	t.Helper()
	return StartWorkersWith(t, tmp, reg, worker.Deps{})
}

// StartWorkersWith is StartWorkers with the workers' dependencies (the
// twin the workflows' activities use).
func StartWorkersWith(t testing.TB, tmp *worker.Temporal, reg *adapters.Registry, d worker.Deps) *worker.Workers {
	t.Helper()
	w, err := worker.StartWorkersWith(tmp.Client, reg, worker.AllQueues(reg), QuietLogger(), d)
	if err != nil {
		t.Fatalf("start workers: %v", err)
	}
	t.Cleanup(w.Stop)
	return w
}
