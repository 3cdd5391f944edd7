package spice

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// Every card of a deck, and of each file it includes, is screened before
// ngspice runs for what would make ngspice read or write a file, or run a
// command: includes (resolved in the read roots, cards), the file
// parameters of models (resolved, fileParams), and commands (refused:
// .control blocks, "*#" lines, "*ng_script" decks, and the code models
// that start programs or load libraries). Reading a file is allowed where
// a file argument would be; everything else is refused before ngspice
// starts, naming the card.

// source is the text being screened: the deck itself, or a file it
// includes (nested), which is checked but not rewritten.
type source struct {
	name   string // "netlist", or "included file <path>"
	dir    string // what relative names resolve against; "" for netlist text
	nested bool
	depth  int
}

func (s source) where(line int) string { return fmt.Sprintf("%s line %d", s.name, line) }

// fileParams are the model and instance parameters that name a file, and
// what may be done with one: read (resolved like a file argument), or
// refused outright.
var fileParams = map[string]string{
	"file":         "", // filesource, table2d, table3d, xfer
	"input_file":   "", // d_source
	"state_file":   "", // d_state
	"ic.file":      "", // CIDER initial conditions
	"infile":       "", // CIDER doping profile
	"rootfile":     "it names the files CIDER writes",
	"process_file": "it names a program for d_process to start",
}

// refusedModels are the code models that run something of the deck's
// choosing.
var refusedModels = map[string]string{
	"d_process": "it starts a program",
	"d_cosim":   "it loads a shared library",
}

// paramName finds a file parameter's name; what follows it (white space,
// "=" or ",", or a quote at once) is checked by fileValue. ngspice does not
// need the "=": `file "/x"` reads /x.
var paramName = regexp.MustCompile(`(?i)(?:^|[ \t\n\v\f\r(),=])(file|input_file|state_file|ic\.file|infile|rootfile|process_file)([ \t\n\v\f\r=,]*)`)

// modelCard splits ".model <name> <type>" from the card's parameters.
var modelCard = regexp.MustCompile(`(?i)^\s*\.model\S*\s+(\S+?)\s+([A-Za-z0-9_]+)`)

// titleHazard is what ngspice acts on even in line 1, the title, if the
// line starts with it ("" when nothing): it reads includes there, and an
// *ng_script title makes the deck a command script. (A "*#" title is not
// run: ngspice runs those lines from line 2.)
func titleHazard(line string) string {
	t := strings.TrimLeft(line, cSpace)
	w := firstWord(line)
	switch {
	case strings.HasPrefix(strings.ToLower(t), "*ng_script"):
		return "*ng_script (the whole deck would run as ngspice commands)"
	case isInclude(w), isControl(w):
		return w
	}
	return ""
}

// cards screens lines (a deck when s is not nested, whose line 1 is its
// title) and rewrites the deck's includes and file parameters to the
// absolute paths they resolve to, since the deck runs in another folder.
func (in *includes) cards(lines []string, s source) error {
	if len(lines) > 0 {
		if h := titleHazard(lines[0]); h != "" && !s.nested {
			return protocol.Invalid("%s: line 1 is the deck's title, but ngspice acts on %s there too; start the netlist with a plain title line", s.where(1), h)
		}
		if strings.HasPrefix(strings.ToLower(strings.TrimLeft(lines[0], cSpace)), "*ng_script") {
			return protocol.Invalid("%s: *ng_script files are ngspice command scripts, which are refused: they run arbitrary commands", s.where(1))
		}
	}
	for i, line := range lines {
		if i == 0 && !s.nested {
			continue // the title
		}
		w := firstWord(line)
		switch {
		case strings.HasPrefix(strings.TrimLeft(line, cSpace), "*#"):
			return protocol.Invalid("%s: *# lines are refused: ngspice runs them as commands, as it runs a .control block", s.where(i+1))
		case isControl(w):
			hint := ""
			if !s.nested {
				hint = " (shell, file writes). Remove the .control ... .endc block and give the analysis as analysis_type and params"
			}
			return protocol.Invalid("%s: %s blocks are refused: they run arbitrary ngspice commands%s", s.where(i+1), w, hint)
		case isInclude(w):
			out, err := in.include(line, s.dir, s.where(i+1), s.nested, s.depth)
			if err != nil {
				return err
			}
			lines[i] = out
		}
	}
	return in.params(lines, s)
}

// params screens the file parameters of each card: every parameter of a
// .model card (with its + continuation lines), and ic.file on any other.
// A card naming a file is rewritten as one line with the resolved path.
func (in *includes) params(lines []string, s source) error {
	first := 0
	if !s.nested {
		first = 1
	}
	for start := first; start < len(lines); start++ {
		if !isCard(lines[start]) {
			continue
		}
		// The card and its continuation lines (comments and blank lines
		// between them are skipped, as ngspice does).
		parts := []int{start}
		for j := start + 1; j < len(lines); j++ {
			t := strings.TrimLeft(lines[j], cSpace)
			if strings.HasPrefix(t, "+") {
				parts = append(parts, j)
				continue
			}
			if t != "" && !strings.HasPrefix(t, "*") {
				break
			}
		}
		card := lines[start]
		for _, j := range parts[1:] {
			card += " " + strings.TrimPrefix(strings.TrimLeft(lines[j], cSpace), "+")
		}
		rewritten, changed, err := in.cardParams(card, s, start+1)
		if err != nil {
			return err
		}
		if changed && !s.nested {
			lines[start] = rewritten
			for _, j := range parts[1:] {
				lines[j] = "*" // joined into the card above
			}
		}
		start = parts[len(parts)-1]
	}
	return nil
}

