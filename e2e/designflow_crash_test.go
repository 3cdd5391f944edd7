//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/twin/neo4jtest"
	"github.com/metaforge/metaforge/workflows"
)

// crashRepetitions is how many runs the durability test takes through two
// kill -9s each (METAFORGE_E2E_CRASH_REPETITIONS overrides it).
const crashRepetitions = 10

// crashRig is a `metaforge serve` that is killed with SIGKILL and started
// again on the same data dir, ports and Neo4j twin, and an agent's MCP
// server (`metaforge mcp` over stdio, sharing the serve's Temporal).
type crashRig struct {
	t       *testing.T
	dataDir string
	ports   []int
	env     []string
	serve   *process
	session *mcp.ClientSession
	tc      client.Client
	project string
}

func (r *crashRig) start() {
	r.t.Helper()
	cmd := command(r.t, 30*time.Minute, binary, "serve", "--data-dir", r.dataDir,
		"--temporal-port", strconv.Itoa(r.ports[0]), "--ui-port", strconv.Itoa(r.ports[1]),
		"--http-addr", fmt.Sprintf("127.0.0.1:%d", r.ports[2]))
	cmd.Env = append(cmd.Env, r.env...)
	r.serve = start(r.t, "metaforge serve", cmd)
	waitHealthy(r.t, r.serve, fmt.Sprintf("http://127.0.0.1:%d/healthz", r.ports[2]), 2*time.Minute)
	r.tc = dialTemporal(r.t, r.ports[0])
	r.connect()
}

