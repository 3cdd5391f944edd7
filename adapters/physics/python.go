package physics

import "os"

// EnvPython names the Python with PyBullet the adapter runs when
// Options.Python is empty; the default is "python3" on PATH, the one
// CadQuery is installed in.
const EnvPython = "METAFORGE_PHYSICS_PYTHON"

// pybulletVersion is the PyBullet this adapter is built and tested with.
const pybulletVersion = "3.2.7"

// Install says how to get PyBullet, in a TOOL_UNAVAILABLE answer.
const Install = "install PyBullet with `pip install pybullet==" + pybulletVersion + "`"

// python is the interpreter: opt, else $METAFORGE_PHYSICS_PYTHON, else
// python3.
func python(opt string) string {
	if opt != "" {
		return opt
	}
	if p := os.Getenv(EnvPython); p != "" {
		return p
	}
	return "python3"
}
