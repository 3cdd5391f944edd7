package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Codex formats are not in Codex's documentation (spec 003, "The Codex
// package"); they are what Codex's own loader reads, openai/codex:
//   codex-rs/core/src/plugins/manifest.rs    RawPluginManifest (name,
//     version, description, skills, mcpServers, apps: "./"-relative paths;
//     interface: displayName, shortDescription, longDescription,
//     developerName, category, capabilities, websiteURL, privacyPolicyURL,
//     termsOfServiceURL, defaultPrompt (at most 3, each at most 128
//     characters), brandColor, composerIcon, logo, screenshots)
//   codex-rs/core/src/plugins/marketplace.rs RawMarketplaceManifest (name,
//     interface.displayName, plugins[]: name, source {source: "local",
//     path: "./..."}, policy {installation NOT_AVAILABLE | AVAILABLE |
//     INSTALLED_BY_DEFAULT, authentication ON_INSTALL | ON_USE, products},
//     category), resolved from the directory that contains .agents/.

type codexInterface struct {
	DisplayName       string   `json:"displayName,omitempty"`
	ShortDescription  string   `json:"shortDescription,omitempty"`
	LongDescription   string   `json:"longDescription,omitempty"`
	DeveloperName     string   `json:"developerName,omitempty"`
	Category          string   `json:"category,omitempty"`
	Capabilities      []string `json:"capabilities,omitempty"`
	WebsiteURL        string   `json:"websiteURL,omitempty"`
	PrivacyPolicyURL  string   `json:"privacyPolicyURL,omitempty"`
	TermsOfServiceURL string   `json:"termsOfServiceURL,omitempty"`
	DefaultPrompt     []string `json:"defaultPrompt,omitempty"`
	BrandColor        string   `json:"brandColor,omitempty"`
	ComposerIcon      string   `json:"composerIcon,omitempty"`
	Logo              string   `json:"logo,omitempty"`
	Screenshots       []string `json:"screenshots,omitempty"`
}

// codexPlugin is <plugin>/.codex-plugin/plugin.json.
type codexPlugin struct {
	Name        string          `json:"name"`
	Version     string          `json:"version,omitempty"`
	Description string          `json:"description,omitempty"`
	Skills      string          `json:"skills,omitempty"`
	MCPServers  string          `json:"mcpServers,omitempty"`
	Apps        string          `json:"apps,omitempty"`
	Interface   *codexInterface `json:"interface,omitempty"`
}

// codexMarketplace is .agents/plugins/marketplace.json.
type codexMarketplace struct {
	Name      string `json:"name"`
	Interface *struct {
		DisplayName string `json:"displayName,omitempty"`
	} `json:"interface,omitempty"`
	Plugins []struct {
		Name   string `json:"name"`
		Source struct {
			Source string `json:"source"`
			Path   string `json:"path"`
		} `json:"source"`
		Policy *struct {
			Installation   string   `json:"installation,omitempty"`
			Authentication string   `json:"authentication,omitempty"`
			Products       []string `json:"products,omitempty"`
		} `json:"policy,omitempty"`
		Category string `json:"category,omitempty"`
	} `json:"plugins"`
}

