//go:build unix

// Package e2e drives the metaforge binary from outside, as its users do: the
// official MCP TypeScript SDK over Streamable HTTP and stdio, raw hostile
// frames over both, and the Temporal SDK to check that every tools/call
// became a durable workflow.
//
// It needs Node.js (>= 20, for playwright-core) and npm; TestMain builds the
// binary and installs the packages (npm ci) when e2e/node_modules lacks one.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdklog "go.temporal.io/sdk/log"
)

// Limits on what a client may send, as the server must enforce them
// (mcpserver/frames.go).
const (
	maxFrameBytes = 16 << 20
	maxDepth      = 128
	maxBatch      = 100

	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
)

var (
	binary   string // the metaforge binary TestMain built
	nodePath string
	callIDRe = regexp.MustCompile(`^[0-9a-f]{16}$`)
	allTools = []string{"power.check_budget", "health.check", "call.get_result"}
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "FAIL e2e: "+format+"\n", args...)
		return 1
	}
	var err error
	if nodePath, err = exec.LookPath("node"); err != nil {
		return fail("node is not on PATH; the e2e tests drive metaforge with the MCP TypeScript SDK and need Node.js >= 20 and npm: install them (apt-get install nodejs npm, or bash deploy/test-deps.sh)")
	}
	npmPath, err := exec.LookPath("npm")
	if err != nil {
		return fail("npm is not on PATH; the e2e tests install the MCP TypeScript SDK with it: install npm (apt-get install npm, or bash deploy/test-deps.sh)")
	}
	out, err := exec.Command(nodePath, "--version").Output()
	if err != nil {
		return fail("node --version: %v", err)
	}
	if major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".", 2)[0]); major < 20 {
		return fail("node %s is too old: the e2e clients (the MCP TypeScript SDK, playwright-core) need Node.js >= 20; install a newer nodejs", strings.TrimSpace(string(out)))
	}

	if !installed("@modelcontextprotocol/sdk", "playwright-core", "@modelcontextprotocol/conformance") {
		args := []string{"ci", "--no-audit", "--no-fund", "--loglevel=error"}
		if _, err := os.Stat("package-lock.json"); err != nil {
			args[0] = "install"
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, npmPath, args...)
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			return fail("npm %s in e2e/: %v\n%s", args[0], err, out)
		}
		fmt.Fprintf(os.Stderr, "e2e: npm %s took %s\n", args[0], time.Since(start).Round(time.Millisecond))
	}

	dir, err := os.MkdirTemp("", "metaforge-e2e-")
	if err != nil {
		return fail("temp dir: %v", err)
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "metaforge")
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fail("go is not on PATH: %v", err)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	build := exec.CommandContext(ctx, goTool, "build", "-o", binary, "./cmd/metaforge")
	build.Dir = ".."
	build.Env = os.Environ()
	if os.Getenv("GOTOOLCHAIN") == "" {
		// Build with the toolchain this test binary was built with.
		build.Env = append(build.Env, "GOTOOLCHAIN="+runtime.Version())
	}
	out, err = build.CombinedOutput()
	cancel()
	if err != nil {
		return fail("go build ./cmd/metaforge: %v\n%s", err, out)
	}
	fmt.Fprintf(os.Stderr, "e2e: built metaforge in %s\n", time.Since(start).Round(time.Millisecond))
	return m.Run()
}

// installed says whether every package is in e2e/node_modules.
func installed(packages ...string) bool {
	for _, p := range packages {
		if _, err := os.Stat(filepath.Join("node_modules", filepath.FromSlash(p), "package.json")); err != nil {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Processes

// lockedBuffer collects a process's output safely across goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// process is a subprocess bounded in time, in its own process group so that
// its children (the server a Node client spawns) die with it.
type process struct {
	name    string
	cmd     *exec.Cmd
	stderr  *lockedBuffer
	stdout  *lockedBuffer // nil when the caller reads stdout itself
	done    chan struct{}
	waitErr error
	started time.Time
	// dataDir is a metaforge serve's --data-dir, where its operator
	// token is (operatorToken).
	dataDir string
}

// command prepares name's command; the caller may set pipes, then start it.
func command(t *testing.T, timeout time.Duration, name string, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = cleanEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// cleanEnv is this environment without what would point metaforge at
// another Temporal.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TEMPORAL_ADDRESS=") || strings.HasPrefix(kv, "TEMPORAL_NAMESPACE=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// start starts cmd, capturing stderr (and stdout unless already set), and
// kills its whole process group when the test ends. On failure the tail of
// its stderr is logged.
func start(t *testing.T, label string, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{name: label, cmd: cmd, stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if cmd.Stdout == nil {
		p.stdout = &lockedBuffer{}
		cmd.Stdout = p.stdout
	}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", label, err)
	}
	if w, ok := cmd.Stdout.(*os.File); ok && w != os.Stdout {
		_ = w.Close() // stdoutPipe's write end: the child has its copy, so EOF comes when it exits
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Errorf("%s (pid %d) did not end after SIGKILL", label, cmd.Process.Pid)
		}
		if t.Failed() {
			t.Logf("%s stderr, without the embedded Temporal's own logs (last lines):\n%s", label, tail(ownLogs(p.stderr.String()), 40))
		}
	})
	return p
}

// stdoutPipe is cmd's stdout as a pipe that this process reads to EOF,
// unlike cmd.StdoutPipe, which Wait closes as soon as the child exits and
// so may lose its last lines.
func stdoutPipe(t *testing.T, cmd *exec.Cmd) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	cmd.Stdout = w
	return r
}

// stdoutTail is the last lines of what the process wrote on stdout, headed,
// or "" when there were none or the caller read stdout itself. The Temporal
// UI's web server logs its fatal errors there.
func (p *process) stdoutTail() string {
	if p.stdout == nil || p.stdout.String() == "" {
		return ""
	}
	return "\nstdout (last lines):\n" + tail(p.stdout.String(), 10)
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits up to d for the process to end and returns its exit code.
func (p *process) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("%s did not exit within %s", p.name, d)
		return -1
	}
}

