package knowledge

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chunk sizes, in characters. A passage of about a thousand characters is
// a paragraph or a table: small enough that BM25's length normalisation
// favours the passage that is about the query, large enough that a table
// of figures stays whole.
const (
	chunkTarget = 1000
	chunkMax    = 1500
)

// ChunkPage splits one page into passages of about chunkTarget characters
// (at most chunkMax), breaking at blank lines between paragraphs first,
// then at line ends, then between words, and only inside a word that is
// itself longer than chunkMax. Nothing is trimmed or rewritten: the chunks
// concatenated in order are the page's text exactly, so a datasheet table
// laid out by pdftotext -layout keeps its columns. Blank lines that end a
// paragraph stay with it, so a chunk may exceed chunkMax only by trailing
// whitespace and no chunk is whitespace alone. A blank page has no chunks.
// The result depends only on the arguments.
func ChunkPage(sourceID string, p Page) []Chunk {
	if strings.TrimSpace(p.Text) == "" {
		return nil
	}
	var units []string
	for _, para := range paragraphs(p.Text) {
		units = append(units, fitUnits(para)...)
	}
	var chunks []Chunk
	var cur strings.Builder
	curLen := 0
	flush := func() {
		if cur.Len() > 0 {
			chunks = append(chunks, Chunk{SourceID: sourceID, Page: p.Number, Seq: len(chunks), Text: cur.String()})
			cur.Reset()
			curLen = 0
		}
	}
	for _, u := range units {
		// Whitespace joins the chunk before it, so none is blank.
		if curLen > 0 && contentLen(u) > 0 && (curLen >= chunkTarget || curLen+contentLen(u) > chunkMax) {
			flush()
		}
		cur.WriteString(u)
		curLen += utf8.RuneCountInString(u)
	}
	flush()
	return chunks
}

// paragraphs cuts text after each run of blank lines (lines of whitespace
// only). Blank lines at the start of the page belong to the first
// paragraph.
func paragraphs(text string) []string {
	var out []string
	start, off := 0, 0
	sawText := false  // the current paragraph has a non-blank line
	inBlanks := false // and blank lines have followed it
	for _, line := range lines(text) {
		blank := strings.TrimSpace(line) == ""
		switch {
		case !blank && inBlanks:
			out = append(out, text[start:off])
			start, inBlanks = off, false
		case !blank:
			sawText = true
		case sawText:
			inBlanks = true
		}
		off += len(line)
	}
	return append(out, text[start:])
}

// lines cuts text after each "\n"; the last line may have none.
func lines(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			return append(out, text)
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// fitUnits is para itself when its content fits in a chunk, else its lines,
// each of them cut between words (then anywhere) when it alone is too long.
func fitUnits(para string) []string {
	if contentLen(para) <= chunkMax {
		return []string{para}
	}
	var out []string
	for _, line := range lines(para) {
		if contentLen(line) <= chunkMax {
			out = append(out, line)
			continue
		}
		out = append(out, splitLine(line)...)
	}
	return out
}

// splitLine cuts an over-long line into pieces of at most chunkMax
// characters of content, each ending after a run of spaces where there is
// one, the last keeping the line's end.
func splitLine(line string) []string {
	var out []string
	for contentLen(line) > chunkMax {
		cut := byteOffset(line, chunkMax)
		// Back up to just after the last space within the limit, if any.
		if i := strings.LastIndexFunc(line[:cut], unicode.IsSpace); i > 0 && strings.TrimSpace(line[:i]) != "" {
			_, size := utf8.DecodeRuneInString(line[i:])
			cut = i + size
			for cut < len(line) {
				r, size := utf8.DecodeRuneInString(line[cut:])
				if !unicode.IsSpace(r) {
					break
				}
				cut += size
			}
		}
		out = append(out, line[:cut])
		line = line[cut:]
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// contentLen is the characters of s without its trailing whitespace: what
// counts against chunkMax.
func contentLen(s string) int {
	return utf8.RuneCountInString(strings.TrimRightFunc(s, unicode.IsSpace))
}

// byteOffset is the byte offset of the n-th character of s (len(s) when s
// is shorter).
func byteOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
