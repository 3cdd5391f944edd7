package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/worker"
)

// runMCP serves MCP on stdin/stdout. Temporal is TEMPORAL_ADDRESS, else a
// metaforge serve already running on this machine, else one embedded here.
// stdout carries protocol messages only; logs go to stderr.
func runMCP(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	var tf temporalFlags
	tf.register(fs)
	var hf holdFlags
	hf.register(fs)
	var lf limitFlags
	lf.register(fs)
	opts, logger, err := tf.parse(fs, args, true)
	if err != nil {
		return err
	}
	holds, err := hf.policy()
	if err != nil {
		return err
	}
	limits, err := lf.limits()
	if err != nil {
		return err
	}
	if opts.Address == "" && tf.uiPort != 0 && worker.CheckPortFree("127.0.0.1", tf.uiPort, "Temporal UI") != nil {
		opts.Embed.UIPort = 0 // a UI is a convenience here, not a reason to fail
	}
	// A running metaforge serve already runs workers; otherwise this
	// process must, or nothing would execute the calls.
	runWorkers := func(t *worker.Temporal) bool { return !tf.noWorker && t.Mode != worker.ModeShared }
	rt, err := startRuntime(ctx, opts, tf.runtime(runWorkers), logger)
	if err != nil {
		return err
	}
	defer rt.stop()
	rt.limits = limits
	srv := rt.mcpServer(mcpserver.CallerLocal, stdioSessionID(), holds, operatorAccess{}, logger)
	logger.Info("serving MCP on stdio", "temporal", rt.temporal.Mode, "address", rt.temporal.Address)
	if err := srv.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	return nil
}

// stdioSessionID is METAFORGE_SESSION_ID, or one made up for this process:
// over stdio one process is one session, so a project bound by
// session.start sticks for the process's life either way.
func stdioSessionID() string {
	if id := os.Getenv("METAFORGE_SESSION_ID"); id != "" {
		return id
	}
	return "stdio-" + mcpserver.NewCallID()
}