// ownLogs drops the embedded Temporal server's log lines, which drown the
// rest when a server stops.
func ownLogs(s string) string {
	var keep []string
	dropped := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, " component=temporal ") {
			dropped++
			continue
		}
		keep = append(keep, l)
	}
	if dropped > 0 {
		keep = append(keep, fmt.Sprintf("(%d lines of the embedded Temporal's logs left out)", dropped))
	}
	return strings.Join(keep, "\n")
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	for i, l := range lines {
		if len(l) > 400 {
			lines[i] = l[:400] + "..."
		}
	}
	return strings.Join(lines, "\n")
}

// serve starts `metaforge serve` on the given ports and waits for /healthz.
func serve(t *testing.T, temporalPort, uiPort, httpPort int) *process {
	t.Helper()
	dataDir := filepath.Join(t.TempDir(), "data")
	cmd := command(t, 2*time.Minute, binary, "serve",
		"--data-dir", dataDir,
		"--temporal-port", strconv.Itoa(temporalPort),
		"--ui-port", strconv.Itoa(uiPort),
		"--http-addr", fmt.Sprintf("127.0.0.1:%d", httpPort))
	p := start(t, "metaforge serve", cmd)
	p.dataDir = dataDir
	waitHealthy(t, p, fmt.Sprintf("http://127.0.0.1:%d/healthz", httpPort), time.Minute)
	return p
}

// waitHealthy polls url until it answers 200 with a healthy report.
func waitHealthy(t *testing.T, p *process, url string, within time.Duration) {
	t.Helper()
	waitHealthyOn(t, p, url, within, "embedded")
}

