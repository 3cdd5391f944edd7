package main

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters/health"
)

// --health-interval reaches the runtime's options; one under a second is
// refused, naming the flag, since every probe starts the solvers' Python.
func TestHealthIntervalFlag(t *testing.T) {
	parse := func(args ...string) (temporalFlags, error) {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var tf temporalFlags
		tf.register(fs)
		_, _, err := tf.parse(fs, args, false)
		return tf, err
	}
	tf, err := parse()
	if err != nil || tf.runtime(never).healthInterval != health.DefaultInterval {
		t.Fatalf("default: %v, interval %s, want %s", err, tf.healthInterval, health.DefaultInterval)
	}
	if tf, err = parse("--health-interval", "30s"); err != nil || tf.runtime(never).healthInterval != 30*time.Second {
		t.Fatalf("--health-interval 30s: %v, interval %s", err, tf.healthInterval)
	}
	if _, err = parse("--health-interval", "200ms"); err == nil || !strings.Contains(err.Error(), "--health-interval 200ms is too short") {
		t.Fatalf("--health-interval 200ms: %v, want it refused", err)
	}
}
