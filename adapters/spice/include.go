package spice

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// Limits on the files a deck pulls in.
const (
	maxIncludeDepth = 10
	maxIncludeFiles = 100
)

// ngspice recognises its dot cards by prefix, case-insensitively: ".incx"
// is an include and ".controls" a control block to it, so these match the
// same way.

func isControl(word string) bool {
	return strings.HasPrefix(word, ".control") || strings.HasPrefix(word, ".endc")
}

func isInclude(word string) bool {
	return strings.HasPrefix(word, ".inc") || strings.HasPrefix(word, ".lib")
}

// cSpace is what C's isspace counts as white space, which is how ngspice
// splits a card into words.
const cSpace = " \t\n\v\f\r"

// firstWord is a card's first word, lower case, as ngspice reads it (after
// leading white space).
func firstWord(line string) string {
	t := strings.ToLower(strings.TrimLeft(line, cSpace))
	if i := strings.IndexAny(t, cSpace); i >= 0 {
		return t[:i]
	}
	return t
}

// includes follows the files a deck pulls in with .include, .inc and
// .lib file section: each is confined to AllowedRoots like netlist_path and
// read for .control blocks, which would otherwise slip in through them, and
// so are the files they include in turn (ngspice resolves a relative path
// against the including file's directory, and so does this).
type includes struct {
	a    *Adapter
	seen map[string]bool
}

// includeArg splits an include line into its file argument (quotes
// removed) and what follows it. ok is false for ".lib name" alone (path is
// then the name), which opens a library section rather than reading a
// file, unless libFile says ngspice may read it as one.
func includeArg(line string) (word, path, rest string, ok bool) {
	t := strings.Trim(line, cSpace)
	i := strings.IndexAny(t, cSpace)
	if i < 0 {
		return strings.ToLower(t), "", "", false
	}
	word, t = strings.ToLower(t[:i]), strings.Trim(t[i:], cSpace)
	if t == "" {
		return word, "", "", false
	}
	if q := t[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(t[1:], q)
		if end < 0 {
			return word, "", "", false
		}
		path, rest = t[1:1+end], strings.TrimSpace(t[2+end:])
	} else {
		path, rest = t, ""
		if end := strings.IndexAny(t, cSpace); end >= 0 {
			path, rest = t[:end], strings.Trim(t[end:], cSpace)
		}
	}
	if strings.HasPrefix(word, ".lib") && rest == "" {
		return word, path, "", false // a section of the current file, or a file: see libFile
	}
	return word, path, rest, true
}

// libFile is whether ".lib name" alone may be read as a file: in a file
// included with .incpslt ngspice reads it as ".inc name". A name that
// looks like a path, or is a file in the including file's folder, is
// checked as one.
func libFile(name, dir string) bool {
	if strings.ContainsAny(name, `/\$~`) {
		return true
	}
	if dir == "" {
		return false
	}
	_, err := os.Lstat(filepath.Join(dir, name))
	return err == nil
}

// include checks the file an include line names and returns the line with
// its path made absolute, since the deck runs in another directory. In an
// included file (nested), which is not rewritten, ngspice resolves a
// relative name against its own folder as this does, but tries the
// deck's working folder first: a relative name there may not climb out
// with "..".
func (in *includes) include(line, dir, where string, nested bool, depth int) (string, error) {
	word, path, rest, ok := includeArg(line)
	if !ok {
		switch {
		case !strings.HasPrefix(word, ".lib"):
			return "", protocol.Invalid("%s: %s names no file", where, word)
		case path == "" || !libFile(path, dir):
			return line, nil // a library section
		}
	}
	real, err := in.resolve(path, dir, where)
	if err != nil {
		return "", err
	}
	if nested && !filepath.IsAbs(path) && slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "..") {
		return "", protocol.Invalid("%s: include path %q climbs out of the file's folder with ..: ngspice tries it from the deck's working folder first; give an absolute path", where, path)
	}
	if err := in.scan(real, depth+1); err != nil {
		return "", err
	}
	if nested {
		return line, nil
	}
	if strings.ContainsAny(real, "\"'") {
		return "", protocol.Invalid("%s: included file %q has a quote in its name, which ngspice cannot read; rename it", where, real)
	}
	out := word + ` "` + real + `"`
	if rest != "" {
		out += " " + rest
	}
	return out, nil
}

func (in *includes) resolve(path, base, where string) (string, error) {
	if strings.HasPrefix(path, "~") || strings.HasPrefix(path, "$") {
		return "", protocol.Invalid("%s: include path %q: give an absolute path, not one from ~ or an environment variable", where, path)
	}
	if !filepath.IsAbs(path) {
		if base == "" {
			return "", protocol.Invalid("%s: relative include path %q has no directory to resolve it from in netlist text: give an absolute path, or pass the netlist as netlist_path", where, path)
		}
		path = filepath.Join(base, path)
	}
	_, real, err := in.a.readConfined(where+": included file", path)
	return real, err
}

// scan reads an included file and checks its cards as the deck's own
// (cards), and the files it includes in turn.
func (in *includes) scan(real string, depth int) error {
	if in.seen[real] {
		return nil
	}
	if depth > maxIncludeDepth {
		return protocol.Invalid("included file %s: includes are nested more than %d deep", real, maxIncludeDepth)
	}
	in.seen[real] = true
	if len(in.seen) > maxIncludeFiles {
		return protocol.Invalid("the deck includes more than %d files", maxIncludeFiles)
	}
	text, _, err := in.a.readConfined("included file", real)
	if err != nil {
		return err
	}
	if strings.ContainsRune(text, 0) {
		return protocol.Invalid("included file %s holds a NUL byte: it is not a text netlist", real)
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	return in.cards(lines, source{name: "included file " + real, dir: filepath.Dir(real), nested: true, depth: depth})
}
