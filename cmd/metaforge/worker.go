package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// runWorker runs workers only, for the task queues in --queues, against
// TEMPORAL_ADDRESS (a local metaforge serve when unset), so solvers can run
// on the machines that have them.
func runWorker(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	queues := fs.String("queues", "all", `task queues to serve, comma separated: "metaforge", "adapter-<id>" or an adapter id; "all" for every one`)
	address := fs.String("temporal-address", "", "Temporal frontend host:port (default TEMPORAL_ADDRESS, else 127.0.0.1:7233)")
	logLevel := fs.String("log-level", "warn", "debug, info, warn or error")
	home, _ := os.UserHomeDir()
	dataDir := fs.String("data-dir", filepath.Join(home, ".metaforge"), "where blobs (STEP files, meshes) are kept; share it between machines")
	var allowTwinMutations bool
	registerTwinFlags(fs, &allowTwinMutations)
	var sf solverFlags
	sf.register(fs)
	var roots fileRoots
	roots.register(fs)
	var healthInterval time.Duration
	registerHealthInterval(fs, &healthInterval)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := checkHealthInterval(healthInterval); err != nil {
		return err
	}
	logger, err := newLogger(*logLevel)
	if err != nil {
		return err
	}
	var tf temporalFlags
	opts, err := tf.options(false)
	if err != nil {
		return err
	}
	opts.Logger = logger
	switch {
	case *address != "":
		opts.Address = *address
	case opts.Address == "":
		opts.Address = "127.0.0.1:7233"
	}
	rt, err := startRuntime(ctx, opts, runtimeOptions{dataDir: *dataDir, allowTwinMutations: allowTwinMutations, runWorkers: always, queues: *queues, solvers: sf, roots: roots, healthInterval: healthInterval}, logger)
	if err != nil {
		return err
	}
	defer rt.stop()
	fmt.Fprintf(os.Stderr, "metaforge worker: serving %v against %s (namespace %s)\n", rt.workers.Queues(), rt.temporal.Address, rt.temporal.Namespace)
	<-ctx.Done()
	return nil
}
