package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/worker"
)

// temporalFlags are the flags every command that reaches Temporal shares.
type temporalFlags struct {
	dataDir            string
	temporalPort       int
	uiPort             int
	logLevel           string
	allowTwinMutations bool
	noWorker           bool
	solvers            solverFlags
	roots              fileRoots
	profile            string
	healthInterval     time.Duration
}

func (f *temporalFlags) register(fs *flag.FlagSet) {
	home, _ := os.UserHomeDir()
	fs.StringVar(&f.dataDir, "data-dir", filepath.Join(home, ".metaforge"), "where the embedded Temporal keeps its runs (SQLite)")
	fs.IntVar(&f.temporalPort, "temporal-port", 7233, "embedded Temporal frontend port")
	fs.IntVar(&f.uiPort, "ui-port", 8233, "embedded Temporal UI port (0: no UI)")
	fs.StringVar(&f.logLevel, "log-level", "warn", "debug, info, warn or error")
	registerTwinFlags(fs, &f.allowTwinMutations)
	fs.BoolVar(&f.noWorker, "no-worker", false, "run no workers in this process (they run elsewhere)")
	f.solvers.register(fs)
	f.roots.register(fs)
	fs.StringVar(&f.profile, "profile", os.Getenv("METAFORGE_PROFILE"),
		"the tool profile served by default (core, mechanical, simulation, electronics, mechanical_product, robotics); a connection's ?profile= wins; empty: every tool")
	registerHealthInterval(fs, &f.healthInterval)
}

// parse reads the flags and makes the logger and the Temporal options.
func (f *temporalFlags) parse(fs *flag.FlagSet, args []string, useRunning bool) (worker.TemporalOptions, *slog.Logger, error) {
	if err := fs.Parse(args); err != nil {
		return worker.TemporalOptions{}, nil, err
	}
	if err := mcpserver.ValidateProfile(f.profile); err != nil {
		return worker.TemporalOptions{}, nil, fmt.Errorf("--profile: %w", err)
	}
	if err := checkHealthInterval(f.healthInterval); err != nil {
		return worker.TemporalOptions{}, nil, err
	}
	logger, err := newLogger(f.logLevel)
	if err != nil {
		return worker.TemporalOptions{}, nil, err
	}
	opts, err := f.options(useRunning)
	if err != nil {
		return worker.TemporalOptions{}, nil, err
	}
	opts.Logger = logger
	return opts, logger, nil
}

// registerTwinFlags adds the twin's flags. The mutation flag must agree on
// every process of a deployment (the MCP server annotates, the worker
// enforces), so it can also come from METAFORGE_ALLOW_TWIN_MUTATIONS.
func registerTwinFlags(fs *flag.FlagSet, allow *bool) {
	fs.BoolVar(allow, "allow-twin-mutations", os.Getenv("METAFORGE_ALLOW_TWIN_MUTATIONS") == "true",
		"let twin.query_cypher run Cypher that writes (default: read-only, as Neo4j's EXPLAIN decides)")
}

func (f *temporalFlags) runtime(runWorkers func(*worker.Temporal) bool) runtimeOptions {
	return runtimeOptions{dataDir: f.dataDir, allowTwinMutations: f.allowTwinMutations, runWorkers: runWorkers, solvers: f.solvers, roots: f.roots, profile: f.profile, healthInterval: f.healthInterval}
}

func (f *temporalFlags) options(useRunning bool) (worker.TemporalOptions, error) {
	env, err := readTemporalEnv()
	if err != nil {
		return worker.TemporalOptions{}, err
	}
	return worker.TemporalOptions{
		Address:    env.address,
		Namespace:  env.namespace,
		Security:   env.security,
		UseRunning: useRunning,
		Embed: worker.DevServerOptions{
			DataDir:      f.dataDir,
			FrontendPort: f.temporalPort,
			UIPort:       f.uiPort,
		},
	}, nil
}

// temporalEnv is the Temporal cluster the environment names.
type temporalEnv struct {
	address   string // TEMPORAL_ADDRESS; empty: embedded or a local serve
	namespace string // TEMPORAL_NAMESPACE
	// security is TLS and the API key, as the temporal CLI reads them
	// (worker.TemporalSecurityFromEnv); used only with address.
	security worker.TemporalSecurity
}

// readTemporalEnv is the one place every command reads the Temporal
// environment, so serve, mcp, worker and the queue commands reach a
// cluster the same way.
func readTemporalEnv() (temporalEnv, error) {
	sec, err := worker.TemporalSecurityFromEnv(os.Getenv)
	if err != nil {
		return temporalEnv{}, fmt.Errorf("the Temporal TLS and API key settings: %w", err)
	}
	return temporalEnv{address: os.Getenv("TEMPORAL_ADDRESS"), namespace: os.Getenv("TEMPORAL_NAMESPACE"), security: sec}, nil
}

