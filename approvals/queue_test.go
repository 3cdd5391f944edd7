package approvals_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/workertest"
	"github.com/metaforge/metaforge/workflows"
)

// queueStack is the real embedded Temporal with the ToolCall workflow and
// the fixture adapter's workers, and the queue over it.
type queueStack struct {
	tmp    *worker.Temporal
	fx     *adaptertest.Fixture
	queue  approvals.Queue
	engine mcpserver.TemporalEngine
}

func startQueue(t *testing.T) *queueStack {
	t.Helper()
	tmp := workertest.StartTemporal(t)
	fx := &adaptertest.Fixture{}
	reg := adapters.NewRegistry()
	if err := reg.Register(fx); err != nil {
		t.Fatal(err)
	}
	workertest.StartWorkers(t, tmp, reg)
	return &queueStack{tmp: tmp, fx: fx, queue: approvals.Queue{Client: tmp.Client}, engine: mcpserver.TemporalEngine{Client: tmp.Client}}
}

// hold starts a held fixture call, as the MCP server does.
func (s *queueStack) hold(t *testing.T, toolID, key, project string, window int) string {
	t.Helper()
	id := mcpserver.NewCallID()
	in := workflows.ToolCallInput{CallID: id, ToolID: toolID, AdapterID: "fixture", Arguments: json.RawMessage(`{"key":"` + key + `"}`),
		TimeoutSeconds: 30, Caller: mcpserver.CallerUntrusted,
		Hold: &workflows.Hold{ApprovalID: id, Route: workflows.RouteDashboard, WindowSeconds: window, Reason: "writes; held for approval (untrusted caller)"}}
	ask := approvals.Ask{ToolID: toolID, AdapterID: "fixture", Summary: approvals.Summarize(in.Arguments), Reason: in.Hold.Reason,
		Caller: in.Caller, ProjectID: project, Route: in.Hold.Route, WindowSeconds: window}
	if _, err := s.engine.StartCall(context.Background(), in, &ask); err != nil {
		t.Fatal(err)
	}
	return id
}