// waitHealthyOn is waitHealthy for a serve whose Temporal is in
// temporalMode (embedded, or external on a cluster).
func waitHealthyOn(t *testing.T, p *process, url string, within time.Duration, temporalMode string) {
	t.Helper()
	hc := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(within)
	var last string
	for time.Now().Before(deadline) {
		if p.exited() {
			t.Fatalf("%s exited (%v) before %s answered:\n%s%s", p.name, p.waitErr, url, tail(p.stderr.String(), 30), p.stdoutTail())
		}
		resp, err := hc.Get(url)
		var body []byte
		if err == nil {
			// The client's timeout also bounds reading the body: on a
			// loaded machine a report may be cut off, which is a slow
			// answer to ask again, not a bad one.
			body, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if err == nil {
			if resp.StatusCode == http.StatusOK {
				var h struct {
					Service    string `json:"service"`
					Status     string `json:"status"`
					Components map[string]struct {
						Reachable bool   `json:"reachable"`
						Mode      string `json:"mode"`
					} `json:"components"`
				}
				if err := json.Unmarshal(body, &h); err != nil {
					t.Fatalf("%s: not a health report: %v: %s", url, err, body)
				}
				if h.Service != "metaforge-mcp" || (h.Status != "healthy" && h.Status != "degraded") || !h.Components["temporal"].Reachable || h.Components["temporal"].Mode != temporalMode {
					t.Fatalf("%s: unexpected report: %s", url, body)
				}
				t.Logf("%s answered 200 after %s", url, time.Since(p.started).Round(time.Millisecond))
				return
			}
			last = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, body)
		} else {
			last = err.Error()
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not answer 200 within %s (last: %s)", url, within, last)
}

// waitStderr waits for want to appear on p's stderr.
func waitStderr(t *testing.T, p *process, want string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !strings.Contains(p.stderr.String(), want) {
		if time.Now().After(deadline) || p.exited() {
			t.Errorf("%s stderr lacks %q:\n%s", p.name, want, tail(p.stderr.String(), 20))
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ---------------------------------------------------------------------------
// What the Node clients report

type observed struct {
	Client              string                    `json:"client"`
	ServerName          string                    `json:"serverName"`
	ServerVersion       string                    `json:"serverVersion"`
	ProtocolVersion     string                    `json:"protocolVersion"`
	Tools               []string                  `json:"tools"`
	Annotations         map[string]map[string]any `json:"annotations"`
	BudgetCallID        string                    `json:"budgetCallId"`
	BudgetStatus        string                    `json:"budgetStatus"`
	UpstreamLoadMa      float64                   `json:"upstreamLoadMa"`
	LdoInputCurrentMa   float64                   `json:"ldoInputCurrentMa"`
	HealthCallID        string                    `json:"healthCallId"`
	HealthStatus        string                    `json:"healthStatus"`
	TemporalMode        string                    `json:"temporalMode"`
	BadArgumentsCode    int                       `json:"badArgumentsCode"`
	BadArgumentsMessage string                    `json:"badArgumentsMessage"`
	UnknownToolCode     int                       `json:"unknownToolCode"`
	UnknownToolMessage  string                    `json:"unknownToolMessage"`
	GetResultState      string                    `json:"getResultState"`
	GetResultCallID     string                    `json:"getResultCallId"`
	GetResultSameData   bool                      `json:"getResultSameData"`
	SessionID           *string                   `json:"sessionId"`
	ServerPid           int                       `json:"serverPid"`
}

func parseObserved(t *testing.T, line string) observed {
	t.Helper()
	var o observed
	if err := json.Unmarshal([]byte(line), &o); err != nil {
		t.Fatalf("the client's line is not its JSON report: %v: %q", err, line)
	}
	return o
}

// checkObserved re-checks on the Go side what the TypeScript client saw.
func checkObserved(t *testing.T, o observed, client string) {
	t.Helper()
	if o.Client != client || o.ServerName != "metaforge-mcp" || o.ServerVersion == "" {
		t.Errorf("client %q saw server %q version %q", o.Client, o.ServerName, o.ServerVersion)
	}
	if !slices.Contains([]string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}, o.ProtocolVersion) {
		t.Errorf("protocolVersion %q", o.ProtocolVersion)
	}
	for _, tool := range allTools {
		if !slices.Contains(o.Tools, tool) {
			t.Errorf("tools/list lacks %s: %v", tool, o.Tools)
		}
		if len(o.Annotations[tool]) == 0 {
			t.Errorf("%s has no annotations", tool)
		}
	}
	if !callIDRe.MatchString(o.BudgetCallID) || !callIDRe.MatchString(o.HealthCallID) || !callIDRe.MatchString(o.GetResultCallID) {
		t.Errorf("callIds: budget %q health %q get_result %q", o.BudgetCallID, o.HealthCallID, o.GetResultCallID)
	}
	if o.UpstreamLoadMa != 210 || o.LdoInputCurrentMa != 210 || o.BudgetStatus != "pass" {
		t.Errorf("budget: 5V load %v mA, 3V3 input %v mA, status %q; want 210, 210, pass", o.UpstreamLoadMa, o.LdoInputCurrentMa, o.BudgetStatus)
	}
	if (o.HealthStatus != "healthy" && o.HealthStatus != "degraded") || o.TemporalMode != "embedded" {
		t.Errorf("health.check: status %q, temporal mode %q", o.HealthStatus, o.TemporalMode)
	}
	if o.BadArgumentsCode != codeInvalidParams || !strings.Contains(o.BadArgumentsMessage, "voltage_v") {
		t.Errorf("bad arguments: %d %q", o.BadArgumentsCode, o.BadArgumentsMessage)
	}
	if o.UnknownToolCode != codeInvalidParams || !strings.Contains(o.UnknownToolMessage, "did you mean power.check_budget") {
		t.Errorf("unknown tool: %d %q", o.UnknownToolCode, o.UnknownToolMessage)
	}
	if o.GetResultState != "completed" || !o.GetResultSameData {
		t.Errorf("call.get_result: state %q, same data %v", o.GetResultState, o.GetResultSameData)
	}
}

// runClient runs a Node client to its end within timeout and decodes the
// one JSON line it printed into out: what every scenario test does first.
func runClient(t *testing.T, label string, cmd *exec.Cmd, timeout time.Duration, out any) {
	t.Helper()
	node := start(t, label, cmd)
	if code := node.wait(t, timeout); code != 0 {
		t.Fatalf("%s exited %d:\n%s", label, code, node.stderr.String())
	}
	if err := json.Unmarshal([]byte(nodeStdoutLine(t, node)), out); err != nil {
		t.Fatal(err)
	}
}

// nodeStdoutLine is the single JSON line a client printed.
func nodeStdoutLine(t *testing.T, p *process) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(p.stdout.String()), "\n")
	if len(lines) != 1 || lines[0] == "" {
		t.Fatalf("%s printed %d lines on stdout, want 1:\n%s", p.name, len(lines), p.stdout.String())
	}
	return lines[0]
}

// ---------------------------------------------------------------------------
// Temporal

func dialTemporal(t *testing.T, port int) client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{
		HostPort:  fmt.Sprintf("127.0.0.1:%d", port),
		Namespace: "default",
		Logger:    sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
	})
	if err != nil {
		t.Fatalf("dial Temporal on 127.0.0.1:%d: %v", port, err)
	}
	t.Cleanup(c.Close)
	return c
}

// checkCallWorkflow checks that call-<callID> completed with the given
// search attributes, and returns its result.
func checkCallWorkflow(t *testing.T, c client.Client, callID string, want map[string]string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	id := "call-" + callID
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		t.Fatalf("DescribeWorkflowExecution(%s): %v", id, err)
	}
	info := desc.GetWorkflowExecutionInfo()
	if got := info.GetStatus(); got != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		t.Errorf("%s status %v, want COMPLETED", id, got)
	}
	if got := info.GetType().GetName(); got != "ToolCall" {
		t.Errorf("%s workflow type %q, want ToolCall", id, got)
	}
	for name, value := range want {
		if got := searchAttribute(t, info, name); got != value {
			t.Errorf("%s search attribute %s = %q, want %q", id, name, got, value)
		}
	}
	var res map[string]any
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil {
		t.Fatalf("%s result: %v", id, err)
	}
	if res["status"] != "success" || res["call_id"] != callID {
		t.Errorf("%s result: %v", id, res)
	}
	return res
}

func searchAttribute(t *testing.T, info *workflowpb.WorkflowExecutionInfo, name string) string {
	t.Helper()
	p, ok := info.GetSearchAttributes().GetIndexedFields()[name]
	if !ok {
		return ""
	}
	var s string
	if err := converter.GetDefaultDataConverter().FromPayload(p, &s); err != nil {
		t.Errorf("search attribute %s: %v", name, err)
	}
	return s
}

// checkBudgetResult checks the reference call's figures in a workflow result.
func checkBudgetResult(t *testing.T, res map[string]any) {
	t.Helper()
	data, _ := res["data"].(map[string]any)
	rails, _ := data["rails"].([]any)
	if len(rails) != 2 {
		t.Fatalf("workflow result rails: %v", res)
	}
	r0, _ := rails[0].(map[string]any)
	r1, _ := rails[1].(map[string]any)
	if r0["load_ma"] != 210.0 || r1["input_current_ma"] != 210.0 {
		t.Errorf("workflow result: 5V load_ma %v, 3V3 input_current_ma %v; want 210, 210", r0["load_ma"], r1["input_current_ma"])
	}
}

