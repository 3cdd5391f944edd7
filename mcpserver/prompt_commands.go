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
// instructions. Positional $1, $2 are not used: a load case is several
// words.
func (p promptSpec) commandMarkdown() string {
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "description: %s\n", yamlString(p.description))
	if hint := p.argumentHint(); hint != "" {
		fmt.Fprintf(&b, "argument-hint: %s\n", yamlString(hint))
	}
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "<!-- Generated from the MCP prompt %q in mcpserver/prompts.go; do not edit. Regenerate: go test ./plugins -run TestGeneratedFiles -update -->\n\n", p.name)
	b.WriteString(p.instructions("Arguments given: $ARGUMENTS\n\nRead them as:\n"))
	return b.String()
}

// PromptSkills renders every prompt as an agent skill (skills/<Name>/SKILL.md,
// the format Codex loads from a plugin): a client that does not offer MCP
// prompts still gets the curated workflows, chosen by their description.
func PromptSkills() []PromptCommand {
	out := make([]PromptCommand, 0, len(prompts))
	for _, p := range prompts {
		name := "metaforge-" + p.name
		var b strings.Builder
		b.WriteString("---\n")
		fmt.Fprintf(&b, "name: %s\n", name)
		fmt.Fprintf(&b, "description: %s\n", yamlString(p.description+" With the MetaForge MCP server (its prompt "+p.name+")."))
		b.WriteString("---\n\n")
		fmt.Fprintf(&b, "<!-- Generated from the MCP prompt %q in mcpserver/prompts.go; do not edit. Regenerate: go test ./plugins -run TestGeneratedFiles -update -->\n\n", p.name)
		b.WriteString(p.instructions("Take the arguments from the user's request:\n"))
		out = append(out, PromptCommand{Name: name, Markdown: b.String()})
	}
	return out
}

// instructions are the arguments, introduced by argsFrom, then the
// prompt's text with each required argument as a <name> placeholder the
// agent fills in, and each optional one absent (the text's step that
// looks it up or asks stands, unless the user gave it).
func (p promptSpec) instructions(argsFrom string) string {
	var b strings.Builder
	args := promptArgs{}
	if len(p.args) > 0 {
		b.WriteString(argsFrom)
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
