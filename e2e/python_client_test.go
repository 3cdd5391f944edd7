//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// pythonMCPVersion is the `mcp` package deploy/test-deps.sh installs.
const pythonMCPVersion = "2.3.0"

// requirePythonMCP returns python3's path, skipping the test when there is
// no python3 and failing, with the command that installs it, when the MCP
// Python SDK is missing or too old for python_client.py.
func requirePythonMCP(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the Python MCP client test needs it")
	}
	out, err := exec.Command(py, "-c", "from mcp.client.streamable_http import streamable_http_client; from mcp.shared._httpx_utils import create_mcp_http_client").CombinedOutput()
	if err != nil {
		t.Fatalf("the MCP Python SDK (PyPI mcp>=2) is not importable: %v\n%s\ninstall it: python3 -m pip install mcp==%s (deploy/test-deps.sh does)",
			err, tail(string(out), 5), pythonMCPVersion)
	}
	return py
}

// pyBudget is a power budget whose figures are closed-form sums: an LDO
// (3V3) fed from a supply (5V) with a load on each.
type pyBudget struct {
	mcu, radio, quiescent, motor float64
}

func newPyBudget() pyBudget {
	return pyBudget{mcu: float64(50 + rand.IntN(150)), radio: float64(10 + rand.IntN(40)), quiescent: float64(1 + rand.IntN(9)), motor: float64(20 + rand.IntN(200))}
}

func (b pyBudget) args() string {
	a := map[string]any{
		"rails": []map[string]any{
			{"name": "5V", "voltage_v": 5, "source_kind": "supply", "rated_output_ma": 1000},
			{"name": "3V3", "voltage_v": 3.3, "source_kind": "ldo", "input_rail": "5V", "quiescent_ma": b.quiescent, "rated_output_ma": 500},
		},
		"loads": []map[string]any{
			{"name": "mcu", "rail": "3V3", "current_ma": b.mcu},
			{"name": "radio", "rail": "3V3", "current_ma": b.radio},
			{"name": "motor", "rail": "5V", "current_ma": b.motor},
		},
	}
	j, _ := json.Marshal(a)
	return string(j)
}

// pyObserved is the JSON line python_client.py prints.
type pyObserved struct {
	Client          string   `json:"client"`
	ServerName      string   `json:"serverName"`
	ProtocolVersion string   `json:"protocolVersion"`
	Tools           []string `json:"tools"`
	Budget          struct {
		Status string `json:"status"`
		Rails  []struct {
			Name           string   `json:"name"`
			LoadMA         *float64 `json:"load_ma"`
			InputCurrentMA *float64 `json:"input_current_ma"`
			Utilization    *float64 `json:"utilization"`
		} `json:"rails"`
	} `json:"budget"`
	BudgetCallID      string   `json:"budgetCallId"`
	ProjectID         string   `json:"projectId"`
	Resources         []string `json:"resources"`
	ResourceTemplates []string `json:"resourceTemplates"`
	Resource          struct {
		URI      string         `json:"uri"`
		MIMEType string         `json:"mimeType"`
		Body     map[string]any `json:"body"`
	} `json:"resource"`
}

