//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Approval holds asked inline: the official MCP TypeScript SDK as an
// eliciting client (holds_elicit_client.mjs) answers, refuses, ignores,
// answers too late, or walks away from the question a held write puts to
// it, over stdio and over Streamable HTTP. The script asserts what it
// sees with node:assert and prints one JSON line, which these tests check
// again, together with what the server logged.

// Hold windows of the servers these tests start.
const (
	heShortWindow = "3"  // seconds: the window runs out within a test
	heHTTPWindow  = "30" // seconds: well over any wait of a test that answers
)

// heServe starts `metaforge serve` with extra environment and flags, no
// Temporal UI and info logs, and waits for /healthz. It returns the
// process and the /mcp URL.
func heServe(t *testing.T, env []string, args ...string) (*process, string) {
	t.Helper()
	ports := freePorts(t, 2)
	temporalPort, httpPort := ports[0], ports[1]
	all := append([]string{"serve",
		"--data-dir", filepath.Join(t.TempDir(), "data"),
		"--temporal-port", strconv.Itoa(temporalPort),
		"--ui-port", "0",
		"--http-addr", fmt.Sprintf("127.0.0.1:%d", httpPort),
		"--log-level", "info"}, args...)
	cmd := command(t, 3*time.Minute, binary, all...)
	cmd.Env = append(cmd.Env, env...)
	p := start(t, "metaforge serve", cmd)
	p.dataDir = all[2] // --data-dir
	waitHealthy(t, p, fmt.Sprintf("http://127.0.0.1:%d/healthz", httpPort), time.Minute)
	return p, fmt.Sprintf("http://127.0.0.1:%d/mcp", httpPort)
}

// heOperator is the environment of a client script that is the operator's
// own: it presents the token srv wrote, so its answers approve inline.
func heOperator(t *testing.T, srv *process) []string {
	t.Helper()
	return []string{"E2E_OPERATOR_TOKEN=" + operatorToken(t, srv.dataDir)}
}

// heMCPArgs are the arguments of a `metaforge mcp` that the client spawns,
// with its own embedded Temporal.
func heMCPArgs(t *testing.T, extra ...string) []string {
	t.Helper()
	return append([]string{binary, "mcp",
		"--data-dir", filepath.Join(t.TempDir(), "data"),
		"--temporal-port", strconv.Itoa(freePorts(t, 1)[0]),
		"--ui-port", "0",
		"--log-level", "info"}, extra...)
}

// heRun runs holds_elicit_client.mjs in mode against target and
// decodes the JSON line it prints into report. A failed expectation in the
// script fails the test with the script's reason. It returns the script's
// stderr, which carries a stdio server's logs.
func heRun(t *testing.T, env []string, report any, mode string, target ...string) string {
	t.Helper()
	cmd := command(t, 2*time.Minute, nodePath, append([]string{"holds_elicit_client.mjs", mode}, target...)...)
	cmd.Env = append(cmd.Env, env...)
	node := start(t, "node holds_elicit_client.mjs "+mode, cmd)
	code := node.wait(t, 110*time.Second)
	t.Logf("%s took %s", mode, time.Since(node.started).Round(time.Millisecond))
	stderr := node.stderr.String()
	if code != 0 {
		reason := ""
		if i := strings.Index(stderr, "holds_elicit_client FAILED"); i >= 0 {
			lines := strings.SplitN(stderr[i:], "\n", 8)
			reason = strings.Join(lines[:min(len(lines), 7)], "\n")
		}
		t.Fatalf("node holds_elicit_client.mjs %s exited %d: %s\n--- its stderr, without the embedded Temporal's logs:\n%s",
			mode, code, reason, tail(ownLogs(stderr), 40))
	}
	line := nodeStdoutLine(t, node)
	if err := json.Unmarshal([]byte(line), report); err != nil {
		t.Fatalf("%s: the client's line is not its JSON report: %v: %q", mode, err, line)
	}
	return stderr
}

// What the script reports.

type heErrorReport struct {
	Code    int            `json:"code"`
	Data    map[string]any `json:"data"`
	Message string         `json:"message"`
}