// ---------------------------------------------------------------------------
// The TypeScript SDK over Streamable HTTP and stdio

func TestHTTPWithTypeScriptSDK(t *testing.T) {
	ports := freePorts(t, 3)
	temporalPort, uiPort, httpPort := ports[0], ports[1], ports[2]
	srv := serve(t, temporalPort, uiPort, httpPort)
	mcpURL := fmt.Sprintf("http://127.0.0.1:%d/mcp", httpPort)
	waitStderr(t, srv, "MCP (Streamable HTTP): "+mcpURL, 5*time.Second)
	waitStderr(t, srv, fmt.Sprintf("127.0.0.1:%d namespace default", temporalPort), 5*time.Second)
	waitStderr(t, srv, fmt.Sprintf("Temporal UI:           http://127.0.0.1:%d", uiPort), 5*time.Second)

	began := time.Now()
	node := start(t, "node http_client.mjs", command(t, time.Minute, nodePath, "http_client.mjs", mcpURL))
	if code := node.wait(t, time.Minute); code != 0 {
		t.Fatalf("node http_client.mjs exited %d:\n%s", code, node.stderr.String())
	}
	t.Logf("TypeScript SDK scenario over HTTP took %s", time.Since(began).Round(time.Millisecond))
	o := parseObserved(t, nodeStdoutLine(t, node))
	checkObserved(t, o, "metaforge-e2e-http")
	if o.SessionID == nil || *o.SessionID == "" {
		t.Errorf("no Mcp-Session-Id was given")
	}
	t.Logf("observed: protocol %s, callIds budget %s health %s get_result %s", o.ProtocolVersion, o.BudgetCallID, o.HealthCallID, o.GetResultCallID)

	c := dialTemporal(t, temporalPort)
	res := checkCallWorkflow(t, c, o.BudgetCallID, map[string]string{
		"MfTool": "power.check_budget", "MfAdapter": "power", "MfCaller": "untrusted", "MfClient": "metaforge-e2e-http",
	})
	checkBudgetResult(t, res)
	checkCallWorkflow(t, c, o.HealthCallID, map[string]string{"MfTool": "health.check", "MfAdapter": "health"})
	checkCallWorkflow(t, c, o.GetResultCallID, map[string]string{"MfTool": "call.get_result", "MfAdapter": "call"})

	// The calls refused for bad arguments or an unknown name started no
	// workflow: the only power.check_budget run is the reference call.
	countRuns(t, c, "MfTool = 'power.check_budget'", 1)

	// The Temporal UI answers.
	uiURL := fmt.Sprintf("http://127.0.0.1:%d/", uiPort)
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(uiURL)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && len(body) > 0 {
				break
			}
			err = fmt.Errorf("HTTP %d, %d bytes", resp.StatusCode, len(body))
		}
		if time.Now().After(deadline) {
			t.Fatalf("Temporal UI %s: %v", uiURL, err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// SIGINT stops it cleanly.
	stopAt := time.Now()
	if err := srv.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("SIGINT: %v", err)
	}
	if code := srv.wait(t, 15*time.Second); code != 0 {
		t.Errorf("metaforge serve exited %d after SIGINT:\n%s", code, tail(srv.stderr.String(), 20))
	}
	t.Logf("metaforge serve stopped %s after SIGINT", time.Since(stopAt).Round(time.Millisecond))
	if !strings.Contains(srv.stderr.String(), "metaforge: stopping") {
		t.Errorf("serve did not say it was stopping:\n%s", tail(srv.stderr.String(), 10))
	}
}

// countRuns waits for visibility to show want runs matching query, and
// checks it never shows more.
func countRuns(t *testing.T, c client.Client, query string, want int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		resp, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: "default", Query: query})
		cancel()
		if err != nil {
			t.Fatalf("CountWorkflow(%s): %v", query, err)
		}
		if got := resp.GetCount(); got > want {
			t.Fatalf("%d workflows match %s, want %d", got, query, want)
		} else if got == want {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("%d workflows match %s after 10 s, want %d", got, query, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestStdioWithTypeScriptSDK(t *testing.T) {
	temporalPort := freePorts(t, 1)[0]
	cmd := command(t, 90*time.Second, nodePath, "stdio_client.mjs", binary, "mcp",
		"--data-dir", filepath.Join(t.TempDir(), "data"),
		"--temporal-port", strconv.Itoa(temporalPort),
		"--ui-port", "0")
	cmd.Env = append(cmd.Env, "E2E_HOLD_STDIN=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := stdoutPipe(t, cmd)
	node := start(t, "node stdio_client.mjs", cmd)

	// The client prints its report, then holds the server open until a line
	// arrives on its stdin.
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var line string
	select {
	case l, ok := <-lines:
		if !ok {
			code := node.wait(t, 10*time.Second)
			t.Fatalf("node stdio_client.mjs exited %d without a report:\n%s", code, tail(ownLogs(node.stderr.String()), 40))
		}
		line = l
	case <-time.After(75 * time.Second):
		t.Fatalf("no report from node stdio_client.mjs within 75 s:\n%s", tail(ownLogs(node.stderr.String()), 40))
	}
	t.Logf("TypeScript SDK scenario over stdio took %s (including the server's start)", time.Since(node.started).Round(time.Millisecond))
	o := parseObserved(t, line)
	checkObserved(t, o, "metaforge-e2e-stdio")

	// The server (and its embedded Temporal) is still running: look at the
	// call's workflow.
	c := dialTemporal(t, temporalPort)
	res := checkCallWorkflow(t, c, o.BudgetCallID, map[string]string{
		"MfTool": "power.check_budget", "MfAdapter": "power", "MfCaller": "local", "MfClient": "metaforge-e2e-stdio",
	})
	checkBudgetResult(t, res)
	checkCallWorkflow(t, c, o.GetResultCallID, map[string]string{"MfTool": "call.get_result", "MfAdapter": "call"})
	c.Close()

	// Release the client: it closes the server's stdin and checks the
	// server exits 0.
	if _, err := io.WriteString(stdin, "done\n"); err != nil {
		t.Fatalf("write to the client's stdin: %v", err)
	}
	_ = stdin.Close()
	deadline := time.After(20 * time.Second)
drain:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				break drain
			}
			t.Errorf("node stdio_client.mjs printed a second stdout line: %q", l)
		case <-deadline:
			t.Fatalf("node stdio_client.mjs did not end within 20 s of its release:\n%s", tail(ownLogs(node.stderr.String()), 20))
		}
	}
	if code := node.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("node stdio_client.mjs exited %d:\n%s", code, tail(ownLogs(node.stderr.String()), 40))
	}
	for _, l := range strings.Split(node.stderr.String(), "\n") {
		if strings.HasPrefix(l, "e2e stdio client:") {
			t.Log(l)
		}
	}
	// The embedded Temporal went with the server.
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", temporalPort))
	if err != nil {
		t.Errorf("the Temporal port %d is still held after the server exited: %v", temporalPort, err)
	} else {
		l.Close()
	}
}

