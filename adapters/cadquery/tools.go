package cadquery

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// tool is one cadquery.* tool: what it declares, and its Go half, which
// checks the arguments and has the kernel do the geometry.
type tool struct {
	manifest adapters.Manifest
	call     func(a *Adapter, ctx context.Context, args json.RawMessage) (*adapters.Result, error)
}

// tools are the adapter's tools, in the order Manifests lists them.
var tools = []tool{parametricTool, booleanTool, propertiesTool, exportTool, scriptTool, assemblyTool,
	exportURDFTool, exportURDFAssemblyTool, ros2LaunchTool, physicsStabilityTool, exportUSDTool, exportUSDAssemblyTool,
	exportSDFTool, exportSDFAssemblyTool}

func toolIDs() string {
	ids := make([]string, len(tools))
	for i, t := range tools {
		ids[i] = t.manifest.ToolID
	}
	return strings.Join(ids, ", ")
}

// run has the kernel do toolID with the kernel's arguments req, decodes
// its data into out and returns the files it wrote.
func (a *Adapter) run(ctx context.Context, toolID string, req, out any) ([]string, error) {
	res, err := a.kernel.call(ctx, toolID, req)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(res.Data, out); err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError,
			Details: "the CadQuery kernel answered " + toolID + " with data that does not decode: " + err.Error()}
	}
	return res.OutputFiles, nil
}

// produce runs a tool that writes files: output (output_path, a plain
// name) is checked as a write in the call's own folder, and build returns
// the kernel's arguments for the folder and that file. The kernel is up
// before the folder is made, and a call that fails leaves no empty folder
// behind.
func (a *Adapter) produce(ctx context.Context, toolID, output string, build func(dir, file string) any, out any) ([]string, error) {
	if err := a.kernel.ensure(ctx); err != nil {
		return nil, err
	}
	dir, err := a.ws.ForCall(ctx)
	if err != nil {
		return nil, err
	}
	// The kernel runs in a folder of its own, and results name absolute paths.
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, protocol.Transient("the call's folder has no absolute path: %v", err)
	}
	file, err := a.ws.ResolveWrite(dir, "output_path", output)
	if err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	files, err := a.run(ctx, toolID, build(dir, file), out)
	if err != nil {
		_ = os.Remove(dir) // removes the folder only if nothing is in it
	}
	return files, err
}

// result is a tool's answer: its data and the files it wrote.
func result(data any, files []string) (*adapters.Result, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, &protocol.Error{Code: protocol.InternalError, Details: "the result cannot be encoded as JSON: " + err.Error()}
	}
	return &adapters.Result{Data: raw, OutputFiles: files}, nil
}
