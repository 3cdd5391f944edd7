package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/mcpserver/stdiotest"
)

// taskSession is one raw Streamable HTTP session on a revision.
type taskSession struct {
	t       *testing.T
	client  *http.Client
	base    string
	id      string
	version string
	next    int
}

func openTaskSession(t *testing.T, base, version string) (*taskSession, map[string]any) {
	t.Helper()
	s := &taskSession{t: t, client: &http.Client{Timeout: frameBound}, base: base, version: version}
	a := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"tasks","version":"1"}}}`, version))
	s.id = a.Header.Get("Mcp-Session-Id")
	init := s.answer(a, 0)
	s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s, init.Result
}

type rpcAnswer struct {
	ID     int            `json:"id"`
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (s *taskSession) post(body string) postAnswer {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", s.version)
	}
	return do(s.t, s.client, req)
}

// answer is the response with id among a POST's messages.
func (s *taskSession) answer(a postAnswer, id int) rpcAnswer {
	s.t.Helper()
	for _, m := range a.Messages {
		var r rpcAnswer
		if json.Unmarshal(m, &r) == nil && r.ID == id && (r.Result != nil || r.Error != nil) {
			return r
		}
	}
	s.t.Fatalf("no answer to id %d in HTTP %d %q", id, a.StatusCode, a.Messages)
	return rpcAnswer{}
}

// call sends a request and returns its answer.
func (s *taskSession) call(method, params string) rpcAnswer {
	s.t.Helper()
	s.next++
	return s.answer(s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, s.next, method, params)), s.next)
}

func (s *taskSession) task(method, id string) rpcAnswer {
	s.t.Helper()
	return s.call(method, fmt.Sprintf(`{"taskId":%q}`, id))
}

// until polls tasks/get until the status is one of want.
func (s *taskSession) until(id string, want ...string) map[string]any {
	s.t.Helper()
	end := time.Now().Add(frameBound)
	for {
		r := s.task("tasks/get", id)
		if r.Error != nil {
			s.t.Fatalf("tasks/get %s: %+v", id, r.Error)
		}
		for _, w := range want {
			if r.Result["status"] == w {
				return r.Result
			}
		}
		if time.Now().After(end) {
			s.t.Fatalf("task %s still %v, want %v", id, r.Result, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func wantRPCError(t *testing.T, what string, r rpcAnswer, code int, part string) {
	t.Helper()
	if r.Error == nil || r.Error.Code != code || !strings.Contains(r.Error.Message, part) {
		t.Errorf("%s: %+v / %v, want error %d containing %q", what, r.Error, r.Result, code, part)
	}
}

// Tasks over Streamable HTTP against the real Temporal: the capability
// and execution.taskSupport on 2025-11-25 only, a task's life from
// CreateTaskResult to tasks/result, a failing and a cancelled task, and
// one session never reaching another's task.
func TestTasksOverHTTP(t *testing.T) {
	srv := realServer(t)
	ts := httptest.NewServer(srv.HTTPHandler())
	defer ts.Close()

	s, init := openTaskSession(t, ts.URL, "2025-11-25")
	caps, _ := init["capabilities"].(map[string]any)
	tasks, _ := caps["tasks"].(map[string]any)
	requests, _ := tasks["requests"].(map[string]any)
	if tasks["list"] == nil || tasks["cancel"] == nil || requests["tools"] == nil {
		t.Errorf("initialize on 2025-11-25: capabilities %v, want tasks with list, cancel and requests.tools.call", caps)
	}
	list := s.call("tools/list", `{}`)
	for _, tool := range list.Result["tools"].([]any) {
		m := tool.(map[string]any)
		if ex, _ := m["execution"].(map[string]any); ex["taskSupport"] != "optional" {
			t.Errorf("tools/list on 2025-11-25: %s execution %v, want taskSupport optional", m["name"], m["execution"])
		}
	}

	// A task's life.
	began := time.Now()
	created := s.call("tools/call", `{"name":"fixture.echo","arguments":{"key":"tasks-hello"},"task":{"ttl":5000}}`)
	took := time.Since(began)
	tk, _ := created.Result["task"].(map[string]any)
	id, _ := tk["taskId"].(string)
	if !isCallID(id) || tk["status"] != "working" || tk["ttl"] != 5000.0 || tk["pollInterval"] != 1000.0 || tk["createdAt"] == nil || tk["lastUpdatedAt"] == nil {
		t.Fatalf("CreateTaskResult %v (error %+v), want a working task with ttl 5000 and pollInterval 1000", created.Result, created.Error)
	}
	if m, _ := created.Result["_meta"].(map[string]any); m["callId"] != id || !strings.Contains(fmt.Sprint(m[immediateResponseKey]), "tasks/result") {
		t.Errorf("CreateTaskResult _meta %v, want callId %s", created.Result["_meta"], id)
	}
	t.Logf("CreateTaskResult in %s", took.Round(time.Microsecond))
	s.until(id, "completed")
	res := s.task("tasks/result", id)
	meta, _ := res.Result["_meta"].(map[string]any)
	related, _ := meta[relatedTaskKey].(map[string]any)
	plain := s.call("tools/call", `{"name":"fixture.echo","arguments":{"key":"tasks-plain"}}`)
	sameAsPlain := strings.ReplaceAll(fmt.Sprint(plain.Result["content"]), "tasks-plain", "tasks-hello")
	if related["taskId"] != id || meta["callId"] != id || fmt.Sprint(res.Result["content"]) != sameAsPlain {
		t.Errorf("tasks/result %v; want the plain call's content %v with callId and related-task %s", res.Result, plain.Result["content"], id)
	}

	// A task's progress carries related-task metadata.
	s.next++
	withProgress := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fixture.echo","arguments":{"key":"tasks-progress"},"_meta":{"progressToken":"p1"},"task":{}}}`, s.next))
	progressed := s.answer(withProgress, s.next).Result["task"].(map[string]any)["taskId"]
	var noted bool
	for _, m := range withProgress.Messages {
		var n struct {
			Method string `json:"method"`
			Params struct {
				Meta map[string]map[string]string `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(m, &n) == nil && n.Method == "notifications/progress" && n.Params.Meta[relatedTaskKey]["taskId"] == progressed {
			noted = true
		}
	}
	if !noted {
		t.Errorf("a task-augmented call with a progressToken: messages %q, want a progress notification with related-task %v", withProgress.Messages, progressed)
	}
	s.until(progressed.(string), "completed")

	// A failing tool's task is failed, and tasks/result is its isError result.
	refused := s.call("tools/call", `{"name":"fixture.refuse","arguments":{},"task":{}}`)
	rid := refused.Result["task"].(map[string]any)["taskId"].(string)
	if got := s.until(rid, "completed", "failed"); got["status"] != "failed" || got["statusMessage"] == "" || got["ttl"] != float64(DefaultTaskMaxTTL.Milliseconds()) {
		t.Errorf("the refused call's task: %v, want failed with a statusMessage and the maximum ttl", got)
	}
	if r := s.task("tasks/result", rid); r.Result["isError"] != true {
		t.Errorf("tasks/result of the refused call: %v, want isError", r.Result)
	}

	// Cancel: cancelled at once, sticky, and tasks/result says so.
	sleeping := s.call("tools/call", `{"name":"fixture.sleep","arguments":{"sleep_ms":1000},"task":{}}`)
	sid := sleeping.Result["task"].(map[string]any)["taskId"].(string)
	if c := s.task("tasks/cancel", sid); c.Result["status"] != "cancelled" || c.Result["taskId"] != sid {
		t.Errorf("tasks/cancel: %v %+v, want the task cancelled", c.Result, c.Error)
	}
	wantRPCError(t, "a second tasks/cancel", s.task("tasks/cancel", sid), -32602, "already in terminal status 'cancelled'")
	wantRPCError(t, "tasks/result of a cancelled task", s.task("tasks/result", sid), -32001, "was cancelled by tasks/cancel")
	wantRPCError(t, "tasks/cancel of a completed task", s.task("tasks/cancel", id), -32602, "already in terminal status 'completed'")

	// tasks/list: this session's, newest first; another session's none.
	var listed []string
	end := time.Now().Add(frameBound)
	for {
		l := s.call("tasks/list", `{}`)
		listed = listed[:0]
		for _, x := range l.Result["tasks"].([]any) {
			listed = append(listed, x.(map[string]any)["taskId"].(string))
		}
		if strings.Join(listed, ",") == strings.Join([]string{sid, rid, progressed.(string), id}, ",") || time.Now().After(end) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if want := []string{sid, rid, progressed.(string), id}; strings.Join(listed, ",") != strings.Join(want, ",") {
		t.Errorf("tasks/list = %v, want %v (newest first)", listed, want)
	}
	wantRPCError(t, "tasks/list with a made-up cursor", s.call("tasks/list", `{"cursor":"abc"}`), -32602, "invalid cursor")

	// Pages of two follow each other, newest first, to the end.
	var paged []string
	var after *TaskCursor
	for range 5 {
		page, next, err := srv.opts.Engine.ListTasks(context.Background(), ownerAttr("session:"+s.id), after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range page {
			paged = append(paged, st.CallID)
		}
		if after = next; next == nil {
			break
		}
		if c, err := decodeTaskCursor(encodeTaskCursor(*next)); err != nil || c != *next {
			t.Errorf("cursor %+v does not survive its encoding: %+v, %v", *next, c, err)
		}
	}
	if strings.Join(paged, ",") != strings.Join(listed, ",") {
		t.Errorf("pages of two: %v, want %v", paged, listed)
	}

	other, _ := openTaskSession(t, ts.URL, "2025-11-25")
	if l := other.call("tasks/list", `{}`); len(l.Result["tasks"].([]any)) != 0 {
		t.Errorf("another session's tasks/list: %v, want none", l.Result)
	}
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		wantRPCError(t, "another session's "+m, other.task(m, id), -32602, "not found")
	}
	wantRPCError(t, "tasks/get of an id that is no callId", s.task("tasks/get", "../etc"), -32602, "not found")

	// An invalid task field is refused by the screen.
	wantRPCError(t, "a task field that is no object", s.call("tools/call", `{"name":"fixture.echo","arguments":{},"task":5}`), -32602, "task must be an object")

	// 2025-06-18: no tasks at all; a task field is ignored.
	old, oldInit := openTaskSession(t, ts.URL, "2025-06-18")
	if c, _ := oldInit["capabilities"].(map[string]any); c["tasks"] != nil {
		t.Errorf("initialize on 2025-06-18: capabilities %v, want no tasks", c)
	}
	for _, tool := range old.call("tools/list", `{}`).Result["tools"].([]any) {
		if ex := tool.(map[string]any)["execution"]; ex != nil {
			t.Errorf("tools/list on 2025-06-18 shows execution %v", ex)
		}
	}
	r := old.call("tools/call", `{"name":"fixture.echo","arguments":{"key":"tasks-old"},"task":{"ttl":1000}}`)
	if r.Result["task"] != nil || r.Result["content"] == nil {
		t.Errorf("a task-augmented call on 2025-06-18: %v, want a plain CallToolResult", r.Result)
	}
	wantRPCError(t, "tasks/get on 2025-06-18", old.task("tasks/get", id), -32601, "tasks/get")
}

// The screen moves a tools/call's task field into _meta, where the SDK
// keeps it, and leaves every other frame as it came.
func TestScreenCarriesTheTaskField(t *testing.T) {
	v := screenMCP([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{"a":1},"_meta":{"progressToken":7},"task":{"ttl":60000}}}`), false, true)
	var msg struct {
		Params map[string]json.RawMessage `json:"params"`
	}
	if v.reply != nil || json.Unmarshal(v.frame, &msg) != nil {
		t.Fatalf("verdict %+v", v)
	}
	if _, ok := msg.Params["task"]; ok || string(msg.Params["_meta"]) != `{"io.metaforge/task":{"ttl":60000},"progressToken":7}` || string(msg.Params["arguments"]) != `{"a":1}` {
		t.Errorf("forwarded params %s", v.frame)
	}
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"task","arguments":{"task":1}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"task":{}}}`,
	} {
		if v := screenMCP([]byte(frame), false, true); v.frame != nil || v.reply != nil {
			t.Errorf("%s: verdict %+v, want it passed on unchanged", frame, v)
		}
	}
	if v := screenMCP([]byte(`{"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{}}`), false, false); v.reply == nil {
		t.Errorf("tasks/get before initialize passed the screen")
	}
}

