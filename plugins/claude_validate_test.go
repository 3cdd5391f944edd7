package plugins

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
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

// TestClaudeCodeInstallsAndConnects is the README's route for a user with
// a checkout, in a home of its own: Claude Code adds this checkout's
// marketplace, installs metaforge-local from it, and `claude mcp list`
// starts the plugin's server (metaforge mcp --profile core, the metaforge
// built here first on PATH) and reports it connected.
func TestClaudeCodeInstallsAndConnects(t *testing.T) {
	bin := clientBin(t, "METAFORGE_CLAUDE_BIN", "claude", "@anthropic-ai/claude-code")
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	binDir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(binDir, "metaforge"), "./cmd/metaforge")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/metaforge: %v\n%s", err, out)
	}
	home := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = home
		cmd.Env = append(os.Environ(), "HOME="+home, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("plugin", "marketplace", "add", root)
	run("plugin", "install", "metaforge-local@metaforge")
	if out := run("plugin", "list"); !regexp.MustCompile(`metaforge-local@metaforge[\s\S]*Status: ✔ enabled`).MatchString(out) {
		t.Fatalf("claude plugin list does not show metaforge-local enabled:\n%s", out)
	}
	if out := run("mcp", "list"); !regexp.MustCompile(`plugin:metaforge-local:metaforge: metaforge mcp --profile core - ✔ Connected`).MatchString(out) {
		t.Fatalf("claude mcp list does not show the plugin's server connected:\n%s", out)
	}
}
