package cadquery

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// kernelCode is the Python kernel. The package is named file by file:
// embedding its folder would leave __init__.py out.
//
//go:embed python/run_kernel.py python/cqkernel/*.py
var kernelCode embed.FS

// kernelConfig is kernel.json, what the kernel learns from Go: the tools
// it serves on tool/list (one definition, this package's) and the error
// codes it answers with (protocol/errors.go is the one table of codes).
type kernelConfig struct {
	AdapterID  string                   `json:"adapter_id"`
	Tools      []adapters.Manifest      `json:"tools"`
	ErrorCodes map[string]kernelErrCode `json:"error_codes"`
}

type kernelErrCode struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// kernelErrors are the codes the kernel may answer with.
var kernelErrors = []protocol.Code{
	protocol.ParseError, protocol.InvalidRequest, protocol.MethodNotFound, protocol.InvalidParams,
	protocol.InternalError, protocol.ToolExecutionError, protocol.ToolUnavailable, protocol.ToolTimeout,
}

// bundle is the kernel as installed: its files by slash path, and the
// folder they go in, named by their hash, so an upgraded binary installs
// beside an old kernel instead of over one in use.
type bundle struct {
	files map[string][]byte
	name  string
}

// newBundle gathers the embedded code and kernel.json for tools.
func newBundle(tools []adapters.Manifest) bundle {
	files := map[string][]byte{}
	err := fs.WalkDir(kernelCode, "python", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := kernelCode.ReadFile(path)
		files[path[len("python/"):]] = body
		return err
	})
	if err != nil {
		panic("cadquery: the embedded kernel cannot be read: " + err.Error()) // only a build gone wrong gets here
	}
	codes := map[string]kernelErrCode{}
	for _, c := range kernelErrors {
		codes[c.Name()] = kernelErrCode{Code: int(c), Message: c.Message()}
	}
	config, err := json.MarshalIndent(kernelConfig{AdapterID: AdapterID, Tools: tools, ErrorCodes: codes}, "", "  ")
	if err != nil {
		panic("cadquery: kernel.json cannot be encoded: " + err.Error())
	}
	files["kernel.json"] = config

	sum := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		sum.Write([]byte(name + "\x00"))
		sum.Write(files[name])
		sum.Write([]byte{0})
	}
	return bundle{files: files, name: "cadquery-" + hex.EncodeToString(sum.Sum(nil))[:16]}
}

// install writes the kernel under <root>/runtime and returns its folder.
// The files are written to a temporary folder renamed into place whole, so
// a folder that exists is complete, and two processes installing at once
// cannot mix their files.
func (b bundle) install(root string) (string, error) {
	parent, err := filepath.Abs(filepath.Join(root, "runtime"))
	if err != nil {
		return "", protocol.Unavailable("cannot install the CadQuery kernel under %s: %v", root, err)
	}
	dir := filepath.Join(parent, b.name)
	if _, err := os.Stat(filepath.Join(dir, "kernel.json")); err == nil {
		return dir, nil
	}
	fail := func(err error) (string, error) {
		return "", protocol.Unavailable("cannot install the CadQuery kernel under %s: %v", parent, err)
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
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "kernel.json")); statErr == nil {
			return dir, nil // another process installed the same kernel first
		}
		return fail(err)
	}
	return dir, nil
}
