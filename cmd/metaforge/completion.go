package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// runCompletion is `metaforge completion bash|zsh|fish`: a completion
// script written from the command table (commands.go), the same table
// main dispatches from, so the two cannot disagree.
func runCompletion(_ context.Context, args []string, out io.Writer) error {
	if len(args) != 1 {
		return usageError("usage: metaforge completion bash|zsh|fish (e.g. source <(metaforge completion bash))")
	}
	switch args[0] {
	case "bash":
		return writeBashCompletion(out, commands())
	case "zsh":
		return writeZshCompletion(out, commands())
	case "fish":
		return writeFishCompletion(out, commands())
	}
	return usageError(fmt.Sprintf("metaforge completion %s: say bash, zsh or fish", args[0]))
}

// completionWords are what may follow cmd: its verbs, else its flags.
func completionWords(c command) string {
	if len(c.verbs) > 0 {
		var vs []string
		for _, v := range c.verbs {
			vs = append(vs, v.name)
		}
		return strings.Join(vs, " ")
	}
	return dashed(c.flags)
}

// dashed is flags as typed: --name.
func dashed(flags []string) string {
	var out []string
	for _, f := range flags {
		out = append(out, "--"+f)
	}
	return strings.Join(out, " ")
}

func commandNames(cs []command) string {
	var names []string
	for _, c := range cs {
		names = append(names, c.name)
	}
	return strings.Join(names, " ")
}

func writeBashCompletion(out io.Writer, cs []command) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# metaforge completion for bash: source <(metaforge completion bash)\n_metaforge() {\n")
	fmt.Fprintf(&b, "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" words=\"\"\n")
	fmt.Fprintf(&b, "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n", commandNames(cs))
	fmt.Fprintf(&b, "  case \"${COMP_WORDS[1]}\" in\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "  %s)\n", c.name)
		if len(c.verbs) == 0 {
			fmt.Fprintf(&b, "    words=%q ;;\n", dashed(c.flags))
			continue
		}
		fmt.Fprintf(&b, "    if [ \"$COMP_CWORD\" -eq 2 ]; then words=%q; else\n      case \"${COMP_WORDS[2]}\" in\n", completionWords(c))
		for _, v := range c.verbs {
			fmt.Fprintf(&b, "      %s) words=%q ;;\n", v.name, dashed(v.flags))
		}
		fmt.Fprintf(&b, "      esac\n    fi ;;\n")
	}
	fmt.Fprintf(&b, "  esac\n  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\ncomplete -o default -F _metaforge metaforge\n")
	_, err := io.WriteString(out, b.String())
	return err
}

func writeZshCompletion(out io.Writer, cs []command) error {
	var b strings.Builder
	fmt.Fprintf(&b, "#compdef metaforge\n# metaforge completion for zsh: source <(metaforge completion zsh), after compinit\n_metaforge() {\n")
	fmt.Fprintf(&b, "  if (( CURRENT == 2 )); then\n    local -a cmds\n    cmds=(\n")
	for _, c := range cs {
		// _describe splits name:description at the first unescaped colon.
		fmt.Fprintf(&b, "      %s\n", zshQuote(c.name+":"+strings.ReplaceAll(c.summary, ":", `\:`)))
	}
	// $words is zsh's own array of the line; the completions go in ws.
	fmt.Fprintf(&b, "    )\n    _describe command cmds\n    return\n  fi\n  local -a ws\n  case $words[2] in\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "  %s)\n", c.name)
		if len(c.verbs) == 0 {
			fmt.Fprintf(&b, "    ws=(%s) ;;\n", dashed(c.flags))
			continue
		}
		fmt.Fprintf(&b, "    if (( CURRENT == 3 )); then ws=(%s); else\n      case $words[3] in\n", completionWords(c))
		for _, v := range c.verbs {
			fmt.Fprintf(&b, "      %s) ws=(%s) ;;\n", v.name, dashed(v.flags))
		}
		fmt.Fprintf(&b, "      esac\n    fi ;;\n")
	}
	fmt.Fprintf(&b, "  esac\n  compadd -a ws\n  _files\n}\ncompdef _metaforge metaforge\n")
	_, err := io.WriteString(out, b.String())
	return err
}

// zshQuote single-quotes s for zsh.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func writeFishCompletion(out io.Writer, cs []command) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# metaforge completion for fish: metaforge completion fish | source\ncomplete -c metaforge -f\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "complete -c metaforge -n __fish_use_subcommand -a %s -d %s\n", c.name, zshQuote(c.summary))
		on := "__fish_seen_subcommand_from " + c.name
		if len(c.verbs) == 0 {
			for _, f := range c.flags {
				fmt.Fprintf(&b, "complete -c metaforge -n %s -l %s\n", zshQuote(on), f)
			}
			continue
		}
		fmt.Fprintf(&b, "complete -c metaforge -n %s -a %s\n", zshQuote(on+"; and not __fish_seen_subcommand_from "+completionWords(c)),
			zshQuote(completionWords(c)))
		for _, v := range c.verbs {
			for _, f := range v.flags {
				fmt.Fprintf(&b, "complete -c metaforge -n %s -l %s\n", zshQuote(on+"; and __fish_seen_subcommand_from "+v.name), f)
			}
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}