// ---------------------------------------------------------------------------
// Hostile frames

// rpcMsg is one JSON-RPC message as it arrived.
type rpcMsg struct {
	raw       []byte
	hasID     bool
	id        string // raw JSON of the id
	method    string
	result    json.RawMessage
	errCode   int
	errMsg    string
	isError   bool
	isNotice  bool
	jsonrpcOK bool
}

func parseRPC(b []byte) (rpcMsg, error) {
	m := rpcMsg{raw: b}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return m, err
	}
	m.jsonrpcOK = string(fields["jsonrpc"]) == `"2.0"`
	if id, ok := fields["id"]; ok {
		m.hasID, m.id = true, string(id)
	}
	if meth, ok := fields["method"]; ok {
		_ = json.Unmarshal(meth, &m.method)
		m.isNotice = !m.hasID
	}
	m.result = fields["result"]
	if e, ok := fields["error"]; ok {
		var body struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(e, &body); err != nil {
			return m, fmt.Errorf("error member: %w", err)
		}
		m.isError, m.errCode, m.errMsg = true, body.Code, body.Message
	}
	return m, nil
}

func (m rpcMsg) String() string {
	if len(m.raw) > 300 {
		return string(m.raw[:300]) + "..."
	}
	return string(m.raw)
}

// expectError checks m is the error answer to a frame whose id is unknown.
func expectError(t *testing.T, m rpcMsg, code int, msgPart string) {
	t.Helper()
	if !m.jsonrpcOK || !m.isError || m.errCode != code || !m.hasID || m.id != "null" || !strings.Contains(m.errMsg, msgPart) {
		t.Errorf("got %s; want a JSON-RPC error %d with id null and a message containing %q", m, code, msgPart)
	}
}

