package cadquery_test

import (
	"strings"
	"testing"

	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/protocol"
)

// The cases run in order on the one warm adapter: each failure must leave
// it able to run the next script.
func TestExecuteScript(t *testing.T) {
	a, _ := warm(t)
	works := func(t *testing.T) {
		t.Helper()
		data, res := call(t, a, cadquery.ToolExecuteScript, obj{
			"script":      "import math\nprint('side', 10)\nresult = cq.Workplane().box(10, 10, 10).faces('>Z').hole(4)",
			"output_path": "holed.step",
		})
		near(t, "volume_mm3", num(t, data, "volume_mm3"), 1000-40*3.141592653589793, 1e-6)
		cad := data["cad_file"].(string)
		if !strings.HasSuffix(cad, "/holed.step") || len(res.OutputFiles) != 1 || res.OutputFiles[0] != cad {
			t.Errorf("cad_file %s, OutputFiles %v", cad, res.OutputFiles)
		}
		if data["output"] != "side 10\n" || data["result_type"] != "Workplane" {
			t.Errorf("output %q, result_type %v", data["output"], data["result_type"])
		}
		near(t, "bounding_box.size z", num(t, data, "bounding_box", "size", 2), 10, 1e-9)
	}
	fails := func(script string, code protocol.Code, says ...string) func(*testing.T) {
		return func(t *testing.T) {
			details := callErr(t, a, cadquery.ToolExecuteScript, obj{"script": script, "timeout_seconds": 2, "memory_mb": 256}, code)
			mustContain(t, "the error", details, says...)
			works(t)
		}
	}

	t.Run("works", works)
	t.Run("assembly result", func(t *testing.T) {
		data, _ := call(t, a, cadquery.ToolExecuteScript, obj{"script": "box = cq.Workplane().box(10, 10, 10)\n" +
			"result = cq.Assembly().add(box, name='a').add(box, name='b', loc=cq.Location((20, 0, 0)))"})
		near(t, "volume_mm3", num(t, data, "volume_mm3"), 2000, 1e-9)
		near(t, "bounding_box.size x", num(t, data, "bounding_box", "size", 0), 30, 1e-9)
		if data["result_type"] != "Assembly" {
			t.Errorf("result_type %v", data["result_type"])
		}
	})
	t.Run("timeout", fails("x = 0\nwhile True:\n    x += 1", protocol.ToolTimeout, "time limit of 2 s", "killed"))
	t.Run("reads /etc/passwd", fails("data = open('/etc/passwd').read()", protocol.ToolExecutionError,
		"may only read and write files in its output folder", "it tried to open /etc/passwd", "line 1"))
	t.Run("writes outside", fails("open('/tmp/metaforge-escape.txt', 'w').write('x')", protocol.ToolExecutionError,
		"may only read and write files in its output folder", "it tried to write /tmp/metaforge-escape.txt"))
	t.Run("opens a socket", fails("import socket\ns = socket.socket()\ns.connect(('example.com', 80))", protocol.ToolExecutionError,
		"may not use the network", "line 2"))
	t.Run("runs a command", fails("import os\nos.system('id')", protocol.ToolExecutionError, "may not start processes", "os.system"))
	t.Run("no result", fails("shape = cq.Workplane().box(1, 1, 1)", protocol.ToolExecutionError, "assigned no `result`"))
	t.Run("raises", fails("a = 1\nb = 0\nresult = a / b", protocol.ToolExecutionError, "ZeroDivisionError", "on line 3", "division by zero"))
	t.Run("syntax error", fails("result = (", protocol.ToolExecutionError, "syntax error on line 1"))
	t.Run("out of memory", fails("hog = bytearray(4 * 1024 ** 3)", protocol.ToolExecutionError, "ran out of memory", "memory_mb=256"))
	t.Run("wrong result", fails("result = 42", protocol.ToolExecutionError, "`result` must be a cq.Workplane", "int"))
}
