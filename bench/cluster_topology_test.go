//go:build linux

package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/metaforge/metaforge/worker/clustertest"
	"github.com/metaforge/metaforge/workflows"
)

// inProcessQueues are the queues of the tools that run inside the worker
// (power.check_budget runs as a local activity of its ToolCall workflow),
// as e2e/topology_test.go's worker A serves them.
var inProcessQueues = []string{workflows.TaskQueue, "adapter-power", "adapter-health", "adapter-call"}

// spiceQueue is the queue of the ngspice adapter's runs.
var spiceQueue = workflows.AdapterTaskQueue("spice")

// clusterTopology is the deployment of deploy/compose.yaml as processes on
// loopback: the Temporal cluster, `metaforge serve --no-worker` against it
// and `metaforge worker` processes, which each sub-benchmark sets to the
// numbers it measures.
type clusterTopology struct {
	cluster  *clustertest.Cluster
	binary   string
	dir      string
	serve    *mfProcess
	endpoint string // serve's /mcp
	temporal client.Client
	inProc   []*mfProcess // workers of inProcessQueues
	spice    []*mfProcess // workers of spiceQueue
	started  int          // workers started so far, for their labels
	sessions []*mcp.ClientSession
}

// startClusterTopology starts the cluster afresh (its databases dropped,
// each server process serving /debug/pprof), builds metaforge once, starts
// serve --no-worker on it and opens the MCP sessions. Everything is stopped
// when b (the parent benchmark) ends, the cluster included: on a shared
// machine an idle cluster still costs CPU.
func startClusterTopology(b *testing.B) *clusterTopology {
	b.Helper()
	b.Setenv("TEMPORAL_PPROF", "1")
	t := &clusterTopology{}
	t.cluster = clustertest.Start(b, clustertest.Options{Port: clustertest.PortBench, Fresh: true})
	b.Cleanup(func() { t.cluster.Stop(b) })
	dir, err := os.MkdirTemp("", "metaforge-bench-cluster-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(dir) })
	t.dir = dir
	if t.binary, err = buildMetaforge(b, dir); err != nil {
		b.Fatal(err)
	}
	ports, err := freeTCPPorts(1)
	if err != nil {
		b.Fatal(err)
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	t.endpoint = base + "/mcp"
	// An untrusted caller's fair share (2 running per session), not its
	// rate of 5 calls a second: BenchmarkToolCall's limits, so the
	// figures compare.
	t.serve = t.start(b, "serve", []string{"METAFORGE_LIMITS_UNTRUSTED=running=2,queued=0,rate=0,burst=0"},
		"serve", "--no-worker", "--data-dir", filepath.Join(dir, "serve"), "--ui-port", "0",
		"--http-addr", fmt.Sprintf("127.0.0.1:%d", ports[0]))
	b.Cleanup(func() { t.stopAll(b) })
	waitHTTP(b, t.serve, base+"/healthz", 2*time.Minute)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t.temporal, err = client.DialContext(ctx, client.Options{
		HostPort:  t.cluster.Address,
		Namespace: t.cluster.Namespace,
		Logger:    sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
	})
	if err != nil {
		b.Fatalf("dial the cluster at %s: %v", t.cluster.Address, err)
	}
	b.Cleanup(t.temporal.Close)
	for i := range concurrency {
		transport := &mcp.StreamableClientTransport{
			Endpoint:   t.endpoint,
			HTTPClient: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()},
		}
		c := mcp.NewClient(&mcp.Implementation{Name: "metaforge-bench-cluster", Version: "0"}, nil)
		cs, err := c.Connect(ctx, transport, nil)
		if err != nil {
			b.Fatalf("MCP session %d on %s: %v", i, t.endpoint, err)
		}
		b.Cleanup(func() { _ = cs.Close() })
		t.sessions = append(t.sessions, cs)
	}
	return t
}

// setWorkers starts or stops worker processes until inProc serve the
// in-process queues and spice serve adapter-spice, and says whether it
// started or stopped any.
func (t *clusterTopology) setWorkers(b *testing.B, inProc, spice int) bool {
	b.Helper()
	changed := len(t.inProc) != inProc || len(t.spice) != spice
	t.inProc = t.resize(b, t.inProc, inProc, inProcessQueues)
	t.spice = t.resize(b, t.spice, spice, []string{spiceQueue})
	return changed
}

func (t *clusterTopology) resize(b *testing.B, ws []*mfProcess, n int, queues []string) []*mfProcess {
	b.Helper()
	for len(ws) > n {
		last := ws[len(ws)-1]
		last.stop(b)
		ws = ws[:len(ws)-1]
	}
	for len(ws) < n {
		t.started++
		label := fmt.Sprintf("worker-%d", t.started)
		p := t.start(b, label, nil, "worker", "--queues", strings.Join(queues, ","),
			"--data-dir", filepath.Join(t.dir, label))
		p.waitFor(b, fmt.Sprintf("metaforge worker: serving [%s]", strings.Join(queues, " ")), time.Minute)
		ws = append(ws, p)
	}
	return ws
}

func (t *clusterTopology) stopAll(b *testing.B) {
	for _, p := range append(append(t.spice, t.inProc...), t.serve) {
		p.stop(b)
	}
	t.spice, t.inProc = nil, nil
}

// mfProcess is one metaforge process the benchmark started.
type mfProcess struct {
	label  string
	cmd    *exec.Cmd
	pid    int
	stderr string // a file
	done   chan struct{}
}

// start runs `metaforge args...` against the cluster, in its own process
// group, with this process's environment minus what would point it
// elsewhere (another Temporal, Neo4j, limits), plus env.
func (t *clusterTopology) start(b *testing.B, label string, env []string, args ...string) *mfProcess {
	b.Helper()
	f, err := os.Create(filepath.Join(t.dir, label+".stderr"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(t.binary, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TEMPORAL_") && !strings.HasPrefix(kv, "NEO4J_") && !strings.HasPrefix(kv, "METAFORGE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, t.cluster.Env()...), env...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start metaforge %s: %v", strings.Join(args, " "), err)
	}
	p := &mfProcess{label: label, cmd: cmd, pid: cmd.Process.Pid, stderr: f.Name(), done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p
}

// waitFor waits until the process has written want to its stderr.
func (p *mfProcess) waitFor(b *testing.B, want string, within time.Duration) {
	b.Helper()
	deadline := time.Now().Add(within)
	for {
		raw, _ := os.ReadFile(p.stderr)
		if strings.Contains(string(raw), want) {
			return
		}
		select {
		case <-p.done:
			b.Fatalf("%s (pid %d) exited (%v) before it said %q:\n%s", p.label, p.pid, p.cmd.ProcessState, want, p.tail(30))
		default:
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s (pid %d) did not say %q within %s:\n%s", p.label, p.pid, want, within, p.tail(30))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitHTTP waits until url answers 200.
func waitHTTP(b *testing.B, p *mfProcess, url string, within time.Duration) {
	b.Helper()
	hc := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(within)
	for {
		if resp, err := hc.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-p.done:
			b.Fatalf("%s exited (%v) before %s answered:\n%s", p.label, p.cmd.ProcessState, url, p.tail(30))
		default:
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s: %s did not answer 200 within %s:\n%s", p.label, url, within, p.tail(30))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop sends SIGTERM, and SIGKILL to the process group after 20 s.
func (p *mfProcess) stop(b *testing.B) {
	if p == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return
	case <-time.After(20 * time.Second):
	}
	b.Logf("%s (pid %d) still running 20 s after SIGTERM; SIGKILL", p.label, p.pid)
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	<-p.done
}

func (p *mfProcess) tail(n int) string {
	raw, _ := os.ReadFile(p.stderr)
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// pidOfIdentity reads the pid from a Temporal SDK worker identity,
// "pid@host@...".
func pidOfIdentity(identity string) int {
	n, _ := strconv.Atoi(strings.SplitN(identity, "@", 2)[0])
	return n
}
