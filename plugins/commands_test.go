// Package plugins holds the agent packages (Claude Code plugins, the Codex
// plugin) and the tests that keep them true: the command files match the
// MCP prompts they are generated from, every manifest has the fields its
// client documents, and every marketplace entry resolves to a package.
package plugins

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/mcpserver"
)

// update rewrites the generated command files from the prompts:
// go test ./plugins -run TestCommandFiles -update
var update = flag.Bool("update", false, "rewrite the plugins' generated command files from mcpserver's prompts")

// packagedCommands are the command files written by hand, per plugin:
// connect works with nothing connected, so it cannot be an MCP prompt.
var packagedCommands = map[string][]string{
	"metaforge":       {"connect.md"},
	"metaforge-local": nil,
}

// TestCommandFiles checks that every Claude Code plugin carries one
// command file per MCP prompt, byte for byte what the prompt renders, and
// no command file nobody generated or listed.
func TestCommandFiles(t *testing.T) {
	cmds := mcpserver.PromptCommands()
	for plugin, handWritten := range packagedCommands {
		dir := filepath.Join(plugin, "commands")
		want := map[string]bool{}
		for _, name := range handWritten {
			want[name] = true
		}
		for _, c := range cmds {
			file := filepath.Join(dir, c.Name+".md")
			want[c.Name+".md"] = true
			if *update {
				if err := os.WriteFile(file, []byte(c.Markdown), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("%s: %v; generate it with go test ./plugins -run TestCommandFiles -update", file, err)
				continue
			}
			if !bytes.Equal(got, []byte(c.Markdown)) {
				t.Errorf("%s differs from the prompt %q in mcpserver/prompts.go; regenerate it with go test ./plugins -run TestCommandFiles -update", file, c.Name)
			}
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !want[e.Name()] {
				t.Errorf("%s/%s is neither generated from a prompt nor listed in packagedCommands; remove it or list it", dir, e.Name())
			}
		}
		for _, name := range handWritten {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Errorf("packaged command %s/%s: %v", dir, name, err)
			}
		}
	}
}

// TestCommandFilesCarryThePrompts checks what a generated file says, so a
// renderer that wrote empty files for both sides would still fail: the
// frontmatter Claude Code reads, each argument, and the prompt's own
// grounding rule.
func TestCommandFilesCarryThePrompts(t *testing.T) {
	cmds := mcpserver.PromptCommands()
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if want := []string{"use", "status", "design", "fea", "gate", "doctor"}; !slices.Equal(names, want) {
		t.Fatalf("PromptCommands = %v, want the six prompts %v", names, want)
	}
	hints := map[string]string{
		"use": `"[project]"`, "status": `"<project>"`, "design": `"<part> [requirement] [project]"`,
		"fea": `"<part> <load_case> [project]"`, "gate": `"<project> [run_id]"`,
	}
	for _, c := range cmds {
		front, body, ok := frontmatter(c.Markdown)
		if !ok {
			t.Errorf("%s: no --- frontmatter ---", c.Name)
			continue
		}
		if !strings.HasPrefix(front["description"], `"`) || len(front["description"]) < 10 {
			t.Errorf("%s: description %q: want the prompt's description, quoted", c.Name, front["description"])
		}
		if got := front["argument-hint"]; got != hints[c.Name] {
			t.Errorf("%s: argument-hint %q, want %q", c.Name, got, hints[c.Name])
		}
		if !strings.Contains(body, "_meta.callId") {
			t.Errorf("%s: the body lost the grounding rule (cite _meta.callId)", c.Name)
		}
		if c.Name == "fea" && !strings.Contains(body, `"<load_case>"`) {
			t.Errorf("fea: the load case is not a placeholder the agent fills from $ARGUMENTS:\n%s", body)
		}
		if hints[c.Name] != "" && !strings.Contains(body, "$ARGUMENTS") {
			t.Errorf("%s takes arguments but its body never reads $ARGUMENTS", c.Name)
		}
	}
}

// frontmatter splits a command file into its frontmatter's key: value
// lines and the body after it.
func frontmatter(md string) (map[string]string, string, bool) {
	rest, ok := strings.CutPrefix(md, "---\n")
	if !ok {
		return nil, "", false
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return nil, "", false
	}
	out := map[string]string{}
	for _, line := range strings.Split(head, "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok {
			out[k] = v
		}
	}
	return out, body, true
}