type heCallOutcome struct {
	CallID string `json:"call_id"`
	ToolID string `json:"tool_id"`
	State  string `json:"state"`
	Result struct {
		Status   string `json:"status"`
		Approval struct {
			Outcome     string  `json:"outcome"`
			Route       string  `json:"route"`
			HeldSeconds float64 `json:"held_seconds"`
		} `json:"approval"`
	} `json:"result"`
}

// heCheckApproved re-checks an approved hold's _meta.approval.
func heCheckApproved(t *testing.T, a approvalMeta, client string) {
	t.Helper()
	if !a.Held || a.Outcome != "approved" || a.Route != "elicitation" || !callIDRe.MatchString(a.ApprovalID) ||
		a.ApprovedBy != "the user of "+client || a.ApproverVerified || a.HeldSeconds < 0 || a.HeldSeconds > 60 {
		t.Errorf("_meta.approval %+v; want held, approved via elicitation by the user of %s, unverified", a, client)
	}
}

// heCheckRefusal re-checks a -32001 approval_required error.
func heCheckRefusal(t *testing.T, e heErrorReport, outcome, route string) {
	t.Helper()
	d := e.Data
	if e.Code != -32001 || d["code"] != "approval_required" || d["outcome"] != outcome || d["route"] != route || d["retryable"] != false {
		t.Errorf("error %d %v; want -32001 approval_required, outcome %s, route %s, not retryable", e.Code, d, outcome, route)
	}
	if id, _ := d["approval_id"].(string); !callIDRe.MatchString(id) {
		t.Errorf("data.approval_id %v", d["approval_id"])
	}
	_, held := d["held_seconds"]
	_, window := d["window_seconds"]
	if outcome == "not_configured" {
		if held || window {
			t.Errorf("a not_configured refusal carries held/window seconds: %v", d)
		}
	} else if !held || !window {
		t.Errorf("a %s refusal lacks held_seconds or window_seconds: %v", outcome, d)
	}
}

// heLogLine finds the server log line with msg and every attribute given.
func heLogLine(logs, msg string, attrs ...string) string {
	for _, l := range strings.Split(logs, "\n") {
		if !strings.Contains(l, "msg="+msg+" ") && !strings.HasSuffix(l, "msg="+msg) {
			continue
		}
		ok := true
		for _, a := range attrs {
			if !strings.Contains(l+" ", " "+a+" ") {
				ok = false
				break
			}
		}
		if ok {
			return l
		}
	}
	return ""
}

// ---------------------------------------------------------------------------

// TestHoldElicitStdio: over stdio the eliciting client is asked, inline,
// whether to run project.create; yes runs it and says so in the result, no
// refuses it with -32001 and writes nothing.
func TestHoldElicitStdio(t *testing.T) {
	t.Parallel()
	var r struct {
		Approved            approvalMeta  `json:"approved"`
		ApprovedMessage     string        `json:"approvedMessage"`
		ApprovedNote        string        `json:"approvedNote"`
		NamesAfterApproval  []string      `json:"namesAfterApproval"`
		Rejected            heErrorReport `json:"rejected"`
		NamesAfterRejection []string      `json:"namesAfterRejection"`
	}
	logs := heRun(t, nil, &r, "stdio-approve-reject", heMCPArgs(t)...)

	heCheckApproved(t, r.Approved, "metaforge-e2e-elicit-stdio")
	if len(r.NamesAfterApproval) != 1 {
		t.Fatalf("project.list after the approval: %v", r.NamesAfterApproval)
	}
	name := r.NamesAfterApproval[0]
	for _, want := range []string{"project.create", "name: " + name, "Approval " + r.Approved.ApprovalID, "local (metaforge-e2e-elicit-stdio)"} {
		if !strings.Contains(r.ApprovedMessage, want) {
			t.Errorf("the question lacks %q:\n%s", want, r.ApprovedMessage)
		}
	}
	if !strings.HasPrefix(r.ApprovedNote, "This write was held for human approval and was approved by the user of metaforge-e2e-elicit-stdio") {
		t.Errorf("the second content block: %q", r.ApprovedNote)
	}
	heCheckRefusal(t, r.Rejected, "rejected", "elicitation")
	if strings.Join(r.NamesAfterRejection, ",") != name {
		t.Errorf("project.list after the refusal: %v, want only %s", r.NamesAfterRejection, name)
	}
	// Both holds were ruled local, asked inline.
	if heLogLine(logs, "mcp_tool_call_held_for_approval", "callId="+r.Approved.ApprovalID, "caller=local", "route=elicitation") == "" {
		t.Errorf("no held-for-approval log line for %s (caller=local route=elicitation):\n%s", r.Approved.ApprovalID, tail(ownLogs(logs), 20))
	}
}

