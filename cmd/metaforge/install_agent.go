package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// serverName is the key the MCP server is installed under, in every client.
const serverName = "metaforge"

// installedArgs are what the client runs this binary with: stdio, and the
// core profile, which fits the clients that cap how many tools they carry.
var installedArgs = []string{"mcp", "--profile", "core"}

// agentClient is one MCP client whose config install-agent edits.
type agentClient struct {
	name, display string
	// file is the config file for a scope, from the home directory (user)
	// or the working directory (project).
	file func(home, cwd string, project bool) string
	toml bool
	// entry is the JSON server entry (JSON clients only).
	entry func(exe string) jsonServerEntry
}

// jsonServerEntry is an MCP server entry in a JSON client config, its keys
// in the order the clients' own documentation writes them.
type jsonServerEntry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// agentClients are the clients install-agent knows, each as its own
// documentation describes its MCP config:
// Claude Code https://code.claude.com/docs/en/mcp (user scope: mcpServers
// in ~/.claude.json; project scope: .mcp.json), Codex
// https://developers.openai.com/codex/mcp ([mcp_servers.NAME] in
// ~/.codex/config.toml, or $CODEX_HOME/config.toml; project scope:
// .codex/config.toml), Cursor https://cursor.com/docs/mcp (mcpServers in
// ~/.cursor/mcp.json; project scope: .cursor/mcp.json).
var agentClients = []agentClient{
	{
		name: "claude", display: "Claude Code",
		file: func(home, cwd string, project bool) string {
			if project {
				return filepath.Join(cwd, ".mcp.json")
			}
			return filepath.Join(home, ".claude.json")
		},
		entry: func(exe string) jsonServerEntry {
			return jsonServerEntry{Type: "stdio", Command: exe, Args: installedArgs}
		},
	},
	{
		name: "codex", display: "Codex", toml: true,
		file: func(home, cwd string, project bool) string {
			if project {
				return filepath.Join(cwd, ".codex", "config.toml")
			}
			if ch := os.Getenv("CODEX_HOME"); ch != "" {
				return filepath.Join(ch, "config.toml")
			}
			return filepath.Join(home, ".codex", "config.toml")
		},
	},
	{
		name: "cursor", display: "Cursor",
		file: func(home, cwd string, project bool) string {
			if project {
				return filepath.Join(cwd, ".cursor", "mcp.json")
			}
			return filepath.Join(home, ".cursor", "mcp.json")
		},
		entry: func(exe string) jsonServerEntry {
			return jsonServerEntry{Command: exe, Args: installedArgs}
		},
	},
}

// installAgentRequest is one install-agent run.
type installAgentRequest struct {
	client  agentClient
	exe     string
	home    string
	cwd     string
	project bool
	dryRun  bool
	remove  bool
}

// runInstallAgent is `metaforge install-agent CLIENT`: it writes this
// binary's MCP server into the client's config, or with --remove takes it
// out, and says what it changed and how to undo it.
func runInstallAgent(_ context.Context, args []string, out io.Writer) error {
	flags := flag.NewFlagSet("install-agent", flag.ContinueOnError)
	dryRun := flags.Bool("dry-run", false, "print what would change and write nothing")
	scope := flags.String("scope", "user", "user (the config in your home directory) or project (the one in the current directory)")
	remove := flags.Bool("remove", false, "take the metaforge server out of the client's config instead")
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "usage: metaforge install-agent claude|codex|cursor [--dry-run] [--scope user|project] [--remove]")
		flags.PrintDefaults()
	}
	// The client may come before or after the flags.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := flags.Parse(args); err != nil {
		return flagError(err)
	}
	if name == "" && flags.NArg() > 0 {
		name = flags.Arg(0)
	} else if flags.NArg() > 0 {
		return usageError(fmt.Sprintf("install-agent takes one client, not also %q", flags.Args()))
	}
	req := installAgentRequest{dryRun: *dryRun, remove: *remove}
	var known []string
	for _, c := range agentClients {
		known = append(known, c.name)
		if c.name == name {
			req.client = c
		}
	}
	if req.client.name == "" {
		return usageError(fmt.Sprintf("install-agent needs the client to configure: one of %s (got %q)", strings.Join(known, ", "), name))
	}
	switch *scope {
	case "user":
	case "project":
		req.project = true
	default:
		return usageError(fmt.Sprintf("--scope %q: use user or project", *scope))
	}
	var err error
	if req.exe, err = thisExecutable(); err != nil {
		return err
	}
	if req.home, err = os.UserHomeDir(); err != nil {
		return fmt.Errorf("cannot find your home directory (%v); set HOME", err)
	}
	if req.cwd, err = os.Getwd(); err != nil {
		return err
	}
	return installAgent(req, out)
}

