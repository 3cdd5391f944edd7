package kicad

import (
	"fmt"
	"strconv"
	"strings"
)

// node is one S-expression of a KiCad file: an atom (a symbol, number or
// quoted string, kept as its text) or a list. KiCad 6 writes both boards
// and schematics this way, so the schematic tools read the file directly
// instead of going through eeschema, which has no headless API in KiCad 6.
type node struct {
	atom   string
	quoted bool
	list   []*node
	isList bool
}

// head is the list's first atom, its keyword ("symbol", "wire"), or "".
func (n *node) head() string {
	if !n.isList || len(n.list) == 0 || n.list[0].isList {
		return ""
	}
	return n.list[0].atom
}

// arg is the i-th atom after the keyword, or "".
func (n *node) arg(i int) string {
	if !n.isList || i+1 >= len(n.list) || n.list[i+1].isList {
		return ""
	}
	return n.list[i+1].atom
}

// num is the i-th argument as a number, or 0.
func (n *node) num(i int) float64 {
	v, _ := strconv.ParseFloat(n.arg(i), 64)
	return v
}

// child is the first sub-list with the keyword, or nil.
func (n *node) child(keyword string) *node {
	for _, c := range n.list {
		if c.head() == keyword {
			return c
		}
	}
	return nil
}

// children are the sub-lists with the keyword.
func (n *node) children(keyword string) []*node {
	var out []*node
	for _, c := range n.list {
		if c.head() == keyword {
			out = append(out, c)
		}
	}
	return out
}

// hasAtom reports whether an unquoted atom (a flag such as hide or power)
// stands among the list's items.
func (n *node) hasAtom(a string) bool {
	for _, c := range n.list[1:] {
		if !c.isList && !c.quoted && c.atom == a {
			return true
		}
	}
	return false
}

// flag reads a (keyword yes|no) item, or def when it is absent.
func (n *node) flag(keyword string, def bool) bool {
	c := n.child(keyword)
	if c == nil {
		return def
	}
	return c.arg(0) != "no"
}

// parseSexpr parses one S-expression document (a whole .kicad_sch).
func parseSexpr(text string) (*node, error) {
	p := &sexprParser{s: text}
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != '(' {
		return nil, fmt.Errorf("it does not start with '('")
	}
	n, err := p.parse()
	if err != nil {
		return nil, err
	}
	return n, nil
}

type sexprParser struct {
	s string
	i int
}

func (p *sexprParser) skipSpace() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *sexprParser) parse() (*node, error) {
	p.skipSpace()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("unexpected end of file")
	}
	switch c := p.s[p.i]; c {
	case '(':
		p.i++
		n := &node{isList: true}
		for {
			p.skipSpace()
			if p.i >= len(p.s) {
				return nil, fmt.Errorf("unexpected end of file: a list is not closed")
			}
			if p.s[p.i] == ')' {
				p.i++
				return n, nil
			}
			c, err := p.parse()
			if err != nil {
				return nil, err
			}
			n.list = append(n.list, c)
		}
	case ')':
		return nil, fmt.Errorf("unexpected ')' at byte %d", p.i)
	case '"':
		return p.quotedAtom()
	default:
		start := p.i
		for p.i < len(p.s) && strings.IndexByte(" \t\r\n()", p.s[p.i]) < 0 {
			p.i++
		}
		return &node{atom: p.s[start:p.i]}, nil
	}
}

// quotedAtom reads a "..." string with KiCad's backslash escapes.
func (p *sexprParser) quotedAtom() (*node, error) {
	start := p.i
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return &node{atom: b.String(), quoted: true}, nil
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			switch e := p.s[p.i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
		p.i++
	}
	return nil, fmt.Errorf("string starting at byte %d is not closed", start)
}
