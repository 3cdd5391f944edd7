package plugins

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestCodexLoadsThePackage has a real Codex (the one clientBin finds) add
// this checkout's marketplace, install metaforge-local from it into a home
// of its own, and list its MCP servers: the manifest format comes from
// Codex's loader, not a published spec, so an upgrade can move it (spec
// 003).
func TestCodexLoadsThePackage(t *testing.T) {
	bin := clientBin(t, "METAFORGE_CODEX_BIN", "codex", "@openai/codex")
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = home
		cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("codex %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	run("plugin", "marketplace", "add", root)
	run("plugin", "add", "metaforge-local@metaforge")
	if out := run("plugin", "list"); !regexp.MustCompile(`metaforge-local@metaforge\s+installed, enabled`).MatchString(out) {
		t.Errorf("codex plugin list does not show metaforge-local installed and enabled:\n%s", out)
	}
	if out := run("mcp", "list"); !regexp.MustCompile(`(?m)^metaforge\s+metaforge\s+mcp --profile core\s`).MatchString(out) {
		t.Errorf("codex mcp list does not show the package's server running metaforge mcp --profile core:\n%s", out)
	}
}
