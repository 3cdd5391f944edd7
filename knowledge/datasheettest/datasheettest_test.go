package datasheettest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pdftotext is poppler's, as knowledge.ingest runs it.
func pdftotext(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("pdftotext", "-layout", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", path, err)
	}
	return string(out)
}

func pdfPages(t *testing.T, path string) int {
	t.Helper()
	out, err := exec.Command("pdfinfo", path).Output()
	if err != nil {
		t.Fatalf("pdfinfo %s: %v", path, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "Pages:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(rest))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("pdfinfo %s: no Pages line", path)
	return 0
}

// The datasheets are real PDFs with the pages and text they claim, and
// the same call writes the same bytes.
func TestWrite(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	sheets := Write(t, a)
	Write(t, b)
	if len(sheets) != 3 {
		t.Fatalf("%d datasheets, want 3", len(sheets))
	}
	wantFigures := map[string]int{"MFB2307": 14, "MFL1117": 11, "MFA358": 12}
	for _, d := range sheets {
		if got := pdfPages(t, d.Path); got != d.Pages || got < 3 {
			t.Errorf("%s: pdfinfo says %d pages, Datasheet says %d (want 3 or more)", d.MPN, got, d.Pages)
		}
		if len(d.Figures) != wantFigures[d.MPN] {
			t.Errorf("%s: %d figures, want %d", d.MPN, len(d.Figures), wantFigures[d.MPN])
		}
		pages := strings.Split(pdftotext(t, d.Path), "\f")
		if !strings.Contains(pages[0], d.Title) || !strings.Contains(pages[0], d.Manufacturer) {
			t.Errorf("%s: page 1 lacks its title or manufacturer:\n%s", d.MPN, pages[0])
		}
		if !strings.Contains(pages[1], "Electrical Characteristics") {
			t.Errorf("%s: page 2 lacks the table:\n%s", d.MPN, pages[1])
		}
		x, err := os.ReadFile(d.Path)
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, filepath.Base(d.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s: two writes differ", d.MPN)
		}
	}
}

// Each page of a long PDF carries its own marker and no other.
func TestLong(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.pdf")
	Long(t, path, 40)
	if got := pdfPages(t, path); got != 40 {
		t.Fatalf("pdfinfo: %d pages, want 40", got)
	}
	pages := strings.Split(pdftotext(t, path), "\f")
	for _, n := range []int{1, 7, 40} {
		if !strings.Contains(pages[n-1], Marker(n)) {
			t.Errorf("page %d lacks %q", n, Marker(n))
		}
		if strings.Contains(pages[n-1], Marker(n+1)) {
			t.Errorf("page %d has page %d's marker", n, n+1)
		}
	}
}
