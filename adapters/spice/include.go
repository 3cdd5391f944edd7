package spice

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/protocol"
)

// Limits on the files a deck pulls in.
const (
	maxIncludeDepth = 10
	maxIncludeFiles = 100
)

func isControl(word string) bool {
	return word == ".control" || word == ".endc"
}

func isInclude(word string) bool {
	return word == ".include" || word == ".inc" || word == ".lib"
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
// removed) and what follows it. ok is false for ".lib name" alone, which
// opens a library section rather than reading a file.
func includeArg(line string) (word, path, rest string, ok bool) {
	t := strings.TrimSpace(line)
	i := strings.IndexAny(t, " \t")
	if i < 0 {
		return strings.ToLower(t), "", "", false
	}
	word, t = strings.ToLower(t[:i]), strings.TrimSpace(t[i:])
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
		f := strings.Fields(t)
		path, rest = f[0], strings.TrimSpace(strings.TrimPrefix(t, f[0]))
	}
	if word == ".lib" && rest == "" {
		return word, "", "", false // a section of the current file, not a file
	}
	return word, path, rest, true
}

// line checks the file an include line names and returns the line with its
// path made absolute, since the deck runs in another directory.
func (in *includes) line(line, base, where string) (string, error) {
	word, path, rest, ok := includeArg(line)
	if !ok {
		if word != ".lib" {
			return "", protocol.Invalid("%s: %s names no file", where, word)
		}
		return line, nil
	}
	real, err := in.resolve(path, base, where)
	if err != nil {
		return "", err
	}
	if err := in.scan(real, 1); err != nil {
		return "", err
	}
	out := word + ` "` + real + `"`
	if rest != "" {
		out += " " + rest
	}
	return out, nil
}

func (in *includes) resolve(path, base, where string) (string, error) {
	if strings.HasPrefix(path, "~") {
		return "", protocol.Invalid("%s: include path %q: give an absolute path, not one from ~", where, path)
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

// scan reads an included file for .control blocks and for the files it
// includes in turn.
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
	for i, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		f := strings.Fields(strings.ToLower(l))
		if len(f) == 0 {
			continue
		}
		where := fmt.Sprintf("included file %s line %d", real, i+1)
		if isControl(f[0]) {
			return protocol.Invalid("%s: %s blocks are refused: they run arbitrary ngspice commands", where, f[0])
		}
		if !isInclude(f[0]) {
			continue
		}
		_, path, _, ok := includeArg(l)
		if !ok {
			continue
		}
		next, err := in.resolve(path, filepath.Dir(real), where)
		if err != nil {
			return err
		}
		if err := in.scan(next, depth+1); err != nil {
			return err
		}
	}
	return nil
}
