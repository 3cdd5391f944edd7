package kicad

import (
	"strconv"
	"strings"
)

// Building and writing S-expressions: the schematic generator makes its
// file as a tree of nodes (the reader's type), so a library symbol read
// from a .kicad_sym is copied into the schematic as the tree it was, and
// the whole file is written the way KiCad lays it out: short lists on one
// line, lists that hold lists broken over indented lines.

// sym is an unquoted atom: a keyword or a flag (hide, yes).
func sym(s string) *node { return &node{atom: s} }

// str is a quoted string.
func str(s string) *node { return &node{atom: s, quoted: true} }

// mmAtom is a length or coordinate in KiCad's schematic unit (0.1 µm) written
// in millimetres, the unit of the file.
func mmAtom(iu int64) *node { return &node{atom: formatMM(iu)} }

// integer is a whole number atom.
func integer(i int) *node { return &node{atom: strconv.Itoa(i)} }

// list is (head items...).
func list(head string, items ...*node) *node {
	return &node{isList: true, list: append([]*node{sym(head)}, items...)}
}

// formatMM writes 0.1 µm units as millimetres, shortest form: 12700 is 1.27.
func formatMM(iu int64) string {
	if iu == 0 {
		return "0"
	}
	return strconv.FormatFloat(float64(iu)/10000, 'f', -1, 64)
}

// clone copies a tree, so a library symbol's copy can be renamed without
// changing the cached library.
func (n *node) clone() *node {
	c := *n
	if n.isList {
		c.list = make([]*node, len(n.list))
		for i, x := range n.list {
			c.list[i] = x.clone()
		}
	}
	return &c
}

// lineWidth is where a long list is broken over lines.
const lineWidth = 120

// formatSexpr writes a document as KiCad does, ending in a newline.
func formatSexpr(n *node) string {
	var b strings.Builder
	writeNode(&b, n, 0)
	b.WriteByte('\n')
	return b.String()
}

func writeNode(b *strings.Builder, n *node, indent int) {
	if !n.isList {
		b.WriteString(atomText(n))
		return
	}
	if flat := flatText(n); depth(n) < 4 && 2*indent+len(flat) <= lineWidth {
		b.WriteString(flat)
		return
	}
	b.WriteByte('(')
	broken := false // once a list went on its own line, the rest do too
	for i, c := range n.list {
		switch {
		case i == 0:
			writeNode(b, c, indent)
		case !c.isList:
			b.WriteByte(' ')
			b.WriteString(atomText(c))
		case !broken && depth(c) < 3 && lastLineLen(b)+1+len(flatText(c)) <= lineWidth:
			// Short lists before the first long one stay on the head's
			// line: (symbol (lib_id "Device:R") (at 1 2 0) (unit 1)
			b.WriteByte(' ')
			b.WriteString(flatText(c))
		default:
			broken = true
			b.WriteByte('\n')
			b.WriteString(strings.Repeat("  ", indent+1))
			writeNode(b, c, indent+1)
		}
	}
	if broken {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat("  ", indent))
	}
	b.WriteByte(')')
}

// depth is how deep lists nest in n: 1 for (size 1.27 1.27), 3 for
// (effects (font (size 1.27 1.27))). A list four deep, such as a property
// with its effects, is broken over lines as KiCad breaks it.
func depth(n *node) int {
	d := 0
	for _, c := range n.list {
		if c.isList {
			d = max(d, depth(c))
		}
	}
	if !n.isList {
		return 0
	}
	return d + 1
}

func lastLineLen(b *strings.Builder) int {
	s := b.String()
	return len(s) - strings.LastIndexByte(s, '\n') - 1
}

func flatText(n *node) string {
	if !n.isList {
		return atomText(n)
	}
	parts := make([]string, len(n.list))
	for i, c := range n.list {
		parts[i] = flatText(c)
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// atomText quotes a string with the escapes the reader undoes.
func atomText(n *node) string {
	if !n.quoted {
		return n.atom
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return `"` + r.Replace(n.atom) + `"`
}
