package freecad

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
	"sync"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// sessionCode is the session kernel (python/session). The package is
// named file by file: embedding its folder would leave __init__.py out.
//
//go:embed python/session/run_session.py python/session/fcsession/*.py
var sessionCode embed.FS

// sessionConfig is kernel.json, what the kernel learns from Go: its ops
// as tools for tool/list, and the error codes it answers with
// (protocol/errors.go is the one table of codes).
type sessionConfig struct {
	AdapterID  string                    `json:"adapter_id"`
	Tools      []adapters.Manifest       `json:"tools"`
	ErrorCodes map[string]sessionErrCode `json:"error_codes"`
}

type sessionErrCode struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

var sessionErrors = []protocol.Code{
	protocol.ParseError, protocol.InvalidRequest, protocol.MethodNotFound, protocol.InvalidParams,
	protocol.InternalError, protocol.ToolExecutionError, protocol.ToolUnavailable, protocol.ToolTimeout,
}

// sessionBundle is the kernel as installed: its files by slash path and
// the folder they go in, named by their hash, so an upgraded binary
// installs beside a kernel still in use instead of over it.
type sessionBundle struct {
	files map[string][]byte
	name  string
}

var (
	bundleOnce sync.Once
	theBundle  sessionBundle
)

// kernelBundle gathers the embedded code and kernel.json, once.
func kernelBundle() sessionBundle {
	bundleOnce.Do(func() { theBundle = newSessionBundle() })
	return theBundle
}

func newSessionBundle() sessionBundle {
	files := map[string][]byte{}
	err := fs.WalkDir(sessionCode, "python/session", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := sessionCode.ReadFile(path)
		files[path[len("python/session/"):]] = body
		return err
	})
	if err != nil {
		panic("freecad: the embedded session kernel cannot be read: " + err.Error()) // only a build gone wrong gets here
	}
	var tools []adapters.Manifest
	for _, op := range kernelOps() {
		tools = append(tools, adapters.Manifest{ToolID: op.Name, AdapterID: AdapterID, Name: op.Title,
			Description: op.Description, Capability: "cad_session", InputSchema: op.schema})
	}
	codes := map[string]sessionErrCode{}
	for _, c := range sessionErrors {
		codes[c.Name()] = sessionErrCode{Code: int(c), Message: c.Message()}
	}
	config, err := json.MarshalIndent(sessionConfig{AdapterID: AdapterID, Tools: tools, ErrorCodes: codes}, "", "  ")
	if err != nil {
		panic("freecad: kernel.json cannot be encoded: " + err.Error())
	}
	files["kernel.json"] = config

	sum := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		sum.Write([]byte(name + "\x00"))
		sum.Write(files[name])
		sum.Write([]byte{0})
	}
	return sessionBundle{files: files, name: "freecad-session-" + hex.EncodeToString(sum.Sum(nil))[:16]}
}

// kernelOp is an op as the kernel lists it.
type kernelOp struct {
	Name, Title, Description string
	schema                   json.RawMessage
}

// kernelOps are the session ops plus open and save, which Documents
// drives itself.
func kernelOps() []kernelOp {
	out := []kernelOp{
		{Name: "open", Title: "Open the session's document", Description: "Replaces the document with base: empty, a .FCStd or a STEP.",
			schema: adapters.SchemaFor[openArgs]()},
		{Name: "save", Title: "Save the session's document", Description: "Writes the document as .FCStd, atomically.",
			schema: adapters.SchemaFor[saveArgs]()},
	}
	for _, op := range sessionOps {
		out = append(out, kernelOp{Name: op.Name, Title: op.Title, Description: op.Description, schema: op.Schema()})
	}
	return out
}

// install writes the kernel under <root>/runtime and returns its folder.
// The files go to a temporary folder renamed into place whole, so a
// folder that exists is complete.
func (b sessionBundle) install(root string) (string, error) {
	parent, err := filepath.Abs(filepath.Join(root, "runtime"))
	if err != nil {
		return "", protocol.Unavailable("cannot install the FreeCAD session kernel under %s: %v", root, err)
	}
	dir := filepath.Join(parent, b.name)
	if _, err := os.Stat(filepath.Join(dir, "kernel.json")); err == nil {
		return dir, nil
	}
	fail := func(err error) (string, error) {
		return "", protocol.Unavailable("cannot install the FreeCAD session kernel under %s: %v", parent, err)
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
