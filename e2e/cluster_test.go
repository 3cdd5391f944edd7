//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/ledger/pgtest"
	"github.com/metaforge/metaforge/twin/neo4jtest"
	"github.com/metaforge/metaforge/worker/clustertest"
	"github.com/metaforge/metaforge/workflows"
)

// The queues of the compose topology's two kinds of worker: the workflows
// with the in-process adapters (their tools run as local activities of
// the call's workflow), and the solver adapters.
var (
	inProcessQueues = []string{workflows.TaskQueue, "adapter-power", "adapter-health", "adapter-call", "adapter-project",
		"adapter-twin", "adapter-flow", "adapter-phase", "adapter-run", "adapter-session", "adapter-constraint"}
	solverQueues = []string{"adapter-cadquery", "adapter-gmsh", "adapter-calculix", "adapter-spice"}
)

// The deployment of deploy/compose.yaml on a real Temporal cluster (the
// server on PostgreSQL that deploy/start-temporal.sh runs, two processes:
// frontend and core), with Neo4j as the twin and PostgreSQL as the ledger:
// `metaforge serve --no-worker` and `metaforge worker` processes splitting
// the queues, all driven through MCP. Calls on every queue are served by
// the worker serving it (as the histories record); a third worker joins
// while calls run; a held write is decided through the approvals REST
// route; a design-flow run reaches its second gate; the FEA worker is
// killed (SIGKILL) mid-solve and the call finishes on the third; and the
// frontend is killed and started again while the run waits at its gate
// and a write is held: both are there after, and go on.
func TestClusterDeployment(t *testing.T) {
	began := time.Now()
	mark := func(what string) { t.Logf("%6s  %s", time.Since(began).Round(100*time.Millisecond), what) }
	cluster := clustertest.Start(t, clustertest.Options{Port: clustertest.PortE2E, Fresh: true})
	uri, user, password := neo4jtest.URI(t, neo4jtest.PortE2E)
	ledgerURL := pgtest.URL(t)
	mark("cluster, Neo4j and PostgreSQL are up")

	env := append(cluster.Env(), "NEO4J_URI="+uri, "NEO4J_USER="+user, "NEO4J_PASSWORD="+password)
	dataDir := filepath.Join(t.TempDir(), "data") // shared, as compose's volume is
	httpPort := freePorts(t, 1)[0]
	base := fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	serveCmd := command(t, 10*time.Minute, binary, "serve", "--no-worker", "--data-dir", dataDir,
		"--http-addr", fmt.Sprintf("127.0.0.1:%d", httpPort))
	serveCmd.Env = append(serveCmd.Env, append(env, "DATABASE_URL="+ledgerURL)...)
	serve := start(t, "metaforge serve --no-worker", serveCmd)
	waitHealthyOn(t, serve, base+"/healthz", 2*time.Minute, "external")
	mark("serve --no-worker is healthy on the cluster")

	a := startClusterWorker(t, "worker A", env, dataDir, inProcessQueues...)
	b := startClusterWorker(t, "worker B", env, dataDir, solverQueues...)
	mark(fmt.Sprintf("worker A (pid %d, workflows and in-process adapters) and worker B (pid %d, solvers) are polling", pid(a), pid(b)))

	tc, err := client.Dial(client.Options{HostPort: cluster.Address, Namespace: cluster.Namespace})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	// Two MCP clients: one over HTTP to serve, and an agent's own stdio
	// server (`metaforge mcp --no-worker` on the cluster), whose local
	// writes are not held unless a tool needs a person's authority.
	remote := connectHTTP(t, base+"/mcp")
	session := connectClusterAgent(t, env, filepath.Join(dataDir, "agent"))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	callOn := func(s *mcp.ClientSession, tool string, args map[string]any) toolOutcome {
		t.Helper()
		o := callTool(ctx, s, tool, args)
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o
	}
	call := func(tool string, args map[string]any) toolOutcome { t.Helper(); return callOn(session, tool, args) }

	// A call on every queue, each served where its queue is.
	budget := callOn(remote, "power.check_budget", referenceBudget())
	checkRanLocally(t, tc, budget.callID, a)
	project := call("project.create", map[string]any{"name": fmt.Sprintf("cluster-%d", time.Now().UnixNano())}).data["project_id"].(string)
	bar := call("cadquery.create_parametric", map[string]any{"shape_type": "box", "parameters": map[string]any{"length": 200, "width": 20, "height": 5}})
	checkServedBy(t, tc, bar.callID, a, b, "adapter-cadquery", 1)
	mesh := call("gmsh.generate_mesh", map[string]any{"input_file": bar.data["cad_file"], "element_order": 2, "mesh_size_mm": 1.5})
	checkServedBy(t, tc, mesh.callID, a, b, "adapter-gmsh", 1)
	divider := callOn(remote, "spice.run_simulation", map[string]any{
		"netlist": "divider\nV1 in 0 DC 10\nR1 in out 1k\nR2 out 0 1k\n", "analysis_type": "op", "vectors": []string{"v(out)"}})
	if got := vectorFinal(divider.data, "v(out)"); math.Abs(got-5) > 1e-3 {
		t.Errorf("spice.run_simulation: v(out) %v, want 5 V (R2/(R1+R2) of 10 V)", got)
	}
	checkServedBy(t, tc, divider.callID, a, b, "adapter-spice", 1)
	mark("power (local on A), cadquery, gmsh and spice (on B) each served by their queue's worker")

	// A third worker joins while simulations run; every call succeeds.
	const batch = 6
	results := make(chan toolOutcome, batch)
	for i := 0; i < batch; i++ {
		go func() { results <- callTool(ctx, remote, "spice.run_simulation", longSimulation()) }()
	}
	c := startClusterWorker(t, "worker C", env, dataDir, solverQueues...)
	for i := 0; i < batch; i++ {
		if o := <-results; o.err != nil || o.data["converged"] != true {
			t.Fatalf("a simulation running while worker C joined: %v %v", o.err, o.data["converged"])
		}
	}
	mark(fmt.Sprintf("worker C (pid %d) joined while %d simulations ran; all converged", pid(c), batch))

	// The FEA worker dies mid-solve; the call finishes on another.
	fixed, loaded := endFaces(t, mesh.data)
	fea := make(chan toolOutcome, 1)
	go func() {
		fea <- callTool(ctx, session, "calculix.run_fea", map[string]any{"mesh_file": mesh.data["mesh_file"], "material": "aluminium_6061",
			"fixed_node_set": fixed, "load_node_set": loaded, "load_force_n": 50, "load_direction": []float64{0, 0, -1}})
	}()
	feaID, first := waitForRunning(t, tc, "calculix.run_fea")
	victim, survivor := b, c
	if pidOf(first) == pid(c) {
		victim, survivor = c, b
	} else if pidOf(first) != pid(b) {
		t.Fatalf("the FEA started on %q, neither worker B (%d) nor C (%d)", first, pid(b), pid(c))
	}
	_ = syscall.Kill(-pid(victim), syscall.SIGKILL) // the worker and its ccx
	victim.wait(t, 10*time.Second)
	mark(fmt.Sprintf("FEA %s was running on %s: killed (SIGKILL)", feaID, victim.name))
	var solved toolOutcome
	select {
	case solved = <-fea:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the FEA %s did not finish within 2 minutes of its worker dying", feaID)
	}
	if solved.err != nil {
		t.Fatalf("the FEA whose worker died: %v", solved.err)
	}
	checkServedBy(t, tc, solved.callID, a, survivor, "adapter-calculix", 2)
	// Euler-Bernoulli: 200 x 20 x 5 mm aluminium 6061 (E = 68.9 GPa)
	// clamped, 50 N at the tip: P L^3 / (3 E I) = 9.2888 mm. Quadratic
	// tetrahedra at 1.5 mm come within 3% (e2e/fea_truth_test.go has the
	// convergence study).
	const want = 9.2888
	if got, _ := solved.data["max_deflection_along_load_mm"].(float64); math.Abs(got-want)/want > 0.03 {
		t.Errorf("tip deflection %.4f mm, want %.4f mm within 3%%", got, want)
	}
	mark(fmt.Sprintf("the FEA finished on %s (attempt 2)", survivor.name))

	// A design-flow run to its second gate; its version's approval is a
	// held write decided through the approvals REST route.
	operator := "Bearer " + operatorToken(t, dataDir)
	rest := func(method, path string, body any) (int, map[string]any) {
		t.Helper()
		var r io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			r = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, base+path, r)
		req.Header.Set("Authorization", operator)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	cs := call("twin.record_constraint_set", map[string]any{"project_id": project, "name": "strip requirements",
		"constraints": []map[string]any{{"name": "stiff", "metric": "max_displacement", "operator": "<=", "limit": 12, "unit": "mm", "verification_method": "analysis"}}})
	decision := call("twin.record_decision", map[string]any{"project_id": project, "name": "concept", "decision": "a flat strip"})
	p := call("flow.propose", map[string]any{"project_id": project, "flow": "mech_v1",
		"goal": "an aluminium 6061 strip carrying 50 N at its tip", "manufacturing_context": "cnc_milling",
		"target_maturity": "prototype", "loads_and_use": "50 N tip load"})
	if code, out := rest(http.MethodPost, "/v1/approvals/"+p.data["approval_id"].(string)+"/decision",
		map[string]any{"decision": "approve", "approver": "e2e-reviewer"}); code != http.StatusOK {
		t.Fatalf("approve the flow version through /v1/approvals: %d %v", code, out)
	}
	var runID string
	for deadline := time.Now().Add(time.Minute); runID == ""; {
		o := callTool(ctx, session, "flow.start_run", map[string]any{"flow_version_id": p.data["flow_version_id"]})
		switch {
		case o.err == nil:
			runID = o.data["run_id"].(string)
		case time.Now().After(deadline):
			t.Fatalf("start the run: %v", o.err)
		default:
			time.Sleep(200 * time.Millisecond) // the approval is being recorded
		}
	}
	status := func(want string) map[string]any {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			o := callTool(ctx, session, "flow.status", map[string]any{"run_id": runID})
			if o.err == nil && o.data["status"] == want {
				return o.data
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %s: want %s, have %v %v", runID, want, o.data["status"], o.err)
			}
		}
	}
	phase := func(name string, ids ...string) map[string]any {
		t.Helper()
		status(flows.RunWaitingForClient)
		if ids == nil {
			ids = []string{}
		}
		call("phase.claim", map[string]any{"run_id": runID, "phase": name})
		call("phase.submit", map[string]any{"run_id": runID, "phase": name, "summary": name + " done", "recorded_ids": ids})
		return status(flows.RunAtGate)
	}
	gateOf := func(st map[string]any) string {
		return st["phases"].([]any)[int(st["phase_index"].(float64))].(map[string]any)["gate"].(map[string]any)["name"].(string)
	}
	first1 := phase("requirements", cs.data["node_id"].(string))
	if code, out := rest(http.MethodPost, fmt.Sprintf("/v1/runs/%s/gates/%s/decision", runID, urlPath(gateOf(first1))),
		map[string]any{"decision": "approve", "approver": "e2e-reviewer"}); code != http.StatusOK {
		t.Fatalf("approve the first gate: %d %v", code, out)
	}
	atSecond := phase("concept", decision.data["node_id"].(string))
	secondGate := gateOf(atSecond)
	mark(fmt.Sprintf("run %s is at its second gate, %s", runID, secondGate))

	// A write held for a person, then the frontend dies and comes back.
	entity := call("twin.record_engineering_entity", map[string]any{"project_id": project, "entity_type": "release_approval", "name": "release 1"})
	held := make(chan toolOutcome, 1)
	go func() {
		held <- callTool(ctx, session, "twin.approve_engineering_entity", map[string]any{"project_id": project, "node_id": entity.data["node_id"]})
	}()
	approvalID := waitHeldApproval(t, rest, "twin.approve_engineering_entity")
	mark("twin.approve_engineering_entity is held as " + approvalID)

	cluster.KillFrontend(t)
	if _, err := tc.CheckHealth(ctx, &client.CheckHealthRequest{}); err == nil {
		t.Fatal("the frontend was killed, yet it answers")
	}
	mark("the frontend is killed")
	cluster.StartFrontend(t)
	mark("the frontend is started again")
	if st := status(flows.RunAtGate); gateOf(st) != secondGate {
		t.Fatalf("after the frontend's restart the run is at %s, was at %s", gateOf(st), secondGate)
	}
	if again := waitHeldApproval(t, rest, "twin.approve_engineering_entity"); again != approvalID {
		t.Fatalf("after the frontend's restart the held call is %s, was %s", again, approvalID)
	}
	if code, out := rest(http.MethodPost, "/v1/approvals/"+approvalID+"/decision", map[string]any{"decision": "approve", "approver": "e2e-reviewer"}); code != http.StatusOK {
		t.Fatalf("approve the held write after the restart: %d %v", code, out)
	}
	select {
	case o := <-held:
		if o.err != nil {
			t.Fatalf("the held write after the frontend's restart: %v", o.err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the held write did not finish within a minute of its approval")
	}
	if code, out := rest(http.MethodPost, fmt.Sprintf("/v1/runs/%s/gates/%s/decision", runID, urlPath(secondGate)),
		map[string]any{"decision": "approve", "approver": "e2e-reviewer"}); code != http.StatusOK {
		t.Fatalf("approve the second gate after the restart: %d %v", code, out)
	}
	status(flows.RunWaitingForClient)
	mark("after the restart the held write was approved and finished, and the run passed its second gate")
	if took := time.Since(began); took > 5*time.Minute {
		t.Errorf("the cluster test took %s, over its five-minute budget", took.Round(time.Second))
	}
}

// startClusterWorker starts `metaforge worker` for queues with env (the
// cluster's address, the twin's) and waits until it serves them.
func startClusterWorker(t *testing.T, label string, env []string, dataDir string, queues ...string) *process {
	t.Helper()
	cmd := command(t, 10*time.Minute, binary, "worker", "--queues", strings.Join(queues, ","), "--data-dir", dataDir)
	cmd.Env = append(cmd.Env, env...)
	p := start(t, label, cmd)
	want := fmt.Sprintf("metaforge worker: serving [%s]", strings.Join(queues, " "))
	for deadline := time.Now().Add(time.Minute); !strings.Contains(p.stderr.String(), want); time.Sleep(20 * time.Millisecond) {
		if p.exited() || time.Now().After(deadline) {
			t.Fatalf("%s did not say %q:\n%s", label, want, tail(p.stderr.String(), 20))
		}
	}
	return p
}

// connectClusterAgent starts an agent's MCP server over stdio (`metaforge
// mcp --no-worker`) on the deployment of env and connects to it.
func connectClusterAgent(t *testing.T, env []string, dataDir string) *mcp.ClientSession {
	t.Helper()
	cmd := command(t, 10*time.Minute, binary, "mcp", "--no-worker", "--data-dir", dataDir)
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c := mcp.NewClient(&mcp.Implementation{Name: "metaforge-e2e-cluster", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to metaforge mcp on the cluster: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// waitForRunning finds a running call of tool once its activity has
// started on a worker, and returns its workflow id and that worker.
func waitForRunning(t *testing.T, c client.Client, tool string) (id, identity string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		it, err := listRunning(c, tool)
		if err != nil {
			continue
		}
		for _, wid := range it {
			d, err := c.DescribeWorkflowExecution(context.Background(), wid, "")
			if err != nil {
				continue
			}
			for _, a := range d.GetPendingActivities() {
				if a.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED && a.GetLastWorkerIdentity() != "" {
					return wid, a.GetLastWorkerIdentity()
				}
			}
		}
	}
	t.Fatalf("no %s call started on a worker within a minute", tool)
	return "", ""
}

// waitHeldApproval is the approval id of the one held call of tool, as
// GET /v1/approvals lists it.
func waitHeldApproval(t *testing.T, rest func(method, path string, body any) (int, map[string]any), tool string) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		code, out := rest(http.MethodGet, "/v1/approvals?tool="+tool, nil)
		if list, _ := out["approvals"].([]any); code == http.StatusOK && len(list) == 1 {
			return list[0].(map[string]any)["approval_id"].(string)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no held %s call listed on /v1/approvals: %d %v", tool, code, out)
		}
	}
}

// listRunning is the workflow ids of the running calls of tool.
func listRunning(c client.Client, tool string) ([]string, error) {
	resp, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
		Query: fmt.Sprintf("WorkflowType = 'ToolCall' AND ExecutionStatus = 'Running' AND MfTool = '%s'", tool)})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range resp.GetExecutions() {
		ids = append(ids, e.GetExecution().GetWorkflowId())
	}
	return ids, nil
}
