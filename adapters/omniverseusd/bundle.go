package omniverseusd

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/metaforge/metaforge/protocol"
)

// code is the Python side of the tools.
//
//go:embed python/*.py python/usdtools/*.py
var code embed.FS

// bundle is the Python code as installed: its files by slash path, and the
// folder they go in, named by their hash, so an upgraded binary installs
// beside older code instead of over code a call is running.
type bundle struct {
	files map[string][]byte
	name  string
}

func newBundle() bundle {
	files := map[string][]byte{}
	err := fs.WalkDir(code, "python", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := code.ReadFile(path)
		files[path[len("python/"):]] = body
		return err
	})
	if err != nil {
		panic("omniverseusd: the embedded Python cannot be read: " + err.Error()) // only a build gone wrong gets here
	}
	sum := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		sum.Write([]byte(name + "\x00"))
		sum.Write(files[name])
		sum.Write([]byte{0})
	}
	return bundle{files: files, name: "omniverse_usd-" + hex.EncodeToString(sum.Sum(nil))[:16]}
}

// install writes the code under <root>/runtime, where every solver runtime
// can read it (the workspace is mounted in a sandbox or a container), and
// returns its folder. The files go to a temporary folder renamed into place
// whole, so a folder that exists is complete.
func (b bundle) install(root string) (string, error) {
	parent, err := filepath.Abs(filepath.Join(root, "runtime"))
	if err != nil {
		return "", protocol.Unavailable("cannot install the omniverse_usd adapter's Python under %s: %v", root, err)
	}
	dir := filepath.Join(parent, b.name)
	if _, err := os.Stat(filepath.Join(dir, entryScript)); err == nil {
		return dir, nil
	}
	fail := func(err error) (string, error) {
		return "", protocol.Unavailable("cannot install the omniverse_usd adapter's Python under %s: %v", parent, err)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fail(err)
	}
	tmp, err := os.MkdirTemp(parent, ".installing-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; cleans up a failed install
	for rel, body := range b.files {
		path := filepath.Join(tmp, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			return fail(err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, entryScript)); statErr == nil {
			return dir, nil // another process installed the same code first
		}
		return fail(err)
	}
	return dir, nil
}