// expectTools checks m is a tools/list result naming every tool.
func expectTools(t *testing.T, m rpcMsg, id string) {
	t.Helper()
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if m.isError || m.id != id || json.Unmarshal(m.result, &res) != nil {
		t.Fatalf("tools/list %s: got %s", id, m)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	for _, tool := range allTools {
		if !slices.Contains(names, tool) {
			t.Errorf("tools/list %s lacks %s: %v", id, tool, names)
		}
	}
}

// expectHealth checks m is a legacy health/check result.
func expectHealth(t *testing.T, m rpcMsg, id string) {
	t.Helper()
	var res struct {
		Service string `json:"service"`
		Status  string `json:"status"`
	}
	if m.isError || m.id != id || json.Unmarshal(m.result, &res) != nil || res.Service != "metaforge-mcp" {
		t.Fatalf("health/check %s: got %s", id, m)
	}
}

// expectBatchAnswers checks msgs answer the n tools/list requests of
// batch(n, "tools/list"), in any order.
func expectBatchAnswers(t *testing.T, msgs []rpcMsg, n int) {
	t.Helper()
	if len(msgs) != n {
		t.Fatalf("%d answers to a batch of %d", len(msgs), n)
	}
	seen := map[string]bool{}
	for _, m := range msgs {
		expectTools(t, m, m.id)
		seen[m.id] = true
	}
	for i := range n {
		if id := strconv.Itoa(1000 + i); !seen[id] {
			t.Errorf("no answer to batch element %s", id)
		}
	}
}

// hostileFrame is one frame that breaks a limit, and how it is answered.
type hostileFrame struct {
	name    string
	frame   []byte
	code    int
	msgPart string
	status  int // over HTTP
}

func hostileFrames() []hostileFrame {
	return []hostileFrame{
		{"malformed JSON", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"`), codeParseError, "not valid JSON", 400},
		{"16 MiB + 1 byte", legacyHealthOfSize("too-big", maxFrameBytes+1), codeInvalidRequest, "request too large", 413},
		{"nested 129 deep", requestNested(maxDepth + 1), codeParseError, "nested 129 levels", 400},
		{"batch of 101", batch(maxBatch+1, "tools/list"), codeInvalidRequest, "batch of 101", 400},
	}
}

// legacyHealthOfSize is a legacy health/check exactly size bytes long.
func legacyHealthOfSize(id string, size int) []byte {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"health/check","params":{"pad":"`, id)
	tail := `"}}`
	return []byte(head + strings.Repeat("x", size-len(head)-len(tail)) + tail)
}

// requestNested is a tools/list request whose arrays and objects nest depth
// levels deep in all.
func requestNested(depth int) []byte {
	inner := depth - 3 // the request, params, _meta
	return []byte(`{"jsonrpc":"2.0","id":"deep","method":"tools/list","params":{"_meta":{"x":` +
		strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}}}`)
}

// legacyHealthNested is a legacy health/check nested depth levels deep.
func legacyHealthNested(id string, depth int) []byte {
	inner := depth - 2 // the request, params
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"health/check","params":{"pad":`, id) +
		strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}}`)
}

func batch(n int, method string) []byte {
	var msgs []string
	for i := range n {
		msgs = append(msgs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, 1000+i, method))
	}
	return []byte("[" + strings.Join(msgs, ",") + "]")
}

// invalidMessages are valid JSON within every limit, but not valid
// JSON-RPC requests: JSON-RPC 2.0 answers them -32600 Invalid Request.
var invalidMessages = []struct {
	name    string
	version string // the session's protocol version
	frame   string
}{
	{"not JSON-RPC", "2025-11-25", `{"foo":1}`},
	{"id an object", "2025-11-25", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`},
	{"method a number", "2025-11-25", `{"jsonrpc":"2.0","id":10,"method":5}`},
	{"batch of 2 where batching is not supported", "2025-11-25", string(batch(2, "tools/list"))},
	{"batch with a duplicate id", "2025-03-26", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`},
}

// ---- HTTP

type httpSession struct {
	url     string
	id      string
	version string
	hc      *http.Client
}

func (s *httpSession) post(t *testing.T, body []byte, withSession bool) (int, rpcMsg, []rpcMsg, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if withSession && s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", s.version)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		t.Fatalf("POST %s (%d bytes): %v", s.url, len(body), err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read the response: %v", err)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && s.id == "" {
		s.id = id
	}
	var msgs []rpcMsg
	ctype := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ctype, "text/event-stream"):
		for _, line := range strings.Split(string(raw), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				m, err := parseRPC([]byte(data))
				if err != nil {
					t.Fatalf("SSE data is not JSON-RPC: %v: %q", err, data)
				}
				msgs = append(msgs, m)
			}
		}
	case strings.HasPrefix(ctype, "application/json"):
		m, err := parseRPC(raw)
		if err != nil {
			t.Fatalf("JSON body is not JSON-RPC: %v: %q", err, raw)
		}
		msgs = append(msgs, m)
	}
	var first rpcMsg
	if len(msgs) > 0 {
		first = msgs[0]
	}
	return resp.StatusCode, first, msgs, string(raw)
}

// initialize opens an MCP session at version.
func (s *httpSession) initialize(t *testing.T) {
	t.Helper()
	status, m, _, raw := s.post(t, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"metaforge-e2e-raw","version":"0"}}}`, s.version)), false)
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if status != 200 || json.Unmarshal(m.result, &res) != nil || res.ServerInfo.Name != "metaforge-mcp" || res.ProtocolVersion != s.version || s.id == "" {
		t.Fatalf("initialize at %s: HTTP %d session %q: %s", s.version, status, s.id, raw)
	}
	if status, _, _, raw := s.post(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), true); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: HTTP %d: %s", status, raw)
	}
}

