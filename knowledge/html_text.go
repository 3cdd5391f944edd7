package knowledge

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipped are the elements whose content is not what a page says:
// scripts, styles, navigation, embedded objects and form controls.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Nav: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Canvas: true, atom.Head: true, atom.Button: true, atom.Select: true,
	atom.Textarea: true, atom.Input: true, atom.Dialog: true,
}

// blocks are the elements that start and end a line of their own.
var blocks = map[atom.Atom]bool{
	atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true, atom.Header: true,
	atom.Footer: true, atom.Aside: true, atom.Blockquote: true, atom.Figure: true, atom.Figcaption: true,
	atom.Address: true, atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Details: true, atom.Summary: true,
	atom.Form: true, atom.Fieldset: true, atom.Legend: true, atom.Center: true, atom.Caption: true,
	atom.Body: true, atom.Html: true,
}

// HTMLText is a page's title and its readable text: headings as
// Markdown headings, paragraphs, list items as "- " lines, table rows as
// cells joined by " | ", preformatted text kept as laid out, and links to
// PDFs (datasheets) with their absolute URL; scripts, styles, navigation
// and hidden elements dropped.
func HTMLText(page string, base *url.URL) (title, text string) {
	root, err := html.Parse(strings.NewReader(page))
	if err != nil { // html.Parse fails only on a broken reader
		return "", strings.TrimSpace(page)
	}
	title = strings.Join(strings.Fields(textOf(find(root, atom.Title))), " ")
	w := &textWriter{base: base}
	w.walk(root)
	w.flush()
	if title == "" {
		title = strings.Join(strings.Fields(textOf(find(root, atom.H1))), " ")
	}
	return title, strings.TrimSpace(strings.Join(w.lines, "\n"))
}

// find is the first element a under n.
func find(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, a); f != nil {
			return f
		}
	}
	return nil
}

// textOf is all the text under n, as written.
func textOf(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// textWriter lays a page's nodes out as lines.
type textWriter struct {
	base  *url.URL
	lines []string
	cur   strings.Builder
	space bool // a space is owed before the next word on the line
	pre   int  // inside <pre>: whitespace is kept
	lists []int
}

func (w *textWriter) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
	case html.DocumentNode:
		w.children(n)
		return
	default:
		return
	}
	if skipped[n.DataAtom] || hidden(n) {
		return
	}
	switch a := n.DataAtom; {
	case a == atom.H1 || a == atom.H2 || a == atom.H3 || a == atom.H4 || a == atom.H5 || a == atom.H6:
		w.blank()
		w.cur.WriteString(strings.Repeat("#", int(n.Data[1]-'0')) + " ")
		w.children(n)
		w.blank()
	case a == atom.P:
		w.blank()
		w.children(n)
		w.blank()
	case a == atom.Br:
		w.flush()
	case a == atom.Hr:
		w.blank()
	case a == atom.Ul || a == atom.Ol:
		w.flush()
		start := 0
		if a == atom.Ol {
			start = 1
		}
		w.lists = append(w.lists, start)
		w.children(n)
		w.lists = w.lists[:len(w.lists)-1]
		w.flush()
	case a == atom.Li:
		w.flush()
		indent := strings.Repeat("  ", max(len(w.lists)-1, 0))
		marker := "- "
		if d := len(w.lists); d > 0 && w.lists[d-1] > 0 {
			marker = fmt.Sprintf("%d. ", w.lists[d-1])
			w.lists[d-1]++
		}
		w.cur.WriteString(indent + marker)
		w.children(n)
		w.flush()
	case a == atom.Table:
		w.blank()
		w.children(n)
		w.blank()
	case a == atom.Tr:
		w.flush()
		var cells []string
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) && !hidden(c) {
				cell := &textWriter{base: w.base}
				cell.children(c)
				cell.flush()
				cells = append(cells, strings.Join(cell.lines, " "))
			}
		}
		if strings.TrimSpace(strings.Join(cells, "")) != "" {
			w.lines = append(w.lines, strings.Join(cells, " | "))
		}
	case a == atom.Pre:
		w.blank()
		w.pre++
		w.children(n)
		w.pre--
		w.blank()
	case a == atom.A:
		w.children(n)
		if href := w.pdfLink(n); href != "" {
			w.text(" <" + href + ">")
		}
	case blocks[a]:
		w.flush()
		w.children(n)
		w.flush()
	default:
		w.children(n)
	}
}

func (w *textWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
}

// text adds running text to the line: whitespace collapsed to one space,
// except inside <pre>.
func (w *textWriter) text(s string) {
	if w.pre > 0 {
		parts := strings.Split(s, "\n")
		for i, p := range parts {
			if i > 0 {
				w.lines = append(w.lines, strings.TrimRight(w.cur.String(), " \t\r"))
				w.cur.Reset()
			}
			w.cur.WriteString(p)
		}
		return
	}
	words := strings.Fields(s)
	if len(words) == 0 {
		if s != "" {
			w.space = true
		}
		return
	}
	if (w.space || startsWithSpace(s)) && w.cur.Len() > 0 && !strings.HasSuffix(w.cur.String(), " ") {
		w.cur.WriteByte(' ')
	}
	w.cur.WriteString(strings.Join(words, " "))
	w.space = endsWithSpace(s)
}

// flush ends the current line.
func (w *textWriter) flush() {
	if line := strings.TrimRight(w.cur.String(), " \t"); !bareMarker.MatchString(line) {
		w.lines = append(w.lines, line)
	}
	w.cur.Reset()
	w.space = false
}

// blank ends the line and leaves one empty line after it.
func (w *textWriter) blank() {
	w.flush()
	if n := len(w.lines); n > 0 && w.lines[n-1] != "" {
		w.lines = append(w.lines, "")
	}
}

// pdfLink is the absolute URL of a link to a PDF, which a datasheet page
// exists to offer, or "".
func (w *textWriter) pdfLink(n *html.Node) string {
	for _, at := range n.Attr {
		if at.Key != "href" {
			continue
		}
		u, err := url.Parse(strings.TrimSpace(at.Val))
		if err != nil || !strings.HasSuffix(strings.ToLower(u.Path), ".pdf") {
			return ""
		}
		if w.base != nil {
			u = w.base.ResolveReference(u)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return ""
		}
		return u.String()
	}
	return ""
}

// hidden is an element the page does not show.
func hidden(n *html.Node) bool {
	for _, at := range n.Attr {
		switch at.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(at.Val, "true") {
				return true
			}
		case "style":
			if s := strings.ReplaceAll(strings.ToLower(at.Val), " ", ""); strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

// bareMarker is a line with nothing on it but a heading or list marker:
// an empty heading or item, left out.
var bareMarker = regexp.MustCompile(`^\s*(#{1,6}|-|\d+\.)?\s*$`)

func startsWithSpace(s string) bool { return s != "" && strings.ContainsRune(" \t\r\n\f", rune(s[0])) }
func endsWithSpace(s string) bool {
	return s != "" && strings.ContainsRune(" \t\r\n\f", rune(s[len(s)-1]))
}
