//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The Approvals page in a real browser: an untrusted MCP client's
// project.create is held on the dashboard route; headless Chromium, driven
// by playwright-core (approvals_page.mjs), opens /approvals, types a name
// and clicks Approve; the client then gets the project, marked as approved
// by that name, and only then does the project exist.
//
// It needs Debian's Chromium (apt-get install chromium, or bash
// deploy/test-deps.sh) and playwright-core in e2e/node_modules (npm ci).

const approvalsPageClient = "metaforge-e2e-approvals-page"

// approvalsPageChromium is the browser approvals_page.mjs will launch, by
// the same search: $CHROMIUM_PATH, /usr/bin/chromium, /usr/bin/chromium-browser.
func approvalsPageChromium() (string, []string) {
	var tried []string
	for _, p := range []string{os.Getenv("CHROMIUM_PATH"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		tried = append(tried, p)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, tried
		}
	}
	return "", tried
}

// approvalsPageProjects is what project.list answers, by name.
func approvalsPageProjects(t *testing.T, s *httpSession, id string) []string {
	t.Helper()
	status, m, _, raw := s.post(t, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"project.list","arguments":{}}}`, id)), true)
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if status != http.StatusOK || m.isError || json.Unmarshal(m.result, &res) != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("project.list: HTTP %d: %.500s", status, raw)
	}
	var list struct {
		Projects []struct {
			Name string `json:"name"`
		} `json:"projects"`
		Count int `json:"count"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].Text), &list); err != nil || list.Count != len(list.Projects) {
		t.Fatalf("project.list: not a project list (%v): %.500s", err, res.Content[0].Text)
	}
	names := []string{}
	for _, p := range list.Projects {
		names = append(names, p.Name)
	}
	return names
}