// TestHoldElicitHTTP: over Streamable HTTP the question goes down the
// POST's own SSE response when the client has no GET stream, down the GET
// stream when it has one; and a client that goes away while asked leaves
// no hold pending and nothing written.
func TestHoldElicitHTTP(t *testing.T) {
	t.Parallel()
	srv, url := heServe(t, []string{"METAFORGE_APPROVAL_HOLD_SECONDS=" + heHTTPWindow, "METAFORGE_APPROVAL_HOLD_PROGRESS_SECONDS=" + heHTTPWindow})

	type approveReport struct {
		Approved        approvalMeta `json:"approved"`
		CallContentType string       `json:"callContentType"`
		PostStream      []string     `json:"postStream"`
		GetStream       []string     `json:"getStream"`
		GetStatuses     []int        `json:"getStatuses"`
		SessionID       string       `json:"sessionId"`
	}
	approve := func(t *testing.T, mode string) approveReport {
		var r approveReport
		heRun(t, heOperator(t, srv), &r, mode, url)
		heCheckApproved(t, r.Approved, "metaforge-e2e-elicit-"+mode)
		t.Logf("tools/call answered %s carrying %v; the GET stream (statuses %v) carried %v", r.CallContentType, r.PostStream, r.GetStatuses, r.GetStream)
		if r.SessionID == "" {
			t.Errorf("no session id")
		}
		// An answer in time is no late answer.
		if l := heLogLine(srv.stderr.String(), "mcp_elicitation_late_response_ignored", "session="+r.SessionID); l != "" {
			t.Errorf("a timely answer was logged as late: %s", l)
		}
		if heLogLine(srv.stderr.String(), "mcp_tool_call_held_for_approval", "callId="+r.Approved.ApprovalID, "caller=local", "route=elicitation") == "" {
			t.Errorf("no held-for-approval log line for %s (caller=local route=elicitation: the operator's own client)", r.Approved.ApprovalID)
		}
		return r
	}

	t.Run("question on the POST's own SSE stream", func(t *testing.T) {
		r := approve(t, "http-own-sse")
		if !strings.HasPrefix(r.CallContentType, "text/event-stream") {
			t.Errorf("the tools/call POST was answered %q, want an SSE stream: no GET stream was open", r.CallContentType)
		}
		if len(r.PostStream) != 2 || r.PostStream[0] != "elicitation/create" || !strings.HasPrefix(r.PostStream[1], "response ") {
			t.Errorf("the tools/call POST's stream carried %v; want the question, then the result", r.PostStream)
		}
		if len(r.GetStream) != 0 || len(r.GetStatuses) == 0 || r.GetStatuses[0] != 405 {
			t.Errorf("GET /mcp was to be refused (405): statuses %v, messages %v", r.GetStatuses, r.GetStream)
		}
	})

	t.Run("question on the standalone GET stream", func(t *testing.T) {
		r := approve(t, "http-get-stream")
		if len(r.GetStream) != 1 || r.GetStream[0] != "elicitation/create" {
			t.Errorf("the GET stream carried %v; want the question", r.GetStream)
		}
		if len(r.PostStream) != 1 || !strings.HasPrefix(r.PostStream[0], "response ") {
			t.Errorf("the tools/call POST's answer carried %v; want only the result", r.PostStream)
		}
	})

	t.Run("client hangs up while asked", func(t *testing.T) {
		var r struct {
			Variants []struct {
				Mode          string        `json:"mode"`
				ApprovalID    string        `json:"approvalId"`
				WindowSeconds int           `json:"windowSeconds"`
				EndedAfterMs  int           `json:"endedAfterMs"`
				HeldSeconds   float64       `json:"heldSeconds"`
				Outcome       heCallOutcome `json:"outcome"`
				Delete        *struct {
					Status int    `json:"status"`
					Error  string `json:"error"`
					Ms     int    `json:"ms"`
				} `json:"delete"`
			} `json:"variants"`
		}
		heRun(t, heOperator(t, srv), &r, "http-hangup", url)
		if len(r.Variants) != 3 {
			t.Fatalf("%d variants reported, want 3", len(r.Variants))
		}
		const endWithin = 10 * time.Second
		for _, v := range r.Variants {
			t.Run(v.Mode, func(t *testing.T) {
				o := v.Outcome
				if o.CallID != v.ApprovalID || o.ToolID != "project.create" || o.State != "completed" || o.Result.Status != "error" ||
					o.Result.Approval.Outcome != "timed_out" || o.Result.Approval.Route != "elicitation" {
					t.Errorf("call.get_result %+v; want project.create completed with an error, its hold timed_out via elicitation", o)
				}
				ended := time.Duration(v.EndedAfterMs) * time.Millisecond
				t.Logf("approval %s: pending for %s after the client went (window %ds); held %.1fs in all",
					v.ApprovalID, ended.Round(time.Millisecond), v.WindowSeconds, v.HeldSeconds)
				if ended > endWithin {
					t.Errorf("approval %s stayed pending (call.get_result: running) for %s after its client went (%s), until its %ds window ran out; "+
						"a client that is gone cannot answer, so the hold should end timed_out within %s",
						v.ApprovalID, ended.Round(100*time.Millisecond), v.Mode, v.WindowSeconds, endWithin)
				}
				if v.Delete != nil {
					took := time.Duration(v.Delete.Ms) * time.Millisecond
					t.Logf("DELETE /mcp: status %d %s after %s", v.Delete.Status, v.Delete.Error, took.Round(time.Millisecond))
					if v.Delete.Error != "" || v.Delete.Status/100 != 2 {
						t.Errorf("DELETE /mcp with a question open: status %d %s", v.Delete.Status, v.Delete.Error)
					}
					if took > 5*time.Second {
						t.Errorf("DELETE /mcp took %s to answer while a held call's question was open (window %ds); it should end the session at once",
							took.Round(100*time.Millisecond), v.WindowSeconds)
					}
				}
			})
		}
	})
}

