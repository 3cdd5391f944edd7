package plugins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/mcpserver"
)

// The Claude Code formats, as documented (fetched 2026-12):
//   plugin.json:      https://code.claude.com/docs/en/plugins-reference
//                     (Plugin manifest schema; User configuration)
//   marketplace.json: https://code.claude.com/docs/en/plugin-marketplaces
//                     (Marketplace schema; Plugin entries; Plugin sources)
// No JSON Schema for either is published where this build can reach it, so
// the documented fields are encoded here as Go types decoded with
// DisallowUnknownFields: a misspelt key fails rather than being dropped
// (Claude Code drops an unknown top-level key with only a warning, and
// rejects an unknown key inside a userConfig option).

// kebabName is a plugin's or marketplace's name: "kebab-case, no spaces".
var kebabName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// claudeAuthor is author / owner: name required, email and url optional.
type claudeAuthor struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// claudeUserConfigOption is one userConfig entry: type, title and
// description required; unknown keys fail validation.
type claudeUserConfigOption struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Required    *bool    `json:"required,omitempty"`
	Default     any      `json:"default,omitempty"`
	Options     []any    `json:"options,omitempty"`
	Multiple    *bool    `json:"multiple,omitempty"`
	Sensitive   *bool    `json:"sensitive,omitempty"`
	Min         *float64 `json:"min,omitempty"`
	Max         *float64 `json:"max,omitempty"`
}

// claudePlugin is .claude-plugin/plugin.json: name required, the rest
// metadata or component paths.
type claudePlugin struct {
	Name         string                            `json:"name"`
	Version      string                            `json:"version,omitempty"`
	Description  string                            `json:"description,omitempty"`
	Author       *claudeAuthor                     `json:"author,omitempty"`
	Homepage     string                            `json:"homepage,omitempty"`
	Repository   string                            `json:"repository,omitempty"`
	License      string                            `json:"license,omitempty"`
	Keywords     []string                          `json:"keywords,omitempty"`
	Commands     json.RawMessage                   `json:"commands,omitempty"`
	Agents       json.RawMessage                   `json:"agents,omitempty"`
	Skills       json.RawMessage                   `json:"skills,omitempty"`
	Hooks        json.RawMessage                   `json:"hooks,omitempty"`
	MCPServers   json.RawMessage                   `json:"mcpServers,omitempty"`
	LSPServers   json.RawMessage                   `json:"lspServers,omitempty"`
	OutputStyles json.RawMessage                   `json:"outputStyles,omitempty"`
	UserConfig   map[string]claudeUserConfigOption `json:"userConfig,omitempty"`
}

// claudeMarketplace is .claude-plugin/marketplace.json: name, owner and
// plugins required.
type claudeMarketplace struct {
	// Schema is the schema URL Anthropic's own marketplaces declare, for
	// an editor's validation; nothing here fetches it.
	Schema   string        `json:"$schema,omitempty"`
	Name     string        `json:"name"`
	Owner    *claudeAuthor `json:"owner"`
	Metadata *struct {
		Description string `json:"description,omitempty"`
		Version     string `json:"version,omitempty"`
		PluginRoot  string `json:"pluginRoot,omitempty"`
	} `json:"metadata,omitempty"`
	Plugins []claudeMarketplaceEntry `json:"plugins"`
}

// claudeMarketplaceEntry is one plugins[] entry: name and source required,
// plus the manifest's metadata fields and the marketplace's own.
type claudeMarketplaceEntry struct {
	Name        string        `json:"name"`
	Source      string        `json:"source"`
	Description string        `json:"description,omitempty"`
	Version     string        `json:"version,omitempty"`
	Author      *claudeAuthor `json:"author,omitempty"`
	Homepage    string        `json:"homepage,omitempty"`
	Repository  string        `json:"repository,omitempty"`
	License     string        `json:"license,omitempty"`
	Keywords    []string      `json:"keywords,omitempty"`
	Category    string        `json:"category,omitempty"`
	Tags        []string      `json:"tags,omitempty"`
	Strict      *bool         `json:"strict,omitempty"`
}

// mcpFile is a plugin's .mcp.json, the format Claude Code's and Codex's
// plugin loaders share: named servers, stdio (command, args) or http (url).
type mcpFile struct {
	MCPServers map[string]struct {
		Type    string            `json:"type,omitempty"`
		Command string            `json:"command,omitempty"`
		Args    []string          `json:"args,omitempty"`
		Env     map[string]string `json:"env,omitempty"`
		URL     string            `json:"url,omitempty"`
		Headers map[string]string `json:"headers,omitempty"`
	} `json:"mcpServers"`
}

// repoRoot is where Claude Code and Codex resolve marketplace sources from.
const repoRoot = ".."

// decodeStrict reads path into v, refusing keys v does not declare and
// trailing data.
func decodeStrict(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w (the fields are those the client documents; see the URLs at the top of the test)", path, err)
	}
	if dec.More() {
		return fmt.Errorf("%s: data after the JSON object", path)
	}
	return nil
}