// pagesBase is where this process serves its pages, as a browser on this
// machine reaches them: an address bound to every interface is reached on
// loopback.
func pagesBase(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// howToDecide is what a caller refused a decision is told. It names the
// token file by its place in the data dir, not its absolute path, which
// would tell anyone on the network the operator's home folder.
func howToDecide(pages string) string {
	return fmt.Sprintf("decide as the local operator, with the operator token metaforge serve wrote to operator-token in its --data-dir: "+
		"metaforge approve ID / reject ID / run decide on that machine read it, and the pages take it from the URL serve printed at start (%s/approvals?token=...); "+
		"or present a bearer token the server's verifier accepts (METAFORGE_MCP_JWT_SECRET)", pages)
}

func runServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var tf temporalFlags
	tf.register(fs)
	var hf holdFlags
	hf.register(fs)
	var lf limitFlags
	lf.register(fs)
	httpAddr := fs.String("http-addr", "127.0.0.1:8765", "MCP Streamable HTTP (/mcp) and /healthz")
	opts, logger, err := tf.parse(fs, args, false)
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

	// Every port is checked before anything starts.
	listener, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return fmt.Errorf("--http-addr %s is not available: %w (stop what holds it or choose another address)", *httpAddr, err)
	}
	defer listener.Close()
	if opts.Address == "" {
		if err := worker.CheckPortFree("127.0.0.1", tf.temporalPort, "Temporal frontend (--temporal-port)"); err != nil {
			return err
		}
		if tf.uiPort != 0 {
			if err := worker.CheckPortFree("127.0.0.1", tf.uiPort, "Temporal UI (--ui-port)"); err != nil {
				return err
			}
		}
	}

	// The operator token is written before anything else starts: a serve
	// that cannot give its operator a way to decide does not start.
	token, tokenPath, err := writeOperatorToken(tf.dataDir)
	if err != nil {
		return err
	}
	defer removeOperatorToken(tokenPath, token)
	pages := pagesBase(listener.Addr())

	runWorkers := always
	if tf.noWorker {
		runWorkers = never
	}
	rt, err := startRuntime(ctx, opts, tf.runtime(runWorkers), logger)
	if err != nil {
		return err
	}
	defer rt.stop()
	rt.limits = limits
	// The first /healthz then finds the first probe under way, or done.
	rt.health.Start()

	if holds.DashboardURL == "" {
		holds.DashboardURL = "http://" + listener.Addr().String()
	}
	srv := rt.mcpServer(mcpserver.CallerUntrusted, "", holds, operatorAccess{token: token, howTo: howToDecide(pages)}, logger)
	// The holds that outlived the last run are read now, so the first
	// listing need not wait for them.
	go func() { _ = rt.approvals.Load(ctx) }()
	httpServer := &http.Server{Handler: srv.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- httpServer.Serve(listener) }()

	fmt.Fprintf(os.Stderr, "MetaForge %s\n", version)
	fmt.Fprintf(os.Stderr, "  MCP (Streamable HTTP): http://%s/mcp\n", listener.Addr())
	fmt.Fprintf(os.Stderr, "  Health:                http://%s/healthz\n", listener.Addr())
	fmt.Fprintf(os.Stderr, "  Dashboard:             %s/?token=%s\n", pages, token)
	fmt.Fprintf(os.Stderr, "  Approvals:             %s/approvals?token=%s\n", pages, token)
	fmt.Fprintf(os.Stderr, "  Runs:                  %s/runs?token=%s\n", pages, token)
	fmt.Fprintf(os.Stderr, "  Operator token:        %s (read by the metaforge verbs that talk to this serve; new each start)\n", tokenPath)
	fmt.Fprintf(os.Stderr, "  Temporal (%s):   %s namespace %s\n", rt.temporal.Mode, rt.temporal.Address, rt.temporal.Namespace)
	if rt.temporal.UIAddress != "" {
		fmt.Fprintf(os.Stderr, "  Temporal UI:           %s\n", rt.temporal.UIAddress)
	}
	if rt.workers != nil {
		fmt.Fprintf(os.Stderr, "  Workers:               %v\n", rt.workers.Queues())
	}

	select {
	case <-ctx.Done():
	case err := <-served:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("MCP HTTP server: %w", err)
		}
	}
	fmt.Fprintln(os.Stderr, "metaforge: stopping; calls in flight stay in Temporal and resume on the next start")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := httpServer.Shutdown(shutdownCtx); err != nil {
		_ = httpServer.Close()
	}
	return nil
}