// Over stdio a task is made and fetched the same way: the same screen
// carries the task field, the same handlers answer.
func TestTasksOverStdio(t *testing.T) {
	c := stdiotest.Serve(t, realServer(t))
	defer c.Close(t)
	c.Send(t, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tasks-stdio","version":"1"}}}`))
	init, _ := c.Await(t, "1", frameBound)
	if !strings.Contains(string(init), `"tasks":{`) {
		t.Errorf("initialize over stdio on 2025-11-25: %s, want capabilities.tasks", init)
	}
	c.Send(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		[]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fixture.echo","arguments":{"key":"tasks-stdio"},"task":{"ttl":2000}}}`))
	created, _ := c.Await(t, "2", frameBound)
	var r struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
				TTL    int64  `json:"ttl"`
			} `json:"task"`
		} `json:"result"`
	}
	if json.Unmarshal(created, &r) != nil || !isCallID(r.Result.Task.TaskID) || r.Result.Task.TTL != 2000 {
		t.Fatalf("task-augmented tools/call over stdio: %s", created)
	}
	c.Send(t, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":%q}}`, r.Result.Task.TaskID)))
	res, _ := c.Await(t, "3", frameBound)
	if !strings.Contains(string(res), `"key":"tasks-stdio"`) || !strings.Contains(string(res), `"io.modelcontextprotocol/related-task":{"taskId":"`+r.Result.Task.TaskID+`"}`) {
		t.Errorf("tasks/result over stdio: %s", res)
	}
}
