//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tasksFineMesh is the element size (mm) of the cantilever mesh whose
// FEA runs long enough to be cancelled, or killed with serve, mid-solve.
const tasksFineMesh = 1.4

// tasksTask is a Task as the client printed it.
type tasksTask struct {
	TaskID        string  `json:"taskId"`
	Status        string  `json:"status"`
	StatusMessage string  `json:"statusMessage"`
	CreatedAt     string  `json:"createdAt"`
	LastUpdatedAt string  `json:"lastUpdatedAt"`
	TTL           *int64  `json:"ttl"`
	PollInterval  float64 `json:"pollInterval"`
}

type tasksRPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

type tasksFigures struct {
	Nodes      int     `json:"nodes"`
	Peak       float64 `json:"peak"`
	Deflection float64 `json:"deflection"`
}

type tasksRelated struct {
	TaskID string `json:"taskId"`
}

// tasksNode runs tasks_client.mjs with cfg and decodes its one line.
func tasksNode(t *testing.T, cfg map[string]any, out any) {
	t.Helper()
	b, _ := json.Marshal(cfg)
	label := fmt.Sprintf("node tasks_client.mjs %s", cfg["mode"])
	node := start(t, label, command(t, 15*time.Minute, nodePath, "tasks_client.mjs", string(b)))
	if code := node.wait(t, 15*time.Minute); code != 0 {
		t.Fatalf("%s exited %d:\n%s", label, code, node.stderr.String())
	}
	line := nodeStdoutLine(t, node)
	if err := json.Unmarshal([]byte(line), out); err != nil {
		t.Fatalf("%s: %v: %s", label, err, line)
	}
}