// connect starts a fresh agent MCP server: the old one's Temporal
// connection died with the serve it was talking to.
func (r *crashRig) connect() {
	r.t.Helper()
	if r.session != nil {
		_ = r.session.Close()
	}
	cmd := command(r.t, 30*time.Minute, binary, "mcp", "--data-dir", filepath.Join(r.dataDir, "agent"), "--no-worker")
	cmd.Env = append(cmd.Env, fmt.Sprintf("TEMPORAL_ADDRESS=127.0.0.1:%d", r.ports[0]))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c := mcp.NewClient(&mcp.Implementation{Name: "metaforge-e2e-crash", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		r.t.Fatalf("connect to metaforge mcp: %v", err)
	}
	r.session = s
	r.t.Cleanup(func() { _ = s.Close() })
}

// kill ends the serve with SIGKILL: no shutdown, nothing flushed.
func (r *crashRig) kill() {
	r.t.Helper()
	_ = syscall.Kill(-r.serve.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-r.serve.done:
	case <-time.After(10 * time.Second):
		r.t.Fatal("metaforge serve did not die on SIGKILL")
	}
}

func (r *crashRig) call(tool string, args map[string]any) map[string]any {
	r.t.Helper()
	out, err := r.callErr(tool, args)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// callErr calls a tool and returns its structured result, or an error
// naming the tool for a protocol error or an isError result.
func (r *crashRig) callErr(tool string, args map[string]any) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, _, err := callToolJSON(ctx, r.session, tool, args)
	return out, err
}

// rest posts a decision as the local operator.
func (r *crashRig) rest(path string, body map[string]any) (int, string) {
	r.t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d%s", r.ports[2], path), strings.NewReader(string(b)))
	if err != nil {
		r.t.Fatal(err)
	}
	// Decisions are the operator's: its token is new at each start.
	req.Header.Set("Authorization", "Bearer "+operatorToken(r.t, r.dataDir))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	s, _ := json.Marshal(out)
	return resp.StatusCode, string(s)
}

// waitStatus polls flow.status until the run's status is want.
func (r *crashRig) waitStatus(runID, want string) map[string]any {
	r.t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		st := r.call("flow.status", map[string]any{"run_id": runID})
		if st["status"] == want {
			return st
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("run %s: want %s, is %v at %v", runID, want, st["status"], st["phase"])
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (r *crashRig) approve(runID string, st map[string]any) {
	r.t.Helper()
	phases := st["phases"].([]any)
	gate := phases[int(st["phase_index"].(float64))].(map[string]any)["gate"].(map[string]any)["name"].(string)
	code, body := r.rest(fmt.Sprintf("/v1/runs/%s/gates/%s/decision", runID, urlPath(gate)), map[string]any{"decision": "approve", "approver": "e2e-reviewer"})
	if code != http.StatusOK {
		r.t.Fatalf("approve %s: %d %s", gate, code, body)
	}
}

func (r *crashRig) clientPhase(runID, phase string, ids []string) map[string]any {
	r.t.Helper()
	r.waitStatus(runID, flows.RunWaitingForClient)
	if ids == nil {
		ids = []string{}
	}
	r.call("phase.claim", map[string]any{"run_id": runID, "phase": phase})
	r.call("phase.submit", map[string]any{"run_id": runID, "phase": phase, "summary": phase + " done", "recorded_ids": ids})
	return r.waitStatus(runID, flows.RunAtGate)
}

func urlPath(s string) string { return url.PathEscape(s) }

// release records the rep's release package as a release phase does: a
// baseline (POST /v1/baselines, decided by the operator), an approved
// release_approval (its held approval decided through the approvals
// queue), then twin.create_release_package, which G8 gates.
func (r *crashRig) release(rep int) string {
	r.t.Helper()
	if code, body := r.rest("/v1/baselines", map[string]any{"project_id": r.project, "reason": fmt.Sprintf("release %d", rep)}); code != http.StatusOK {
		r.t.Fatalf("baseline: %d %s", code, body)
	}
	ra := r.call("twin.record_engineering_entity", map[string]any{"project_id": r.project, "entity_type": "release_approval",
		"name": fmt.Sprintf("release %d", rep)})
	done := make(chan error, 1)
	go func() {
		_, err := r.callErr("twin.approve_engineering_entity", map[string]any{"project_id": r.project, "node_id": ra["node_id"]})
		done <- err
	}()
	deadline := time.Now().Add(time.Minute)
	for held := ""; held == ""; {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/v1/approvals?tool=twin.approve_engineering_entity", r.ports[2]), nil)
		req.Header.Set("Authorization", "Bearer "+operatorToken(r.t, r.dataDir))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			var list struct {
				Approvals []struct {
					ApprovalID string `json:"approval_id"`
				} `json:"approvals"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&list)
			resp.Body.Close()
			if len(list.Approvals) > 0 {
				held = list.Approvals[0].ApprovalID
			}
		}
		if held == "" && time.Now().After(deadline) {
			r.t.Fatal("the release approval's call was never held")
		}
		if held == "" {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if code, body := r.rest("/v1/approvals/"+held+"/decision", map[string]any{"decision": "approve", "approver": "e2e-reviewer"}); code != http.StatusOK {
			r.t.Fatalf("approve the release approval: %d %s", code, body)
		}
	}
	if err := <-done; err != nil {
		r.t.Fatal(err)
	}
	return r.call("twin.create_release_package", map[string]any{"project_id": r.project, "reason": fmt.Sprintf("release %d", rep)})["release_package_id"].(string)
}

// Kill -9 `metaforge serve` while a run waits at a gate, and again while a
// phase step's FEA runs; start it again each time. The run is where it was,
// the FEA step is run again (it is idempotent), and approving the gates
// takes the run to COMPLETED_VERIFIED. Ten runs, twenty kills.
func TestDesignFlowSurvivesKill9(t *testing.T) {
	reps := crashRepetitions
	if v := os.Getenv("METAFORGE_E2E_CRASH_REPETITIONS"); v != "" {
		reps, _ = strconv.Atoi(v)
	}
	uri, user, password := neo4jtest.URI(t, neo4jtest.PortE2E)
	r := &crashRig{t: t, dataDir: filepath.Join(t.TempDir(), "data"), ports: freePorts(t, 3),
		env: []string{"NEO4J_URI=" + uri, "NEO4J_USER=" + user, "NEO4J_PASSWORD=" + password}}
	r.start()

	// The part, its requirements, its mesh and one approved mech_v1 version.
	r.project = r.call("project.create", map[string]any{"name": fmt.Sprintf("crash-%d", time.Now().UnixNano())})["project_id"].(string)
	cs := r.call("twin.record_constraint_set", map[string]any{"project_id": r.project, "name": "bracket requirements",
		"constraints": []map[string]any{
			{"name": "fits", "metric": "envelope_x", "operator": "<=", "limit": 120, "unit": "mm", "verification_method": "inspection"},
			{"name": "stiff", "metric": "max_displacement", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"},
			{"name": "strong", "metric": "safety_factor", "operator": ">=", "limit": 2, "unit": "1", "verification_method": "analysis"},
		}})
	decision := r.call("twin.record_decision", map[string]any{"project_id": r.project, "name": "concept", "decision": "a solid bar"})
	bar := r.call("cadquery.create_parametric", map[string]any{"shape_type": "box", "parameters": map[string]any{"length": 100, "width": 20, "height": 20}})
	step := r.call("cadquery.export_geometry", map[string]any{"input_file": bar["cad_file"], "output_format": "step"})
	props := r.call("cadquery.get_properties", map[string]any{"input_file": bar["cad_file"]})
	cad := r.call("twin.commit_geometry", map[string]any{"project_id": r.project, "name": "bracket", "step_base64": step["step_base64"],
		"material": "aluminium_6061", "properties": map[string]any{"bounding_box": props["bounding_box"]}})
	mesh := r.call("gmsh.generate_mesh", map[string]any{"input_file": bar["cad_file"], "element_order": 2, "mesh_size_mm": 2.5})
	fixed, loaded := endFaces(t, mesh)
	loadCases := []map[string]any{{"name": "tip load", "valid_against": []string{cad["item_ref"].(string)},
		"arguments": map[string]any{"mesh_file": mesh["mesh_file"], "material": "aluminium_6061", "fixed_node_set": fixed,
			"load_node_set": loaded, "load_force_n": 200, "load_direction": []float64{0, 0, -1}}}}
	p := r.call("flow.propose", map[string]any{"project_id": r.project, "flow": "mech_v1",
		"goal":                  "an aluminium 6061 bracket carrying 200 N with under 0.5 mm deflection and a safety factor of at least 2",
		"manufacturing_context": "cnc_milling", "target_maturity": "prototype", "loads_and_use": "200 N tip load"})
	if code, body := r.rest("/v1/approvals/"+p["approval_id"].(string)+"/decision", map[string]any{"decision": "approve", "approver": "e2e-reviewer"}); code != http.StatusOK {
		t.Fatalf("approve the version: %d %s", code, body)
	}
	version := p["flow_version_id"].(string)

	for rep := 1; rep <= reps; rep++ {
		began := time.Now()
		mark := func(what string) { t.Logf("rep %d: %s at %s", rep, what, time.Since(began).Round(time.Millisecond)) }
		runID := startApprovedRun(t, r.callErr, map[string]any{"flow_version_id": version, "inputs": map[string]any{"load_cases": loadCases}})

		// Kill 1: at the requirements gate.
		before := r.clientPhase(runID, "requirements", []string{cs["node_id"].(string)})
		mark("at the requirements gate")
		r.kill()
		r.start()
		mark("restarted")
		after := r.waitStatus(runID, flows.RunAtGate)
		if after["phase"] != before["phase"] || len(after["phases"].([]any)) != len(before["phases"].([]any)) {
			t.Fatalf("rep %d: after the kill the run is at %v, was at %v", rep, after["phase"], before["phase"])
		}
		r.approve(runID, after)
		r.approve(runID, r.clientPhase(runID, "concept", []string{decision["node_id"].(string)}))
		r.approve(runID, r.clientPhase(runID, "design", []string{cad["node_id"].(string)}))

		// Kill 2: while the analysis step's FEA runs.
		feaCall := waitForRunningFEA(t, r.tc, r.project)
		mark("FEA running")
		r.kill()
		r.start()
		mark("restarted")
		st := r.waitStatus(runID, flows.RunAtGate)
		mark("at the analysis gate")
		var fea workflows.ToolCallResult
		if err := r.tc.GetWorkflow(context.Background(), feaCall, "").Get(context.Background(), &fea); err != nil {
			t.Fatalf("rep %d: the FEA step %s: %v", rep, feaCall, err)
		}
		if fea.Status != workflows.StatusSuccess || fea.Attempts < 2 {
			t.Fatalf("rep %d: the FEA step killed mid-run must be run again and succeed: status %s, attempts %d (%+v)", rep, fea.Status, fea.Attempts, fea.Error)
		}
		analysis := st["phases"].([]any)[3].(map[string]any)
		if gate := analysis["gate"].(map[string]any)["result"].(map[string]any); gate["status"] != "pass" {
			t.Fatalf("rep %d: the analysis gate after the step's evidence: %v", rep, gate)
		}
		r.approve(runID, st)
		r.approve(runID, r.clientPhase(runID, "verification", nil))
		r.approve(runID, r.clientPhase(runID, "release", []string{r.release(rep)}))
		r.waitStatus(runID, flows.RunCompletedVerified)
		t.Logf("rep %d: run %s survived a kill at a gate and a kill mid-FEA (the FEA ran %d times) and completed verified", rep, runID, fea.Attempts)
	}
}

// endFaces are the mesh's faces at the smallest and largest x.
func endFaces(t *testing.T, mesh map[string]any) (fixed, loaded string) {
	t.Helper()
	lo, hi := 1e18, -1e18
	for name, f := range mesh["surface_sets"].(map[string]any) {
		x := f.(map[string]any)["centroid_mm"].([]any)[0].(float64)
		if x < lo {
			lo, fixed = x, name
		}
		if x > hi {
			hi, loaded = x, name
		}
	}
	return fixed, loaded
}

// waitForRunningFEA finds the run's FEA step call once its solver activity
// has started, and returns its workflow id.
func waitForRunningFEA(t *testing.T, c client.Client, project string) string {
	t.Helper()
	query := fmt.Sprintf("WorkflowType = 'ToolCall' AND ExecutionStatus = 'Running' AND MfTool = 'calculix.run_fea' AND MfCaller = '%s' AND MfProject = '%s'",
		workflows.StepCaller, project)
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		resp, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default", Query: query})
		if err == nil {
			for _, e := range resp.GetExecutions() {
				d, err := c.DescribeWorkflowExecution(context.Background(), e.GetExecution().GetWorkflowId(), "")
				if err != nil {
					continue
				}
				for _, a := range d.GetPendingActivities() {
					if a.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED {
						return e.GetExecution().GetWorkflowId()
					}
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the analysis step's FEA never started")
	return ""
}
