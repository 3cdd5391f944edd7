package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
)

// answering is a client that answers every elicitation with res, and
// records the questions.
func answering(res *mcp.ElicitResult, asked *[]string) *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		*asked = append(*asked, req.Params.Message)
		return res, nil
	}}
}

func callWrite(t *testing.T, cs *mcp.ClientSession, tool, key string) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"key": key}})
}

// approvalData is the data of a -32001 approval_required error.
func approvalData(t *testing.T, err error) map[string]any {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32001 {
		t.Fatalf("error %v, want JSON-RPC -32001", err)
	}
	var data map[string]any
	if err := json.Unmarshal(rpcErr.Data, &data); err != nil || data["code"] != "approval_required" || data["retryable"] != false {
		t.Fatalf("error data %s, want code approval_required, retryable false", rpcErr.Data)
	}
	if !strings.Contains(rpcErr.Message, data["outcome"].(string)) {
		t.Errorf("message %q does not state outcome %v", rpcErr.Message, data["outcome"])
	}
	return data
}

// A local client that can be asked is asked; its yes runs the write and the
// result says it was held.
func TestElicitedApprovalRunsTheWrite(t *testing.T) {
	s := theStack(t)
	var asked []string
	cs := s.connect(t, answering(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, &asked))
	res, err := callWrite(t, cs, "fixture.write", "el-yes")
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "fixture.write") || !strings.Contains(asked[0], "key: el-yes") {
		t.Errorf("questions asked: %q", asked)
	}
	a, _ := res.Meta["approval"].(map[string]any)
	if a["outcome"] != "approved" || a["route"] != "elicitation" || a["held"] != true || a["approverVerified"] != false ||
		a["approvalId"] != callID(t, res) {
		t.Errorf("_meta.approval = %v", a)
	}
	if len(res.Content) != 2 || !strings.Contains(res.Content[1].(*mcp.TextContent).Text, "This write was held for human approval and was approved by") {
		t.Errorf("content = %v, want the tool's output and a second block saying it was held", res.Content)
	}
	if n := s.fixture.Attempts("el-yes"); n != 1 {
		t.Errorf("the approved write ran %d times, want 1", n)
	}
}

