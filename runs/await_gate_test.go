package runs_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/flow"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// chat is an MCP client's person: it approves held writes when asked, and
// answers a gate's question with gateAnswer (nil declines it).
type chat struct {
	mu         sync.Mutex
	gateAnswer map[string]any
	gateAsked  []*mcp.ElicitParams
}

func (c *chat) handler(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	props, _ := req.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any)
	if _, isGate := props["decision"]; isGate {
		c.gateAsked = append(c.gateAsked, req.Params)
		if c.gateAnswer == nil {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: c.gateAnswer}, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
}

// flow.await_gate asks the person in the client's chat, offering only the
// decisions the gate allows; an accepted answer is recorded as a proposal
// and decides nothing until an identified person confirms it; a declined
// question leaves the gate as it was.
func TestAwaitGateAsksInTheChat(t *testing.T) {
	mem := twin.NewMemoryStore()
	blobs, err := twin.NewBlobStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	backend := &twinadapter.Backend{Store: mem, Sessions: mem, Blobs: blobs}
	svc := &runs.Service{}
	extra := append(twinadapter.New(backend), flow.New(&flow.Service{Engine: svc, Store: mem, Facts: backend})...)
	stack := mcptest.StartWithTwin(t, backend, extra...)
	svc.Client, svc.Namespace, svc.Registry = stack.Temporal.Client, stack.Temporal.Namespace, stack.Registry
	person := &chat{}
	cs := stack.Connect(t, &mcp.ClientOptions{ElicitationHandler: person.handler})
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	pc := call("project.create", map[string]any{"name": "chat-gates"})
	project, ok := pc["project_id"].(string)
	if !ok {
		t.Fatalf("project.create: %v", pc)
	}
	p := call("flow.propose", map[string]any{"project_id": project, "flow": "design_v1", "goal": "an aluminium 6061 bracket under 1 kg carrying 100 N",
		"manufacturing_context": "cnc_milling", "target_maturity": "prototype", "loads_and_use": "100 N"})
	q := approvals.Queue{Client: stack.Temporal.Client}
	if _, err := q.Decide(context.Background(), p["approval_id"].(string), workflows.Decision{Outcome: workflows.OutcomeApproved,
		Approver: "alice", Route: workflows.RouteDashboard}); err != nil {
		t.Fatal(err)
	}
	var runID string
	for deadline := time.Now().Add(30 * time.Second); runID == ""; {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "flow.start_run", Arguments: map[string]any{"flow_version_id": p["flow_version_id"]}})
		if err == nil && !res.IsError {
			var out map[string]any
			_ = json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out)
			runID = out["run_id"].(string)
		} else if time.Now().After(deadline) {
			t.Fatalf("start_run: %v %+v", err, res)
		}
	}
	call("phase.claim", map[string]any{"run_id": runID, "phase": "requirements"})
	cset := call("twin.record_constraint_set", map[string]any{"project_id": project, "name": "reqs", "constraints": []map[string]any{
		{"name": "light", "metric": "mass", "operator": "<=", "limit": 1, "unit": "kg", "verification_method": "inspection"}}})
	call("phase.submit", map[string]any{"run_id": runID, "phase": "requirements", "summary": "typed", "recorded_ids": []string{cset["node_id"].(string)}})

	// Declined: nothing recorded, the gate as it was.
	out := call("flow.await_gate", map[string]any{"run_id": runID, "wait_seconds": 60})
	if _, leaked := out[adapters.AskPersonKey]; leaked {
		t.Fatal("the question reached the client as data")
	}
	if a := out["chat_answer"].(map[string]any); a["action"] != "decline" {
		t.Fatalf("chat_answer after a decline: %v", a)
	}
	if len(person.gateAsked) != 1 {
		t.Fatalf("the gate was asked %d times", len(person.gateAsked))
	}
	offered := person.gateAsked[0].RequestedSchema.(map[string]any)["properties"].(map[string]any)["decision"].(map[string]any)["enum"]
	if b, _ := json.Marshal(offered); string(b) != `["approve","reject","rework"]` {
		t.Fatalf("offered decisions %s", b)
	}
	if !strings.Contains(person.gateAsked[0].Message, "G1-requirements") || !strings.Contains(person.gateAsked[0].Message, "confirms") {
		t.Fatalf("the question: %s", person.gateAsked[0].Message)
	}

	// Accepted: a proposal, not a decision.
	person.gateAnswer = map[string]any{"decision": "approve", "comment": "typed and complete"}
	out = call("flow.await_gate", map[string]any{"run_id": runID, "wait_seconds": 60})
	if a := out["chat_answer"].(map[string]any); a["recorded"] != true {
		t.Fatalf("chat_answer after an answer: %v", a)
	}
	st, err := svc.RunState(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	g := st.Phases[0].Gate
	if st.Status != flows.RunAtGate || g.Decision != nil || g.Proposed == nil || g.Proposed.Decision != "approve" || g.Proposed.Comment != "typed and complete" {
		t.Fatalf("after the chat answer: status %s, decision %+v, proposed %+v", st.Status, g.Decision, g.Proposed)
	}
	// A proposal the gate does not allow is refused.
	if _, err := svc.ProposeDecision(context.Background(), runID, flows.ProposedDecision{Decision: "rework", ReworkTo: "release"}); err == nil {
		t.Fatal("a rework to a phase not yet run was recorded as a proposal")
	}
	// The identified person confirms it.
	if _, err := svc.Decide(context.Background(), runID, flows.GateDecision{Decision: flows.DecisionApprove, Decider: "alice",
		Route: workflows.RouteDashboard}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		st, _ = svc.RunState(context.Background(), runID)
		if st.Phase == "concept" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the confirmed decision did not move the run: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
