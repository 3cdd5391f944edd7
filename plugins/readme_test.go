package plugins

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// installCommand finds an install line in the README: the client's
// command, then plugin@marketplace.
var installCommand = regexp.MustCompile(`(claude plugin install|/plugin install|codex plugin add)\s+([A-Za-z0-9_-]+)(?:@([A-Za-z0-9_-]+))?`)

// TestReadmeInstallsListedPlugins checks that every install command the
// README gives names a plugin the marketplace it installs from lists: an
// advertised install path with nothing behind it is the first thing a new
// user meets (spec 003, "Installing it").
func TestReadmeInstallsListedPlugins(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var claude claudeMarketplace
	if err := decodeStrict(filepath.Join(repoRoot, ".claude-plugin", "marketplace.json"), &claude); err != nil {
		t.Fatal(err)
	}
	var codex codexMarketplace
	if err := decodeStrict(filepath.Join(repoRoot, ".agents", "plugins", "marketplace.json"), &codex); err != nil {
		t.Fatal(err)
	}
	var claudeNames, codexNames []string
	for _, p := range claude.Plugins {
		claudeNames = append(claudeNames, p.Name)
	}
	for _, p := range codex.Plugins {
		codexNames = append(codexNames, p.Name)
	}
	seen := map[string]int{}
	for _, m := range installCommand.FindAllStringSubmatch(string(readme), -1) {
		cmd, plugin, market := m[1], m[2], m[3]
		names, marketName := claudeNames, claude.Name
		if cmd == "codex plugin add" {
			names, marketName = codexNames, codex.Name
		}
		seen[cmd]++
		if !slices.Contains(names, plugin) {
			t.Errorf("README: %q installs %s, which the %s marketplace does not list (it lists %v)", m[0], plugin, marketName, names)
		}
		if market != "" && market != marketName {
			t.Errorf("README: %q names the marketplace %s; it is called %s", m[0], market, marketName)
		}
	}
	if seen["claude plugin install"] == 0 || seen["codex plugin add"] == 0 {
		t.Errorf("README gives no Claude Code or no Codex install command (found %v); the section \"Installing in an agent\" should", seen)
	}
}