// checkPyObserved checks the Python client's view against the budget's
// closed form and the project it created.
func checkPyObserved(t *testing.T, o pyObserved, client string, b pyBudget) {
	t.Helper()
	if o.Client != client || o.ServerName != "metaforge-mcp" {
		t.Errorf("client %q saw server %q", o.Client, o.ServerName)
	}
	for _, tool := range append(slices.Clone(allTools), "project.create") {
		if !slices.Contains(o.Tools, tool) {
			t.Errorf("tools/list lacks %s (%d tools)", tool, len(o.Tools))
		}
	}
	ldoOut := b.mcu + b.radio
	ldoIn := ldoOut + b.quiescent
	supply := b.motor + ldoIn
	if o.Budget.Status != "pass" || len(o.Budget.Rails) != 2 {
		t.Fatalf("power.check_budget: status %q, %d rails; want pass, 2 (budget %+v): %+v", o.Budget.Status, len(o.Budget.Rails), b, o.Budget)
	}
	r5, r3 := o.Budget.Rails[0], o.Budget.Rails[1]
	if r5.Name != "5V" || r5.LoadMA == nil || *r5.LoadMA != supply || r5.Utilization == nil || math.Abs(*r5.Utilization-supply/1000) > 1e-9 {
		t.Errorf("5V rail: %+v; want load_ma %v (motor %v + LDO input %v), utilization %v", r5, supply, b.motor, ldoIn, supply/1000)
	}
	if r3.Name != "3V3" || r3.LoadMA == nil || *r3.LoadMA != ldoOut || r3.InputCurrentMA == nil || *r3.InputCurrentMA != ldoIn {
		t.Errorf("3V3 rail: %+v; want load_ma %v, input_current_ma %v (+ quiescent %v)", r3, ldoOut, ldoIn, b.quiescent)
	}
	if !callIDRe.MatchString(o.BudgetCallID) {
		t.Errorf("power.check_budget _meta.callId %q", o.BudgetCallID)
	}
	// resources/list has only concrete resources, of which there are none;
	// the twin's are templates (mcpserver/resources.go).
	if len(o.Resources) != 0 {
		t.Errorf("resources/list: %v, want none (the twin's resources are templates)", o.Resources)
	}
	if !slices.Contains(o.ResourceTemplates, "metaforge://twin/hierarchy/{project_id}") {
		t.Errorf("resources/templates/list lacks metaforge://twin/hierarchy/{project_id}: %v", o.ResourceTemplates)
	}
	want := "metaforge://twin/hierarchy/" + o.ProjectID
	if o.ProjectID == "" || o.Resource.URI != want || o.Resource.MIMEType != "application/json" || o.Resource.Body["project_id"] != o.ProjectID {
		t.Errorf("resources/read %s: %+v", want, o.Resource)
	}
	if roots, ok := o.Resource.Body["roots"].([]any); !ok || len(roots) != 0 {
		t.Errorf("a new project's hierarchy has roots %v, want []", o.Resource.Body["roots"])
	}
}

// TestPythonClientStdio runs python_client.py, the Python SDK's stdio
// client, against `metaforge mcp`. Its project.create is a local write,
// which runs without a hold.
func TestPythonClientStdio(t *testing.T) {
	py := requirePythonMCP(t)
	b := newPyBudget()
	temporalPort := freePorts(t, 1)[0]
	cmd := command(t, 90*time.Second, py, "python_client.py", "stdio", binary, "mcp",
		"--data-dir", filepath.Join(t.TempDir(), "data"),
		"--temporal-port", strconv.Itoa(temporalPort),
		"--ui-port", "0")
	cmd.Env = append(cmd.Env, "E2E_BUDGET="+b.args())
	began := time.Now()
	var o pyObserved
	runClient(t, "python3 python_client.py stdio", cmd, 90*time.Second, &o)
	t.Logf("Python SDK scenario over stdio took %s (including the server's start and stop); protocol %s", time.Since(began).Round(time.Millisecond), o.ProtocolVersion)
	checkPyObserved(t, o, "metaforge-e2e-python-stdio", b)
}

// TestPythonClientHTTP runs python_client.py over Streamable HTTP against
// `metaforge serve`, presenting the operator token (a caller without it
// is untrusted and its project.create would be held for a person), and
// checks that the budget call was a durable workflow.
func TestPythonClientHTTP(t *testing.T) {
	py := requirePythonMCP(t)
	b := newPyBudget()
	ports := freePorts(t, 3)
	srv := serve(t, ports[0], ports[1], ports[2])
	cmd := command(t, 90*time.Second, py, "python_client.py", "http", fmt.Sprintf("http://127.0.0.1:%d/mcp", ports[2]))
	cmd.Env = append(cmd.Env, "E2E_BUDGET="+b.args(), "E2E_OPERATOR_TOKEN="+operatorToken(t, srv.dataDir))
	began := time.Now()
	var o pyObserved
	runClient(t, "python3 python_client.py http", cmd, 90*time.Second, &o)
	t.Logf("Python SDK scenario over HTTP took %s; protocol %s", time.Since(began).Round(time.Millisecond), o.ProtocolVersion)
	checkPyObserved(t, o, "metaforge-e2e-python-http", b)
	c := dialTemporal(t, ports[0])
	checkCallWorkflow(t, c, o.BudgetCallID, map[string]string{"MfTool": "power.check_budget", "MfClient": "metaforge-e2e-python-http"})
}
