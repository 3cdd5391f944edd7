// Package omniverseusd is the adapter "omniverse_usd": OpenUSD stages read,
// checked and written with Pixar's usd-core (the Python module pxr), one
// Python process per call through the solver runtime. It needs no
// Omniverse install: usd-core is the library Omniverse and Isaac Sim are
// built on, and the stages it writes open in them.
//
// The Go side owns the contract: manifests, argument checks, paths inside
// the workspace. The Python side (python/, embedded) reads and writes
// stages on arguments already checked.
package omniverseusd

import "os"

// Identity of the adapter.
const (
	AdapterID = "omniverse_usd"
	version   = "0.1.0"
)

// EnvPython names the Python the adapter runs, one with usd-core.
// Default: python3 on PATH (the one CadQuery is installed in).
const (
	EnvPython     = "METAFORGE_USD_PYTHON"
	DefaultPython = "python3"
)

// usdCoreVersion is the usd-core this adapter is built and tested with.
const usdCoreVersion = "26.11"

// Install says how to get usd-core, in a TOOL_UNAVAILABLE answer.
const Install = "install usd-core in that Python (`pip install usd-core==" + usdCoreVersion + "`)"

// python is the interpreter with usd-core: $METAFORGE_USD_PYTHON, else
// python3.
func python() string {
	if p := os.Getenv(EnvPython); p != "" {
		return p
	}
	return DefaultPython
}
