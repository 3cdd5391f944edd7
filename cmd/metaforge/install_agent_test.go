package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/mcpserver"
)

const testExe = "/opt/metaforge/bin/metaforge"

// clientNamed is the install-agent client of that name.
func clientNamed(t *testing.T, name string) agentClient {
	t.Helper()
	for _, c := range agentClients {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no client %s", name)
	return agentClient{}
}

// installInto runs install-agent for client against home (and cwd as the
// project directory) and returns what it printed.
func installInto(t *testing.T, client, home string, mutate func(*installAgentRequest)) string {
	t.Helper()
	req := installAgentRequest{client: clientNamed(t, client), exe: testExe, home: home, cwd: filepath.Join(home, "project")}
	if mutate != nil {
		mutate(&req)
	}
	var out bytes.Buffer
	if err := installAgent(req, &out); err != nil {
		t.Fatalf("install-agent %s: %v\n%s", client, err, out.String())
	}
	return out.String()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInstallAgentDryRunWritesNothing(t *testing.T) {
	t.Setenv("CODEX_HOME", "") // else Codex's file is outside the test's home
	for _, client := range []string{"claude", "codex", "cursor"} {
		home := t.TempDir()
		out := installInto(t, client, home, func(r *installAgentRequest) { r.dryRun = true })
		if !strings.Contains(out, "Dry run: nothing written") || !strings.Contains(out, testExe) {
			t.Errorf("%s dry run printed:\n%s\nwant the entry with %s and that nothing was written", client, out, testExe)
		}
		if client != "codex" && !strings.Contains(out, `"command": "`+testExe+`"`) {
			t.Errorf("%s dry run does not print the JSON entry:\n%s", client, out)
		}
		entries, err := os.ReadDir(home)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 0 {
			t.Errorf("%s dry run created %v in the home directory", client, entries[0].Name())
		}
	}
}

func TestInstallAgentClaudeKeepsEveryOtherKey(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".claude.json")
	original := `{
  "numStartups": 12,
  "tipsHistory": {"a": 1},
  "big": 12345678901234567890,
  "mcpServers": {
    "other": {"type": "stdio", "command": "/usr/bin/other", "args": []}
  },
  "projects": {"/src/x": {"allowedTools": ["Bash"]}}
}
`
	if err := os.WriteFile(path, []byte(original), 0o640); err != nil {
		t.Fatal(err)
	}
	out := installInto(t, "claude", home, nil)
	if !strings.Contains(out, "(no metaforge server)") || !strings.Contains(out, "Undo: metaforge install-agent claude --remove") {
		t.Errorf("the report lacks the before or the undo:\n%s", out)
	}
	got := readFile(t, path)
	var doc struct {
		NumStartups int                        `json:"numStartups"`
		Big         json.Number                `json:"big"`
		MCPServers  map[string]json.RawMessage `json:"mcpServers"`
		Projects    map[string]any             `json:"projects"`
		TipsHistory map[string]any             `json:"tipsHistory"`
	}
	dec := json.NewDecoder(strings.NewReader(got))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	if doc.NumStartups != 12 || doc.Big != "12345678901234567890" || doc.Projects["/src/x"] == nil || doc.TipsHistory["a"] == nil {
		t.Errorf("an unrelated key changed:\n%s", got)
	}
	if !sameJSON(doc.MCPServers["other"], json.RawMessage(`{"type":"stdio","command":"/usr/bin/other","args":[]}`)) {
		t.Errorf("the other server changed: %s", doc.MCPServers["other"])
	}
	want := `{"type":"stdio","command":"` + testExe + `","args":["mcp","--profile","core"]}`
	if !sameJSON(doc.MCPServers["metaforge"], json.RawMessage(want)) {
		t.Errorf("mcpServers.metaforge = %s, want %s", doc.MCPServers["metaforge"], want)
	}
	if strings.Index(got, `"numStartups"`) > strings.Index(got, `"projects"`) {
		t.Errorf("the keys were reordered:\n%s", got)
	}
	if b := readFile(t, path+".metaforge-backup"); b != original {
		t.Errorf("the backup is not the previous file:\n%s", b)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("mode after writing: %v %v, want 0640 kept", info.Mode().Perm(), err)
	}

	// A second run with the same binary changes nothing.
	out = installInto(t, "claude", home, nil)
	if !strings.Contains(out, "No change") {
		t.Errorf("second run:\n%s\nwant No change", out)
	}
	if again := readFile(t, path); again != got {
		t.Errorf("a second run rewrote the file:\n%s", again)
	}

	// --remove takes out only ours, and a second --remove has nothing to do.
	out = installInto(t, "claude", home, func(r *installAgentRequest) { r.remove = true })
	if !strings.Contains(out, "Undo: metaforge install-agent claude\n") {
		t.Errorf("remove's report has no undo:\n%s", out)
	}
	removed := readFile(t, path)
	if strings.Contains(removed, "metaforge") || !strings.Contains(removed, "/usr/bin/other") || !strings.Contains(removed, "12345678901234567890") {
		t.Errorf("after --remove:\n%s", removed)
	}
	if out := installInto(t, "claude", home, func(r *installAgentRequest) { r.remove = true }); !strings.Contains(out, "No change") {
		t.Errorf("second --remove:\n%s", out)
	}
}

func TestInstallAgentCodexEditsOnlyItsTable(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CODEX_HOME", "")
	path := filepath.Join(home, ".codex", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	original := `# my settings
model = "o3"

[mcp_servers.other]
command = "y" # keep me

[mcp_servers.metaforge]
command = "/old/metaforge"
args = ["mcp"]

[mcp_servers.metaforge.env]
FOO = "1"

[profiles.fast]
model = "o4-mini"
`
	if err := os.WriteFile(path, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	out := installInto(t, "codex", home, nil)
	if !strings.Contains(out, `command = "/old/metaforge"`) {
		t.Errorf("the report does not show the table before:\n%s", out)
	}
	want := strings.Replace(original, "command = \"/old/metaforge\"\nargs = [\"mcp\"]",
		"command = \""+testExe+"\"\nargs = [\"mcp\", \"--profile\", \"core\"]", 1)
	if got := readFile(t, path); got != want {
		t.Errorf("config.toml:\n%s\nwant:\n%s", got, want)
	}
	if out := installInto(t, "codex", home, nil); !strings.Contains(out, "No change") {
		t.Errorf("second run:\n%s", out)
	}
	if got := readFile(t, path); got != want {
		t.Errorf("a second run rewrote config.toml:\n%s", got)
	}
	installInto(t, "codex", home, func(r *installAgentRequest) { r.remove = true })
	wantRemoved := `# my settings
model = "o3"

[mcp_servers.other]
command = "y" # keep me

[profiles.fast]
model = "o4-mini"
`
	if got := readFile(t, path); got != wantRemoved {
		t.Errorf("after --remove:\n%s\nwant:\n%s", got, wantRemoved)
	}
	// Installing into a config without the table appends it.
	installInto(t, "codex", home, nil)
	if got, want := readFile(t, path), wantRemoved+"\n[mcp_servers.metaforge]\ncommand = \""+testExe+"\"\nargs = [\"mcp\", \"--profile\", \"core\"]\n"; got != want {
		t.Errorf("appended:\n%s\nwant:\n%s", got, want)
	}
}

func TestInstallAgentCodexRefusesAnInlineDefinition(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CODEX_HOME", filepath.Join(home, "ch"))
	path := filepath.Join(home, "ch", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	original := "[mcp_servers]\nmetaforge = { command = \"x\" }\n"
	if err := os.WriteFile(path, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := installAgent(installAgentRequest{client: clientNamed(t, "codex"), exe: testExe, home: home, cwd: home}, &out)
	if err == nil || !strings.Contains(err.Error(), "own [mcp_servers.metaforge] table") {
		t.Errorf("err = %v, want a refusal saying what to do", err)
	}
	if got := readFile(t, path); got != original {
		t.Errorf("a refused run changed the file:\n%s", got)
	}
}

func TestInstallAgentCursorProjectScope(t *testing.T) {
	home := t.TempDir()
	out := installInto(t, "cursor", home, func(r *installAgentRequest) { r.project = true })
	path := filepath.Join(home, "project", ".cursor", "mcp.json")
	if !strings.Contains(out, path) || !strings.Contains(out, "--scope project") {
		t.Errorf("report:\n%s\nwant the project file and an undo with --scope project", out)
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(readFile(t, path)), &doc); err != nil {
		t.Fatal(err)
	}
	if want := `{"command":"` + testExe + `","args":["mcp","--profile","core"]}`; !sameJSON(doc.MCPServers["metaforge"], json.RawMessage(want)) {
		t.Errorf("mcpServers.metaforge = %s, want %s", doc.MCPServers["metaforge"], want)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("a new config's mode: %v %v, want 0600", info.Mode().Perm(), err)
	}
	if _, err := os.Stat(path + ".metaforge-backup"); err == nil {
		t.Error("a backup was written of a file that did not exist")
	}
	if _, err := os.Stat(filepath.Join(home, ".cursor")); err == nil {
		t.Error("project scope wrote to the user's ~/.cursor")
	}
}

func TestInstallAgentRefusesWhatItCannotDo(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for args, want := range map[string]string{
		"vim":                    "one of claude, codex, cursor",
		"":                       "one of claude, codex, cursor",
		"claude --scope machine": "use user or project",
		"claude cursor":          "one client",
	} {
		err := runInstallAgent(context.Background(), strings.Fields(args), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("install-agent %s: %v, want an error saying %q", args, err, want)
		}
	}
	// The flags may come first, and the entry runs this very binary.
	var out bytes.Buffer
	if err := runInstallAgent(context.Background(), []string{"--dry-run", "claude"}, &out); err != nil {
		t.Fatal(err)
	}
	exe, err := thisExecutable()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(exe) || !strings.Contains(out.String(), `"command": "`+exe+`"`) {
		t.Errorf("the entry does not run %s:\n%s", exe, out.String())
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("HOME"), ".claude.json")); err == nil {
		t.Error("--dry-run wrote ~/.claude.json")
	}
}

func TestEditJSONServerRefusesABrokenConfig(t *testing.T) {
	for _, data := range []string{`[1,2]`, `{"mcpServers": []}`, `{"a": 1} trailing`} {
		if _, _, _, err := editJSONServer([]byte(data), "metaforge", json.RawMessage(`{}`)); err == nil {
			t.Errorf("%s: no error; want a refusal to edit it", data)
		}
	}
}

// TestInstalledArgsAreWhatMCPTakes parses the installed arguments with the
// flags runMCP registers, so a renamed flag fails here rather than in the
// client that spawns the server.
func TestInstalledArgsAreWhatMCPTakes(t *testing.T) {
	if installedArgs[0] != "mcp" {
		t.Fatalf("installed command %v does not start the mcp command", installedArgs)
	}
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var tf temporalFlags
	tf.register(fs)
	var hf holdFlags
	hf.register(fs)
	var lf limitFlags
	lf.register(fs)
	if err := fs.Parse(installedArgs[1:]); err != nil || fs.NArg() != 0 {
		t.Fatalf("metaforge %v: %v (left over: %v)", installedArgs, err, fs.Args())
	}
	if tf.profile != "core" {
		t.Errorf("profile %q, want core", tf.profile)
	}
	if err := mcpserver.ValidateProfile(tf.profile); err != nil {
		t.Errorf("--profile %s: %v", tf.profile, err)
	}
}

func TestEditTOMLServerForms(t *testing.T) {
	table := codexServerTable("metaforge", `C:\Tools\"mf"\metaforge.exe`, []string{"mcp"})
	if want := `command = "C:\\Tools\\\"mf\"\\metaforge.exe"`; !strings.Contains(table, want) {
		t.Errorf("table:\n%s\nwant the path escaped as %s", table, want)
	}
	// A quoted header is the same table: replaced, not duplicated.
	in := "[mcp_servers.\"metaforge\"] # mine\ncommand = \"old\"\n\n[x]\ny = 1\n"
	out, before, changed, err := editTOMLServer(in, "metaforge", table)
	if err != nil || !changed || !strings.Contains(before, `command = "old"`) {
		t.Fatalf("quoted header: changed %v, before %q, err %v", changed, before, err)
	}
	if strings.Count(out, "metaforge]") != 1 || !strings.HasSuffix(out, "\n\n[x]\ny = 1\n") {
		t.Errorf("quoted header replaced as:\n%s", out)
	}
	// Dotted keys at the top level are refused with what to do.
	if _, _, _, err := editTOMLServer("mcp_servers.metaforge.command = \"x\"\n", "metaforge", table); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("dotted keys: err %v, want a refusal naming the line", err)
	}
	// Another server whose name starts the same is not ours.
	in = "[mcp_servers.metaforge2]\ncommand = \"z\"\n"
	out, before, _, err = editTOMLServer(in, "metaforge", "")
	if err != nil || before != "" || out != in {
		t.Errorf("removing from a config with only metaforge2: out %q before %q err %v", out, before, err)
	}
}

// TestInstallAgentCommandUsesHome runs the command as a user would, with
// HOME a temporary directory: it finds the user's Cursor config there and
// points it at this very binary.
func TestInstallAgentCommandUsesHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	var out bytes.Buffer
	if err := runInstallAgent(context.Background(), []string{"cursor"}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	exe, err := thisExecutable()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCPServers map[string]jsonServerEntry `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(home, ".cursor", "mcp.json"))), &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.MCPServers["metaforge"]; got.Command != exe || strings.Join(got.Args, " ") != "mcp --profile core" {
		t.Errorf("~/.cursor/mcp.json runs %q %v, want %s mcp --profile core", got.Command, got.Args, exe)
	}
}