func TestElicitedRefusalsNeverRun(t *testing.T) {
	s := theStack(t)
	for _, c := range []struct {
		name    string
		answer  *mcp.ElicitResult
		outcome string
	}{
		{"no", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": false}}, "rejected"},
		{"no-boolean", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": "yes"}}, "rejected"},
		{"decline", &mcp.ElicitResult{Action: "decline"}, "rejected"},
		{"cancel", &mcp.ElicitResult{Action: "cancel"}, "timed_out"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var asked []string
			cs := s.connect(t, answering(c.answer, &asked))
			key := "el-" + c.name
			_, err := callWrite(t, cs, "fixture.write", key)
			data := approvalData(t, err)
			if data["outcome"] != c.outcome || data["route"] != "elicitation" {
				t.Errorf("data = %v, want outcome %s via elicitation", data, c.outcome)
			}
			if n := s.fixture.Attempts(key); n != 0 || len(asked) != 1 {
				t.Errorf("asked %d times, ran %d times; want asked once, never run", len(asked), n)
			}
		})
	}
}

// A local client that cannot be asked is exempt: its write runs at once,
// and says nothing about a hold. Reads are never held.
func TestLocalWriteWithoutElicitationIsNotHeld(t *testing.T) {
	s := theStack(t)
	cs := s.connect(t, nil)
	res, err := callWrite(t, cs, "fixture.write", "local-exempt")
	if err != nil || res.IsError {
		t.Fatalf("%v %v", res, err)
	}
	if _, held := res.Meta["approval"]; held || len(res.Content) != 1 {
		t.Errorf("a call never held reports a hold: meta %v, %d content blocks", res.Meta, len(res.Content))
	}
	var asked []string
	cs = s.connect(t, answering(&mcp.ElicitResult{Action: "decline"}, &asked))
	if res, err := callWrite(t, cs, "fixture.echo", "read"); err != nil || res.IsError || len(asked) != 0 {
		t.Errorf("a read from an eliciting client: %v %v, asked %d times; want it run at once", res, err, len(asked))
	}
}

// A human-authority tool is asked inline, then refused: the answer
// identifies nobody.
func TestHumanAuthorityRefusesInlineApproval(t *testing.T) {
	s := theStack(t)
	var asked []string
	cs := s.connect(t, answering(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, &asked))
	_, err := callWrite(t, cs, "fixture.sign_off", "sign-inline")
	data := approvalData(t, err)
	if data["outcome"] != "rejected" || !strings.Contains(data["details"].(string), "did not identify who granted it") || len(asked) != 1 {
		t.Errorf("data %v after %d questions", data, len(asked))
	}
	if n := s.fixture.Attempts("sign-inline"); n != 0 {
		t.Errorf("the sign-off ran %d times on an anonymous approval", n)
	}
}

// Told to hold writes with nowhere to decide them, the server refuses at
// once with not_configured and never starts the call.
func TestHoldWithNoWayToDecideIsNotConfigured(t *testing.T) {
	fx := &adaptertest.Fixture{}
	s := mcptest.StartConfigured(t, func(o *mcpserver.Options) {
		o.Holds.HoldLocalWrites = true
		o.Holds.QueueReachable = false
	}, fx)
	cs := s.Connect(t, nil)
	start := time.Now()
	_, err := callWrite(t, cs, "fixture.write", "nc")
	data := approvalData(t, err)
	if data["outcome"] != "not_configured" || time.Since(start) > 10*time.Second {
		t.Errorf("data %v after %s", data, time.Since(start))
	}
	if _, ok := data["held_seconds"]; ok {
		t.Errorf("not_configured reports held_seconds: %v", data)
	}
	if fx.Attempts("nc") != 0 {
		t.Errorf("a not_configured write ran")
	}
}

// health.check reports the connection: its auth posture and its client.
func TestHealthReportsAuthAndClient(t *testing.T) {
	s := theStack(t)
	var asked []string
	cs := s.connect(t, answering(&mcp.ElicitResult{Action: "cancel"}, &asked))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "health.check", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("%v %v", res, err)
	}
	var report struct {
		Auth   map[string]any `json:"auth"`
		Client map[string]any `json:"client"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatal(err)
	}
	if report.Auth["mode"] != "open" || report.Auth["transport"] != "stdio" || report.Auth["identifies_caller"] != false ||
		!strings.Contains(report.Auth["detail"].(string), "no call is attributable") {
		t.Errorf("auth = %v", report.Auth)
	}
	c := report.Client
	if c["connected"] != true || c["name"] != "mcptest" || c["can_elicit"] != true || c["protocol_skew"] != false ||
		c["protocol_requested"] != c["protocol_negotiated"] {
		t.Errorf("client = %v", c)
	}
	if len(asked) != 0 {
		t.Errorf("a read asked the client %d times", len(asked))
	}
}

// The legacy dialect goes through the same gate: an untrusted caller's
// tool/call write waits in the queue and runs only once approved; a
// rejection is -32001 with data.error_type approval_required.
func TestLegacyWriteFromUntrustedCallerIsHeld(t *testing.T) {
	fx := &adaptertest.Fixture{}
	s := mcptest.StartConfigured(t, func(o *mcpserver.Options) {
		o.Caller = mcpserver.CallerUntrusted
		o.Transport = mcpserver.TransportHTTP
		o.Auth = mcpserver.Auth{OperatorToken: testOperatorToken}
	}, fx)
	ts := httptest.NewServer(s.Server.HTTPHandler())
	defer ts.Close()
	queue := approvals.Queue{Client: s.Temporal.Client}
	rig := &authorityRig{client: &http.Client{Timeout: 30 * time.Second}}

	for _, c := range []struct{ key, decision string }{{"legacy-yes", "approve"}, {"legacy-no", "reject"}} {
		done := make(chan map[string]any, 1)
		go func() {
			_, out := postJSON(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":"w","method":"tool/call","params":{"tool_id":"fixture.write","arguments":{"key":"`+c.key+`"}}}`)
			done <- out
		}()
		var id string
		deadline := time.Now().Add(15 * time.Second)
		for id == "" && time.Now().Before(deadline) {
			held, err := queue.List(context.Background(), approvals.Filter{ToolID: "fixture.write"})
			if err != nil {
				t.Fatal(err)
			}
			if len(held) == 1 && held[0].Summary == "  key: "+c.key {
				id = held[0].ApprovalID
			}
			time.Sleep(50 * time.Millisecond)
		}
		if id == "" || fx.Attempts(c.key) != 0 {
			t.Fatalf("%s: hold listed %q, ran %d times before a decision", c.key, id, fx.Attempts(c.key))
		}
		status, decided := rig.decide(t, ts.URL, id, map[string]string{"Authorization": "Bearer " + testOperatorToken}, `{"decision":"`+c.decision+`","approver":"Fidel"}`)
		if status != 200 {
			t.Fatalf("decision: %d %v", status, decided)
		}
		out := <-done
		if c.decision == "approve" {
			res, _ := out["result"].(map[string]any)
			if res["status"] != "success" || fx.Attempts(c.key) != 1 {
				t.Errorf("approved legacy call = %v, ran %d times", out, fx.Attempts(c.key))
			}
			continue
		}
		e, _ := out["error"].(map[string]any)
		data, _ := e["data"].(map[string]any)
		if e["code"] != float64(-32001) || data["error_type"] != "approval_required" || data["outcome"] != "rejected" || fx.Attempts(c.key) != 0 {
			t.Errorf("rejected legacy call = %v, ran %d times", out, fx.Attempts(c.key))
		}
	}
}
