// Package workspace gives each tool call a folder of its own under the data
// dir, and confines the files tools read and write to allowed roots. A
// solver's outputs stay where the result names them, and a path an agent
// passes in cannot reach the rest of the machine.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// Workspace is the tree of call folders, <Root>/calls/<call id>, and the
// roots tools may read and write.
//
// Reads may come from Root (the call folders are the tools' own) and Extra.
// Writes may go to the call's own folder and WriteRoots. Unconfined, Extra
// is METAFORGE_ALLOWED_ROOTS and there are no write roots; Confine replaces
// both with the read and write roots given on the command line.
type Workspace struct {
	Root string
	// Extra are the other folders tools may read. The solver sandbox
	// mounts them read-only, so they are every readable folder.
	Extra []string
	// WriteRoots are the folders beyond a call's own that tools may write.
	WriteRoots []string
	// Confined says Confine set the roots (--read-root, --write-root).
	Confined bool
}

// New returns the workspace under dataDir ("<dataDir>/workspace"), also
// allowing reads from extra roots (a project's own folder, say).
func New(dataDir string, extra ...string) *Workspace {
	root := filepath.Join(dataDir, "workspace")
	if abs, err := filepath.Abs(root); err == nil {
		root = abs // results name files by absolute path
	}
	return &Workspace{Root: root, Extra: extra}
}

// Confine keeps tools to read and write roots: reads from Root, read and
// write roots (what may be written may be read back), writes to a call's
// own folder and write roots. The roots replace Extra: a root left out
// grants nothing.
func (w *Workspace) Confine(read, write []string) {
	w.Extra = slices.Concat(read, write)
	w.WriteRoots = slices.Clone(write)
	w.Confined = true
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

var adhoc atomic.Int64

// ForCall makes (or finds) the folder of the call in ctx. A retried
// activity of the same call gets the same folder, so an idempotent tool
// overwrites its own outputs rather than leaving a second copy. A call with
// no id (a direct adapter call in a test) gets a fresh folder.
func (w *Workspace) ForCall(ctx context.Context) (string, error) {
	id := adapters.CallInfoFrom(ctx).CallID
	if id == "" {
		id = fmt.Sprintf("direct-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), adhoc.Add(1))
	}
	id = strings.Trim(unsafeChars.ReplaceAllString(id, "_"), "._")
	if id == "" {
		id = "call"
	}
	dir := filepath.Join(w.Root, "calls", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", protocol.Transient("cannot make the call's workspace %s: %v", dir, err)
	}
	return dir, nil
}

// Roots are the folders tools may read from.
func (w *Workspace) Roots() []string {
	if w.Root == "" {
		return slices.Clone(w.Extra)
	}
	return append([]string{w.Root}, w.Extra...)
}

// ResolveRead checks a file argument named what (mesh_file, input_file)
// that a tool reads: it must exist, be a regular file, and lie inside the
// read roots (links followed, whole folder names compared). A relative path
// is taken against Root. It returns the resolved path, which is what the
// tool opens.
func (w *Workspace) ResolveRead(what, path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", protocol.Invalid("%s is empty: give the path of a file under %s", what, strings.Join(w.Roots(), ", "))
	}
	abs, err := absolute(path, w.Root)
	if err != nil {
		return "", protocol.Invalid("%s %q: %v", what, path, err)
	}
	// EvalSymlinks takes .. after the links before it, as the system
	// would, and refuses .. below a folder that does not exist.
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", protocol.Invalid("%s %q does not exist (or passes through a folder or link that does not); give the path a tool returned, under %s",
				what, path, strings.Join(w.Roots(), ", "))
		}
		return "", protocol.Invalid("%s %q cannot be resolved: %v", what, path, err)
	}
	if !Within(real, w.Roots()) {
		return "", protocol.Invalid("%s %q (resolved to %s) is outside the allowed roots for reading: %s", what, path, real, strings.Join(w.Roots(), ", "))
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", protocol.Invalid("%s %q: %v", what, path, err)
	}
	if !st.Mode().IsRegular() {
		return "", protocol.Invalid("%s %q is not a regular file", what, path)
	}
	return real, nil
}

// ResolveWrite checks a file a tool writes, named what (output_name), for
// the call whose folder is callDir: it must lie inside callDir or a write
// root. A relative path is taken against callDir. The file need not exist:
// its nearest existing folder's links are followed and the rest must be
// plain names, so .. below a missing folder is refused, and so is a link
// to nowhere (writing through it would create its target). It returns the
// resolved path, which is what the tool writes.
func (w *Workspace) ResolveWrite(callDir, what, path string) (string, error) {
	roots := append([]string{callDir}, w.WriteRoots...)
	if strings.TrimSpace(path) == "" {
		return "", protocol.Invalid("%s is empty: give a file name in the call's own folder or a path under %s", what, strings.Join(roots, ", "))
	}
	abs, err := absolute(path, callDir)
	if err != nil {
		return "", protocol.Invalid("%s %q: %v", what, path, err)
	}
	real, err := resolveNew(abs)
	if err != nil {
		return "", protocol.Invalid("%s %q is refused: %v", what, path, err)
	}
	if !Within(real, roots) {
		hint := ""
		if len(w.WriteRoots) == 0 {
			hint = " (the server has no write roots; give a plain file name, written in the call's own folder)"
		}
		return "", protocol.Invalid("%s %q (resolved to %s) is outside the allowed roots for writing: %s%s", what, path, real, strings.Join(roots, ", "), hint)
	}
	if st, err := os.Stat(real); err == nil && st.IsDir() {
		return "", protocol.Invalid("%s %q is a folder, not a file", what, path)
	}
	return real, nil
}

// absolute makes path absolute against base (the working folder when base
// is empty) without cleaning it: .. is left for the links to decide.
func absolute(path, base string) (string, error) {
	if filepath.IsAbs(path) {
		return path, nil
	}
	if base == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		base = wd
	}
	return base + string(filepath.Separator) + path, nil
}

// resolveNew resolves a path that may not exist yet: the nearest existing
// ancestor (or the path itself) with its links followed, and the missing
// rest, which must be plain names.
func resolveNew(abs string) (string, error) {
	sep := string(filepath.Separator)
	parts := strings.FieldsFunc(abs, func(r rune) bool { return r == filepath.Separator })
	// Joined by hand: filepath.Join would clean away a .. the system
	// must judge after the links before it.
	prefix := func(n int) string { return sep + strings.Join(parts[:n], sep) }
	n := len(parts)
	for ; n > 0; n-- {
		// Lstat, not Stat: a link to nowhere exists, and is refused below.
		if _, err := os.Lstat(prefix(n)); err == nil {
			break
		}
	}
	existing := prefix(n)
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", fmt.Errorf("%s is a link that leads nowhere, or cannot be resolved: %v", existing, err)
	}
	rest := parts[n:]
	if len(rest) == 0 {
		return real, nil
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s is not a folder", existing)
	}
	for _, p := range rest {
		if p == ".." {
			return "", fmt.Errorf(".. below %s, a folder that does not exist", filepath.Join(real, rest[0]))
		}
	}
	return filepath.Join(append([]string{real}, rest...)...), nil
}

// Within reports whether real (an absolute path with symlinks resolved)
// lies inside one of roots, compared by whole path components.
func Within(real string, roots []string) bool {
	for _, root := range roots {
		if root == "" {
			continue
		}
		r, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			r = rr
		}
		rel, err := filepath.Rel(r, real)
		if err != nil {
			continue
		}
		if rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)) {
			return true
		}
	}
	return false
}