func TestApprovalsPage(t *testing.T) {
	began := time.Now()
	browserPath, tried := approvalsPageChromium()
	if browserPath == "" {
		t.Fatalf("no Chromium at %s: the Approvals page test drives Debian's Chromium headless; install it (apt-get install chromium, or bash deploy/test-deps.sh), or set CHROMIUM_PATH", strings.Join(tried, ", "))
	}
	if _, err := os.Stat(filepath.Join("node_modules", "playwright-core", "package.json")); err != nil {
		t.Fatalf("playwright-core is not in e2e/node_modules (%v): run npm ci in e2e/ (or bash deploy/test-deps.sh)", err)
	}
	out, err := exec.Command(nodePath, "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v", err)
	}
	if v := strings.TrimSpace(string(out)); func() int {
		major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(v, "v"), ".", 2)[0])
		return major
	}() < 20 {
		t.Fatalf("node %s is too old for playwright-core, which needs Node.js >= 20", v)
	}

	ports := freePorts(t, 2)
	temporalPort, httpPort := ports[0], ports[1]
	srv := serve(t, temporalPort, 0, httpPort)
	base := fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	hc := &http.Client{Timeout: 30 * time.Second}

	reader := &httpSession{url: base + "/mcp", version: "2025-11-25", hc: hc}
	reader.initialize(t)

	// The untrusted client asks for a write; it is held.
	project := fmt.Sprintf("approvals-page-%d", time.Now().UnixNano())
	client := start(t, "node approvals_page_client.mjs",
		command(t, 3*time.Minute, nodePath, "approvals_page_client.mjs", base+"/mcp", project))

	var held heldCall
	deadline := time.Now().Add(30 * time.Second)
	for held.ApprovalID == "" {
		for _, h := range listHolds(t, base, "", bearer(operatorToken(t, srv.dataDir))) {
			if h.ToolID == "project.create" && strings.Contains(h.Summary, project) {
				held = h
			}
		}
		if held.ApprovalID != "" {
			break
		}
		if client.exited() {
			t.Fatalf("the client exited (%v) before its call was listed as held:\nstdout: %s\nstderr: %s", client.waitErr, client.stdout.String(), tail(client.stderr.String(), 20))
		}
		if time.Now().After(deadline) {
			t.Fatalf("no held project.create for %s in GET /v1/approvals within 30 s", project)
		}
		time.Sleep(100 * time.Millisecond)
	}
	heldAt := time.Since(client.started)
	t.Logf("held after %s: %+v", heldAt.Round(time.Millisecond), held)
	id := held.ApprovalID
	if !callIDRe.MatchString(id) || held.CallID != id || held.Caller != "untrusted" || held.Route != "dashboard" || held.Client != approvalsPageClient {
		t.Errorf("held call: approval %q call %q caller %q route %q client %q; want a callId, caller untrusted, route dashboard, client %s",
			id, held.CallID, held.Caller, held.Route, held.Client, approvalsPageClient)
	}

	// Nothing has been written while it waits.
	if names := approvalsPageProjects(t, reader, "list-before"); strings.Contains(strings.Join(names, "\n"), project) {
		t.Fatalf("project.list shows %s before anyone approved it: %v", project, names)
	}
	if client.exited() {
		t.Fatalf("the client's call ended before any decision (exit %v):\n%s\n%s", client.waitErr, client.stdout.String(), tail(client.stderr.String(), 20))
	}

	// A person approves it on the page.
	approver := "Ada Lovelace (e2e)"
	comment := "checked in the e2e browser test"
	browserBegan := time.Now()
	browser := command(t, 2*time.Minute, nodePath, "approvals_page.mjs", base, id, approver, "project.create", comment)
	token := operatorToken(t, srv.dataDir)
	browser.Env = append(browser.Env, "CHROMIUM_PATH="+browserPath, "E2E_OPERATOR_TOKEN="+token)
	page := start(t, "node approvals_page.mjs", browser)
	if code := page.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("node approvals_page.mjs exited %d:\n%s", code, tail(page.stderr.String(), 30))
	}
	browserTook := time.Since(browserBegan)
	var saw struct {
		BrowserVersion   string            `json:"browserVersion"`
		Title            string            `json:"title"`
		RowText          string            `json:"rowText"`
		RowsBefore       int               `json:"rowsBefore"`
		Clicks           int               `json:"clicks"`
		DecisionStatus   int               `json:"decisionStatus"`
		DecisionRequest  map[string]string `json:"decisionRequest"`
		DecisionResponse struct {
			ApprovalID       string `json:"approval_id"`
			Outcome          string `json:"outcome"`
			Approver         string `json:"approver"`
			ApproverVerified bool   `json:"approver_verified"`
		} `json:"decisionResponse"`
		StatusLog      []string `json:"statusLog"`
		FinalStatus    string   `json:"finalStatus"`
		StoredApprover string   `json:"storedApprover"`
		Address        string   `json:"addressAfterLoad"`
		DecisionAuth   string   `json:"decisionAuthorization"`
		RowSeenMs      int      `json:"rowSeenMs"`
		ApprovedSeenMs int      `json:"approvedSeenMs"`
		RowGoneMs      int      `json:"rowGoneMs"`
		StatusAtMs     []int    `json:"statusAtMs"`
		ConsoleErrors  []string `json:"consoleErrors"`
		FailedRequests []string `json:"failedRequests"`
	}
	line := nodeStdoutLine(t, page)
	if err := json.Unmarshal([]byte(line), &saw); err != nil {
		t.Fatalf("approvals_page.mjs printed no JSON report: %v: %q", err, line)
	}
	t.Logf("browser (%s, %s): row seen at %d ms, approved at %d ms, row gone at %d ms; status line: %q",
		saw.BrowserVersion, browserTook.Round(time.Millisecond), saw.RowSeenMs, saw.ApprovedSeenMs, saw.RowGoneMs, saw.StatusLog)
	if saw.Title != "MetaForge · Approvals" || !strings.Contains(saw.RowText, "project.create") || saw.RowsBefore != 1 {
		t.Errorf("page %q, %d rows, row text %q", saw.Title, saw.RowsBefore, saw.RowText)
	}
	if want := map[string]string{"decision": "approve", "approver": approver, "comment": comment}; fmt.Sprint(saw.DecisionRequest) != fmt.Sprint(want) {
		t.Errorf("the page POSTed %v, want %v", saw.DecisionRequest, want)
	}
	if r := saw.DecisionResponse; saw.DecisionStatus != 200 || r.ApprovalID != id || r.Outcome != "approved" || r.Approver != "operator:"+approver || !r.ApproverVerified {
		t.Errorf("decision: HTTP %d %+v", saw.DecisionStatus, r)
	}
	// The page took the token from the link once, out of the address bar,
	// and sent it with the decision.
	if strings.Contains(saw.Address, token) || saw.DecisionAuth != "Bearer "+token {
		t.Errorf("address after load %q, the decision's Authorization %q; want the token gone from the address and sent as a bearer token", saw.Address, saw.DecisionAuth)
	}
	t.Logf("status line texts at %v ms of the page's life; %d click(s) on Approve", saw.StatusAtMs, saw.Clicks)
	// The page has no icon, so the browser's own GET /favicon.ico is a 404;
	// any other failed request is the page's.
	for _, f := range saw.FailedRequests {
		if f != "GET /favicon.ico: HTTP 404" {
			t.Errorf("the page made a failing request: %s (console errors: %q)", f, saw.ConsoleErrors)
		}
	}

	// The client gets the project, marked as approved by that name.
	if code := client.wait(t, time.Minute); code != 0 {
		t.Fatalf("node approvals_page_client.mjs exited %d:\n%s", code, tail(client.stderr.String(), 30))
	}
	var got struct {
		WaitedMs int      `json:"waitedMs"`
		Progress []string `json:"progress"`
		Result   struct {
			IsError bool `json:"isError"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			Meta struct {
				CallID   string `json:"callId"`
				Approval *struct {
					Held             bool    `json:"held"`
					Outcome          string  `json:"outcome"`
					Route            string  `json:"route"`
					HeldSeconds      float64 `json:"heldSeconds"`
					ApprovalID       string  `json:"approvalId"`
					ApprovedBy       string  `json:"approvedBy"`
					ApproverVerified bool    `json:"approverVerified"`
				} `json:"approval"`
			} `json:"_meta"`
		} `json:"result"`
	}
	line = nodeStdoutLine(t, client)
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("approvals_page_client.mjs printed no JSON report: %v: %q", err, line)
	}
	res := got.Result
	t.Logf("the client waited %d ms; %d progress reports, the first: %q", got.WaitedMs, len(got.Progress), strings.Join(got.Progress[:min(1, len(got.Progress))], ""))
	a := res.Meta.Approval
	switch {
	case res.IsError:
		t.Fatalf("project.create failed after its approval: %s", line)
	case a == nil:
		t.Fatalf("the result has no _meta.approval: %s", line)
	}
	if !a.Held || a.Outcome != "approved" || a.Route != "dashboard" || a.ApprovedBy != "operator:"+approver || !a.ApproverVerified || a.ApprovalID != id || a.HeldSeconds <= 0 || res.Meta.CallID != id {
		t.Errorf("_meta: %s; want held, approved on the dashboard route by operator:%s (verified), approval %s", line, approver, id)
	}
	if len(res.Content) != 2 || res.Content[0].Type != "text" || res.Content[1].Type != "text" {
		t.Fatalf("content: want the tool's output and the approval note, got %s", line)
	}
	var created struct {
		ID   string `json:"project_id"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].Text), &created); err != nil || created.Name != project || created.ID == "" {
		t.Errorf("first content block is not the new project %s (%v): %q", project, err, res.Content[0].Text)
	}
	if note := res.Content[1].Text; !strings.Contains(note, "approved by operator:"+approver) || !strings.Contains(note, id) || !strings.Contains(note, "identity verified") {
		t.Errorf("second content block: %q", note)
	}
	if len(got.Progress) == 0 || !strings.Contains(got.Progress[0], id) || !strings.Contains(got.Progress[0], "/approvals") {
		t.Errorf("progress while held: %q", got.Progress)
	}

	// Only now does the project exist, and the hold is gone from the queue.
	if names := approvalsPageProjects(t, reader, "list-after"); !strings.Contains("\n"+strings.Join(names, "\n")+"\n", "\n"+project+"\n") {
		t.Errorf("project.list after the approval lacks %s: %v", project, names)
	}
	for _, h := range listHolds(t, base, "", nil) {
		if h.ApprovalID == id {
			t.Errorf("GET /v1/approvals still lists %s after it was approved: %+v", id, h)
		}
	}
	// A second decision is refused: the hold was decided once.
	again, _ := http.NewRequest(http.MethodPost, base+"/v1/approvals/"+id+"/decision", bytes.NewReader([]byte(`{"decision":"reject","approver":"Someone Else"}`)))
	again.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(again)
	if err != nil {
		t.Fatalf("POST decision again: %v", err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("a second decision on %s: HTTP %d %s, want 409", id, resp.StatusCode, raw)
	}

	c := dialTemporal(t, temporalPort)
	checkCallWorkflow(t, c, id, map[string]string{
		"MfTool": "project.create", "MfCaller": "untrusted", "MfClient": approvalsPageClient, "MfHold": "approved",
	})

	if srv.exited() {
		t.Fatalf("metaforge serve exited: %v", srv.waitErr)
	}
	t.Logf("TestApprovalsPage took %s (browser %s)", time.Since(began).Round(time.Millisecond), browserTook.Round(time.Millisecond))
}
