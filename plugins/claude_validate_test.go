package plugins

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestClaudeCodeValidates runs Claude Code's own check, `claude plugin
// validate --strict`, on the marketplace and on each plugin, when a claude
// binary is at hand ($METAFORGE_CLAUDE_BIN, else claude on PATH): it is
// the authority the Go schema above only approximates. Without one it
// skips and says so.
func TestClaudeCodeValidates(t *testing.T) {
	bin := os.Getenv("METAFORGE_CLAUDE_BIN")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("claude"); err != nil {
			t.Skip("no claude binary: set METAFORGE_CLAUDE_BIN or put claude (npm @anthropic-ai/claude-code) on PATH to run Claude Code's own validator")
		}
	}
	for _, dir := range []string{repoRoot, "metaforge", "metaforge-local"} {
		abs, err := filepath.Abs(dir)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "plugin", "validate", "--strict", abs)
		// A home of its own: validating must not read or write the user's.
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("claude plugin validate --strict %s: %v\n%s", abs, err, out)
		}
	}
}