// thisExecutable is this binary's absolute path with symlinks resolved, so
// the client keeps running this build even when PATH changes.
func thisExecutable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot tell where this metaforge binary is (%v); run it by its full path", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Abs(exe)
}

// installAgent makes the change req asks for and reports it.
func installAgent(req installAgentRequest, out io.Writer) error {
	c := req.client
	path := c.file(req.home, req.cwd, req.project)
	scope := "user"
	if req.project {
		scope = "project"
	}
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved // write through a symlinked config, not over the link
	}
	old, err := os.ReadFile(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", target, err)
	}
	updated, before, after, changed, err := editClientConfig(c, old, req.exe, req.remove)
	if err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	verb := "install " + serverName + " in"
	if req.remove {
		verb = "remove " + serverName + " from"
	}
	fmt.Fprintf(out, "metaforge install-agent %s (%s, %s scope): %s %s\n", c.name, c.display, scope, verb, target)
	fmt.Fprintf(out, "before:\n%s\nafter:\n%s\n", orNone(before), orNone(after))
	undoScope := ""
	if req.project {
		undoScope = " --scope project"
	}
	if !changed {
		if req.remove {
			fmt.Fprintf(out, "No change: %s has no %s server.\n", target, serverName)
		} else {
			fmt.Fprintf(out, "No change: %s already runs %s %s.\n", target, req.exe, strings.Join(installedArgs, " "))
		}
		return nil
	}
	if req.dryRun {
		fmt.Fprintf(out, "Dry run: nothing written. Run it again without --dry-run to write %s.\n", target)
		return nil
	}
	backup := ""
	mode := fs.FileMode(0o600) // a new client config may come to hold tokens
	if exists {
		info, err := os.Stat(target)
		if err != nil {
			return err
		}
		mode = info.Mode().Perm()
		backup = target + ".metaforge-backup"
		if err := writeFileAtomic(backup, old, mode); err != nil {
			return fmt.Errorf("back up %s before changing it: %w", target, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(target), err)
	}
	if err := writeFileAtomic(target, updated, mode); err != nil {
		return fmt.Errorf("write %s: %w", target, err)
	}
	fmt.Fprintf(out, "Wrote %s.", target)
	if backup != "" {
		fmt.Fprintf(out, " The previous file is %s.", backup)
	}
	fmt.Fprintln(out)
	if req.remove {
		fmt.Fprintf(out, "Undo: metaforge install-agent %s%s\n", c.name, undoScope)
		return nil
	}
	fmt.Fprintf(out, "Restart %s (or reconnect its MCP servers) to use it.\n", c.display)
	fmt.Fprintf(out, "Undo: metaforge install-agent %s --remove%s", c.name, undoScope)
	if backup != "" {
		fmt.Fprintf(out, " (or restore %s)", backup)
	}
	fmt.Fprintln(out)
	return nil
}

// orNone is an entry for the report, or a line saying there is none.
func orNone(s string) string {
	if s == "" {
		return "  (no " + serverName + " server)"
	}
	return s
}

// editClientConfig applies the install or removal to a config's bytes and
// renders the entry before and after for the report.
func editClientConfig(c agentClient, old []byte, exe string, remove bool) (updated []byte, before, after string, changed bool, err error) {
	if c.toml {
		table := ""
		if !remove {
			table = codexServerTable(serverName, exe, installedArgs)
		}
		text, was, changed, err := editTOMLServer(string(old), serverName, table)
		if err != nil {
			return nil, "", "", false, err
		}
		if !changed {
			table = was
		}
		return []byte(text), indentLines(was), indentLines(table), changed, nil
	}
	var entry json.RawMessage
	if !remove {
		if entry, err = json.Marshal(c.entry(exe)); err != nil {
			return nil, "", "", false, err
		}
	}
	data, was, changed, err := editJSONServer(old, serverName, entry)
	if err != nil {
		return nil, "", "", false, err
	}
	if !changed {
		entry = was
	}
	render := func(v json.RawMessage) string {
		if v == nil {
			return ""
		}
		return fmt.Sprintf("  mcpServers.%s = %s", serverName, strings.TrimPrefix(indentJSON(v, "  "), "  "))
	}
	return data, render(was), render(entry), changed, nil
}

// indentLines prefixes each line of s with two spaces.
func indentLines(s string) string {
	if s == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// writeFileAtomic replaces path with data through a temporary file in the
// same directory and a rename, so a client reading the config never sees
// half of it, and a crash leaves the old file or the new one.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
