//go:build unix

package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shutdownNoise matches a stderr line a client would show its user as an
// error: a warning or error log line, or the embedded Temporal's polling
// and dialling complaints while it stops (issue 29).
var shutdownNoise = regexp.MustCompile(`level=(WARN|ERROR)|Failed to poll|network dial error`)

// noisyLines are the lines of stderr that shutdownNoise matches.
func noisyLines(stderr string) []string {
	var bad []string
	for _, l := range strings.Split(stderr, "\n") {
		if shutdownNoise.MatchString(l) {
			bad = append(bad, l)
		}
	}
	return bad
}

// TestStdioShutdownIsQuiet runs the TypeScript SDK's scenario against
// `metaforge mcp` (initialize, tools/list, tools/call), closes the server's
// stdin, and checks that the server exits 0 by itself and writes nothing at
// warning level or above: its embedded Temporal stops after the workers,
// and the server's own stopping is not reported as errors.
func TestStdioShutdownIsQuiet(t *testing.T) {
	temporalPort := freePorts(t, 1)[0]
	cmd := command(t, 90*time.Second, nodePath, "stdio_client.mjs", binary, "mcp",
		"--data-dir", filepath.Join(t.TempDir(), "data"),
		"--temporal-port", strconv.Itoa(temporalPort),
		"--ui-port", "0")
	// stdio_client.mjs closes the server's stdin and fails unless the
	// server exits with status 0 within 10 s; the server's stderr is its.
	node := start(t, "node stdio_client.mjs", cmd)
	if code := node.wait(t, 90*time.Second); code != 0 {
		t.Fatalf("node stdio_client.mjs exited %d:\n%s", code, tail(node.stderr.String(), 40))
	}
	o := parseObserved(t, nodeStdoutLine(t, node))
	checkObserved(t, o, "metaforge-e2e-stdio")
	stderr := node.stderr.String()
	exitLine := ""
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "e2e stdio client: the server exited 0") {
			exitLine = l
		}
	}
	if exitLine == "" {
		t.Fatalf("the client did not report the server's exit:\n%s", tail(stderr, 20))
	}
	t.Log(exitLine)
	if bad := noisyLines(stderr); len(bad) > 0 {
		t.Errorf("metaforge mcp wrote %d warning or error lines on stderr (a client shows them to its user as errors); fix their level or their cause:\n%s",
			len(bad), tail(strings.Join(bad, "\n"), 20))
	}
	// The server (and its embedded Temporal) is gone.
	if err := syscall.Kill(o.ServerPid, 0); err == nil {
		t.Errorf("metaforge mcp (pid %d) is still running after its client ended", o.ServerPid)
	}
}

// TestServeSigtermIsQuiet stops `metaforge serve` with SIGTERM after a
// tools/call and checks that it exits 0 within 15 s and that nothing from
// "metaforge: stopping" on is a warning or an error: serve shares the
// runtime's stop (workers, then the client, then the embedded server).
func TestServeSigtermIsQuiet(t *testing.T) {
	ports := freePorts(t, 3)
	srv := serve(t, ports[0], ports[1], ports[2])
	s := &httpSession{url: fmt.Sprintf("http://127.0.0.1:%d/mcp", ports[2]), version: "2025-06-18", hc: &http.Client{Timeout: 30 * time.Second}}
	s.initialize(t)
	status, m, _, raw := s.post(t, []byte(`{"jsonrpc":"2.0","id":"hc","method":"tools/call","params":{"name":"health.check","arguments":{}}}`), true)
	if status != 200 || m.errCode != 0 || m.isError || len(m.result) == 0 {
		t.Fatalf("tools/call health.check: HTTP %d: %s", status, raw)
	}
	stopAt := time.Now()
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	if code := srv.wait(t, 15*time.Second); code != 0 {
		t.Errorf("metaforge serve exited %d after SIGTERM:\n%s", code, tail(srv.stderr.String(), 20))
	}
	t.Logf("metaforge serve exited %s after SIGTERM", time.Since(stopAt).Round(time.Millisecond))
	stderr := srv.stderr.String()
	i := strings.Index(stderr, "metaforge: stopping")
	if i < 0 {
		t.Fatalf("serve did not say it was stopping:\n%s", tail(stderr, 20))
	}
	if bad := noisyLines(stderr[i:]); len(bad) > 0 {
		t.Errorf("metaforge serve wrote %d warning or error lines while stopping; fix their level or their cause:\n%s",
			len(bad), tail(strings.Join(bad, "\n"), 20))
	}
}
