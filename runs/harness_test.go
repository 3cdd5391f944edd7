package runs_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/calculix"
	"github.com/metaforge/metaforge/adapters/flow"
	"github.com/metaforge/metaforge/adapters/gmsh"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

var (
	record      = flag.Bool("record", false, "write the runs' histories to ../workflows/testdata/designflow/ for the replay test")
	recordCalls = flag.Bool("record-calls", false, "write the process tools' call histories to ../workflows/testdata/toolcall_process/")
)

// harness is an embedded Temporal server, MetaForge's workers over an
// in-memory twin and the flow tools, and the run service the REST routes
// and the tools share.
type harness struct {
	t        *testing.T
	ctx      context.Context
	temporal *worker.Temporal
	reg      *adapters.Registry
	runs     *runs.Service
	queue    approvals.Queue
	facts    *twinadapter.Backend
	changes  *runs.Changes
	project  string
}

// solverAdapters are CadQuery, gmsh and CalculiX over a workspace of the
// test's own, for runs whose steps solve.
func solverAdapters(t *testing.T) []adapters.Adapter {
	t.Helper()
	return solversIn(t, workspace.New(t.TempDir()))
}

func solversIn(t *testing.T, ws *workspace.Workspace) []adapters.Adapter {
	t.Helper()
	cq := cadquery.New(ws, cadquery.Options{})
	t.Cleanup(func() { _ = cq.Close() })
	return []adapters.Adapter{cq, gmsh.New(ws), calculix.New(ws)}
}

func newHarness(t *testing.T, extra ...adapters.Adapter) *harness {
	t.Helper()
	return newHarnessIn(t, nil, extra...)
}

// newHarnessIn is a harness whose twin and design flows share the solvers'
// workspace ws (nil: none), as serve's do: the twin hands a part's STEP to
// the mesher there, and a flow finds a revision meshed before.
func newHarnessIn(t *testing.T, ws *workspace.Workspace, extra ...adapters.Adapter) *harness {
	t.Helper()
	mem := twin.NewMemoryStore()
	return newHarnessOn(t, mem, mem, ws, extra...)
}

