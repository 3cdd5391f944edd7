package plugins

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestClaudeCodeValidates runs Claude Code's own check, `claude plugin
// validate --strict`, on the marketplace and on each plugin (the claude
// clientBin finds): it is the authority the Go schema above only
// approximates.
func TestClaudeCodeValidates(t *testing.T) {
	bin := clientBin(t, "METAFORGE_CLAUDE_BIN", "claude", "@anthropic-ai/claude-code")
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
