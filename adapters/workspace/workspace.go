// Package workspace gives each tool call a folder of its own under the data
// dir, and confines the files a tool reads to allowed roots. A solver's
// outputs stay where the result names them, and a path an agent passes in
// cannot reach the rest of the machine.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// Workspace is the tree of call folders, <Root>/calls/<call id>, and the
// roots a tool may read files from: Root itself and Extra.
type Workspace struct {
	Root  string
	Extra []string
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

// Roots are the folders a tool may read from.
func (w *Workspace) Roots() []string { return append([]string{w.Root}, w.Extra...) }

// Resolve checks a file argument named what (mesh_file, input_file): it
// must exist, be a regular file, and lie inside the roots (symlinks
// resolved, whole path components compared). A relative path is taken
// against Root. It returns the resolved path.
func (w *Workspace) Resolve(what, path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", protocol.Invalid("%s is empty: give the path of a file under %s", what, w.Root)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.Root, path)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", protocol.Invalid("%s %q does not exist; give the path a tool returned (under %s)", what, path, w.Root)
		}
		return "", protocol.Invalid("%s %q cannot be resolved: %v", what, path, err)
	}
	if !Within(real, w.Roots()) {
		return "", protocol.Invalid("%s %q (resolved to %s) is outside the allowed roots %s", what, path, real, strings.Join(w.Roots(), ", "))
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

// Within reports whether real (an absolute path with symlinks resolved)
// lies inside one of roots, compared by whole path components.
func Within(real string, roots []string) bool {
	for _, root := range roots {
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
