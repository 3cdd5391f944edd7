package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// requireChromium fails a dashboard page test at once, saying how to
// install the browser, when there is none for the page scripts to launch.
func requireChromium(t *testing.T) {
	t.Helper()
	if exe, tried := approvalsPageChromium(); exe == "" {
		t.Fatalf("no Chromium at %s: install it (apt-get install chromium, or bash deploy/test-deps.sh), or set CHROMIUM_PATH", strings.Join(tried, ", "))
	}
}

// startPageRig starts serve, with env added to its environment, for a
// test that reads its dashboard in Chromium.
func startPageRig(t *testing.T, env ...string) *crashRig {
	t.Helper()
	requireChromium(t)
	r := &crashRig{t: t, dataDir: filepath.Join(t.TempDir(), "data"), ports: freePorts(t, 3), env: env}
	r.start()
	return r
}

// runPageScript runs `node SCRIPT ARGS...` on r's dashboard as its
// operator, with screenshots in vizScreenshotDir, waits up to limit, and
// decodes the one JSON line the script prints into observed; it returns
// the screenshots' folder. A script that exits non-zero fails the test
// with its stderr and what it saw.
func runPageScript(t *testing.T, r *crashRig, limit time.Duration, observed any, script string, args ...string) (screenshots string) {
	t.Helper()
	base := fmt.Sprintf("http://127.0.0.1:%d", r.ports[2])
	screenshots = vizScreenshotDir(t)
	cmd := command(t, limit, nodePath, append([]string{script, base}, args...)...)
	cmd.Env = append(cmd.Env, "E2E_OPERATOR_TOKEN="+operatorToken(t, r.dataDir), "E2E_SCREENSHOTS="+screenshots)
	node := start(t, "node "+script, cmd)
	if code := node.wait(t, limit); code != 0 {
		t.Fatalf("node %s exited %d:\n%s\nsaw: %s", script, code, tail(node.stderr.String(), 30), strings.TrimSpace(node.stdout.String()))
	}
	line := nodeStdoutLine(t, node)
	if err := json.Unmarshal([]byte(line), observed); err != nil {
		t.Fatalf("node %s printed %v: %s", script, err, line)
	}
	return screenshots
}
