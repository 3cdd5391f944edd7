package plugins

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// clientBin is the agent client name a test runs: $envVar, else the one
// deploy/test-deps.sh installs at the version deploy/agent-clients pins,
// else name on PATH. Without any the test skips and says how to get one.
func clientBin(t *testing.T, envVar, name, npmPackage string) string {
	t.Helper()
	if bin := os.Getenv(envVar); bin != "" {
		return bin
	}
	pinned, err := filepath.Abs(filepath.Join(repoRoot, "deploy", "agent-clients", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pinned); err == nil {
		return pinned
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("no %s binary: run bash deploy/test-deps.sh (it installs %s at the version deploy/agent-clients pins), set %s, or put %s on PATH",
			name, npmPackage, envVar, name)
	}
	return bin
}