// stillServing proves the server answers both dialects after a bad frame.
func (s *httpSession) stillServing(t *testing.T, after string) {
	t.Helper()
	id := "after-" + after
	status, m, _, raw := s.post(t, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/list"}`, id)), true)
	if status != 200 {
		t.Fatalf("tools/list after %s: HTTP %d: %s", after, status, raw)
	}
	expectTools(t, m, strconv.Quote(id))
	id = "legacy-after-" + after
	status, m, _, raw = s.post(t, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"health/check"}`, id)), false)
	if status != 200 {
		t.Fatalf("health/check after %s: HTTP %d: %s", after, status, raw)
	}
	expectHealth(t, m, strconv.Quote(id))
}

func TestHostileInputHTTP(t *testing.T) {
	ports := freePorts(t, 2)
	srv := serve(t, ports[0], 0, ports[1])
	s := &httpSession{url: fmt.Sprintf("http://127.0.0.1:%d/mcp", ports[1]), version: "2025-11-25", hc: &http.Client{Timeout: 30 * time.Second}}
	s.initialize(t)
	s.stillServing(t, "initialize")

	for _, hf := range hostileFrames() {
		t.Run(hf.name, func(t *testing.T) {
			status, m, msgs, raw := s.post(t, hf.frame, true)
			if status != hf.status || len(msgs) != 1 {
				t.Errorf("HTTP %d with %d messages, want %d with one JSON-RPC error: %.300s", status, len(msgs), hf.status, raw)
			}
			expectError(t, m, hf.code, hf.msgPart)
			s.stillServing(t, hf.name)
		})
	}

	// Just within the limits: answered, not refused.
	t.Run("exactly 16 MiB", func(t *testing.T) {
		status, m, _, raw := s.post(t, legacyHealthOfSize("16mib", maxFrameBytes), false)
		if status != 200 {
			t.Fatalf("HTTP %d: %.300s", status, raw)
		}
		expectHealth(t, m, `"16mib"`)
	})
	t.Run("nested 128 deep", func(t *testing.T) {
		status, m, _, raw := s.post(t, legacyHealthNested("d128", maxDepth), false)
		if status != 200 {
			t.Fatalf("HTTP %d: %.300s", status, raw)
		}
		expectHealth(t, m, `"d128"`)
	})
	t.Run("batch of 100 at 2025-03-26", func(t *testing.T) {
		old := &httpSession{url: s.url, version: "2025-03-26", hc: s.hc}
		old.initialize(t)
		status, _, msgs, raw := old.post(t, batch(maxBatch, "tools/list"), true)
		if status != 200 || len(msgs) != maxBatch {
			t.Fatalf("HTTP %d with %d messages, want 200 with %d: %.300s", status, len(msgs), maxBatch, raw)
		}
		expectBatchAnswers(t, msgs, maxBatch)
		old.stillServing(t, "batch of 100")
	})

	// Valid JSON that is no JSON-RPC request is refused, and the server
	// keeps serving.
	sessions := map[string]*httpSession{s.version: s}
	for _, im := range invalidMessages {
		t.Run(im.name, func(t *testing.T) {
			ss := sessions[im.version]
			if ss == nil {
				ss = &httpSession{url: s.url, version: im.version, hc: s.hc}
				ss.initialize(t)
				sessions[im.version] = ss
			}
			// Each HTTP request stands alone: the SDK refuses these with
			// 400 (a text/plain body), or answers what it can.
			status, _, _, raw := ss.post(t, []byte(im.frame), true)
			if status >= 500 {
				t.Errorf("HTTP %d: %.300s", status, raw)
			}
			t.Logf("HTTP %d: %.120q", status, raw)
			ss.stillServing(t, im.name)
		})
	}

	if srv.exited() {
		t.Fatalf("metaforge serve exited: %v", srv.waitErr)
	}
}

// ---- stdio

// stdioConn drives `metaforge mcp` with newline-delimited JSON on pipes.
type stdioConn struct {
	p       *process
	stdin   io.WriteCloser
	msgs    chan rpcMsg
	timeout time.Duration // for each answer
	mu      sync.Mutex
	junk    []string // stdout lines that were not JSON-RPC
}

func startStdio(t *testing.T, label string, temporalPort int) *stdioConn {
	t.Helper()
	cmd := command(t, 2*time.Minute, binary, "mcp",
		"--data-dir", filepath.Join(t.TempDir(), "data"),
		"--temporal-port", strconv.Itoa(temporalPort),
		"--ui-port", "0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := stdoutPipe(t, cmd)
	c := &stdioConn{stdin: stdin, msgs: make(chan rpcMsg, 256), timeout: 15 * time.Second}
	c.p = start(t, label, cmd)
	go c.read(stdout)
	return c
}

func (c *stdioConn) read(stdout io.Reader) {
	defer close(c.msgs)
	br := bufio.NewReaderSize(stdout, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			c.take(trimmed)
		}
		if err != nil {
			return
		}
	}
}

func (c *stdioConn) take(line []byte) {
	var elems []json.RawMessage
	if line[0] == '[' {
		if err := json.Unmarshal(line, &elems); err != nil {
			c.addJunk(line)
			return
		}
	} else {
		elems = []json.RawMessage{line}
	}
	for _, e := range elems {
		m, err := parseRPC(e)
		if err != nil || !m.jsonrpcOK {
			c.addJunk(line)
			return
		}
		c.msgs <- m
	}
}

func (c *stdioConn) addJunk(line []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.junk = append(c.junk, string(line))
}

// send writes one line, bounded in time.
func (c *stdioConn) send(t *testing.T, line []byte) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := c.stdin.Write(append(slices.Clip(line), '\n'))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("write %d bytes to %s: %v (exited: %v)", len(line), c.p.name, err, c.p.exited())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("writing %d bytes to %s took over 30 s", len(line), c.p.name)
	}
}

// next returns the next message that is not a notification.
func (c *stdioConn) next(t *testing.T, what string) rpcMsg {
	t.Helper()
	timeout := time.After(c.timeout)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				code := c.p.wait(t, 10*time.Second)
				t.Fatalf("waiting for %s: %s closed its stdout and exited %d:\n%s", what, c.p.name, code, tail(c.p.stderr.String(), 5))
			}
			if m.isNotice {
				continue
			}
			return m
		case <-timeout:
			t.Fatalf("no answer to %s within %s from %s, which is still running", what, c.timeout, c.p.name)
		}
	}
}

func (c *stdioConn) initialize(t *testing.T, version string) {
	t.Helper()
	c.send(t, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"metaforge-e2e-raw","version":"0"}}}`, version)))
	m := c.next(t, "initialize")
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if m.id != `"init"` || json.Unmarshal(m.result, &res) != nil || res.ServerInfo.Name != "metaforge-mcp" || res.ProtocolVersion != version {
		t.Fatalf("initialize at %s: %s", version, m)
	}
	c.send(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

// stillServing proves the server answers both dialects after a bad frame.
func (c *stdioConn) stillServing(t *testing.T, after string) {
	t.Helper()
	id := strconv.Quote("after-" + after)
	c.send(t, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`))
	expectTools(t, c.next(t, "tools/list after "+after), id)
	id = strconv.Quote("legacy-after-" + after)
	c.send(t, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"health/check"}`))
	expectHealth(t, c.next(t, "health/check after "+after), id)
}