// listed polls the queue (visibility is eventually consistent) until want
// holds are listed under f.
func (s *queueStack) listed(t *testing.T, f approvals.Filter, want int) []approvals.HeldCall {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got, err := s.queue.List(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == want || time.Now().After(deadline) {
			if len(got) != want {
				t.Fatalf("listed %d holds under %+v, want %d: %+v", len(got), f, want, got)
			}
			return got
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestQueueListsAndDecidesHolds(t *testing.T) {
	s := startQueue(t)
	ctx := context.Background()
	a := s.hold(t, "fixture.write", "qa", "proj-a", 60)
	b := s.hold(t, "fixture.write", "qb", "proj-b", 60)

	all := s.listed(t, approvals.Filter{}, 2)
	if all[0].ApprovalID != a || all[1].ApprovalID != b {
		t.Errorf("listed %s, %s; want oldest first: %s, %s", all[0].ApprovalID, all[1].ApprovalID, a, b)
	}
	h := all[0]
	if h.ToolID != "fixture.write" || h.ProjectID != "proj-a" || h.Caller != "untrusted" || h.Summary != "  key: qa" ||
		h.WorkflowID != "call-"+a || h.ExpiresAt.Sub(h.HeldSince) != time.Minute {
		t.Errorf("held call = %+v", h)
	}
	if got := s.listed(t, approvals.Filter{ProjectID: "proj-b"}, 1); got[0].ApprovalID != b {
		t.Errorf("project filter listed %s, want %s", got[0].ApprovalID, b)
	}
	s.listed(t, approvals.Filter{ToolID: "fixture.sign_off"}, 0)
	if _, err := s.queue.List(ctx, approvals.Filter{ProjectID: "x' OR '1'='1"}); !errors.Is(err, approvals.ErrBadFilter) {
		t.Errorf("a filter that is not an id: %v, want ErrBadFilter", err)
	}
	if s.fx.Attempts("qa") != 0 {
		t.Fatalf("a held write ran before any decision")
	}

	state, err := s.queue.Decide(ctx, a, workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: "Fidel", Route: workflows.RouteDashboard})
	if err != nil || state.Pending || state.Decision.Approver != "Fidel" {
		t.Fatalf("approve: %+v, %v", state, err)
	}
	res, err := s.engine.AwaitCall(ctx, a, "")
	if err != nil || res.Status != workflows.StatusSuccess || res.Approval.ApprovedBy != "Fidel" || s.fx.Attempts("qa") != 1 {
		t.Fatalf("approved call: %+v, %v; ran %d times", res, err, s.fx.Attempts("qa"))
	}
	if _, err := s.queue.Decide(ctx, a, workflows.Decision{Outcome: workflows.OutcomeRejected, Approver: "Fidel", Route: workflows.RouteDashboard}); !errors.Is(err, approvals.ErrNotPending) {
		t.Errorf("deciding an ended call: %v, want ErrNotPending", err)
	}
	if _, err := s.queue.Decide(ctx, "0123456789abcdef", workflows.Decision{Outcome: workflows.OutcomeRejected, Approver: "Fidel", Route: workflows.RouteDashboard}); !errors.Is(err, approvals.ErrNoSuchHold) {
		t.Errorf("deciding an unknown id: %v, want ErrNoSuchHold", err)
	}
	if _, err := s.queue.Decide(ctx, b, workflows.Decision{Outcome: workflows.OutcomeApproved, Route: workflows.RouteDashboard}); err == nil || !strings.Contains(err.Error(), "approver") {
		t.Errorf("an approval naming nobody: %v, want refused", err)
	}
	s.listed(t, approvals.Filter{}, 1)
}

// A running call that was never held cannot be decided.
func TestQueueRefusesACallNeverHeld(t *testing.T) {
	s := startQueue(t)
	id := mcpserver.NewCallID()
	in := workflows.ToolCallInput{CallID: id, ToolID: "fixture.sleep", AdapterID: "fixture", Arguments: json.RawMessage(`{"key":"n","sleep_ms":3000}`), TimeoutSeconds: 30}
	if _, err := s.engine.StartCall(context.Background(), in, nil); err != nil {
		t.Fatal(err)
	}
	_, err := s.queue.Decide(context.Background(), id, workflows.Decision{Outcome: workflows.OutcomeApproved, Approver: "x", Route: workflows.RouteDashboard})
	if !errors.Is(err, approvals.ErrNotPending) {
		t.Errorf("deciding a call never held: %v, want ErrNotPending", err)
	}
}

func TestDecisionEndpoint(t *testing.T) {
	s := startQueue(t)
	const token = "the-operator-token"
	a := mcpserver.Auth{OperatorToken: token}
	srv := httptest.NewServer(func() http.Handler {
		mux := http.NewServeMux()
		approvals.Handler{Queue: s.queue, Authority: approvals.Authority{Identify: a.Person}}.Register(mux)
		return a.APIMiddleware(mux)
	}())
	defer srv.Close()
	id := s.hold(t, "fixture.write", "h1", "", 60)
	s.listed(t, approvals.Filter{}, 1)

	send := func(id, body string, operator bool) (int, map[string]any) {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/approvals/"+id+"/decision", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		if operator {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	post := func(id, body string) (int, map[string]any) { return send(id, body, true) }
	if status, out := send(id, `{"decision":"approve","approver":"Fidel"}`, false); status != 401 || !strings.Contains(out["error"].(string), "only an identified person decides") {
		t.Errorf("a decision without the operator token: %d %v, want 401", status, out)
	}
	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{`{"decision":"yes","approver":"a"}`, 400, `say "approve" or "reject"`},
		{`{"decision":"approve","approver":"a","extra":1}`, 400, "unknown field"},
		{`not json`, 400, "must be JSON"},
	} {
		status, out := post(id, c.body)
		if status != c.status || !strings.Contains(out["error"].(string), c.says) {
			t.Errorf("%s: %d %v, want %d saying %q", c.body, status, out, c.status, c.says)
		}
	}
	if status, _ := post("ffffffffffffffff", `{"decision":"approve","approver":"a"}`); status != 404 {
		t.Errorf("unknown id: %d, want 404", status)
	}
	if s.fx.Attempts("h1") != 0 {
		t.Fatalf("bad requests ran the held write")
	}
	if status, out := post(id, `{"decision":"reject","approver":"Fidel","comment":"no"}`); status != 200 || out["outcome"] != "rejected" ||
		out["approver"] != "operator:Fidel" || out["approver_verified"] != true {
		t.Errorf("reject: %d %v", status, out)
	}
	if status, _ := post(id, `{"decision":"approve","approver":"Fidel"}`); status != 409 {
		t.Errorf("a second decision: %d, want 409", status)
	}
	res, err := s.engine.AwaitCall(context.Background(), id, "")
	if err != nil || res.Approval == nil || res.Approval.Outcome != workflows.OutcomeRejected || s.fx.Attempts("h1") != 0 {
		t.Errorf("rejected call: %+v, %v; ran %d times", res, err, s.fx.Attempts("h1"))
	}
	resp, err := http.Get(srv.URL + "/v1/approvals?project=" + "bad%20id")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("a bad filter: %d, want 400", resp.StatusCode)
	}
}