// TestClaudeMarketplace checks .claude-plugin/marketplace.json at the repo
// root (where `claude plugin marketplace add <checkout>` looks) and that
// every entry's source is a plugin directory whose manifest has its name.
func TestClaudeMarketplace(t *testing.T) {
	var m claudeMarketplace
	if err := decodeStrict(filepath.Join(repoRoot, ".claude-plugin", "marketplace.json"), &m); err != nil {
		t.Fatal(err)
	}
	if !kebabName.MatchString(m.Name) {
		t.Errorf("marketplace name %q: want kebab-case", m.Name)
	}
	if m.Owner == nil || m.Owner.Name == "" {
		t.Error("marketplace owner.name is required")
	}
	var names []string
	for _, e := range m.Plugins {
		names = append(names, e.Name)
		if !kebabName.MatchString(e.Name) {
			t.Errorf("plugin entry name %q: want kebab-case", e.Name)
		}
		if !strings.HasPrefix(e.Source, "./") || strings.Contains(e.Source, "..") {
			t.Errorf("plugin %s: source %q: a relative source starts with ./ and stays in the repo", e.Name, e.Source)
			continue
		}
		var p claudePlugin
		if err := decodeStrict(filepath.Join(repoRoot, e.Source, ".claude-plugin", "plugin.json"), &p); err != nil {
			t.Errorf("plugin %s: source %s does not resolve to a plugin: %v", e.Name, e.Source, err)
			continue
		}
		if p.Name != e.Name {
			t.Errorf("plugin entry %s points at a manifest named %q; make them the same", e.Name, p.Name)
		}
		if e.Version != "" && e.Version != p.Version {
			t.Errorf("plugin %s: the marketplace says version %s, its manifest %s", e.Name, e.Version, p.Version)
		}
	}
	if want := "metaforge,metaforge-local"; strings.Join(names, ",") != want {
		t.Errorf("marketplace plugins %v, want %s", names, want)
	}
}

// TestClaudePluginManifests checks each plugin's manifest against the
// documented schema, and its .mcp.json: the HTTP plugin's URL is the
// user's gateway_url with the chosen tool profile (default core), the
// local one runs metaforge mcp --profile core.
func TestClaudePluginManifests(t *testing.T) {
	for _, name := range []string{"metaforge", "metaforge-local"} {
		var p claudePlugin
		if err := decodeStrict(filepath.Join(name, ".claude-plugin", "plugin.json"), &p); err != nil {
			t.Error(err)
			continue
		}
		if p.Name != name || !kebabName.MatchString(p.Name) {
			t.Errorf("%s: manifest name %q: want %q (kebab-case, the directory's name)", name, p.Name, name)
		}
		if p.Version == "" || p.Description == "" || p.Author == nil || p.Author.Name == "" {
			t.Errorf("%s: give version, description and author.name: the plugin browser shows them", name)
		}
		for key, o := range p.UserConfig {
			if !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(key) {
				t.Errorf("%s: userConfig key %q is not a valid identifier", name, key)
			}
			switch o.Type {
			case "string", "number", "boolean", "directory", "file":
			default:
				t.Errorf("%s: userConfig %s: type %q; want string, number, boolean, directory or file", name, key, o.Type)
			}
			if o.Title == "" || o.Description == "" {
				t.Errorf("%s: userConfig %s: title and description are required", name, key)
			}
		}
		var m mcpFile
		if err := decodeStrict(filepath.Join(name, ".mcp.json"), &m); err != nil {
			t.Error(err)
			continue
		}
		srv, ok := m.MCPServers["metaforge"]
		if !ok || len(m.MCPServers) != 1 {
			t.Errorf("%s/.mcp.json declares %d servers; want exactly one, named metaforge", name, len(m.MCPServers))
			continue
		}
		// Every ${user_config.KEY} the server uses must be declared.
		for _, ref := range regexp.MustCompile(`\$\{user_config\.([A-Za-z0-9_]+)\}`).FindAllStringSubmatch(srv.URL+srv.Command+strings.Join(srv.Args, " "), -1) {
			if _, ok := p.UserConfig[ref[1]]; !ok {
				t.Errorf("%s/.mcp.json uses ${user_config.%s}, which plugin.json does not declare", name, ref[1])
			}
		}
		switch name {
		case "metaforge":
			if srv.Type != "http" || srv.URL != "${user_config.gateway_url}?profile=${user_config.tool_profile}" {
				t.Errorf("metaforge/.mcp.json: type %q url %q; want http to ${user_config.gateway_url}?profile=${user_config.tool_profile}", srv.Type, srv.URL)
			}
			if d := p.UserConfig["gateway_url"].Default; d != "http://127.0.0.1:8765/mcp" {
				t.Errorf("gateway_url default %v, want http://127.0.0.1:8765/mcp, where metaforge serve listens", d)
			}
			profile, _ := p.UserConfig["tool_profile"].Default.(string)
			if profile != "core" {
				t.Errorf("tool_profile default %q, want core", profile)
			}
			if err := mcpserver.ValidateProfile(profile); err != nil {
				t.Errorf("tool_profile default: %v", err)
			}
		case "metaforge-local":
			if srv.Type != "" && srv.Type != "stdio" || srv.Command != "metaforge" || strings.Join(srv.Args, " ") != "mcp --profile core" {
				t.Errorf("metaforge-local/.mcp.json runs %s %v (type %q); want metaforge mcp --profile core over stdio", srv.Command, srv.Args, srv.Type)
			}
		}
	}
}
