//go:build unix

package e2e

// Approval holds decided outside the client: the dashboard's REST API
// (/v1/approvals), the CLI (metaforge approvals/approve/reject), a crash of
// the server while a hold is pending, and the HTTP auth modes. The MCP
// client is the official TypeScript SDK (holds_dashboard_client.mjs), which
// declares no elicitation capability, so every held write waits in the
// dashboard queue.

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ---------------------------------------------------------------------------
// The server

// hdServer is a `metaforge serve` this file started.
type hdServer struct {
	p            *process
	base         string // http://127.0.0.1:PORT
	temporalPort int
	httpPort     int
	dataDir      string
}

// hdServe starts `metaforge serve` on dataDir and the given ports, with
// extra environment variables, and waits for /healthz.
func hdServe(t *testing.T, dataDir string, temporalPort, httpPort int, env ...string) *hdServer {
	t.Helper()
	cmd := command(t, 3*time.Minute, binary, "serve",
		"--data-dir", dataDir,
		"--temporal-port", strconv.Itoa(temporalPort),
		"--ui-port", "0",
		"--http-addr", fmt.Sprintf("127.0.0.1:%d", httpPort))
	var kept []string
	for _, kv := range cmd.Env {
		if strings.HasPrefix(kv, "METAFORGE_") || strings.HasPrefix(kv, "NEO4J_") {
			continue // only what this test sets
		}
		kept = append(kept, kv)
	}
	cmd.Env = append(kept, env...)
	p := start(t, "metaforge serve", cmd)
	base := fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	waitHealthy(t, p, base+"/healthz", time.Minute)
	return &hdServer{p: p, base: base, temporalPort: temporalPort, httpPort: httpPort, dataDir: dataDir}
}

// operator is the local operator's credential: the token this serve
// wrote to its data dir (new at each start).
func (s *hdServer) operator(t *testing.T) map[string]string {
	t.Helper()
	return bearer(operatorToken(t, s.dataDir))
}

// cliAt are the flags that point the CLI at this serve.
func (s *hdServer) cliAt() []string { return []string{"--data-dir", s.dataDir, "--url", s.base} }

// kill SIGKILLs the server's whole process group and waits for it to end.
func (s *hdServer) kill(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(-s.p.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL metaforge serve: %v", err)
	}
	select {
	case <-s.p.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("metaforge serve did not end within 15 s of SIGKILL")
	}
}

// ---------------------------------------------------------------------------
// The TypeScript client

// hdEvent is one line holds_dashboard_client.mjs printed.
type hdEvent struct {
	ID              string        `json:"id"`
	Kind            string        `json:"kind"`
	Progress        float64       `json:"progress"`
	Total           *float64      `json:"total"`
	Message         string        `json:"message"`
	AtMs            float64       `json:"atMs"`
	Result          *hdToolResult `json:"result"`
	Error           *hdRPCError   `json:"error"`
	ElapsedMs       float64       `json:"elapsedMs"`
	ProtocolVersion string        `json:"protocolVersion"`
	SessionID       string        `json:"sessionId"`
	ServerName      string        `json:"serverName"`
	raw             string
}

