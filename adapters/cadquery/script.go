package cadquery

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/protocol"
)

// ToolExecuteScript runs an agent's CadQuery script in a sandbox.
const ToolExecuteScript = "cadquery.execute_script"

// Limits of a script, as the schema states them.
const (
	defaultScriptSeconds = 60
	maxScriptSeconds     = 600
	defaultScriptMB      = 2048
	minScriptMB          = 64
	maxScriptMB          = 16384
	maxScriptBytes       = 1 << 20
	// scriptMarginSeconds covers what the call does besides the script:
	// the first script's wait for the fork server to load CadQuery, and
	// exporting the result.
	scriptMarginSeconds = 60
)

var scriptTool = tool{
	manifest: adapters.Manifest{
		ToolID:    ToolExecuteScript,
		AdapterID: AdapterID,
		Name:      "Execute CadQuery script",
		Description: "Run a CadQuery script and export what it assigns to `result` (a cq.Workplane, a shape, a list of those, " +
			"or a cq.Assembly) as STEP. `cq` is imported. The script runs in a child process of its own, never in the adapter, " +
			"with a wall-clock limit (timeout_seconds, default 60, at most 600; past it the script and everything it started is " +
			"killed), a memory limit (memory_mb, default 2048: what it may allocate beyond CadQuery itself) and a CPU-time limit. " +
			"It may read and write files only in its output folder (the working directory; reading Python's own installation for " +
			"imports works), and may not use the network, start processes or use ctypes. Returns cad_file (absolute path), " +
			"volume_mm3, surface_area_mm2, bounding_box ({min, max, size}, mm), result_type, output (what the script printed), " +
			"files (every file in the output folder) and sandbox (which OS-level layers held: landlock file confinement, " +
			"network_namespace). A script that fails is an error naming the cause and the script's line: an exception, no " +
			"`result`, a file outside the folder, a network attempt, memory, or the time limit (TOOL_TIMEOUT).",
		Capability:   "cad_scripting",
		InputSchema:  scriptInputSchema,
		OutputSchema: json.RawMessage(scriptOutputSchema),
		// A script may do anything within its sandbox, not
		// deterministically, so it runs at most once.
		Idempotent:     false,
		TimeoutSeconds: maxScriptSeconds + scriptMarginSeconds,
		ResourceLimits: adapters.ResourceLimits{MaxMemoryMB: maxScriptMB, MaxCPUSeconds: maxScriptSeconds, MaxDiskMB: adapters.DefaultResourceLimits.MaxDiskMB},
	},
	call: (*Adapter).executeScript,
}

type scriptArgs struct {
	Script         string `json:"script" jsonschema:"Python using CadQuery (imported as cq) that assigns the part to result."`
	OutputPath     string `json:"output_path,omitempty" jsonschema:"Plain file name (no folders) for the STEP of result, in the call's own output folder. Default result.step. Must end in .step or .stp; a name without an extension gets .step."`
	TimeoutSeconds *int   `json:"timeout_seconds,omitempty" jsonschema:"Wall-clock limit, s; past it the script is killed."`
	MemoryMB       *int   `json:"memory_mb,omitempty" jsonschema:"Memory the script may allocate beyond what Python and CadQuery already take, MB."`
}

type scriptRequest struct {
	Script         string `json:"script"`
	OutDir         string `json:"out_dir"`
	CadFile        string `json:"cad_file"`
	TimeoutSeconds int    `json:"timeout_seconds"`
	MemoryMB       int    `json:"memory_mb"`
}

type scriptResult struct {
	CadFile        string          `json:"cad_file"`
	VolumeMM3      float64         `json:"volume_mm3"`
	SurfaceAreaMM2 float64         `json:"surface_area_mm2"`
	BoundingBox    *BoundingBox    `json:"bounding_box"`
	ResultType     string          `json:"result_type"`
	Output         string          `json:"output"`
	Files          []string        `json:"files"`
	Sandbox        map[string]bool `json:"sandbox"`
}

func (a *Adapter) executeScript(ctx context.Context, raw json.RawMessage) (*adapters.Result, error) {
	var in scriptArgs
	if err := adapters.DecodeArguments(raw, &in); err != nil {
		return nil, err
	}
	switch {
	case in.Script == "":
		return nil, protocol.Invalid("script is required: CadQuery code that assigns `result`, e.g. `result = cq.Workplane().box(10, 10, 10)`")
	case len(in.Script) > maxScriptBytes:
		return nil, protocol.Invalid("script is %d bytes, over the %d KiB a script may have", len(in.Script), maxScriptBytes>>10)
	}
	timeout, err := intInRange("timeout_seconds", in.TimeoutSeconds, defaultScriptSeconds, 1, maxScriptSeconds)
	if err != nil {
		return nil, err
	}
	memory, err := intInRange("memory_mb", in.MemoryMB, defaultScriptMB, minScriptMB, maxScriptMB)
	if err != nil {
		return nil, err
	}
	name, err := outputName("output_path", in.OutputPath, "result.step", stepExts...)
	if err != nil {
		return nil, err
	}
	var out scriptResult
	files, err := a.produce(ctx, ToolExecuteScript, name, func(dir, file string) any {
		return scriptRequest{Script: in.Script, OutDir: dir, CadFile: file, TimeoutSeconds: timeout, MemoryMB: memory}
	}, &out)
	if err != nil {
		return nil, err
	}
	return result(out, files)
}

// intInRange is *v, or def when absent, refused outside lo..hi.
func intInRange(field string, v *int, def, lo, hi int) (int, error) {
	if v == nil {
		return def, nil
	}
	if *v < lo || *v > hi {
		return 0, protocol.Invalid("%s must be from %d to %d, got %d", field, lo, hi, *v)
	}
	return *v, nil
}

var scriptInputSchema = adapters.SchemaFor[scriptArgs](
	adapters.At("script", adapters.MinLength(1), adapters.MaxLength(1048576)),
	adapters.At("output_path", plainFileName),
	adapters.At("timeout_seconds", adapters.Minimum(1), adapters.Maximum(600), adapters.Default(60)),
	adapters.At("memory_mb", adapters.Minimum(64), adapters.Maximum(16384), adapters.Default(2048)),
)

const scriptOutputSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["cad_file", "volume_mm3", "surface_area_mm2", "bounding_box", "result_type", "output", "files", "sandbox"],
  "properties": {
    "cad_file": {"type": "string", "description": "Absolute path of the STEP file of result."},
    "volume_mm3": {"type": "number"},
    "surface_area_mm2": {"type": "number"},
    "bounding_box": ` + nullableBBoxSchema + `,
    "result_type": {"type": "string", "description": "The type the script assigned to result: Workplane, Solid, Compound, Assembly, list, ..."},
    "output": {"type": "string", "description": "What the script printed (the first 64 KiB)."},
    "files": {"type": "array", "items": {"type": "string"}, "description": "Absolute paths of every file in the output folder, the STEP included."},
    "sandbox": {"type": "object", "additionalProperties": {"type": "boolean"}, "description": "OS-level layers that held: landlock (file confinement by the kernel) and network_namespace (no network interface). Python-level checks apply regardless."}
  }
}`
