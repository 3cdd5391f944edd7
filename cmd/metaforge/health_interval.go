package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/metaforge/metaforge/adapters/health"
)

// registerHealthInterval adds --health-interval to serve, mcp and worker:
// each answers health.check (a worker when it polls adapter-health) from
// its own measurement.
func registerHealthInterval(fs *flag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "health-interval", health.DefaultInterval,
		"how old health.check's and /healthz's measurement of the adapters may get; they are probed again in the background before that")
}

// checkHealthInterval refuses an interval under a second: every probe can
// start the solvers' Python.
func checkHealthInterval(d time.Duration) error {
	if d < time.Second {
		return fmt.Errorf("--health-interval %s is too short: give 1s or more (default %s), or every probe would start the solvers' Python again", d, health.DefaultInterval)
	}
	return nil
}
