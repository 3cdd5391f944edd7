package main

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Codex's config.toml is edited as text, one table at a time, so every
// other table, comment and blank line stays as the user left it: a TOML
// library would re-emit the whole file and lose its comments. The editor
// understands table headers only; a server defined some other way (an
// inline table under [mcp_servers], dotted keys) is refused with what to
// do, never rewritten.

var (
	tomlHeader      = regexp.MustCompile(`^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$`)
	tomlKeyAssigned = regexp.MustCompile(`^\s*([A-Za-z0-9_."' -]+?)\s*=`)
)

// tomlTableName normalises a header's name: mcp_servers."metaforge" and
// mcp_servers . metaforge are both mcp_servers.metaforge.
func tomlTableName(raw string) string {
	parts := strings.Split(raw, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || !unicode.IsPrint(r) && r < 0x100:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// codexServerTable is the [mcp_servers.NAME] table that runs command with args.
func codexServerTable(name, command string, args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = tomlString(a)
	}
	return fmt.Sprintf("[mcp_servers.%s]\ncommand = %s\nargs = [%s]", name, tomlString(command), strings.Join(quoted, ", "))
}

// tomlBlock is one table's lines: its header at start, its body up to the
// next header (end), and content its last non-blank line plus one.
type tomlBlock struct {
	name                string
	start, content, end int
}

// tomlBlocks finds every table in lines.
func tomlBlocks(lines []string) []tomlBlock {
	var out []tomlBlock
	for i, l := range lines {
		m := tomlHeader.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if n := len(out); n > 0 {
			out[n-1].end = i
		}
		out = append(out, tomlBlock{name: tomlTableName(m[1]), start: i, end: len(lines)})
	}
	for i := range out {
		c := out[i].end
		for c > out[i].start+1 && strings.TrimSpace(lines[c-1]) == "" {
			c--
		}
		out[i].content = c
	}
	return out
}

// checkNoOtherForm refuses a config that defines the server other than as
// its own table, which this editor would otherwise duplicate.
func checkNoOtherForm(lines []string, name string) error {
	table := ""
	for i, l := range lines {
		if m := tomlHeader.FindStringSubmatch(l); m != nil {
			table = tomlTableName(m[1])
			continue
		}
		m := tomlKeyAssigned.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		key := tomlTableName(m[1])
		full := key
		if table != "" {
			full = table + "." + key
		}
		if full == "mcp_servers."+name || strings.HasPrefix(full, "mcp_servers."+name+".") {
			if table == "mcp_servers."+name || strings.HasPrefix(table, "mcp_servers."+name+".") {
				continue
			}
			return fmt.Errorf("line %d defines mcp_servers.%s as %q, which this command does not rewrite; move it into its own [mcp_servers.%s] table or delete it, then run this again", i+1, name, strings.TrimSpace(l), name)
		}
	}
	return nil
}

// editTOMLServer sets (table non-empty) or removes (table empty) the
// [mcp_servers.NAME] table of a Codex config. Setting replaces that
// table's own keys and leaves its subtables ([mcp_servers.NAME.env]);
// removing drops the table and its subtables. It returns the new text,
// the table as it was ("" when absent) and whether anything changed.
func editTOMLServer(text, name, table string) (string, string, bool, error) {
	lines := strings.Split(text, "\n")
	if err := checkNoOtherForm(lines, name); err != nil {
		return "", "", false, err
	}
	own := "mcp_servers." + name
	var main *tomlBlock
	var subs []tomlBlock
	blocks := tomlBlocks(lines)
	for i := range blocks {
		switch b := blocks[i]; {
		case b.name == own && main == nil:
			main = &blocks[i]
		case strings.HasPrefix(b.name, own+"."):
			subs = append(subs, b)
		}
	}
	before := ""
	if main != nil {
		before = strings.Join(lines[main.start:main.content], "\n")
	}
	switch {
	case table == "" && main == nil:
		return text, "", false, nil
	case table == "":
		drop := map[int]bool{}
		for _, b := range append(subs, *main) {
			for i := b.start; i < b.end; i++ {
				drop[i] = true
			}
		}
		var kept []string
		for i, l := range lines {
			if !drop[i] {
				kept = append(kept, l)
			}
		}
		return strings.Join(kept, "\n"), before, true, nil
	case main != nil && before == table:
		return text, before, false, nil
	case main != nil:
		out := append([]string{}, lines[:main.start]...)
		out = append(out, strings.Split(table, "\n")...)
		out = append(out, lines[main.content:]...)
		return strings.Join(out, "\n"), before, true, nil
	case len(subs) > 0:
		// Before its first subtable, where a reader looks for it.
		at := subs[0].start
		out := append([]string{}, lines[:at]...)
		out = append(out, strings.Split(table, "\n")...)
		out = append(out, "")
		out = append(out, lines[at:]...)
		return strings.Join(out, "\n"), "", true, nil
	default:
		trimmed := strings.TrimRight(text, "\n")
		if trimmed == "" {
			return table + "\n", "", true, nil
		}
		return trimmed + "\n\n" + table + "\n", "", true, nil
	}
}
