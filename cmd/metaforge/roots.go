package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/internal/workspace"
)

// rootList is a repeatable flag naming existing folders by absolute path:
// a relative root would depend on where the server happened to start.
type rootList struct {
	flag string
	dirs []string
}

func (l *rootList) String() string { return strings.Join(l.dirs, string(filepath.ListSeparator)) }

func (l *rootList) Set(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("--%s %q is not an absolute path", l.flag, dir)
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return fmt.Errorf("--%s %q is not an existing folder", l.flag, dir)
	}
	l.dirs = append(l.dirs, filepath.Clean(dir))
	return nil
}

// fileRoots are --read-root and --write-root: the folders tools may read
// and write beyond the workspace.
type fileRoots struct {
	read, write rootList
}

func (r *fileRoots) register(fs *flag.FlagSet) {
	r.read.flag, r.write.flag = "read-root", "write-root"
	fs.Var(&r.read, r.read.flag, "a folder tools may read files from (repeatable, absolute). With any root given, reads are "+
		"confined to the read and write roots and the workspace, and METAFORGE_ALLOWED_ROOTS is ignored")
	fs.Var(&r.write, r.write.flag, "a folder tools may write files to, and read (repeatable, absolute); without one, tools write "+
		"only in their call's own folder")
}

// workspaceFor is the tree of call folders under dataDir and the folders
// tools may read and write: --read-root and --write-root when given, else
// METAFORGE_ALLOWED_ROOTS for reading. The catalogue and the workers share
// the one it returns.
func workspaceFor(dataDir string, roots fileRoots) *workspace.Workspace {
	ws := workspace.New(dataDir, filepath.SplitList(os.Getenv("METAFORGE_ALLOWED_ROOTS"))...)
	if len(roots.read.dirs)+len(roots.write.dirs) > 0 {
		ws.Confine(roots.read.dirs, roots.write.dirs)
	}
	return ws
}

// fileAccessProbe reports for health whether file access is confined, and
// to which folders, so an operator can see what an agent may reach.
func fileAccessProbe(ws *workspace.Workspace) health.Probe {
	reads := strings.Join(ws.Roots(), ", ")
	writes := "each call's own folder under " + filepath.Join(ws.Root, "calls")
	if len(ws.WriteRoots) > 0 {
		writes += ", " + strings.Join(ws.WriteRoots, ", ")
	}
	c := health.Component{Mode: "unconfined", Reachable: true, Durable: true,
		Detail: "no --read-root or --write-root: tools read " + reads + " (the workspace and METAFORGE_ALLOWED_ROOTS) and write " + writes}
	if ws.Confined {
		c.Mode = "confined"
		c.Detail = "reads: " + reads + "; writes: " + writes
	}
	return func(context.Context) health.Component { return c }
}
