//go:build unix

package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/twin/neo4jtest"
	"github.com/metaforge/metaforge/workflows"
)

// get reads a route as the local operator into into, and answers its
// status: right after a restart, a change's state may not be readable yet.
func (r *crashRig) get(path string, into any) int {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", r.ports[2], path), nil)
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+operatorToken(r.t, r.dataDir))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			r.t.Fatalf("GET %s: %v", path, err)
		}
	}
	return resp.StatusCode
}

// waitChange polls GET /v1/changes/{id} until ok holds.
func (r *crashRig) waitChange(changeID, what string, ok func(workflows.ChangeState) bool) workflows.ChangeState {
	r.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var st workflows.ChangeState
		code := r.get("/v1/changes/"+changeID, &st)
		if code == http.StatusOK && ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("change %s: not %s after a minute: %d %s (busy %q)", changeID, what, code, st.Status, st.Busy)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// changeStep posts a step of a change as the operator and reads the state
// it left.
func (r *crashRig) changeStep(changeID, step string, body map[string]any) workflows.ChangeState {
	r.t.Helper()
	code, out := r.rest(fmt.Sprintf("/v1/changes/%s/%s", changeID, step), body)
	if code != http.StatusOK {
		r.t.Fatalf("POST /v1/changes/%s/%s: %d %s", changeID, step, code, out)
	}
	var st workflows.ChangeState
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		r.t.Fatal(err)
	}
	return st
}

