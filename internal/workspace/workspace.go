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
	"log/slog"
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
//
// A path that leads outside the roots gets one answer, whatever is there:
// the walk stops where it leaves them, before looking at anything outside,
// so the refusal says nothing about which files exist there or where a
// link points. Where it led goes to the server's log.
func (w *Workspace) ResolveRead(what, path string) (string, error) {
	roots := w.Roots()
	if strings.TrimSpace(path) == "" {
		return "", protocol.Invalid("%s is empty: give the path of a file under %s", what, strings.Join(roots, ", "))
	}
	abs, err := absolute(path, w.Root)
	if err != nil {
		return "", protocol.Invalid("%s %q: %v", what, path, err)
	}
	real, rest, err := walk(abs, roots)
	if err != nil {
		return "", outside(what, path, "reading", roots, "", err)
	}
	if len(rest) > 0 {
		return "", protocol.Invalid("%s %q does not exist (or passes through a folder or link that does not); give the path a tool returned, under %s",
			what, path, strings.Join(roots, ", "))
	}
	if !Within(real, roots) {
		return "", outside(what, path, "reading", roots, "", &leftRoots{at: real})
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", protocol.Invalid("%s %q cannot be resolved: %v", what, path, err)
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
// resolved path, which is what the tool writes. A path leading outside
// gets one answer, as in ResolveRead.
func (w *Workspace) ResolveWrite(callDir, what, path string) (string, error) {
	roots := append([]string{callDir}, w.WriteRoots...)
	if strings.TrimSpace(path) == "" {
		return "", protocol.Invalid("%s is empty: give a file name in the call's own folder or a path under %s", what, strings.Join(roots, ", "))
	}
	abs, err := absolute(path, callDir)
	if err != nil {
		return "", protocol.Invalid("%s %q: %v", what, path, err)
	}
	hint := ""
	if len(w.WriteRoots) == 0 {
		hint = " (the server has no write roots; give a plain file name, written in the call's own folder)"
	}
	real, rest, err := walk(abs, roots)
	if err != nil {
		return "", outside(what, path, "writing", roots, hint, err)
	}
	if len(rest) > 0 {
		if rest[0].link {
			return "", protocol.Invalid("%s %q is refused: it is a link that leads nowhere (writing through it would create its target)", what, path)
		}
		if st, err := os.Stat(real); err != nil || !st.IsDir() {
			return "", protocol.Invalid("%s %q is refused: %s is not a folder", what, path, real)
		}
		for _, p := range rest {
			if p.name == ".." {
				return "", protocol.Invalid("%s %q is refused: .. below %s, a folder that does not exist", what, path, filepath.Join(real, rest[0].name))
			}
			real = filepath.Join(real, p.name)
		}
	}
	if !Within(real, roots) {
		return "", outside(what, path, "writing", roots, hint, &leftRoots{at: real})
	}
	if st, err := os.Stat(real); err == nil && st.IsDir() {
		return "", protocol.Invalid("%s %q is a folder, not a file", what, path)
	}
	return real, nil
}

// Inside reports whether path (absolute, or relative to Root) stays in
// the read roots as far as it exists, links followed, judged without
// looking at anything outside them: for a file a tool names but does not
// need to exist (a library a KiCad project lists). A path leading out is
// logged as ResolveRead logs it.
func (w *Workspace) Inside(what, path string) bool {
	roots := w.Roots()
	abs, err := absolute(path, w.Root)
	if err != nil || strings.ContainsRune(path, 0) {
		return false
	}
	real, _, err := walk(abs, roots)
	var left *leftRoots
	switch {
	case errors.As(err, &left):
		slog.Warn("workspace: refused a path outside the allowed roots", "argument", what, "path", path, "leads_to", left.at, "for", "reading")
		return false
	case err != nil:
		return false
	}
	return Within(real, roots)
}

// outside is the refusal of a path that left the roots (err a
// *leftRoots), the same whatever is there, with where it led logged; any
// other err says why a path inside could not be followed.
func outside(what, path, doing string, roots []string, hint string, err error) error {
	var left *leftRoots
	if !errors.As(err, &left) {
		return protocol.Invalid("%s %q cannot be resolved: %v", what, path, err)
	}
	slog.Warn("workspace: refused a path outside the allowed roots", "argument", what, "path", path, "leads_to", left.at, "for", doing)
	return protocol.Invalid("%s %q is outside the allowed roots for %s: %s%s", what, path, doing, strings.Join(roots, ", "), hint)
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

// leftRoots is where a walk left the roots.
type leftRoots struct{ at string }

func (l *leftRoots) Error() string { return "outside the allowed roots" }

// part is one name of a path being walked; link says it came from a
// link's target.
type part struct {
	name string
	link bool
}

// maxLinks is how many links a walk follows, as the kernel's ELOOP limit.
const maxLinks = 40

// walk follows abs one name at a time, links included, as the system
// would, and never looks at a path that is neither inside roots nor a
// folder above one: it fails with *leftRoots as soon as the path leaves
// them. It returns the resolved existing part, and the names from the
// first one that does not exist (none when all of abs exists).
func walk(abs string, roots []string) (string, []part, error) {
	real := realRoots(roots)
	allowed := func(p string) bool { return Within(p, real) || above(p, real) }
	queue := split(abs, false)
	cur, links := string(filepath.Separator), 0
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		switch p.name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, p.name)
		if !allowed(next) {
			at := next
			for _, q := range queue {
				at += string(filepath.Separator) + q.name
			}
			return "", nil, &leftRoots{at: filepath.Clean(at)}
		}
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return cur, append([]part{p}, queue...), nil
		}
		if err != nil {
			return "", nil, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", nil, fmt.Errorf("more than %d links: a link loop", maxLinks)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", nil, err
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		queue = append(split(target, true), queue...)
	}
	return cur, nil, nil
}

func split(path string, link bool) []part {
	var parts []part
	for _, n := range strings.Split(path, string(filepath.Separator)) {
		parts = append(parts, part{name: n, link: link})
	}
	return parts
}

// realRoots are roots made absolute with their links resolved.
func realRoots(roots []string) []string {
	var out []string
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
		out = append(out, r)
	}
	return out
}

// above reports whether p is a folder above one of roots (all absolute,
// links resolved), through which a walk must pass to reach it.
func above(p string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(p, r); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Within reports whether real (an absolute path with symlinks resolved)
// lies inside one of roots, compared by whole path components.
func Within(real string, roots []string) bool {
	for _, r := range realRoots(roots) {
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
