package knowledge

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipped are elements whose content is no reader's text: code, styling,
// and what a browser does not show.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Head: true, atom.Svg: true, atom.Iframe: true, atom.Object: true,
}

// blocks are elements a browser sets on lines of their own: each starts
// and ends a line of the text, so a paragraph, a heading or a table row
// is one line rather than run into the next.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Br: true, atom.Hr: true, atom.Li: true, atom.Ul: true, atom.Ol: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Table: true, atom.Tr: true, atom.Thead: true, atom.Tbody: true, atom.Tfoot: true, atom.Caption: true,
	atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true, atom.Nav: true, atom.Aside: true,
	atom.Main: true, atom.Blockquote: true, atom.Pre: true, atom.Dl: true, atom.Dt: true, atom.Dd: true,
	atom.Figure: true, atom.Figcaption: true, atom.Form: true, atom.Fieldset: true, atom.Address: true,
	atom.Details: true, atom.Summary: true,
}

// htmlText is a page's readable text: scripts, styles and the head
// dropped, block elements on lines of their own, table cells separated
// by " | ", runs of spaces collapsed as a browser does (except in pre).
func htmlText(data []byte) string {
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		// html.Parse accepts any bytes; this is an I/O error on memory.
		return string(data)
	}
	var w htmlWriter
	w.walk(doc)
	w.endLine()
	var out []string
	for _, l := range w.lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// htmlWriter gathers the text as lines. Outside pre, whitespace runs
// become one space when a line ends; inside, a line keeps its spacing.
type htmlWriter struct {
	lines []string
	line  strings.Builder
	pre   bool // the current line is preformatted
}

func (w *htmlWriter) endLine() {
	l := w.line.String()
	if !w.pre {
		l = strings.Join(strings.Fields(l), " ")
	}
	w.lines = append(w.lines, strings.TrimRight(l, " \t\r"))
	w.line.Reset()
}

func (w *htmlWriter) write(s string) {
	if !w.pre {
		w.line.WriteString(s)
		return
	}
	for i, p := range strings.Split(s, "\n") {
		if i > 0 {
			w.endLine()
		}
		w.line.WriteString(p)
	}
}

func (w *htmlWriter) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.write(n.Data)
		return
	case html.CommentNode, html.DoctypeNode:
		return
	case html.ElementNode:
		if skipped[n.DataAtom] {
			return
		}
		if (n.DataAtom == atom.Td || n.DataAtom == atom.Th) && strings.TrimSpace(w.line.String()) != "" {
			w.line.WriteString(" | ")
		}
	}
	block := n.Type == html.ElementNode && blocks[n.DataAtom]
	if block {
		w.endLine()
	}
	pre := n.DataAtom == atom.Pre && !w.pre
	if pre {
		w.pre = true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
	if block {
		w.endLine()
	}
	if pre {
		w.pre = false
	}
}

// htmlTitle is the page's <title>, else its first <h1>.
func htmlTitle(data []byte) string {
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return ""
	}
	var title, h1 string
	var find func(*html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch {
			case n.DataAtom == atom.Title && title == "":
				title = textOf(n)
			case n.DataAtom == atom.H1 && h1 == "":
				h1 = textOf(n)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if title != "" {
		return title
	}
	return h1
}

// textOf is an element's text, spaces collapsed.
func textOf(n *html.Node) string {
	var b strings.Builder
	var collect func(*html.Node)
	collect = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteString(" ")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			collect(c)
		}
	}
	collect(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