// TestTasks drives MCP Tasks with the TypeScript SDK against one serve
// with bearer JWTs (two subjects) and the operator token: an FEA as a
// task, a cancelled solver, two owners kept apart, held writes (decided on
// the REST behind the Approvals page, and asked through tasks/result), a
// 2025-06-18 client, and a task that outlives serve killed with SIGKILL.
func TestTasks(t *testing.T) {
	const secret = "tasks-e2e-secret-0123456789"
	ports := freePorts(t, 2)
	dataDir := filepath.Join(t.TempDir(), "data")
	env := []string{"METAFORGE_MCP_JWT_SECRET=" + secret}
	srv := hdServe(t, dataDir, ports[0], ports[1], env...)
	tokA := hdJWT(secret, "alice", time.Now().Add(time.Hour))
	tokB := hdJWT(secret, "bob", time.Now().Add(time.Hour))
	url := srv.base + "/mcp"

	t.Run("fea, cancel, owners, held write, old revision", func(t *testing.T) {
		var o struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
			TaskSupport  map[string]*string         `json:"taskSupport"`
			Plain        tasksFigures               `json:"plain"`
			Create       struct {
				Ms   float64   `json:"ms"`
				Task tasksTask `json:"task"`
			} `json:"create"`
			FeaSeen   []string  `json:"feaSeen"`
			FeaFinal  tasksTask `json:"feaFinal"`
			FeaResult struct {
				Figures tasksFigures  `json:"figures"`
				Related *tasksRelated `json:"related"`
				CallID  string        `json:"callId"`
			} `json:"feaResult"`
			CreateMs      []float64      `json:"createMs"`
			RequiredPlain *tasksRPCError `json:"requiredPlain"`
			Cancel        struct {
				Status       string         `json:"status"`
				Message      string         `json:"message"`
				Cwd          string         `json:"cwd"`
				SolverGoneMs *float64       `json:"solverGoneMs"`
				FolderKept   bool           `json:"folderKept"`
				Result       *tasksRPCError `json:"result"`
				Again        *tasksRPCError `json:"again"`
				After        string         `json:"after"`
			} `json:"cancel"`
			Isolation struct {
				ALists     []string       `json:"aLists"`
				BLists     []string       `json:"bLists"`
				AIDs       []string       `json:"aIDs"`
				BID        string         `json:"bID"`
				ACreated   []string       `json:"aCreated"`
				BGetsA     *tasksRPCError `json:"bGetsA"`
				BResultOfA *tasksRPCError `json:"bResultOfA"`
				BCancelsA  *tasksRPCError `json:"bCancelsA"`
				AGetsB     *tasksRPCError `json:"aGetsB"`
			} `json:"isolation"`
			Held struct {
				Created        tasksTask      `json:"created"`
				Waiting        tasksTask      `json:"waiting"`
				DecisionStatus int            `json:"decisionStatus"`
				Seen           []string       `json:"seen"`
				Approval       map[string]any `json:"approval"`
				Related        *tasksRelated  `json:"related"`
			} `json:"held"`
			Old struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
				Execution    int                        `json:"execution"`
				CallAnswered struct {
					IsError    bool   `json:"isError"`
					CallID     string `json:"callId"`
					HasContent bool   `json:"hasContent"`
				} `json:"callAnswered"`
				TasksGet *tasksRPCError `json:"tasksGet"`
			} `json:"old"`
		}
		tasksNode(t, map[string]any{"mode": "main", "url": url, "tokenA": tokA, "tokenB": tokB,
			"operator": operatorToken(t, dataDir), "base": srv.base, "fineMesh": tasksFineMesh}, &o)

		var caps struct {
			List     map[string]any `json:"list"`
			Cancel   map[string]any `json:"cancel"`
			Requests struct {
				Tools struct {
					Call map[string]any `json:"call"`
				} `json:"tools"`
			} `json:"requests"`
		}
		if err := json.Unmarshal(o.Capabilities["tasks"], &caps); err != nil || caps.List == nil || caps.Cancel == nil || caps.Requests.Tools.Call == nil {
			t.Errorf("capabilities.tasks on 2025-11-25 = %s, want list, cancel and requests.tools.call", o.Capabilities["tasks"])
		}
		for name, ts := range o.TaskSupport {
			want := "optional"
			if name == "twin.start_design_loop" || name == "twin.start_tube_height_design_loop" {
				want = "required"
			}
			if ts == nil || *ts != want {
				t.Errorf("tools/list: %s execution.taskSupport = %v, want %s", name, ts, want)
			}
		}

		// The FEA as a task.
		t.Logf("CreateTaskResult of calculix.run_fea in %.1f ms: %+v", o.Create.Ms, o.Create.Task)
		if o.Create.Ms > 100 {
			t.Errorf("CreateTaskResult took %.1f ms, want within 100 ms", o.Create.Ms)
		}
		// The ten are a figure; only their median is held to 100 ms, as
		// a 2-core machine shared with other builds has its pauses.
		slices.Sort(o.CreateMs)
		if len(o.CreateMs) != 10 || (o.CreateMs[4]+o.CreateMs[5])/2 > 100 {
			t.Errorf("ten CreateTaskResults of health.check took %v ms, want a median within 100 ms", o.CreateMs)
		} else {
			t.Logf("ten CreateTaskResults of health.check: median %.1f ms, max %.1f ms", (o.CreateMs[4]+o.CreateMs[5])/2, o.CreateMs[9])
		}
		c := o.Create.Task
		if len(c.TaskID) != 16 || c.Status != "working" || c.CreatedAt == "" || c.LastUpdatedAt == "" || c.TTL == nil || *c.TTL != 60000 || c.PollInterval <= 0 {
			t.Errorf("CreateTaskResult task = %+v, want a 16-hex taskId, working, timestamps, the ttl asked (60000) and a pollInterval", c)
		}
		if len(o.FeaSeen) == 0 || o.FeaSeen[0] != "working" || o.FeaFinal.Status != "completed" {
			t.Errorf("tasks/get statuses %v ending %+v, want working then completed", o.FeaSeen, o.FeaFinal)
		}
		if o.FeaResult.Figures != o.Plain || o.Plain.Nodes == 0 {
			t.Errorf("tasks/result figures %+v, the plain call's %+v: want the same", o.FeaResult.Figures, o.Plain)
		}
		if o.FeaResult.Related == nil || o.FeaResult.Related.TaskID != c.TaskID || o.FeaResult.CallID != c.TaskID {
			t.Errorf("tasks/result _meta: related-task %+v, callId %q; want both %s", o.FeaResult.Related, o.FeaResult.CallID, c.TaskID)
		}

		// A required tool called plainly.
		if e := o.RequiredPlain; e == nil || e.Code != -32600 || !strings.Contains(e.Message, "must be called as a task") || !strings.Contains(e.Message, "\"task\"") {
			t.Errorf("plain tools/call of twin.start_design_loop: %+v, want -32600 naming the task form", e)
		}

		// Cancel a running solver.
		if o.Cancel.SolverGoneMs != nil {
			t.Logf("cancel: %s; the ccx process was gone %.0f ms after tasks/cancel", o.Cancel.Message, *o.Cancel.SolverGoneMs)
		}
		if o.Cancel.Status != "cancelled" {
			t.Errorf("tasks/cancel answered status %q, want cancelled", o.Cancel.Status)
		}
		if o.Cancel.SolverGoneMs == nil || *o.Cancel.SolverGoneMs > 2000 {
			t.Errorf("the ccx process was gone %v ms after tasks/cancel, want within 2000 ms", o.Cancel.SolverGoneMs)
		}
		if !o.Cancel.FolderKept {
			t.Errorf("the call folder %s is gone after the cancel, want it kept", o.Cancel.Cwd)
		}
		if e := o.Cancel.Result; e == nil || !strings.Contains(e.Message, "cancelled") {
			t.Errorf("tasks/result of the cancelled task: %+v, want the cancelled error", e)
		}
		if e := o.Cancel.Again; e == nil || e.Code != -32602 || !strings.Contains(e.Message, "cancelled") {
			t.Errorf("a second tasks/cancel: %+v, want -32602 naming the terminal status cancelled", e)
		}
		if o.Cancel.After != "cancelled" {
			t.Errorf("tasks/get after the cancel settled: %s, want cancelled (sticky)", o.Cancel.After)
		}

		// Two owners.
		iso := o.Isolation
		for _, id := range iso.AIDs {
			if !slices.Contains(iso.ALists, id) {
				t.Errorf("tasks/list of alice %v lacks her task %s", iso.ALists, id)
			}
			if slices.Contains(iso.BLists, id) {
				t.Errorf("tasks/list of bob %v shows alice's task %s", iso.BLists, id)
			}
		}
		if slices.Contains(iso.ALists, iso.BID) || !slices.Contains(iso.BLists, iso.BID) {
			t.Errorf("bob's task %s: alice lists %v, bob lists %v; want only bob", iso.BID, iso.ALists, iso.BLists)
		}
		if !slices.IsSortedFunc(iso.ACreated, func(a, b string) int { return strings.Compare(b, a) }) {
			t.Errorf("tasks/list is not newest first: %v", iso.ACreated)
		}
		for what, e := range map[string]*tasksRPCError{"bob tasks/get": iso.BGetsA, "bob tasks/result": iso.BResultOfA,
			"bob tasks/cancel": iso.BCancelsA, "alice tasks/get of bob's": iso.AGetsB} {
			if e == nil || e.Code != -32602 || !strings.Contains(e.Message, "not found") {
				t.Errorf("%s: %+v, want -32602 not found", what, e)
			}
		}

		// The held write.
		h := o.Held
		t.Logf("held: %+v", h.Waiting)
		if h.Waiting.Status != "working" || !strings.Contains(h.Waiting.StatusMessage, h.Created.TaskID) || !strings.Contains(h.Waiting.StatusMessage, "/approvals") {
			t.Errorf("the held task: %+v, want working with its approval id and the Approvals page in statusMessage", h.Waiting)
		}
		if h.DecisionStatus != 200 || len(h.Seen) == 0 || h.Seen[len(h.Seen)-1] != "completed" {
			t.Errorf("decision HTTP %d, statuses %v; want 200, ending completed", h.DecisionStatus, h.Seen)
		}
		if h.Approval == nil || h.Approval["outcome"] != "approved" || h.Approval["approvalId"] != h.Created.TaskID || h.Related == nil {
			t.Errorf("tasks/result of the held write: _meta.approval %v, related %+v; want approved, approval %s", h.Approval, h.Related, h.Created.TaskID)
		}

		// The 2025-06-18 client.
		if _, ok := o.Old.Capabilities["tasks"]; ok || o.Old.Execution != 0 {
			t.Errorf("2025-06-18: capabilities %v and %d tools with execution, want no tasks at all", o.Old.Capabilities, o.Old.Execution)
		}
		if !o.Old.CallAnswered.HasContent || len(o.Old.CallAnswered.CallID) != 16 {
			t.Errorf("2025-06-18: a tools/call with a task field answered %+v, want a plain CallToolResult", o.Old.CallAnswered)
		}
		if e := o.Old.TasksGet; e == nil || e.Code != -32601 {
			t.Errorf("2025-06-18: tasks/get answered %+v, want -32601", e)
		}
	})

	t.Run("held write asked through tasks/result", func(t *testing.T) {
		var o struct {
			Created tasksTask `json:"created"`
			Waiting tasksTask `json:"waiting"`
			Asked   []struct {
				Message string `json:"message"`
				Meta    map[string]tasksRelated
			} `json:"asked"`
			Result struct {
				Approval map[string]any `json:"approval"`
				Related  *tasksRelated  `json:"related"`
			} `json:"result"`
			Final string `json:"final"`
		}
		tasksNode(t, map[string]any{"mode": "elicit", "url": url, "operator": operatorToken(t, dataDir)}, &o)
		id := o.Created.TaskID
		if o.Waiting.Status != "input_required" {
			t.Errorf("the held task with an elicitation client: %+v, want input_required", o.Waiting)
		}
		if len(o.Asked) != 1 || !strings.Contains(o.Asked[0].Message, id) || o.Asked[0].Meta["io.modelcontextprotocol/related-task"].TaskID != id {
			t.Errorf("questions asked: %+v, want one naming approval %s with related-task metadata", o.Asked, id)
		}
		if o.Result.Approval == nil || o.Result.Approval["outcome"] != "approved" || o.Result.Approval["route"] != "elicitation" || o.Final != "completed" {
			t.Errorf("after the answer: approval %v, status %s; want approved via elicitation, completed", o.Result.Approval, o.Final)
		}
	})

	t.Run("a task outlives serve killed with SIGKILL", func(t *testing.T) {
		var started struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		}
		tasksNode(t, map[string]any{"mode": "restart-start", "url": url, "tokenA": tokA, "fineMesh": tasksFineMesh}, &started)
		if started.Status != "working" {
			t.Fatalf("the long FEA task was %s before the kill, want working", started.Status)
		}
		srv.kill(t)
		srv = hdServe(t, dataDir, ports[0], ports[1], env...)
		var o struct {
			Got    tasksTask `json:"got"`
			After  tasksTask `json:"after"`
			Result struct {
				IsError bool          `json:"isError"`
				Related *tasksRelated `json:"related"`
				CallID  string        `json:"callId"`
				Text    string        `json:"text"`
			} `json:"result"`
		}
		tasksNode(t, map[string]any{"mode": "restart-resume", "url": url, "tokenA": tokA, "taskId": started.TaskID}, &o)
		t.Logf("after the restart: tasks/get %+v; tasks/result isError %v: %s; then %s", o.Got, o.Result.IsError, o.Result.Text, o.After.Status)
		if o.Got.TaskID != started.TaskID || o.Result.CallID != started.TaskID || o.Result.Related == nil || o.Result.Related.TaskID != started.TaskID {
			t.Errorf("from a new connection after the restart: tasks/get %+v, tasks/result callId %q related %+v; want task %s",
				o.Got, o.Result.CallID, o.Result.Related, started.TaskID)
		}
		if o.After.Status != "completed" && o.After.Status != "failed" {
			t.Errorf("after tasks/result the task is %s, want ended", o.After.Status)
		}
	})
}
