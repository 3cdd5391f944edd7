package knowledge

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// datasheetPage is a page as pdftotext -layout gives it: indented
// paragraphs, a table whose columns are spaces, blank lines between.
func datasheetPage(paras int) string {
	var b strings.Builder
	b.WriteString("\n\n   TPS54331 3.5-V to 28-V Input, 3-A, 570-kHz Step-Down Converter\n\n")
	for i := range paras {
		fmt.Fprintf(&b, "   %d Electrical characteristics\n", i)
		b.WriteString("   PARAMETER              TEST CONDITIONS        MIN    TYP    MAX   UNIT\n")
		for r := range 6 {
			fmt.Fprintf(&b, "   VIN%-2d input voltage    IOUT = %d A              3.5    12     28    V\n", r, r)
		}
		b.WriteString("\n   \n")
	}
	return b.String()
}

func join(chunks []Chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString(c.Text)
	}
	return b.String()
}

func TestChunkPageKeepsTheTextExactly(t *testing.T) {
	long := strings.Repeat("x", 4000)
	words := strings.Repeat("switching regulator ", 300)
	cases := map[string]string{
		"datasheet":        datasheetPage(12),
		"one paragraph":    "Hello.\n",
		"no final newline": "line one\nline two",
		"crlf":             strings.Repeat("row a\r\nrow b\r\n\r\n", 200),
		"one long word":    "  " + long + "\n",
		"one long line":    words,
		"long paragraph":   strings.Repeat("a line of a long paragraph without blank lines\n", 100),
		"many blanks":      "text\n" + strings.Repeat("\n", 3000) + "more text\n",
		"unicode":          strings.Repeat("Ω résistance µA ±5 % — 電圧\n", 150),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			chunks := ChunkPage("src-1", Page{Number: 3, Text: text})
			if len(chunks) == 0 {
				t.Fatal("no chunks")
			}
			if got := join(chunks); got != text {
				t.Fatalf("chunks joined differ from the page (%d vs %d bytes)", len(got), len(text))
			}
			for i, c := range chunks {
				if c.SourceID != "src-1" || c.Page != 3 || c.Seq != i {
					t.Errorf("chunk %d identity = %s/%d/%d", i, c.SourceID, c.Page, c.Seq)
				}
				if n := contentLen(c.Text); n > chunkMax {
					t.Errorf("chunk %d has %d characters of content, over %d", i, n, chunkMax)
				}
				if strings.TrimSpace(c.Text) == "" {
					t.Errorf("chunk %d is blank", i)
				}
			}
			if again := ChunkPage("src-1", Page{Number: 3, Text: text}); !reflect.DeepEqual(again, chunks) {
				t.Error("chunking the same page twice differs")
			}
		})
	}
}

func TestChunkPageSizesAndBoundaries(t *testing.T) {
	page := datasheetPage(12)
	chunks := ChunkPage("s", Page{Number: 1, Text: page})
	// Each table paragraph is 8 lines of 80 characters (plus its blank
	// lines), 656 characters; two make a chunk over 1000 and three would
	// pass 1500, so paragraphs pair up.
	for i, c := range chunks[:len(chunks)-1] {
		n := utf8.RuneCountInString(c.Text)
		if n < chunkTarget || n > chunkMax+10 {
			t.Errorf("chunk %d is %d characters, want about %d", i, n, chunkTarget)
		}
		if !strings.HasSuffix(c.Text, "\n   \n") {
			t.Errorf("chunk %d does not end at a paragraph break: %q", i, c.Text[len(c.Text)-20:])
		}
	}
	if len(chunks) != 6 {
		t.Errorf("%d chunks, want 6 (12 paragraphs in pairs, the title with the first)", len(chunks))
	}

	// A paragraph too long for one chunk is cut at line ends.
	line := strings.Repeat("y", 99) + "\n" // 100 characters
	para := strings.Repeat(line, 40)       // 4000
	chunks = ChunkPage("s", Page{Number: 1, Text: para})
	if len(chunks) != 4 {
		t.Fatalf("%d chunks of a 4000-character paragraph, want 4", len(chunks))
	}
	for i, c := range chunks {
		if len(c.Text) != 1000 || !strings.HasSuffix(c.Text, "\n") {
			t.Errorf("chunk %d: %d characters, want 1000 ending at a line end", i, len(c.Text))
		}
	}

	// A line too long is cut between words.
	words := strings.Repeat("abcd ", 700) // 3500
	chunks = ChunkPage("s", Page{Number: 1, Text: words})
	if len(chunks) != 3 || len(chunks[0].Text) != 1500 || !strings.HasSuffix(chunks[0].Text, "abcd ") {
		t.Errorf("long line cut into %d chunks, first %d characters", len(chunks), len(chunks[0].Text))
	}
}

func TestChunkPageBlank(t *testing.T) {
	for _, text := range []string{"", "\n\n", "  \t\n \f"} {
		if chunks := ChunkPage("s", Page{Number: 1, Text: text}); chunks != nil {
			t.Errorf("blank page %q gave %d chunks", text, len(chunks))
		}
	}
}