// relativeInside reports whether p is "./" followed by a path that stays
// inside its root, the only form Codex's loader accepts.
func relativeInside(p string) bool {
	rest, ok := strings.CutPrefix(p, "./")
	rest = strings.TrimSuffix(rest, "/") // a directory may end in /
	if !ok || rest == "" {
		return false
	}
	for _, part := range strings.Split(rest, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// TestCodexMarketplace checks .agents/plugins/marketplace.json and that
// each entry resolves, from the directory that contains .agents/, to a
// plugin with a Codex manifest of the same name whose MCP server file
// exists and runs metaforge mcp --profile core.
func TestCodexMarketplace(t *testing.T) {
	var m codexMarketplace
	if err := decodeStrict(filepath.Join(repoRoot, ".agents", "plugins", "marketplace.json"), &m); err != nil {
		t.Fatal(err)
	}
	if !kebabName.MatchString(m.Name) {
		t.Errorf("Codex marketplace name %q: want kebab-case", m.Name)
	}
	if len(m.Plugins) == 0 {
		t.Fatal("the Codex marketplace lists no plugins")
	}
	for _, e := range m.Plugins {
		if e.Source.Source != "local" {
			t.Errorf("plugin %s: source.source %q; Codex reads only \"local\"", e.Name, e.Source.Source)
		}
		if !relativeInside(e.Source.Path) || !strings.HasPrefix(e.Source.Path, "./plugins/") {
			t.Errorf("plugin %s: source.path %q; want ./plugins/<name>, inside the marketplace root", e.Name, e.Source.Path)
			continue
		}
		if e.Policy == nil {
			t.Errorf("plugin %s: no policy; say installation and authentication rather than leave Codex's defaults implicit", e.Name)
		} else {
			switch e.Policy.Installation {
			case "NOT_AVAILABLE", "AVAILABLE", "INSTALLED_BY_DEFAULT":
			default:
				t.Errorf("plugin %s: policy.installation %q; want NOT_AVAILABLE, AVAILABLE or INSTALLED_BY_DEFAULT", e.Name, e.Policy.Installation)
			}
			switch e.Policy.Authentication {
			case "ON_INSTALL", "ON_USE":
			default:
				t.Errorf("plugin %s: policy.authentication %q; want ON_INSTALL or ON_USE", e.Name, e.Policy.Authentication)
			}
		}
		root := filepath.Join(repoRoot, filepath.FromSlash(strings.TrimPrefix(e.Source.Path, "./")))
		var p codexPlugin
		if err := decodeStrict(filepath.Join(root, ".codex-plugin", "plugin.json"), &p); err != nil {
			t.Errorf("plugin %s: %s does not resolve to a Codex plugin: %v", e.Name, e.Source.Path, err)
			continue
		}
		if p.Name != e.Name {
			t.Errorf("plugin entry %s points at a manifest named %q; make them the same", e.Name, p.Name)
		}
		checkCodexPlugin(t, root, p)
	}
}

// checkCodexPlugin checks one Codex manifest's paths and interface.
func checkCodexPlugin(t *testing.T, root string, p codexPlugin) {
	t.Helper()
	for field, path := range map[string]string{"skills": p.Skills, "mcpServers": p.MCPServers, "apps": p.Apps} {
		if path == "" {
			continue
		}
		if !relativeInside(path) {
			t.Errorf("%s: %s %q must start with ./ and stay inside the plugin", p.Name, field, path)
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(path))); err != nil {
			t.Errorf("%s: %s: %v", p.Name, field, err)
		}
	}
	if p.MCPServers == "" {
		t.Errorf("%s: no mcpServers: the package would install nothing to talk to", p.Name)
	} else {
		var m mcpFile
		if err := decodeStrict(filepath.Join(root, filepath.FromSlash(p.MCPServers)), &m); err != nil {
			t.Error(err)
		} else if s := m.MCPServers["metaforge"]; s.Command != "metaforge" || strings.Join(s.Args, " ") != "mcp --profile core" {
			t.Errorf("%s: its MCP server runs %q %v; want metaforge mcp --profile core", p.Name, s.Command, s.Args)
		}
	}
	if p.Interface == nil || p.Interface.DisplayName == "" || p.Interface.ShortDescription == "" {
		t.Errorf("%s: interface.displayName and shortDescription are what /plugins shows; give them", p.Name)
		return
	}
	if n := len(p.Interface.DefaultPrompt); n > 3 {
		t.Errorf("%s: %d default prompts; Codex keeps at most 3", p.Name, n)
	}
	for _, dp := range p.Interface.DefaultPrompt {
		if len([]rune(dp)) > 128 || strings.TrimSpace(dp) == "" {
			t.Errorf("%s: default prompt %q: Codex drops one that is empty or over 128 characters", p.Name, dp)
		}
	}
}

// TestAgentsGuide checks the AGENTS.md shipped with the Codex package says
// what an agent needs: the profiles, held writes, the call id, the prompts.
func TestAgentsGuide(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("metaforge-local", "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{"--profile", "?profile=", "health.check", "approval_required", "_meta.callId", "call.get_result", "metaforge approvals"} {
		if !strings.Contains(text, want) {
			t.Errorf("AGENTS.md never mentions %s", want)
		}
	}
	for _, c := range []string{"use", "status", "design", "fea", "gate", "doctor"} {
		if !strings.Contains(text, "`"+c+"`") {
			t.Errorf("AGENTS.md does not list the prompt `%s`", c)
		}
	}
}