// newHarnessOn is newHarnessIn over the given twin store.
func newHarnessOn(t *testing.T, store twin.Store, sessions twin.SessionBindings, ws *workspace.Workspace, extra ...adapters.Adapter) *harness {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	tmp := workertest.StartTemporal(t)
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	changes := &runs.Changes{Client: tmp.Client, Namespace: tmp.Namespace}
	backend := &twinadapter.Backend{Store: store, Sessions: sessions, Blobs: blobs, Loops: &runs.Loops{Client: tmp.Client},
		Metrics: runs.Metrics{}, Thermal: runs.Metrics{}, Imports: runs.WorkProducts{}, Overhangs: runs.Metrics{}, Changes: changes}
	reg := adapters.NewRegistry()
	svc := &runs.Service{Client: tmp.Client, Namespace: tmp.Namespace, Registry: reg}
	all := append(twinadapter.New(backend), flow.New(&flow.Service{Engine: svc, Store: store, Facts: backend, Catalog: reg})...)
	for _, a := range append(all, extra...) {
		if err := reg.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	deps := worker.Deps{Twin: backend}
	if ws != nil {
		backend.Files, deps.WorkspaceRoot = ws, ws.Root
	}
	workertest.StartWorkersWith(t, tmp, reg, deps)
	h := &harness{t: t, ctx: ctx, temporal: tmp, reg: reg, runs: svc, facts: backend, changes: changes,
		queue: approvals.Queue{Client: tmp.Client, Namespace: tmp.Namespace}}
	p := h.call("project.create", map[string]any{"name": "bracket-" + newID()})
	h.project = p["project_id"].(string)
	return h
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// callErr runs a tool as a local client's call would reach its adapter, with
// a fresh call id, and returns its data or its error.
func (h *harness) callErr(tool string, args map[string]any) (map[string]any, error) {
	h.t.Helper()
	return h.callAs(tool, args, "")
}

// callAs is callErr for a call a person approved (approvedBy, "" for none):
// what a human-authority tool sees once its hold is decided. Every call
// takes the durable path an MCP client's does: a ToolCall workflow, held
// and decided through the approvals queue when a person approves it, its
// tool's process (a run, an approval, an evaluation) run as its child.
func (h *harness) callAs(tool string, args map[string]any, approvedBy string) (map[string]any, error) {
	h.t.Helper()
	return h.callBy(tool, args, "", approvedBy)
}

// callBy is callAs for a call a verified identity asked for (requester,
// "" for none).
func (h *harness) callBy(tool string, args map[string]any, requester, approvedBy string) (map[string]any, error) {
	h.t.Helper()
	raw, _ := json.Marshal(args)
	if err := h.reg.ValidateArguments(tool, raw); err != nil {
		return nil, err
	}
	m, _, ok := h.reg.Tool(tool)
	if !ok {
		h.t.Fatalf("no tool %s", tool)
	}
	callID := newID()
	in := workflows.ToolCallInput{CallID: callID, ToolID: tool, AdapterID: m.AdapterID, Arguments: raw, TimeoutSeconds: m.TimeoutSeconds,
		Idempotent: m.Idempotent, Retries: m.Retries, Caller: "local", SessionID: "session-1", Requester: requester}
	if approvedBy != "" {
		in.Hold = &workflows.Hold{ApprovalID: callID, Route: workflows.RouteDashboard, WindowSeconds: 600,
			Reason: "the harness's person decides", HumanAuthority: true}
	}
	engine := mcpserver.TemporalEngine{Client: h.temporal.Client}
	runID, err := engine.StartCall(h.ctx, in, nil)
	if err != nil {
		h.t.Fatalf("%s: start: %v", tool, err)
	}
	if approvedBy != "" {
		if _, err := h.queue.Decide(h.ctx, callID, workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: approvedBy,
			ApproverVerified: true, Route: workflows.RouteDashboard}); err != nil {
			h.t.Fatalf("%s: approve as %s: %v", tool, approvedBy, err)
		}
	}
	res, err := engine.AwaitCall(h.ctx, callID, runID)
	if err != nil {
		h.t.Fatalf("%s: await: %v", tool, err)
	}
	if res.Status != workflows.StatusSuccess {
		return nil, &protocol.Error{Code: protocol.Code(res.Error.Code), ToolID: tool, Details: res.Error.Details}
	}
	if processTools[tool] && *recordCalls {
		h.writeHistory(workflows.CallWorkflowID(callID), "toolcall_process", tool+".json")
	}
	var out map[string]any
	if err := json.Unmarshal(res.Data, &out); err != nil {
		h.t.Fatalf("%s: %v", tool, err)
	}
	return out, nil
}

// processTools are the tools whose work is a durable process their call
// runs as its child: their calls' histories are recorded for the replay
// test (the last call of each).
var processTools = map[string]bool{
	"twin.evaluate_metric": true, "twin.evaluate_thermal_metric": true, "twin.start_design_loop": true,
	"flow.propose": true, "flow.start_run": true, "twin.propose_change": true,
}

func (h *harness) call(tool string, args map[string]any) map[string]any {
	h.t.Helper()
	out, err := h.callErr(tool, args)
	if err != nil {
		h.t.Fatalf("%s: %v", tool, err)
	}
	return out
}

// refused checks a tool call is refused with a message containing want.
func (h *harness) refused(tool string, args map[string]any, want string) {
	h.t.Helper()
	_, err := h.callErr(tool, args)
	var perr *protocol.Error
	if !errors.As(err, &perr) || !strings.Contains(err.Error(), want) {
		h.t.Fatalf("%s: want a refusal containing %q, got %v", tool, want, err)
	}
}

// approvedVersion proposes a flow for the bracket goal and has alice
// approve it through the approvals queue.
func (h *harness) approvedVersion(flowID string) string {
	h.t.Helper()
	p := h.call("flow.propose", map[string]any{"project_id": h.project, "flow": flowID,
		"goal":                  "Design an aluminium 6061 wall bracket that carries 200 N at its tip with under 0.5 mm deflection and a safety factor of at least 2, within 120 x 40 x 30 mm",
		"manufacturing_context": "cnc_milling", "target_maturity": "prototype", "loads_and_use": "200 N static tip load"})
	if p["status"] != "proposed" {
		h.t.Fatalf("propose: %v", p)
	}
	version, approval := p["flow_version_id"].(string), p["approval_id"].(string)
	h.decideApproval(approval)
	return version
}

func (h *harness) decideApproval(approvalID string) {
	h.t.Helper()
	if _, err := h.queue.Decide(h.ctx, approvalID, workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: "alice",
		Route: workflows.RouteDashboard}); err != nil {
		h.t.Fatalf("approve %s: %v", approvalID, err)
	}
	var res workflows.ToolCallResult
	if err := h.temporal.Client.GetWorkflow(h.ctx, workflows.CallWorkflowID(approvalID), "").Get(h.ctx, &res); err != nil {
		h.t.Fatal(err)
	}
	if res.Status != workflows.StatusSuccess {
		h.t.Fatalf("the approval call did not record the approval: %+v", res.Error)
	}
}

