// Package freecad is the adapter "freecad": FreeCAD 0.20 driven headless,
// as stateless tools (one FreeCAD process per call, through the solver
// runtime) and as editing sessions (one live document per session, held
// by a FreeCAD process on the worker that a CadSession workflow pins).
//
// The Go side owns the contract: manifests, argument checks, paths inside
// the workspace. The Python side (python/, embedded) does geometry on
// arguments already checked.
package freecad

import (
	"os"
	"strings"
)

// Identity of the adapter.
const (
	AdapterID = "freecad"
	version   = "0.1.0"
)

// EnvPython names the Python the adapter runs. FreeCAD's compiled module
// is built for Debian's own Python, so the default is /usr/bin/python3,
// not whichever python3 comes first on PATH.
const (
	EnvPython     = "METAFORGE_FREECAD_PYTHON"
	DefaultPython = "/usr/bin/python3"
)

// EnvLib names FreeCAD's folders to put on PYTHONPATH, colon separated.
// Debian's freecad-python3 installs the compiled modules (FreeCAD.so,
// Part.so, ...) in /usr/lib/freecad/lib and the workbenches written in
// Python (PartDesign, Sketcher's helpers, ...) in /usr/share/freecad/Mod;
// a library import of FreeCAD finds neither by itself.
const (
	EnvLib     = "METAFORGE_FREECAD_LIB"
	DefaultLib = "/usr/lib/freecad/lib:/usr/share/freecad/Mod"
)

// Install says how to get FreeCAD, in a TOOL_UNAVAILABLE answer.
const Install = "install FreeCAD with `sudo bash deploy/install-solvers.sh` (Debian: apt-get install freecad-python3 libvtk9.1)"

// python is the interpreter with FreeCAD: $METAFORGE_FREECAD_PYTHON, else
// Debian's.
func python() string {
	if p := os.Getenv(EnvPython); p != "" {
		return p
	}
	return DefaultPython
}

// pythonPath is the PYTHONPATH a FreeCAD process runs with: FreeCAD's
// folders, then the code folder given (the adapter's embedded Python).
func pythonPath(code string) string {
	lib := os.Getenv(EnvLib)
	if lib == "" {
		lib = DefaultLib
	}
	parts := []string{code}
	for _, p := range strings.Split(lib, ":") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ":")
}