// heTimeoutReport is what the timeout modes report.
type heTimeoutReport struct {
	CallMs         int           `json:"callMs"`
	Error          heErrorReport `json:"error"`
	AbortedAfterMs int           `json:"abortedAfterMs"`
	Cancelled      struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		} `json:"params"`
	} `json:"cancelled"`
	SessionID             string `json:"sessionId"`
	CancelledBeforeResult bool   `json:"cancelledBeforeResult"`
}

// heCheckTimeout re-checks a timed-out hold. With sameChannel the
// withdrawal and the result came down one ordered channel (stdio, or the
// POST's own SSE stream), so the withdrawal must come first.
func heCheckTimeout(t *testing.T, r heTimeoutReport, sameChannel bool) {
	t.Helper()
	if sameChannel && !r.CancelledBeforeResult {
		t.Errorf("the call's -32001 result reached the client before notifications/cancelled withdrew its question")
	}
	heCheckRefusal(t, r.Error, "timed_out", "elicitation")
	if w, _ := r.Error.Data["window_seconds"].(float64); w != 3 {
		t.Errorf("window_seconds %v, want 3", r.Error.Data["window_seconds"])
	}
	if h, _ := r.Error.Data["held_seconds"].(float64); h < 2.5 || h > 10 {
		t.Errorf("held_seconds %v for a 3 s window", r.Error.Data["held_seconds"])
	}
	if r.Cancelled.Method != "notifications/cancelled" || len(r.Cancelled.Params.RequestID) == 0 {
		t.Errorf("no notifications/cancelled for the question: %+v", r.Cancelled)
	}
	if r.AbortedAfterMs < 2000 || r.AbortedAfterMs > 10000 {
		t.Errorf("the question was withdrawn %d ms after it was asked, for a 3 s window", r.AbortedAfterMs)
	}
	t.Logf("call ended after %d ms; question withdrawn after %d ms (%s), before the result: %v",
		r.CallMs, r.AbortedAfterMs, r.Cancelled.Params.Reason, r.CancelledBeforeResult)
}