// release records the project's release package as a release phase
// does: a baseline and a release approval, each approved by alice, then
// twin.create_release_package, which G8 gates.
func (h *harness) release() []string {
	h.t.Helper()
	if _, err := h.callAs("twin.create_baseline", map[string]any{"project_id": h.project, "reason": "release"}, "alice"); err != nil {
		h.t.Fatal(err)
	}
	ra := h.call("twin.record_engineering_entity", map[string]any{"project_id": h.project, "entity_type": "release_approval", "name": "release 1"})
	if _, err := h.callAs("twin.approve_engineering_entity", map[string]any{"project_id": h.project, "node_id": ra["node_id"]}, "alice"); err != nil {
		h.t.Fatal(err)
	}
	r := h.call("twin.create_release_package", map[string]any{"project_id": h.project, "reason": "release"})
	return []string{r["release_package_id"].(string)}
}

// waitFor polls the run until its status is want.
func (h *harness) waitFor(runID, want string) flows.RunState {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := h.runs.RunState(h.ctx, runID)
		if err == nil && st.Status == want {
			return st
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("run %s: want status %s, have %s (%v)", runID, want, st.Status, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// doPhase claims the waiting phase, records what fn records, and submits it.
func (h *harness) doPhase(runID, phase string, fn func() []string) flows.RunState {
	h.t.Helper()
	h.waitFor(runID, flows.RunWaitingForClient)
	brief := h.call("phase.claim", map[string]any{"run_id": runID, "phase": phase})
	if brief["phase"] != phase || brief["brief"] == "" {
		h.t.Fatalf("claim %s: %v", phase, brief)
	}
	ids := fn()
	if ids == nil {
		ids = []string{}
	}
	h.call("phase.submit", map[string]any{"run_id": runID, "phase": phase, "summary": "did " + phase, "recorded_ids": ids})
	return h.waitFor(runID, flows.RunAtGate)
}

// decide sends a gate decision as the REST route and CLI do.
func (h *harness) decide(runID string, d flows.GateDecision) (flows.RunState, error) {
	if d.Decider == "" {
		d.Decider = "alice"
	}
	d.Route = workflows.RouteDashboard
	return h.runs.Decide(h.ctx, runID, d)
}

func (h *harness) approve(runID string) {
	h.t.Helper()
	if _, err := h.decide(runID, flows.GateDecision{Decision: flows.DecisionApprove}); err != nil {
		h.t.Fatalf("approve the gate: %v", err)
	}
}

// stepBase64 is a minimal STEP file: twin.commit_geometry checks its header.
var stepBase64 = base64.StdEncoding.EncodeToString([]byte("ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n"))

// recordHistory writes the run's latest execution's history for the replay
// test, when -record is given.
func (h *harness) recordHistory(runID, file string) {
	h.t.Helper()
	h.recordWorkflow(workflows.DesignFlowWorkflowID(runID), "designflow", file)
}

// recordWorkflow writes a workflow's latest execution's history to
// ../workflows/testdata/<dir>/<file>, when -record is given.
func (h *harness) recordWorkflow(workflowID, dir, file string) {
	h.t.Helper()
	if *record {
		h.writeHistory(workflowID, dir, file)
	}
}

// writeHistory writes a workflow's latest execution's history to
// ../workflows/testdata/<dir>/<file>.
func (h *harness) writeHistory(workflowID, dir, file string) {
	h.t.Helper()
	var events []*historypb.HistoryEvent
	it := h.temporal.Client.GetWorkflowHistory(h.ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			h.t.Fatal(err)
		}
		events = append(events, ev)
	}
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(&historypb.History{Events: events})
	if err != nil {
		h.t.Fatal(err)
	}
	path := filepath.Join("..", "workflows", "testdata", dir)
	if err := os.MkdirAll(path, 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, file), append(b, '\n'), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// endFaces are a gmsh mesh's faces at the smallest and largest x: where a
// cantilever along x is held and loaded.
func endFaces(mesh map[string]any) (fixed, loaded string) {
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
