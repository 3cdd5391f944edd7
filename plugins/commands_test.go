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

// update rewrites the generated files from the prompts:
// go test ./plugins -run TestGeneratedFiles -update
var update = flag.Bool("update", false, "rewrite the plugins' generated command and skill files from mcpserver's prompts")

// packagedCommands are the command files written by hand, per plugin:
// connect works with nothing connected, so it cannot be an MCP prompt.
var packagedCommands = map[string][]string{
	"metaforge":       {"connect.md"},
	"metaforge-local": nil,
}

// codexSkills is where the Codex package's skills are: not skills/, which
// Claude Code would also load from the same plugin, beside its commands.
const codexSkills = "metaforge-local/codex-skills"

// TestGeneratedFiles checks that every Claude Code plugin carries one
// command file per MCP prompt and the Codex package one skill per prompt,
// byte for byte what the prompt renders, and no file in those directories
// nobody generated or listed.
func TestGeneratedFiles(t *testing.T) {
	for plugin, handWritten := range packagedCommands {
		want := map[string]string{}
		for _, c := range mcpserver.PromptCommands() {
			want[c.Name+".md"] = c.Markdown
		}
		checkGenerated(t, filepath.Join(plugin, "commands"), want, handWritten)
	}
	want := map[string]string{}
	for _, s := range mcpserver.PromptSkills() {
		want[filepath.Join(s.Name, "SKILL.md")] = s.Markdown
	}
	checkGenerated(t, codexSkills, want, nil)
}

// checkGenerated compares (or with -update writes) want's files under dir,
// and fails on any file under dir that is neither wanted nor handWritten.
func checkGenerated(t *testing.T, dir string, want map[string]string, handWritten []string) {
	t.Helper()
	for rel, content := range want {
		file := filepath.Join(dir, rel)
		if *update {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: %v; generate it with go test ./plugins -run TestGeneratedFiles -update", file, err)
			continue
		}
		if !bytes.Equal(got, []byte(content)) {
			t.Errorf("%s differs from what mcpserver/prompts.go renders; regenerate it with go test ./plugins -run TestGeneratedFiles -update", file)
		}
	}
	for _, name := range handWritten {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("packaged file %s/%s: %v", dir, name, err)
		}
	}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if _, ok := want[rel]; !ok && !slices.Contains(handWritten, rel) {
			t.Errorf("%s is neither generated from a prompt nor listed as hand-written; remove it or list it", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSkillFilesFitCodex checks the limits Codex's skill loader enforces
// (openai/codex codex-rs/core/src/skills/loader.rs: name at most 64
// characters, description at most 1024, both non-empty), or it skips the
// skill with an error.
func TestSkillFilesFitCodex(t *testing.T) {
	skills := mcpserver.PromptSkills()
	if len(skills) != 6 {
		t.Fatalf("%d skills, want one per prompt (6)", len(skills))
	}
	for _, s := range skills {
		front, body, ok := frontmatter(s.Markdown)
		if !ok {
			t.Errorf("%s: no --- frontmatter ---", s.Name)
			continue
		}
		if front["name"] != s.Name || !kebabName.MatchString(s.Name) || len(s.Name) > 64 {
			t.Errorf("skill name %q (file says %q): want kebab-case, at most 64 characters", s.Name, front["name"])
		}
		if d := front["description"]; len(d) < 10 || len([]rune(d)) > 1024 {
			t.Errorf("%s: description %q: want one, at most 1024 characters", s.Name, d)
		}
		if strings.Contains(body, "$ARGUMENTS") || !strings.Contains(body, "_meta.callId") {
			t.Errorf("%s: a skill takes its arguments from the request, not $ARGUMENTS, and keeps the grounding rule:\n%s", s.Name, body)
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