// isCard is whether a line starts a card (not a comment, a continuation
// or a blank line).
func isCard(line string) bool {
	t := strings.TrimLeft(line, cSpace)
	return t != "" && !strings.HasPrefix(t, "*") && !strings.HasPrefix(t, "+")
}

// cardParams checks the file parameters of one card, which starts on line
// n, and returns it with each path replaced by the file it resolves to.
func (in *includes) cardParams(card string, s source, n int) (string, bool, error) {
	where := s.where(n)
	params := card
	offset := 0
	isModel := strings.HasPrefix(firstWord(card), ".model")
	label := "this card"
	if m := modelCard.FindStringSubmatchIndex(card); isModel && m != nil {
		name, typ := card[m[2]:m[3]], strings.ToLower(card[m[4]:m[5]])
		if why, refused := refusedModels[typ]; refused {
			return "", false, protocol.Invalid("%s: .model %s %s is refused: %s", where, name, typ, why)
		}
		label = ".model " + name + " (" + typ + ")"
		offset = m[1]
		params = card[offset:]
	}
	var b strings.Builder
	b.WriteString(card[:offset])
	last, changed := 0, false
	for _, m := range paramName.FindAllStringSubmatchIndex(params, -1) {
		name := strings.ToLower(params[m[2]:m[3]])
		if m[2] < last || (!isModel && name != "ic.file") {
			continue
		}
		end := m[1]
		if m[4] == m[5] && (end >= len(params) || (params[end] != '"' && params[end] != '\'')) {
			continue // a longer word ("filesource"), not the parameter
		}
		value, vend, ok := paramValue(params, end)
		what := fmt.Sprintf("%s: %s of %s", where, name, label)
		if !ok {
			return "", false, protocol.Invalid("%s names no file", what)
		}
		if why := fileParams[name]; why != "" {
			return "", false, protocol.Invalid("%s is refused: %s", what, why)
		}
		real, err := in.paramFile(what, value, s)
		if err != nil {
			return "", false, err
		}
		b.WriteString(params[last:end])
		b.WriteString(`"` + real + `"`)
		last, changed = vend, true
	}
	b.WriteString(params[last:])
	return b.String(), changed, nil
}

// paramValue reads a parameter's value at i: quoted, or a word.
func paramValue(s string, i int) (value string, end int, ok bool) {
	if i >= len(s) {
		return "", i, false
	}
	if q := s[i]; q == '"' || q == '\'' {
		j := strings.IndexByte(s[i+1:], q)
		if j < 0 {
			return "", i, false
		}
		return s[i+1 : i+1+j], i + 2 + j, true
	}
	j := i
	for j < len(s) && !strings.ContainsRune(cSpace+"(),=", rune(s[j])) {
		j++
	}
	return s[i:j], j, j > i
}

// paramFile resolves a file a parameter names. ngspice opens a relative
// name from the deck's own folder (a temporary one), not an included
// file's, so in an included file the name must be absolute; in the deck
// it is taken from netlist_path's folder.
func (in *includes) paramFile(what, value string, s source) (string, error) {
	if strings.ContainsAny(value, "{}") {
		return "", protocol.Invalid("%s %q is an expression: give the file name itself", what, value)
	}
	path := value
	if !filepath.IsAbs(path) {
		switch {
		case s.nested:
			return "", protocol.Invalid("%s %q is relative: in an included file give an absolute path inside the allowed roots (ngspice would look for it in the deck's temporary folder)", what, value)
		case s.dir == "":
			return "", protocol.Invalid("%s %q is relative and netlist text has no folder to resolve it from: give an absolute path, or pass the netlist as netlist_path", what, value)
		}
		path = filepath.Join(s.dir, path)
	}
	real, err := in.a.resolve(what, path)
	if err != nil {
		return "", err
	}
	// Older ngspice (39 does) lower-cases a model card, file name and all:
	// that spelling must lie inside the roots too, judged by its name
	// before anything outside is looked at.
	if lower := strings.ToLower(real); lower != real {
		if roots := in.a.roots(); roots != nil && !workspace.Within(lower, roots) {
			return "", protocol.Invalid("%s %q is refused: ngspice may lower-case it to %s, which is outside the allowed roots", what, value, lower)
		}
		if _, err := os.Lstat(lower); err == nil {
			if _, err := in.a.resolve(what, lower); err != nil {
				return "", protocol.Invalid("%s %q is refused: ngspice may lower-case it to %s, which is not a file inside the allowed roots", what, value, lower)
			}
		}
	}
	if strings.ContainsAny(real, "\"'") {
		return "", protocol.Invalid("%s %q has a quote in its name, which ngspice cannot read; rename it", what, real)
	}
	return real, nil
}