type hdToolResult struct {
	Meta    map[string]json.RawMessage `json:"_meta"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

type hdRPCError struct {
	MCP     bool            `json:"mcp"`
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// hdApprovalError is the data of a -32001 approval_required error.
type hdApprovalError struct {
	Code          string   `json:"code"`
	Outcome       string   `json:"outcome"`
	ApprovalID    string   `json:"approval_id"`
	Route         string   `json:"route"`
	Where         string   `json:"where"`
	HeldSeconds   *float64 `json:"held_seconds"`
	WindowSeconds *int     `json:"window_seconds"`
	Retryable     *bool    `json:"retryable"`
	Comment       string   `json:"comment"`
}

// hdClient is one running holds_dashboard_client.mjs.
type hdClient struct {
	name  string
	p     *process
	stdin io.WriteCloser
	mu    sync.Mutex
	evs   []hdEvent
	bad   []string // lines that were not JSON
	eof   bool
	wake  chan struct{} // closed and replaced whenever something arrives
	seq   int
}

// hdNode starts the client and connects it to the server's /mcp with the
// given HTTP headers.
func hdNode(t *testing.T, s *hdServer, name string, headers map[string]string) *hdClient {
	t.Helper()
	cmd := command(t, 3*time.Minute, nodePath, "holds_dashboard_client.mjs")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := stdoutPipe(t, cmd)
	c := &hdClient{name: name, stdin: stdin, wake: make(chan struct{})}
	c.p = start(t, "node holds_dashboard_client.mjs ("+name+")", cmd)
	go c.read(stdout)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s events:\n%s", name, c.transcript())
		}
	})
	c.send(t, map[string]any{"id": "connect", "op": "connect", "url": s.base + "/mcp", "name": name, "headers": headers})
	ev := c.waitKind(t, "connect", 30*time.Second, "connected")
	if ev.ServerName != "metaforge-mcp" || ev.SessionID == "" || ev.ProtocolVersion == "" {
		t.Fatalf("%s connected to %q, session %q, protocol %q", name, ev.ServerName, ev.SessionID, ev.ProtocolVersion)
	}
	return c
}

func (c *hdClient) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var ev hdEvent
		err := json.Unmarshal([]byte(line), &ev)
		ev.raw = line
		c.mu.Lock()
		if err != nil {
			c.bad = append(c.bad, line)
		} else {
			c.evs = append(c.evs, ev)
		}
		close(c.wake)
		c.wake = make(chan struct{})
		c.mu.Unlock()
	}
	c.mu.Lock()
	c.eof = true
	close(c.wake)
	c.wake = make(chan struct{})
	c.mu.Unlock()
}

func (c *hdClient) send(t *testing.T, cmd map[string]any) {
	t.Helper()
	b, err := json.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		t.Fatalf("write to %s: %v (exited: %v)", c.name, err, c.p.exited())
	}
}

// call starts a tools/call and returns its id; progress asks for
// notifications/progress (the client sends a progressToken).
func (c *hdClient) call(t *testing.T, tool string, args any, progress bool) string {
	t.Helper()
	c.mu.Lock()
	c.seq++
	id := fmt.Sprintf("%s#%d", tool, c.seq)
	c.mu.Unlock()
	c.send(t, map[string]any{"id": id, "op": "call", "name": tool, "arguments": args, "progress": progress, "timeoutMs": 130_000})
	return id
}

// find is the first event matching, if any; it fails the test on a fatal
// event or a line that was not JSON.
func (c *hdClient) find(t *testing.T, match func(hdEvent) bool) (hdEvent, bool, bool, chan struct{}) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bad) > 0 {
		t.Fatalf("%s printed a line that is not JSON: %q", c.name, c.bad[0])
	}
	for _, ev := range c.evs {
		if ev.Kind == "fatal" {
			t.Fatalf("%s failed: %s", c.name, ev.raw)
		}
		if match(ev) {
			return ev, true, c.eof, c.wake
		}
	}
	return hdEvent{}, false, c.eof, c.wake
}

// waitFor waits up to d for an event matching.
func (c *hdClient) waitFor(t *testing.T, what string, d time.Duration, match func(hdEvent) bool) hdEvent {
	t.Helper()
	deadline := time.After(d)
	for {
		ev, ok, eof, wake := c.find(t, match)
		if ok {
			return ev
		}
		if eof {
			code := c.p.wait(t, 10*time.Second)
			t.Fatalf("%s exited %d while waiting for %s:\n%s", c.name, code, what, tail(c.p.stderr.String(), 20))
		}
		select {
		case <-wake:
		case <-deadline:
			t.Fatalf("%s: no %s within %s", c.name, what, d)
		}
	}
}

func (c *hdClient) waitKind(t *testing.T, id string, d time.Duration, kinds ...string) hdEvent {
	t.Helper()
	return c.waitFor(t, fmt.Sprintf("%v for %s", kinds, id), d, func(ev hdEvent) bool {
		return ev.ID == id && slices.Contains(kinds, ev.Kind)
	})
}

// outcome waits for a call's result or error.
func (c *hdClient) outcome(t *testing.T, id string, d time.Duration) hdEvent {
	t.Helper()
	return c.waitKind(t, id, d, "result", "error")
}

// ended says whether a call has its result or error already.
func (c *hdClient) ended(t *testing.T, id string) bool {
	t.Helper()
	_, ok, _, _ := c.find(t, func(ev hdEvent) bool { return ev.ID == id && (ev.Kind == "result" || ev.Kind == "error") })
	return ok
}

// progress is the progress notifications a call received so far.
func (c *hdClient) progress(id string) []hdEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []hdEvent
	for _, ev := range c.evs {
		if ev.ID == id && ev.Kind == "progress" {
			out = append(out, ev)
		}
	}
	return out
}

// waitProgress waits until a call has received n progress notifications.
func (c *hdClient) waitProgress(t *testing.T, id string, n int, d time.Duration) []hdEvent {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if got := c.progress(id); len(got) >= n {
			return got
		}
		if c.ended(t, id) {
			t.Fatalf("%s ended with %d progress notifications, want %d first", id, len(c.progress(id)), n)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d progress notifications after %s, want %d", id, len(c.progress(id)), d, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// close closes the client's session and checks it exits 0.
func (c *hdClient) close(t *testing.T) {
	t.Helper()
	// A progress notification after its call's answer, or a broken
	// stream, is an error the SDK reports through onerror.
	if ev, ok, _, _ := c.find(t, func(ev hdEvent) bool { return ev.Kind == "transport_error" }); ok {
		t.Errorf("%s: the SDK reported a transport error: %s", c.name, ev.raw)
	}
	c.send(t, map[string]any{"id": "close", "op": "close"})
	c.waitKind(t, "close", 15*time.Second, "closed")
	if code := c.p.wait(t, 10*time.Second); code != 0 {
		t.Errorf("%s exited %d:\n%s", c.name, code, tail(c.p.stderr.String(), 20))
	}
}

func (c *hdClient) transcript() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var lines []string
	for _, ev := range c.evs {
		lines = append(lines, ev.raw)
	}
	lines = append(lines, c.bad...)
	return tail(strings.Join(lines, "\n"), 40)
}

// ---------------------------------------------------------------------------
// What the client got

// hdResult checks ev is a successful tools/call result and returns it.
func hdResult(t *testing.T, ev hdEvent) *hdToolResult {
	t.Helper()
	if ev.Kind != "result" || ev.Result == nil {
		t.Fatalf("%s: want a result, got %s", ev.ID, ev.raw)
	}
	if ev.Result.IsError {
		t.Fatalf("%s: isError result: %s", ev.ID, ev.raw)
	}
	return ev.Result
}

// hdNotHeld checks a result carries no trace of a hold.
func hdNotHeld(t *testing.T, ev hdEvent) {
	t.Helper()
	r := hdResult(t, ev)
	if _, ok := r.Meta["approval"]; ok {
		t.Errorf("%s was never held, yet its result has _meta.approval: %s", ev.ID, ev.raw)
	}
	if len(r.Content) != 1 {
		t.Errorf("%s was never held, yet its result has %d content blocks, want 1: %s", ev.ID, len(r.Content), ev.raw)
	}
	for _, c := range r.Content {
		if strings.Contains(c.Text, "held for human approval") {
			t.Errorf("%s was never held, yet its text says it was: %q", ev.ID, c.Text)
		}
	}
}

// hdApproved checks ev is the result of a held, approved call (window
// seconds long, approved with comment, "" for none) and returns its
// _meta.approval.
func hdApproved(t *testing.T, ev hdEvent, approvalID, approver string, verified bool, comment string, window int) approvalMeta {
	t.Helper()
	r := hdResult(t, ev)
	var a approvalMeta
	raw, ok := r.Meta["approval"]
	if !ok || json.Unmarshal(raw, &a) != nil {
		t.Fatalf("%s: the approved call's result has no _meta.approval: %s", ev.ID, ev.raw)
	}
	// heldSeconds is to a tenth of a second, so a hold decided within
	// 50 ms reads 0: it is checked for sign here and against the client's
	// own wait below, never for being above 0.
	if !a.Held || a.Outcome != "approved" || a.Route != "dashboard" || a.ApprovalID != approvalID ||
		a.ApprovedBy != approver || a.ApproverVerified != verified || a.HeldSeconds < 0 {
		t.Errorf("%s: _meta.approval %s; want held, approved, route dashboard, approvalId %s, approvedBy %q, approverVerified %v, heldSeconds >= 0",
			ev.ID, raw, approvalID, approver, verified)
	}
	if a.Comment != comment || (a.WindowSeconds != nil && *a.WindowSeconds != window) {
		t.Errorf("%s: _meta.approval %s; want comment %q and (when given) windowSeconds %d", ev.ID, raw, comment, window)
	}
	if a.HeldSeconds > ev.ElapsedMs/1000+1 {
		t.Errorf("%s: heldSeconds %v, but the client waited only %.1fs for the whole call", ev.ID, a.HeldSeconds, ev.ElapsedMs/1000)
	}
	var callID string
	if err := json.Unmarshal(r.Meta["callId"], &callID); err != nil || callID != approvalID {
		t.Errorf("%s: _meta.callId %s, want the approval id %s", ev.ID, r.Meta["callId"], approvalID)
	}
	if len(r.Content) != 2 {
		t.Fatalf("%s: %d content blocks, want the tool's output and the approval note: %s", ev.ID, len(r.Content), ev.raw)
	}
	if !json.Valid([]byte(r.Content[0].Text)) || (len(r.StructuredContent) > 0 && !hdJSONEqual(r.Content[0].Text, string(r.StructuredContent))) {
		t.Errorf("%s: the first content block is not the tool's own output (structuredContent %s): %q", ev.ID, r.StructuredContent, r.Content[0].Text)
	}
	identity := "identity unverified"
	if verified {
		identity = "identity verified"
	}
	commentNote := ""
	if comment != "" {
		commentNote = regexp.QuoteMeta(` Their comment: ` + strconv.Quote(comment) + `.`)
	}
	note := regexp.MustCompile(`^This write was held for human approval and was approved by ` + regexp.QuoteMeta(approver) +
		` \(approval ` + approvalID + `\) after ([0-9.]+)s via dashboard, ` + identity + `\.` + commentNote + `$`)
	m := note.FindStringSubmatch(r.Content[1].Text)
	if r.Content[1].Type != "text" || m == nil {
		t.Errorf("%s: second content block %q (%s); want it to match %s", ev.ID, r.Content[1].Text, r.Content[1].Type, note)
	} else if secs, _ := strconv.ParseFloat(m[1], 64); math.Abs(secs-a.HeldSeconds) > 0.051 {
		t.Errorf("%s: the note says %ss, _meta.approval.heldSeconds %v", ev.ID, m[1], a.HeldSeconds)
	}
	return a
}

func hdJSONEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// hdNotApproved checks ev is the -32001 approval_required error of a held
// call that ended with outcome, and returns its data.
func hdNotApproved(t *testing.T, ev hdEvent, approvalID, outcome string, window int) hdApprovalError {
	t.Helper()
	if ev.Kind != "error" || ev.Error == nil {
		t.Fatalf("%s: want a JSON-RPC error (%s), got %s", ev.ID, outcome, ev.raw)
	}
	e := ev.Error
	var d hdApprovalError
	if err := json.Unmarshal(e.Data, &d); err != nil {
		t.Fatalf("%s: error data %s: %v", ev.ID, e.Data, err)
	}
	if !e.MCP || e.Code != -32001 {
		t.Errorf("%s: error mcp=%v code %d, want an McpError -32001: %s", ev.ID, e.MCP, e.Code, ev.raw)
	}
	if d.Code != "approval_required" || d.Outcome != outcome || d.ApprovalID != approvalID || d.Route != "dashboard" ||
		d.Retryable == nil || *d.Retryable || d.WindowSeconds == nil || *d.WindowSeconds != window ||
		d.HeldSeconds == nil || *d.HeldSeconds < 0 || !strings.Contains(d.Where, "/approvals") {
		t.Errorf("%s: error data %s; want code approval_required, outcome %s, approval_id %s, route dashboard, retryable false, window_seconds %d, held_seconds, where naming /approvals",
			ev.ID, e.Data, outcome, approvalID, window)
	}
	if !strings.Contains(e.Message, approvalID) || !strings.Contains(e.Message, outcome) {
		t.Errorf("%s: the message names neither the approval %s nor the outcome %s: %q", ev.ID, approvalID, outcome, e.Message)
	}
	return d
}

// hdProjects is project.list's result as project names.
func hdProjects(t *testing.T, c *hdClient) []string {
	t.Helper()
	ev := c.outcome(t, c.call(t, "project.list", map[string]any{}, false), 30*time.Second)
	hdNotHeld(t, ev)
	var out struct {
		Projects []struct {
			Name string `json:"name"`
		} `json:"projects"`
		Count int `json:"count"`
	}
	if err := json.Unmarshal(hdResult(t, ev).StructuredContent, &out); err != nil {
		t.Fatalf("project.list: %v: %s", err, ev.raw)
	}
	var names []string
	for _, p := range out.Projects {
		names = append(names, p.Name)
	}
	if out.Count != len(names) {
		t.Errorf("project.list count %d, but %d projects", out.Count, len(names))
	}
	return names
}

// ---------------------------------------------------------------------------
// The REST API

var hdHTTP = &http.Client{Timeout: 20 * time.Second}

func hdRequest(t *testing.T, method, url string, headers map[string]string, body string) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := hdHTTP.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read the body: %v", method, url, err)
	}
	return resp.StatusCode, b
}

// hdWaitHeld polls GET /v1/approvals until a hold whose summary names
// marker is listed. It reads as headers, or as the operator when nil: only
// a person who may decide is shown the arguments.
func hdWaitHeld(t *testing.T, s *hdServer, marker string, headers map[string]string, within time.Duration) heldCall {
	t.Helper()
	if headers == nil {
		headers = s.operator(t)
	}
	deadline := time.Now().Add(within)
	for {
		for _, h := range listHolds(t, s.base, "", headers) {
			if strings.Contains(h.Summary, marker) {
				return h
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no hold naming %q appeared in GET /v1/approvals within %s", marker, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func hdListed(holds []heldCall, approvalID string) bool {
	for _, h := range holds {
		if h.ApprovalID == approvalID {
			return true
		}
	}
	return false
}

// hdCheckHeld checks a listed hold of project.create {name: marker}.
func hdCheckHeld(t *testing.T, h heldCall, marker, caller, client string, window int) {
	t.Helper()
	if !callIDRe.MatchString(h.ApprovalID) || h.CallID != h.ApprovalID {
		t.Errorf("approval_id %q, call_id %q: want the same 16-hex callId", h.ApprovalID, h.CallID)
	}
	if h.ToolID != "project.create" || h.Caller != caller || h.Route != "dashboard" || h.WindowSeconds != window || h.Client != client {
		t.Errorf("hold %+v; want tool_id project.create, caller %s, route dashboard, window_seconds %d, client %s", h, caller, window, client)
	}
	if !strings.Contains(h.Summary, "name: "+marker) || !strings.Contains(h.Reason, caller) {
		t.Errorf("summary %q, reason %q: want the name %q and the caller class %q", h.Summary, h.Reason, marker, caller)
	}
	if h.HeldSince.IsZero() || h.ExpiresAt.Sub(h.HeldSince) != time.Duration(window)*time.Second {
		t.Errorf("held_since %s, expires_at %s: want %ds apart", h.HeldSince, h.ExpiresAt, window)
	}
	if d := time.Since(h.HeldSince); d < -5*time.Second || d > time.Minute {
		t.Errorf("held_since %s is %s from now", h.HeldSince, d)
	}
}

// hdDecision is POST /v1/approvals/{id}/decision's answer.
type hdDecision struct {
	ApprovalID       string `json:"approval_id"`
	Outcome          string `json:"outcome"`
	Approver         string `json:"approver"`
	ApproverVerified bool   `json:"approver_verified"`
	State            struct {
		ApprovalID string `json:"approval_id"`
		Pending    bool   `json:"pending"`
	} `json:"state"`
	Error string `json:"error"`
}

func hdDecide(t *testing.T, s *hdServer, id string, headers map[string]string, body string) (int, hdDecision, string) {
	t.Helper()
	status, raw := hdRequest(t, http.MethodPost, s.base+"/v1/approvals/"+id+"/decision", headers, body)
	var d hdDecision
	if status != http.StatusUnauthorized {
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Errorf("POST decision %s: HTTP %d, body not JSON: %s", id, status, raw)
		}
	}
	return status, d, string(raw)
}

// hdMustDecide posts a decision that must be applied.
func hdMustDecide(t *testing.T, s *hdServer, id, decision, approver, comment string, headers map[string]string, wantApprover string, wantVerified bool) {
	t.Helper()
	req := map[string]string{"decision": decision, "approver": approver}
	if comment != "" {
		req["comment"] = comment
	}
	body, _ := json.Marshal(req)
	status, d, raw := hdDecide(t, s, id, headers, string(body))
	outcome := map[string]string{"approve": "approved", "reject": "rejected"}[decision]
	if status != http.StatusOK || d.ApprovalID != id || d.Outcome != outcome || d.Approver != wantApprover ||
		d.ApproverVerified != wantVerified || d.State.Pending || d.State.ApprovalID != id {
		t.Fatalf("POST %s %s: HTTP %d %s; want 200 with outcome %s, approver %q, approver_verified %v, state not pending",
			decision, id, status, raw, outcome, wantApprover, wantVerified)
	}
}

// hdJWT is an HS256 JWT for sub, signed with secret.
func hdJWT(secret, sub string, exp time.Time) string {
	enc := base64.RawURLEncoding.EncodeToString
	header := enc([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims, _ := json.Marshal(map[string]any{"sub": sub, "exp": exp.Unix(), "iat": time.Now().Unix()})
	signing := header + "." + enc(claims)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(signing))
	return signing + "." + enc(mac.Sum(nil))
}

func hdName(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// hdCLI runs the metaforge CLI and returns its exit code, stdout and stderr.
func hdCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := command(t, 30*time.Second, binary, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		code = cmd.ProcessState.ExitCode()
		if code == 0 {
			t.Fatalf("metaforge %s: %v", strings.Join(args, " "), err)
		}
	}
	t.Logf("metaforge %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	return code, stdout.String(), stderr.String()
}

// hdHealth is what health.check adds about the connection.
type hdHealth struct {
	Auth struct {
		Mode             string `json:"mode"`
		Transport        string `json:"transport"`
		IdentifiesCaller *bool  `json:"identifies_caller"`
		Caller           string `json:"caller"`
		Detail           string `json:"detail"`
	} `json:"auth"`
	Client struct {
		Connected          bool   `json:"connected"`
		Name               string `json:"name"`
		Version            string `json:"version"`
		ProtocolRequested  string `json:"protocol_requested"`
		ProtocolNegotiated string `json:"protocol_negotiated"`
		ProtocolSkew       *bool  `json:"protocol_skew"`
		CanElicit          *bool  `json:"can_elicit"`
	} `json:"client"`
}

// hdHealthCheck calls health.check, which must run at once and unheld.
func hdHealthCheck(t *testing.T, c *hdClient) hdHealth {
	t.Helper()
	ev := c.outcome(t, c.call(t, "health.check", map[string]any{}, false), 30*time.Second)
	hdNotHeld(t, ev)
	var h hdHealth
	if err := json.Unmarshal(hdResult(t, ev).StructuredContent, &h); err != nil {
		t.Fatalf("health.check: %v: %s", err, ev.raw)
	}
	return h
}

func hdCheckAuth(t *testing.T, h hdHealth, mode string, identifies bool, caller string) {
	t.Helper()
	if h.Auth.Mode != mode || h.Auth.Transport != "http" || h.Auth.IdentifiesCaller == nil || *h.Auth.IdentifiesCaller != identifies || h.Auth.Caller != caller {
		t.Errorf("health.check auth %+v (identifies_caller %v); want mode %s, transport http, identifies_caller %v, caller %s",
			h.Auth, hdDeref(h.Auth.IdentifiesCaller), mode, identifies, caller)
	}
}

func hdDeref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// ---------------------------------------------------------------------------
// Tests

// TestHoldDashboard covers holds decided on the dashboard and by the CLI,
// one server for all: progress every second, a 2 s window without a
// progress token (180 s, the default, with one).
func TestHoldDashboard(t *testing.T) {
	ports := freePorts(t, 2)
	srv := hdServe(t, filepath.Join(t.TempDir(), "data"), ports[0], ports[1],
		"METAFORGE_APPROVAL_PROGRESS_INTERVAL_SECONDS=1", "METAFORGE_APPROVAL_HOLD_SECONDS=2")
	const clientName = "metaforge-e2e-holds-dashboard"
	c := hdNode(t, srv, clientName, nil)
	var approvedProject string // the project the first subtest created

	t.Run("approve on the dashboard while the client waits with progress", func(t *testing.T) {
		name := hdName("approved")
		began := time.Now()
		create := c.call(t, "project.create", map[string]any{"name": name}, true)
		h := hdWaitHeld(t, srv, name, nil, 15*time.Second)
		t.Logf("hold %s listed %s after the call", h.ApprovalID, time.Since(began).Round(time.Millisecond))
		hdCheckHeld(t, h, name, "untrusted", clientName, 180)
		id := h.ApprovalID

		// The filters.
		if !hdListed(listHolds(t, srv.base, "tool=project.create", nil), id) {
			t.Errorf("GET /v1/approvals?tool=project.create does not list %s", id)
		}
		if hdListed(listHolds(t, srv.base, "tool=project.list", nil), id) {
			t.Errorf("GET /v1/approvals?tool=project.list lists %s, a project.create", id)
		}
		if hdListed(listHolds(t, srv.base, "project=no-such-project", nil), id) {
			t.Errorf("GET /v1/approvals?project=no-such-project lists %s, which names no project", id)
		}
		if status, body := hdRequest(t, http.MethodGet, srv.base+"/v1/approvals?tool=x'%20OR%20'1'='1", nil, ""); status != http.StatusBadRequest {
			t.Errorf("GET /v1/approvals with a quote in the tool filter: HTTP %d, want 400: %s", status, body)
		}

		// Reads from the same client run at once while its write is held.
		list := c.call(t, "project.list", map[string]any{}, false)
		health := c.call(t, "health.check", map[string]any{}, false)
		for _, read := range []string{list, health} {
			ev := c.outcome(t, read, 20*time.Second)
			hdNotHeld(t, ev)
			t.Logf("%s answered in %.0f ms while the write was held", read, ev.ElapsedMs)
		}
		if c.ended(t, create) {
			t.Fatalf("project.create ended before anyone decided: %s", c.transcript())
		}
		var listed struct {
			Projects []struct {
				Name string `json:"name"`
			} `json:"projects"`
		}
		_ = json.Unmarshal(hdResult(t, c.outcome(t, list, time.Second)).StructuredContent, &listed)
		for _, p := range listed.Projects {
			if p.Name == name {
				t.Errorf("project.list shows %s while its project.create is held", name)
			}
		}

		c.waitProgress(t, create, 2, 15*time.Second)
		if c.ended(t, create) {
			t.Fatalf("project.create ended before anyone decided: %s", c.transcript())
		}
		hdMustDecide(t, srv, id, "approve", "Fidel", "looks right", srv.operator(t), "operator:Fidel", true)

		ev := c.outcome(t, create, 20*time.Second)
		a := hdApproved(t, ev, id, "operator:Fidel", true, "looks right", 180)
		r := hdResult(t, ev)
		var project struct {
			ProjectID string `json:"project_id"`
			Name      string `json:"name"`
		}
		if err := json.Unmarshal([]byte(r.Content[0].Text), &project); err != nil || project.Name != name || project.ProjectID == "" {
			t.Errorf("project.create's output %q: want the project %s", r.Content[0].Text, name)
		}
		approvedProject = project.ProjectID
		t.Logf("approved after %.1fs held; the client waited %.0f ms", a.HeldSeconds, ev.ElapsedMs)

		// Every progress notification names the hold and where to decide
		// it, against the whole window.
		progress := c.progress(create)
		page := srv.base + "/approvals"
		last := -1.0
		for i, p := range progress {
			if !strings.Contains(p.Message, id) || !strings.Contains(p.Message, page) {
				t.Errorf("progress %d: message %q names not both the approval %s and %s", i, p.Message, id, page)
			}
			if p.Total == nil || *p.Total != 180 {
				t.Errorf("progress %d: total %v, want the window, 180", i, hdDeref(p.Total))
			}
			if p.Progress <= last || p.Progress >= 180 {
				t.Errorf("progress %d: %v after %v; want it increasing, below the total", i, p.Progress, last)
			}
			last = p.Progress
		}
		if len(progress) < 2 {
			t.Errorf("%d progress notifications", len(progress))
		} else if gap := progress[1].AtMs - progress[0].AtMs; gap < 300 || gap > 5000 {
			t.Errorf("the first two progress notifications came %.0f ms apart, want about 1 s (METAFORGE_APPROVAL_PROGRESS_INTERVAL_SECONDS=1)", gap)
		}
		if first := progress[0].AtMs; first > 5000 {
			t.Errorf("the first progress notification came %.0f ms after the call; want it as soon as the hold exists", first)
		}

		// Decided: gone from the queue, and a second word is refused.
		if hdListed(listHolds(t, srv.base, "", nil), id) {
			t.Errorf("GET /v1/approvals still lists %s after it was approved", id)
		}
		if status, _, raw := hdDecide(t, srv, id, srv.operator(t), `{"decision":"reject","approver":"Other"}`); status != http.StatusConflict {
			t.Errorf("a second decision on %s: HTTP %d, want 409: %s", id, status, raw)
		}
		if names := hdProjects(t, c); !slices.Contains(names, name) {
			t.Errorf("project.list after the approval: %v lacks %s", names, name)
		}
		// The page the progress messages point at is there.
		req, _ := http.NewRequest(http.MethodGet, page, nil)
		if resp, err := hdHTTP.Do(req); err != nil {
			t.Errorf("GET %s: %v", page, err)
		} else {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				t.Errorf("GET %s: HTTP %d %s, want 200 text/html", page, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		}
	})

	t.Run("reject on the dashboard", func(t *testing.T) {
		name := hdName("rejected")
		create := c.call(t, "project.create", map[string]any{"name": name}, true)
		h := hdWaitHeld(t, srv, name, nil, 15*time.Second)
		hdCheckHeld(t, h, name, "untrusted", clientName, 180)
		id := h.ApprovalID

		// Bodies the API refuses leave the hold pending.
		for _, bad := range []string{
			`{"decision":"maybe","approver":"Fidel"}`,
			`{"decision":"approve","approver":"Fidel","extra":1}`,
			`not json`,
		} {
			if status, _, raw := hdDecide(t, srv, id, srv.operator(t), bad); status != http.StatusBadRequest {
				t.Errorf("POST decision %s: HTTP %d, want 400: %s", bad, status, raw)
			}
		}
		// Without the operator's token nobody decides, whatever name is given.
		for _, body := range []string{`{"decision":"approve","approver":"Fidel"}`, `{"decision":"reject","approver":"operator"}`} {
			if status, _, raw := hdDecide(t, srv, id, nil, body); status != http.StatusUnauthorized || !strings.Contains(raw, "operator-token") {
				t.Errorf("POST decision %s without a credential: HTTP %d, want 401 naming the operator token: %s", body, status, raw)
			}
		}
		if status, _, raw := hdDecide(t, srv, "0123456789abcdef", srv.operator(t), `{"decision":"approve","approver":"Fidel"}`); status != http.StatusNotFound {
			t.Errorf("POST decision for an unknown id: HTTP %d, want 404: %s", status, raw)
		}
		if !hdListed(listHolds(t, srv.base, "", nil), id) || c.ended(t, create) {
			t.Fatalf("after refused decisions %s is no longer pending", id)
		}

		hdMustDecide(t, srv, id, "reject", "Fidel", "not today", srv.operator(t), "operator:Fidel", true)
		ev := c.outcome(t, create, 20*time.Second)
		d := hdNotApproved(t, ev, id, "rejected", 180)
		t.Logf("rejected: %s", ev.Error.Message)
		if d.Comment != "not today" {
			t.Logf("note: the error data carries comment %q, not the reviewer's comment", d.Comment)
		}
		if names := hdProjects(t, c); slices.Contains(names, name) {
			t.Errorf("project.list shows %s, whose project.create was rejected: %v", name, names)
		}
		if hdListed(listHolds(t, srv.base, "", nil), id) {
			t.Errorf("GET /v1/approvals still lists %s after it was rejected", id)
		}
	})

	t.Run("a hold that names a project", func(t *testing.T) {
		if approvedProject == "" {
			t.Skip("the first subtest created no project")
		}
		marker := hdName("described")
		update := c.call(t, "project.update", map[string]any{"project_id": approvedProject, "description": marker}, true)
		h := hdWaitHeld(t, srv, marker, nil, 15*time.Second)
		if h.ToolID != "project.update" || h.ProjectID != approvedProject || h.Caller != "untrusted" || h.WindowSeconds != 180 {
			t.Errorf("hold %+v; want project.update of project %s, untrusted, 180 s", h, approvedProject)
		}
		if !hdListed(listHolds(t, srv.base, "project="+approvedProject, nil), h.ApprovalID) {
			t.Errorf("GET /v1/approvals?project=%s does not list %s", approvedProject, h.ApprovalID)
		}
		if !hdListed(listHolds(t, srv.base, "project="+approvedProject+"&tool=project.update", nil), h.ApprovalID) {
			t.Errorf("GET /v1/approvals?project=%s&tool=project.update does not list %s", approvedProject, h.ApprovalID)
		}
		if hdListed(listHolds(t, srv.base, "project="+approvedProject+"&tool=project.create", nil), h.ApprovalID) {
			t.Errorf("GET /v1/approvals?project=%s&tool=project.create lists %s, a project.update", approvedProject, h.ApprovalID)
		}
		code, out, _ := hdCLI(t, append([]string{"approvals", "--project", approvedProject}, srv.cliAt()...)...)
		if code != 0 || !strings.Contains(out, h.ApprovalID) || !strings.Contains(out, approvedProject) {
			t.Errorf("metaforge approvals --project %s: exit %d, want 0 and a line for %s:\n%s", approvedProject, code, h.ApprovalID, out)
		}
		// Approved from the CLI as the operator, under the name --as gives.
		code, out, errOut := hdCLI(t, append([]string{"approve", h.ApprovalID, "--as", "Fidel", "--comment", "ok"}, srv.cliAt()...)...)
		if code != 0 || !strings.Contains(out, h.ApprovalID) || !strings.Contains(out, "approved by operator:Fidel") {
			t.Errorf("metaforge approve %s --as Fidel: exit %d; want 0 and a confirmation:\n%s%s", h.ApprovalID, code, out, errOut)
		}
		ev := c.outcome(t, update, 20*time.Second)
		hdApproved(t, ev, h.ApprovalID, "operator:Fidel", true, "ok", 180)
		if !strings.Contains(hdResult(t, ev).Content[0].Text, marker) {
			t.Errorf("project.update's output %q lacks the new description %s", hdResult(t, ev).Content[0].Text, marker)
		}
	})

	t.Run("nobody decides within the window", func(t *testing.T) {
		name := hdName("timeout")
		began := time.Now()
		create := c.call(t, "project.create", map[string]any{"name": name}, false)
		// The hold is listed for its 2 s window only: catch it there if
		// the machine lets us, else go by the error's approval_id.
		var h *heldCall
		for h == nil && !c.ended(t, create) && time.Since(began) < 10*time.Second {
			for _, x := range listHolds(t, srv.base, "", srv.operator(t)) {
				if strings.Contains(x.Summary, name) {
					h = &x
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		ev := c.outcome(t, create, 20*time.Second)
		var id string
		if h != nil {
			hdCheckHeld(t, *h, name, "untrusted", clientName, 2)
			id = h.ApprovalID
		} else {
			var data hdApprovalError
			if ev.Error != nil {
				_ = json.Unmarshal(ev.Error.Data, &data)
			}
			id = data.ApprovalID
			t.Logf("the hold was not caught in GET /v1/approvals during its 2 s window; using approval_id %q from the error", id)
		}
		d := hdNotApproved(t, ev, id, "timed_out", 2)
		if d.HeldSeconds != nil && (*d.HeldSeconds < 1.9 || *d.HeldSeconds > 10) {
			t.Errorf("held_seconds %v for a 2 s window", *d.HeldSeconds)
		}
		if took := time.Since(began); took < 2*time.Second {
			t.Errorf("the call ended timed_out after %s, inside its 2 s window", took)
		}
		if n := len(c.progress(create)); n != 0 {
			t.Errorf("a call without a progress token got %d progress notifications", n)
		}
		if status, _, raw := hdDecide(t, srv, id, srv.operator(t), `{"decision":"approve","approver":"Fidel"}`); status != http.StatusConflict {
			t.Errorf("an approval after the window: HTTP %d, want 409: %s", status, raw)
		}
		if names := hdProjects(t, c); slices.Contains(names, name) {
			t.Errorf("project.list shows %s, whose project.create timed out: %v", name, names)
		}
	})

	t.Run("reads run at once", func(t *testing.T) {
		list := c.call(t, "project.list", map[string]any{}, true)
		ev := c.outcome(t, list, 20*time.Second)
		hdNotHeld(t, ev)
		// A call that was never held cannot be decided.
		var readID string
		_ = json.Unmarshal(hdResult(t, ev).Meta["callId"], &readID)
		if status, _, raw := hdDecide(t, srv, readID, srv.operator(t), `{"decision":"approve","approver":"Fidel"}`); status != http.StatusConflict {
			t.Errorf("a decision on %s, a project.list never held: HTTP %d, want 409: %s", readID, status, raw)
		}
		for _, p := range c.progress(list) {
			if strings.Contains(p.Message, "held") {
				t.Errorf("project.list reported a hold: %q", p.Message)
			}
		}
		h := hdHealthCheck(t, c)
		hdCheckAuth(t, h, "open", false, "untrusted")
		if !h.Client.Connected || h.Client.Name != clientName || h.Client.Version != "0.0.1" || h.Client.ProtocolRequested == "" ||
			h.Client.ProtocolNegotiated != h.Client.ProtocolRequested || hdDeref(h.Client.ProtocolSkew) != false || hdDeref(h.Client.CanElicit) != false {
			t.Errorf("health.check client %+v (skew %v, can_elicit %v); want connected, %s 0.0.1, no skew, can_elicit false",
				h.Client, hdDeref(h.Client.ProtocolSkew), hdDeref(h.Client.CanElicit), clientName)
		}
		if n := len(listHolds(t, srv.base, "", nil)); n != 0 {
			t.Errorf("GET /v1/approvals lists %d holds after reads only", n)
		}
	})

	t.Run("CLI", func(t *testing.T) {
		at := srv.cliAt()
		cli := func(args ...string) (int, string, string) { return hdCLI(t, append(args, at...)...) }
		name := hdName("cli")
		create := c.call(t, "project.create", map[string]any{"name": name}, true)
		h := hdWaitHeld(t, srv, name, nil, 15*time.Second)
		id := h.ApprovalID

		code, out, _ := cli("approvals")
		if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "project.create") || !strings.Contains(out, "untrusted") || !strings.Contains(out, name) {
			t.Errorf("metaforge approvals: exit %d; want 0 and a line for %s (project.create, untrusted):\n%s", code, id, out)
		}
		code, out, _ = cli("approvals", "--tool", "project.list")
		if code != 0 || strings.Contains(out, id) {
			t.Errorf("metaforge approvals --tool project.list: exit %d, lists %s, a project.create:\n%s", code, id, out)
		}

		// Without the operator token (another data dir) the CLI decides
		// nothing and says what to do.
		code, out, errOut := hdCLI(t, "reject", id, "--data-dir", t.TempDir(), "--url", srv.base)
		if code == 0 || !strings.Contains(errOut, "start metaforge serve") || !hdListed(listHolds(t, srv.base, "", srv.operator(t)), id) {
			t.Errorf("metaforge reject without the operator token: exit %d; want non-zero, saying how to get one, and %s still held:\n%s%s", code, id, out, errOut)
		}
		code, out, errOut = cli("reject", id, "--comment", "no")
		if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "rejected") {
			t.Errorf("metaforge reject %s: exit %d; want 0 and a confirmation:\n%s%s", id, code, out, errOut)
		}
		ev := c.outcome(t, create, 20*time.Second)
		d := hdNotApproved(t, ev, id, "rejected", 180)
		if d.Comment != "no" {
			t.Logf("note: the error data carries comment %q, not the CLI's --comment no", d.Comment)
		}
		if names := hdProjects(t, c); slices.Contains(names, name) {
			t.Errorf("project.list shows %s after the CLI rejected it", name)
		}

		code, out, errOut = cli("approve", "0123456789abcdef")
		if code == 0 || !strings.Contains(errOut, "0123456789abcdef") {
			t.Errorf("metaforge approve of an unknown id: exit %d; want non-zero and a message naming the id:\n%s%s", code, out, errOut)
		}
		code, out, errOut = cli("approve", id)
		if code == 0 || strings.TrimSpace(errOut) == "" {
			t.Errorf("metaforge approve of a rejected hold: exit %d; want non-zero and a message:\n%s%s", code, out, errOut)
		}
		code, out, errOut = cli("approvals")
		if code != 0 || strings.Contains(out, id) {
			t.Errorf("metaforge approvals after the rejection: exit %d, still lists %s:\n%s%s", code, id, out, errOut)
		}
	})

	c.close(t)
}

// TestHoldDashboardCrashDurability kills the server while a hold is pending:
// the hold lives in Temporal, so the restarted server lists it, a decision
// applies, and the call's result is there for call.get_result.
func TestHoldDashboardCrashDurability(t *testing.T) {
	ports := freePorts(t, 2)
	dataDir := filepath.Join(t.TempDir(), "data")
	srv := hdServe(t, dataDir, ports[0], ports[1])
	c1 := hdNode(t, srv, "metaforge-e2e-holds-crash", nil)
	name := hdName("durable")
	c1.call(t, "project.create", map[string]any{"name": name}, false)
	before := hdWaitHeld(t, srv, name, nil, 15*time.Second)
	hdCheckHeld(t, before, name, "untrusted", "metaforge-e2e-holds-crash", 100)
	id := before.ApprovalID

	killedAt := time.Now()
	srv.kill(t)
	t.Logf("SIGKILLed metaforge serve with %s held", id)

	srv2 := hdServe(t, dataDir, ports[0], ports[1])
	t.Logf("restarted in %s", time.Since(killedAt).Round(time.Millisecond))
	var after heldCall
	deadline := time.Now().Add(30 * time.Second)
	for {
		found := false
		for _, h := range listHolds(t, srv2.base, "", srv2.operator(t)) {
			if h.ApprovalID == id {
				after, found = h, true
			}
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the restarted server does not list %s within 30 s", id)
		}
		time.Sleep(200 * time.Millisecond)
	}
	hdCheckHeld(t, after, name, "untrusted", "metaforge-e2e-holds-crash", 100)
	if !after.HeldSince.Equal(before.HeldSince) || !after.ExpiresAt.Equal(before.ExpiresAt) {
		t.Errorf("after the restart the hold runs %s..%s, before %s..%s", after.HeldSince, after.ExpiresAt, before.HeldSince, before.ExpiresAt)
	}
	t.Logf("%s listed again %s after the SIGKILL", id, time.Since(killedAt).Round(time.Millisecond))
	hdMustDecide(t, srv2, id, "approve", "Fidel", "after the crash", srv2.operator(t), "operator:Fidel", true)

	c2 := hdNode(t, srv2, "metaforge-e2e-holds-after-crash", nil)
	ev := c2.outcome(t, c2.call(t, "call.get_result", map[string]any{"call_id": id, "wait_seconds": 30}, false), 45*time.Second)
	hdNotHeld(t, ev)
	var outcome struct {
		CallID string `json:"call_id"`
		State  string `json:"state"`
		ToolID string `json:"tool_id"`
		Result struct {
			Status string `json:"status"`
			Data   struct {
				ProjectID string `json:"project_id"`
				Name      string `json:"name"`
			} `json:"data"`
			Approval *struct {
				Outcome    string `json:"outcome"`
				ApprovedBy string `json:"approved_by"`
				ApprovalID string `json:"approval_id"`
				Comment    string `json:"comment"`
			} `json:"approval"`
		} `json:"result"`
	}
	if err := json.Unmarshal(hdResult(t, ev).StructuredContent, &outcome); err != nil {
		t.Fatalf("call.get_result: %v: %s", err, ev.raw)
	}
	if outcome.CallID != id || outcome.State != "completed" || outcome.ToolID != "project.create" ||
		outcome.Result.Status != "success" || outcome.Result.Data.Name != name || outcome.Result.Data.ProjectID == "" {
		t.Errorf("call.get_result %s: %s; want completed, project.create, success, the project %s", id, ev.raw, name)
	}
	if a := outcome.Result.Approval; a == nil || a.Outcome != "approved" || a.ApprovedBy != "operator:Fidel" || a.ApprovalID != id || a.Comment != "after the crash" {
		t.Errorf("call.get_result %s: the result's approval %+v; want approved by operator:Fidel, comment \"after the crash\"", id, a)
	}
	if names := hdProjects(t, c2); !slices.Contains(names, name) {
		t.Errorf("project.list after the approval: %v lacks %s", names, name)
	}
	if hdListed(listHolds(t, srv2.base, "", nil), id) {
		t.Errorf("GET /v1/approvals still lists %s", id)
	}
	t.Logf("call.get_result answered %.0f ms after it was asked; the project is listed %s after the SIGKILL", ev.ElapsedMs, time.Since(killedAt).Round(time.Millisecond))
	c2.close(t)
	t.Logf("the client whose server was killed saw:\n%s", c1.transcript())
	// The first client lost its server mid-call: whatever it got, it was
	// not the project.
	if _, ok, _, _ := c1.find(t, func(ev hdEvent) bool { return ev.Kind == "result" }); ok {
		t.Errorf("the client whose server was killed got a result: %s", c1.transcript())
	}
}

// TestHoldDashboardAuth: an API key admits callers but identifies nobody,
// so their writes stay held as untrusted; a verified bearer JWT makes the
// caller remote (still held) and the approver verified.
func TestHoldDashboardAuth(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	mcpHeaders := func(extra map[string]string) map[string]string {
		h := map[string]string{"Accept": "application/json, text/event-stream"}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}

	t.Run("api key", func(t *testing.T) {
		ports := freePorts(t, 2)
		// The Approvals page is somewhere else than this server.
		srv := hdServe(t, filepath.Join(t.TempDir(), "data"), ports[0], ports[1], "METAFORGE_MCP_API_KEY=k1",
			"METAFORGE_DASHBOARD_URL=https://dash.example.test/mf/", "METAFORGE_APPROVAL_PROGRESS_INTERVAL_SECONDS=1")
		key := map[string]string{"X-API-Key": "k1"}
		for _, r := range []struct {
			what, method, path string
			headers            map[string]string
			body               string
		}{
			{"POST /mcp without the key", http.MethodPost, "/mcp", mcpHeaders(nil), initialize},
			{"POST /mcp with a wrong key", http.MethodPost, "/mcp", mcpHeaders(map[string]string{"X-API-Key": "k2"}), initialize},
			{"GET /v1/approvals without the key", http.MethodGet, "/v1/approvals", nil, ""},
			{"GET /v1/approvals with a wrong bearer", http.MethodGet, "/v1/approvals", map[string]string{"Authorization": "Bearer k2"}, ""},
			{"POST a decision without the key", http.MethodPost, "/v1/approvals/0123456789abcdef/decision", nil, `{"decision":"approve","approver":"x"}`},
		} {
			if status, body := hdRequest(t, r.method, srv.base+r.path, r.headers, r.body); status != http.StatusUnauthorized {
				t.Errorf("%s: HTTP %d, want 401: %.200s", r.what, status, body)
			}
		}
		if status, body := hdRequest(t, http.MethodGet, srv.base+"/v1/approvals", map[string]string{"Authorization": "Bearer k1"}, ""); status != http.StatusOK {
			t.Errorf("GET /v1/approvals with the key as a bearer token: HTTP %d: %s", status, body)
		}

		c := hdNode(t, srv, "metaforge-e2e-holds-apikey", key)
		h := hdHealthCheck(t, c)
		hdCheckAuth(t, h, "api_key", false, "untrusted")

		name := hdName("apikey")
		create := c.call(t, "project.create", map[string]any{"name": name}, true)
		held := hdWaitHeld(t, srv, name, nil, 15*time.Second)
		hdCheckHeld(t, held, name, "untrusted", "metaforge-e2e-holds-apikey", 180)
		for _, h := range listHolds(t, srv.base, "", key) {
			if h.Summary != "" {
				t.Errorf("GET /v1/approvals with the API key shows %s's arguments: %q; the key identifies nobody", h.ApprovalID, h.Summary)
			}
		}
		for _, p := range c.waitProgress(t, create, 1, 15*time.Second) {
			if !strings.Contains(p.Message, "https://dash.example.test/mf/approvals") || !strings.Contains(p.Message, held.ApprovalID) {
				t.Errorf("progress message %q: want METAFORGE_DASHBOARD_URL's Approvals page, https://dash.example.test/mf/approvals, and %s", p.Message, held.ApprovalID)
			}
		}
		if status, _, raw := hdDecide(t, srv, held.ApprovalID, nil, `{"decision":"approve","approver":"x"}`); status != http.StatusUnauthorized {
			t.Errorf("a decision without the key: HTTP %d, want 401: %s", status, raw)
		}
		if c.ended(t, create) || !hdListed(listHolds(t, srv.base, "", key), held.ApprovalID) {
			t.Fatalf("%s is no longer pending after a refused decision", held.ApprovalID)
		}
		// The key identifies nobody, so it decides nothing; the operator
		// token does, and the name given is recorded after operator:.
		if status, _, raw := hdDecide(t, srv, held.ApprovalID, key, `{"decision":"approve","approver":"carol"}`); status != http.StatusForbidden || !strings.Contains(raw, "identifies nobody") {
			t.Errorf("a decision with the API key: HTTP %d, want 403 saying the key identifies nobody: %s", status, raw)
		}
		hdMustDecide(t, srv, held.ApprovalID, "approve", "carol", "", srv.operator(t), "operator:carol", true)
		hdApproved(t, c.outcome(t, create, 20*time.Second), held.ApprovalID, "operator:carol", true, "", 180)
		c.close(t)
	})

	t.Run("jwt", func(t *testing.T) {
		const secret = "s3"
		ports := freePorts(t, 2)
		srv := hdServe(t, filepath.Join(t.TempDir(), "data"), ports[0], ports[1], "METAFORGE_MCP_JWT_SECRET="+secret,
			"METAFORGE_APPROVAL_HOLD_PROGRESS_SECONDS=60")
		hour := time.Now().Add(time.Hour)
		alice := map[string]string{"Authorization": "Bearer " + hdJWT(secret, "alice", hour)}
		bob := map[string]string{"Authorization": "Bearer " + hdJWT(secret, "bob", hour)}
		for _, r := range []struct {
			what    string
			headers map[string]string
		}{
			{"no token", nil},
			{"a token signed with another secret", map[string]string{"Authorization": "Bearer " + hdJWT("not-s3", "alice", hour)}},
			{"an expired token", map[string]string{"Authorization": "Bearer " + hdJWT(secret, "alice", time.Now().Add(-time.Minute))}},
		} {
			if status, body := hdRequest(t, http.MethodPost, srv.base+"/mcp", mcpHeaders(r.headers), initialize); status != http.StatusUnauthorized {
				t.Errorf("POST /mcp with %s: HTTP %d, want 401: %.200s", r.what, status, body)
			}
			if status, body := hdRequest(t, http.MethodGet, srv.base+"/v1/approvals", r.headers, ""); status != http.StatusUnauthorized {
				t.Errorf("GET /v1/approvals with %s: HTTP %d, want 401: %.200s", r.what, status, body)
			}
		}

		c := hdNode(t, srv, "metaforge-e2e-holds-jwt", alice)
		h := hdHealthCheck(t, c)
		hdCheckAuth(t, h, "oauth", true, "remote")

		name := hdName("jwt")
		create := c.call(t, "project.create", map[string]any{"name": name}, true)
		held := hdWaitHeld(t, srv, name, bob, 15*time.Second)
		hdCheckHeld(t, held, name, "remote", "metaforge-e2e-holds-jwt", 60)
		for _, p := range c.waitProgress(t, create, 1, 15*time.Second) {
			if p.Total == nil || *p.Total != 60 {
				t.Errorf("progress total %v, want 60 (METAFORGE_APPROVAL_HOLD_PROGRESS_SECONDS)", hdDeref(p.Total))
			}
		}
		if status, _, raw := hdDecide(t, srv, held.ApprovalID, nil, `{"decision":"approve","approver":"bob"}`); status != http.StatusUnauthorized {
			t.Errorf("a decision without a token: HTTP %d, want 401: %s", status, raw)
		}
		// The verified subject is the approver, whatever the body claims.
		hdMustDecide(t, srv, held.ApprovalID, "approve", "mallory", "bob says \"yes\"", bob, "bob", true)
		hdApproved(t, c.outcome(t, create, 20*time.Second), held.ApprovalID, "bob", true, "bob says \"yes\"", 60)
		c.close(t)
	})
}