// close closes stdin and checks the server exits 0 by itself with nothing
// but protocol on stdout.
func (c *stdioConn) close(t *testing.T) {
	t.Helper()
	_ = c.stdin.Close()
	deadline := time.After(15 * time.Second)
drain:
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				break drain
			}
			t.Errorf("unexpected message after the last answer: %s", m)
		case <-deadline:
			t.Fatalf("%s did not close its stdout within 15 s of its stdin closing", c.p.name)
		}
	}
	if code := c.p.wait(t, 5*time.Second); code != 0 {
		t.Errorf("%s exited %d after its stdin closed:\n%s", c.p.name, code, tail(c.p.stderr.String(), 10))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.junk {
		t.Errorf("%s wrote a non-JSON-RPC line on stdout: %.300q", c.p.name, l)
	}
}

func TestHostileInputStdio(t *testing.T) {
	temporalPort := freePorts(t, 1)[0]
	c := startStdio(t, "metaforge mcp", temporalPort)
	c.initialize(t, "2025-11-25")
	t.Logf("initialized after %s", time.Since(c.p.started).Round(time.Millisecond))
	c.stillServing(t, "initialize")

	for _, hf := range hostileFrames() {
		t.Run(hf.name, func(t *testing.T) {
			c.send(t, hf.frame)
			expectError(t, c.next(t, hf.name), hf.code, hf.msgPart)
			c.stillServing(t, hf.name)
		})
	}
	t.Run("exactly 16 MiB", func(t *testing.T) {
		c.send(t, legacyHealthOfSize("16mib", maxFrameBytes))
		expectHealth(t, c.next(t, "a 16 MiB health/check"), `"16mib"`)
	})
	t.Run("nested 128 deep", func(t *testing.T) {
		c.send(t, legacyHealthNested("d128", maxDepth))
		expectHealth(t, c.next(t, "a health/check nested 128 deep"), `"d128"`)
	})

	// Valid JSON that is no valid JSON-RPC request reaches the SDK. Each
	// runs in a process of its own (sharing this one's Temporal), since one
	// such frame must not cost the others their server.
	t.Run("batch of 100 at 2025-03-26", func(t *testing.T) {
		other := startStdio(t, "metaforge mcp (shared Temporal)", temporalPort)
		other.initialize(t, "2025-03-26")
		other.send(t, batch(maxBatch, "tools/list"))
		var msgs []rpcMsg
		for i := range maxBatch {
			msgs = append(msgs, other.next(t, fmt.Sprintf("batch answer %d", i)))
		}
		expectBatchAnswers(t, msgs, maxBatch)
		other.stillServing(t, "batch of 100")
		other.close(t)
	})
	for _, im := range invalidMessages {
		t.Run(im.name, func(t *testing.T) {
			other := startStdio(t, "metaforge mcp (shared Temporal)", temporalPort)
			other.initialize(t, im.version)
			other.timeout = 5 * time.Second
			// The frame, then at once a valid request: a server that went
			// deaf on the frame shows it on the request.
			other.send(t, []byte(im.frame))
			after := strconv.Quote("after-" + im.name)
			other.send(t, []byte(`{"jsonrpc":"2.0","id":`+after+`,"method":"tools/list"}`))
			var refusal, list *rpcMsg
			for range 2 {
				m := other.next(t, im.name+" and the tools/list after it")
				if m.id == after {
					list = &m
				} else {
					refusal = &m
				}
			}
			if refusal == nil || !refusal.isError || refusal.errCode != codeInvalidRequest {
				t.Errorf("got %v; want a JSON-RPC error %d (Invalid Request) for %s", refusal, codeInvalidRequest, im.frame)
			}
			if list == nil {
				t.Fatalf("no answer to tools/list %s", after)
			}
			expectTools(t, *list, after)
			other.stillServing(t, im.name)
			other.close(t)
		})
	}

	c.close(t)
}

// ---------------------------------------------------------------------------
// Busy ports

func TestServeRefusesBusyPort(t *testing.T) {
	for _, which := range []string{"--http-addr", "--temporal-port", "--ui-port"} {
		t.Run(which, func(t *testing.T) {
			busy, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer busy.Close()
			busyPort := busy.Addr().(*net.TCPAddr).Port
			ports := freePorts(t, 3)
			temporalPort, uiPort, httpPort := ports[0], ports[1], ports[2]
			switch which {
			case "--http-addr":
				httpPort = busyPort
			case "--temporal-port":
				temporalPort = busyPort
			case "--ui-port":
				uiPort = busyPort
			}
			dataDir := filepath.Join(t.TempDir(), "data")
			cmd := command(t, 30*time.Second, binary, "serve",
				"--data-dir", dataDir,
				"--temporal-port", strconv.Itoa(temporalPort),
				"--ui-port", strconv.Itoa(uiPort),
				"--http-addr", fmt.Sprintf("127.0.0.1:%d", httpPort))
			p := start(t, "metaforge serve", cmd)
			code := p.wait(t, 10*time.Second)
			took := time.Since(p.started)
			t.Logf("exited %d after %s: %s", code, took.Round(time.Millisecond), strings.TrimSpace(p.stderr.String()))
			if code == 0 {
				t.Errorf("serve exited 0 with %s on a busy port", which)
			}
			if !strings.Contains(p.stderr.String(), strconv.Itoa(busyPort)) {
				t.Errorf("stderr does not name port %d:\n%s", busyPort, p.stderr.String())
			}
			if took > 3*time.Second {
				t.Errorf("serve took %s to refuse a busy port; it should check before starting anything", took)
			}
			if _, err := os.Stat(filepath.Join(dataDir, "temporal.db")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("serve created %s before refusing the busy port (stat: %v)", filepath.Join(dataDir, "temporal.db"), err)
			}
			if strings.Contains(p.stderr.String(), "MCP (Streamable HTTP)") {
				t.Errorf("serve announced itself before refusing:\n%s", p.stderr.String())
			}
		})
	}
}