// TestHoldElicitTimeout: a question nobody answers is withdrawn with
// notifications/cancelled when its window ends, the call ends timed_out
// with nothing written, and an answer that comes after that is
// acknowledged, logged, and never applied.
func TestHoldElicitTimeout(t *testing.T) {
	t.Parallel()
	env := []string{"METAFORGE_APPROVAL_HOLD_SECONDS=" + heShortWindow, "METAFORGE_APPROVAL_HOLD_PROGRESS_SECONDS=" + heShortWindow}
	srv, url := heServe(t, env)

	for _, mode := range []string{"http-timeout", "http-timeout-no-get"} {
		t.Run(mode, func(t *testing.T) {
			var r heTimeoutReport
			heRun(t, heOperator(t, srv), &r, mode, url)
			heCheckTimeout(t, r, mode == "http-timeout-no-get")
			id, _ := r.Error.Data["approval_id"].(string)
			if heLogLine(srv.stderr.String(), "mcp_elicitation_withdrawn", "approval_id="+id) == "" {
				t.Errorf("the server did not log withdrawing the question of %s", id)
			}
		})
	}

	t.Run("stdio", func(t *testing.T) {
		var r heTimeoutReport
		logs := heRun(t, env, &r, "stdio-timeout", heMCPArgs(t)...)
		heCheckTimeout(t, r, true)
		id, _ := r.Error.Data["approval_id"].(string)
		if heLogLine(logs, "mcp_elicitation_withdrawn", "approval_id="+id) == "" {
			t.Errorf("the server did not log withdrawing the question of %s:\n%s", id, tail(ownLogs(logs), 20))
		}
	})

	t.Run("late answer", func(t *testing.T) {
		var r struct {
			RequestID  json.RawMessage `json:"requestId"`
			ApprovalID string          `json:"approvalId"`
			SessionID  string          `json:"sessionId"`
			LateStatus int             `json:"lateStatus"`
			Outcome    heCallOutcome   `json:"outcome"`
		}
		heRun(t, heOperator(t, srv), &r, "http-late", url)
		if r.LateStatus != 202 {
			t.Errorf("the late answer got HTTP %d, want 202", r.LateStatus)
		}
		if r.Outcome.State != "completed" || r.Outcome.Result.Status != "error" || r.Outcome.Result.Approval.Outcome != "timed_out" {
			t.Errorf("call.get_result after the late answer: %+v; want the hold timed_out and the call not run", r.Outcome)
		}
		// The id is the raw JSON of the elicitation request's id.
		want := []string{"session=" + r.SessionID, "id=" + string(r.RequestID)}
		deadline := time.Now().Add(5 * time.Second)
		for heLogLine(srv.stderr.String(), "mcp_elicitation_late_response_ignored", want...) == "" {
			if time.Now().After(deadline) {
				t.Fatalf("the server did not log mcp_elicitation_late_response_ignored %v:\n%s", want,
					tail(heLogLine(ownLogs(srv.stderr.String()), "mcp_elicitation_late_response_ignored"), 5))
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// TestHoldElicitNotConfigured: a local server told to hold local writes,
// with no queue a person can reach, refuses a write at once when its
// client cannot be asked; without --hold-local-writes the same client's
// local write runs unheld.
func TestHoldElicitNotConfigured(t *testing.T) {
	t.Parallel()
	t.Run("--hold-local-writes --approval-queue=false", func(t *testing.T) {
		var r struct {
			CallMs int           `json:"callMs"`
			Error  heErrorReport `json:"error"`
		}
		heRun(t, nil, &r, "stdio-not-configured", heMCPArgs(t, "--hold-local-writes", "--approval-queue=false")...)
		heCheckRefusal(t, r.Error, "not_configured", "none")
		if r.CallMs > 5000 {
			t.Errorf("the refusal took %d ms; it should come at once", r.CallMs)
		}
	})
	t.Run("--approval-queue=false alone", func(t *testing.T) {
		var r struct {
			Meta map[string]any `json:"meta"`
		}
		heRun(t, nil, &r, "stdio-local-exempt", heMCPArgs(t, "--approval-queue=false")...)
		if _, held := r.Meta["approval"]; held {
			t.Errorf("a local write from a client that cannot be asked was held: _meta %v", r.Meta)
		}
		if id, _ := r.Meta["callId"].(string); !callIDRe.MatchString(id) {
			t.Errorf("_meta.callId %v", r.Meta["callId"])
		}
	})
}
