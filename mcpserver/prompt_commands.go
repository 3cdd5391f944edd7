package mcpserver

import (
	"fmt"
	"strings"
)

// PromptCommand is one MCP prompt rendered as a Claude Code slash command
// file (commands/<Name>.md in a plugin), so a harness that shows plugin
// commands offers the same curated workflows the server's prompts/get
// does, from the same definition.
type PromptCommand struct {
	Name     string
	Markdown string
}

// PromptCommands renders every prompt, in prompts/list's order. The
// plugin packages' command files are generated from it and a test fails
// when a committed file differs, so the two cannot drift.
func PromptCommands() []PromptCommand {
	out := make([]PromptCommand, 0, len(prompts))
	for _, p := range prompts {
		out = append(out, PromptCommand{Name: p.name, Markdown: p.commandMarkdown()})
	}
	return out
}

// commandMarkdown is the command file: frontmatter with the description
// and argument hint Claude Code shows, the arguments and where they come
// from ($ARGUMENTS, the user's words after the command), then the prompt's
// instructions with each required argument as a <name> placeholder.
// Positional $1, $2 are not used: a load case is several words.
func (p promptSpec) commandMarkdown() string {
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "description: %s\n", yamlString(p.description))
	if hint := p.argumentHint(); hint != "" {
		fmt.Fprintf(&b, "argument-hint: %s\n", yamlString(hint))
	}
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "<!-- Generated from the MCP prompt %q in mcpserver/prompts.go; do not edit. Regenerate: go test ./plugins -run TestCommandFiles -update -->\n\n", p.name)
	args := promptArgs{}
	if len(p.args) > 0 {
		b.WriteString("Arguments given: $ARGUMENTS\n\n")
		b.WriteString("Read them as:\n")
		for _, a := range p.args {
			need := "optional"
			if a.Required {
				need = "required"
				args[a.Name] = "<" + a.Name + ">"
			}
			fmt.Fprintf(&b, "- %s (%s): %s\n", a.Name, need, a.Description)
		}
		b.WriteString("\nWhere a required one is missing, ask for it before calling any tool. Where an optional one is given, use it in place of the step that looks it up or asks for it.\n\n")
	}
	b.WriteString(p.text(args))
	b.WriteString("\n")
	return b.String()
}

// argumentHint is the arguments in order, required ones bare and optional
// ones in brackets, as Claude Code's argument-hint shows them.
func (p promptSpec) argumentHint() string {
	parts := make([]string, 0, len(p.args))
	for _, a := range p.args {
		if a.Required {
			parts = append(parts, "<"+a.Name+">")
		} else {
			parts = append(parts, "["+a.Name+"]")
		}
	}
	return strings.Join(parts, " ")
}

// yamlString quotes s as a YAML double-quoted scalar: a description with
// a colon or a leading bracket would otherwise parse as something else.
func yamlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