// Kill -9 `metaforge serve` while an engineering change, proposed and
// analysed through MCP, waits READY_FOR_REVIEW; start it again on the same
// data dir. The change is where it was; the operator, as bob, approves it
// and commits it over REST; it is listed COMMITTED, the bracket's head
// moved exactly once, and each step of the change is in the twin once.
func TestEngineeringChangeSurvivesKill9(t *testing.T) {
	began := time.Now()
	mark := func(what string) { t.Logf("%s at %s", what, time.Since(began).Round(time.Millisecond)) }
	uri, user, password := neo4jtest.URI(t, neo4jtest.PortE2E)
	r := &crashRig{t: t, dataDir: filepath.Join(t.TempDir(), "data"), ports: freePorts(t, 3),
		env: []string{"NEO4J_URI=" + uri, "NEO4J_USER=" + user, "NEO4J_PASSWORD=" + password}}
	r.start()
	mark("serve up")

	// A bracket and its tier-0 deflection (evidence with a replay recipe),
	// in a project of this test's own.
	r.project = r.call("project.create", map[string]any{"name": fmt.Sprintf("change-crash-%d", time.Now().UnixNano())})["project_id"].(string)
	step := base64.StdEncoding.EncodeToString([]byte("ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n"))
	ref := r.call("twin.commit_geometry", map[string]any{"project_id": r.project, "name": "bracket", "step_base64": step,
		"material": "aluminium_6061", "properties": map[string]any{"bounding_box": map[string]any{"size": []float64{300, 40, 20}},
			"wall_thickness_mm": 2}})["item_ref"].(string)
	ev := r.call("twin.evaluate_metric", map[string]any{"project_id": r.project, "work_product_id": ref, "metric": "tip_deflection",
		"load_n": 100, "limit_mm": 5.0, "band_pct": 1})
	evidence := ev["tier0"].(map[string]any)["evidence_id"].(string)
	key := strings.Split(ref, "@")[0]

	// The agent proposes a thicker wall, analysed at once.
	out := r.call("twin.propose_change", map[string]any{"project_id": r.project, "title": "thicker wall",
		"reason": "the bracket deflects too much under the new load case",
		"patch":  []any{map[string]any{"ref": ref, "set": map[string]any{"wall_thickness_mm": 3}}}})
	changeID, _ := out["change_id"].(string)
	var before workflows.ChangeState
	if raw, err := json.Marshal(out["state"]); err != nil || json.Unmarshal(raw, &before) != nil {
		t.Fatalf("twin.propose_change answered no change state: %v", out)
	}
	if before.Status != workflows.ChangeReadyForReview || before.Analysis == nil || len(before.Analysis.Replay) != 1 ||
		before.Analysis.Replay[0].EvidenceID != evidence {
		t.Fatalf("twin.propose_change: want READY_FOR_REVIEW with %s to replay, got %+v", evidence, before)
	}
	mark("change " + changeID + " READY_FOR_REVIEW")

	r.kill()
	r.start()
	mark("serve killed and restarted")

	// The change is where it was (its READY_FOR_REVIEW event recorded:
	// not Busy).
	after := r.waitChange(changeID, "readable and not busy", func(st workflows.ChangeState) bool { return st.Busy == "" })
	if after.Status != workflows.ChangeReadyForReview || len(after.History) != len(before.History) || after.Analysis == nil ||
		after.Analysis.ApprovalLevel != before.Analysis.ApprovalLevel {
		t.Fatalf("after the kill the change is %s with %d events; it was %s with %d", after.Status, len(after.History), before.Status,
			len(before.History))
	}

	// bob (the operator, naming himself) approves: not the agent that
	// proposed it.
	st := r.changeStep(changeID, "decision", map[string]any{"decision": "approve", "approver": "bob", "comment": "stiffer is right"})
	if st.Status != workflows.ChangeApproved || st.Review == nil || st.Review.By == st.CreatedBy || !strings.HasSuffix(st.Review.By, "bob") {
		t.Fatalf("bob approves the change by %s: %s, review %+v", st.CreatedBy, st.Status, st.Review)
	}
	st = r.changeStep(changeID, "commit", map[string]any{"approver": "bob"})
	if st.Status != workflows.ChangeCommitted || st.Commit == nil || len(st.Commit.Revisions) != 1 {
		t.Fatalf("commit: %s %+v", st.Status, st.Commit)
	}
	mark(fmt.Sprintf("proposed by %s, approved by %s and committed over REST", st.CreatedBy, st.Review.By))

	// Listed COMMITTED (visibility follows the workflow: polled).
	var listed struct {
		Changes []struct {
			ChangeID string `json:"change_id"`
			Status   string `json:"status"`
		} `json:"changes"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if r.get("/v1/changes?project="+r.project, &listed) == http.StatusOK && len(listed.Changes) == 1 && listed.Changes[0].ChangeID == changeID && listed.Changes[0].Status == workflows.ChangeCommitted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /v1/changes?project=%s: %+v; want %s alone, COMMITTED", r.project, listed.Changes, changeID)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The bracket's head moved once: two revisions, the second the
	// change's and the head.
	hist := r.call("twin.item_history", map[string]any{"project_id": r.project, "item_key": key})
	revs := hist["revisions"].([]any)
	if len(revs) != 2 {
		t.Fatalf("%s has %d revisions after the change, want 2: %v", key, len(revs), revs)
	}
	last := revs[1].(map[string]any)
	if head := fmt.Sprintf("%s@%v", key, last["revision"]); last["is_head"] != true || head != st.Commit.Revisions[0].To {
		t.Fatalf("the head of %s is %v; the commit wrote %s", key, last, st.Commit.Revisions[0].To)
	}

	// Each step of the change is in the twin once, as the workflow's
	// history has it.
	store, err := twin.OpenNeo4j(context.Background(), uri, user, password)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = store.Close(context.Background()) }()
	events, err := twin.ChangeEvents(context.Background(), store, r.project, changeID)
	if err != nil {
		t.Fatal(err)
	}
	states := []string{}
	for _, e := range st.History {
		states = append(states, e.State)
	}
	if got := strings.Join(states, " "); got != "PROPOSED ANALYZING READY_FOR_REVIEW APPROVED COMMITTED" {
		t.Fatalf("the change's history: %s", got)
	}
	if len(events) != len(st.History) {
		t.Fatalf("the twin holds %d events of the change, its history %d: %+v", len(events), len(st.History), events)
	}
	for i, e := range events {
		seq, _ := twin.NumberOf(e.Properties["seq"])
		if int(seq) != i+1 || e.Properties["state"] != st.History[i].State {
			t.Fatalf("the twin's event %d is seq %v %v; the history's is seq %d %s", i+1, e.Properties["seq"], e.Properties["state"],
				i+1, st.History[i].State)
		}
	}
	mark(fmt.Sprintf("%s moved once to %s; %d events, each recorded once", key, st.Commit.Revisions[0].To, len(events)))
}
