// Package clustertest gives tests a real Temporal cluster on loopback: the
// Temporal server on PostgreSQL that deploy/start-temporal.sh builds and
// starts (no Docker), on a port each test package owns, so packages
// tested in parallel never share one.
package clustertest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/metaforge/metaforge/internal/deployscript"
)

// Test ports (the frontend's gRPC port; the cluster uses the ten above it
// and membership ports 100 above). One per test package or mode.
const (
	PortE2E   = 17233 // e2e: the compose topology as processes
	PortBench = 17433 // bench: throughput over workers
	PortTLS   = 17633 // worker: mTLS
	PortAuth  = 17833 // worker: JWT authorization (API keys)
)

// scriptTimeout bounds deploy/start-temporal.sh: the first run on a
// machine builds the server (minutes on two cores).
const scriptTimeout = 15 * time.Minute

// Options choose the cluster's mode.
type Options struct {
	Port int
	// Fresh drops the cluster's databases first (deploy/stop-temporal.sh
	// --wipe), so no run of an earlier test process is in it.
	Fresh bool
	// TLSDir turns on mTLS with ca.crt, server.crt, server.key,
	// client.crt and client.key from this folder (TEMPORAL_TLS_DIR).
	TLSDir string
	// JWKS turns on JWT authorization with the keys of this file
	// (TEMPORAL_JWKS); AdminToken is then the token the script registers
	// the namespace with.
	JWKS       string
	AdminToken string
	// Namespace to register ("default" when empty).
	Namespace string
}

// Cluster is a running cluster.
type Cluster struct {
	Options
	Address   string // host:port of the frontend (TEMPORAL_ADDRESS)
	HTTPPort  int    // the frontend's HTTP API
	StateDir  string // logs and PID files
	startTook time.Duration
}

// Start starts the cluster (or finds it running) and returns it. The
// cluster is left running when the test ends, for the next test process,
// unless the test stops it. It fails the test, never skips it.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	if opts.Port == 0 {
		t.Fatal("clustertest: Options.Port is required (one of the Port constants)")
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	c := &Cluster{Options: opts, HTTPPort: opts.Port + 10,
		StateDir: filepath.Join(os.TempDir(), "metaforge-temporal-"+strconv.Itoa(opts.Port))}
	if opts.Fresh {
		if _, stderr, err := c.run("stop-temporal.sh", "--wipe"); err != nil {
			t.Fatalf("clustertest: deploy/stop-temporal.sh %d --wipe: %v\n%s", opts.Port, err, deployscript.Tail(stderr, 40))
		}
	}
	c.start(t)
	return c
}

func (c *Cluster) start(t testing.TB) {
	t.Helper()
	t0 := time.Now()
	stdout, stderr, err := c.run("start-temporal.sh")
	if err != nil || !strings.Contains(stdout, "export TEMPORAL_ADDRESS=") {
		why := "it printed no TEMPORAL_ADDRESS"
		if err != nil {
			why = err.Error()
		}
		t.Fatalf("clustertest: deploy/start-temporal.sh %d failed (%s). Last lines of its output:\n%s\n"+
			"It builds the Temporal server with go (GOTOOLCHAIN as in deps.md) and runs it on PostgreSQL "+
			"(deploy/start-postgres.sh); logs are in %s.", c.Port, why, deployscript.Tail(stderr, 40), c.StateDir)
	}
	c.Address = fmt.Sprintf("127.0.0.1:%d", c.Port)
	c.startTook = time.Since(t0)
	t.Logf("clustertest: Temporal cluster on %s (deploy/start-temporal.sh took %s)", c.Address, c.startTook.Round(time.Millisecond))
}

// Env is the environment a metaforge process needs to use the cluster.
func (c *Cluster) Env() []string {
	return []string{"TEMPORAL_ADDRESS=" + c.Address, "TEMPORAL_NAMESPACE=" + c.Namespace}
}

// KillFrontend kills the frontend process (SIGKILL); history, matching and
// the worker service run on.
func (c *Cluster) KillFrontend(t testing.TB) {
	t.Helper()
	c.kill(t, "frontend")
}

// StartFrontend starts whatever of the cluster is not running (after
// KillFrontend, the frontend) and waits until it serves.
func (c *Cluster) StartFrontend(t testing.TB) {
	t.Helper()
	c.start(t)
}

// Stop stops the cluster (deploy/stop-temporal.sh); its databases stay.
func (c *Cluster) Stop(t testing.TB) {
	t.Helper()
	if _, stderr, err := c.run("stop-temporal.sh"); err != nil {
		t.Fatalf("clustertest: deploy/stop-temporal.sh %d: %v\n%s", c.Port, err, deployscript.Tail(stderr, 40))
	}
}

// Log is the tail of one process's log ("frontend" or "core"), for a
// failure message.
func (c *Cluster) Log(name string, lines int) string {
	b, err := os.ReadFile(filepath.Join(c.StateDir, name+".log"))
	if err != nil {
		return err.Error()
	}
	return deployscript.Tail(string(b), lines)
}

func (c *Cluster) kill(t testing.TB, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.StateDir, name+".pid"))
	if err != nil {
		t.Fatalf("clustertest: the %s's PID file: %v", name, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("clustertest: the %s's PID file: %v", name, err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("clustertest: kill the %s (%d): %v", name, pid, err)
	}
	for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(50 * time.Millisecond)
	}
}

// run runs deploy/<script> PORT args... with the cluster's options in its
// environment.
func (c *Cluster) run(script string, args ...string) (stdout, stderr string, err error) {
	path, err := deployscript.Path(script)
	if err != nil {
		return "", "", fmt.Errorf("cannot find deploy/%s: %w", script, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{path, strconv.Itoa(c.Port)}, args...)...)
	cmd.Dir = filepath.Dir(filepath.Dir(path))
	cmd.Env = append(os.Environ(), "TEMPORAL_NAMESPACE="+c.Namespace,
		"TEMPORAL_TLS_DIR="+c.TLSDir, "TEMPORAL_JWKS="+c.JWKS, "TEMPORAL_API_KEY="+c.AdminToken)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// The server runs on in the background; should it hold a pipe, do not
	// wait for it.
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	return out.String(), errOut.String(), err
}
