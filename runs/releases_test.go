package runs_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/workflows"
)

// The change-control routes over the real embedded Temporal: reads from the
// twin, and every write the tool's own held call, decided by the person who
// sent it (a request that identifies nobody writes nothing).
func TestReleaseRoutes(t *testing.T) {
	h := newHarness(t)
	mux := http.NewServeMux()
	runs.Releases{Runs: h.runs, Twin: h.facts.Store, Authority: approvals.Authority{Identify: func(r *http.Request) approvals.Person {
		if r.Header.Get("Authorization") == "Bearer alice" {
			return approvals.Person{Name: "alice", Verified: true}
		}
		return approvals.Person{}
	}}}.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	do := func(method, path, who string, body any) (int, map[string]any) {
		t.Helper()
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequestWithContext(h.ctx, method, srv.URL+path, bytes.NewReader(raw))
		if who != "" {
			req.Header.Set("Authorization", "Bearer "+who)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}

	h.call("twin.record_constraint_set", map[string]any{"project_id": h.project, "name": "Reqs", "constraints": []any{map[string]any{
		"name": "stiff", "metric": "tip_deflection", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"}}})
	h.call("twin.commit_geometry", map[string]any{"project_id": h.project, "name": "Bracket", "step_base64": "SVNPLTEwMzAzLTIxOw=="})

	if code, out := do("POST", "/v1/baselines", "", map[string]any{"project_id": h.project, "reason": "review"}); code != http.StatusUnauthorized {
		t.Fatalf("an anonymous baseline = %d %v", code, out)
	}
	code, out := do("POST", "/v1/releases", "alice", map[string]any{"project_id": h.project})
	if code != http.StatusConflict || !strings.Contains(out["error"].(string), "Configuration baseline fixed (no_data)") {
		t.Fatalf("a release before G8 = %d %v", code, out)
	}
	ev := h.call("twin.record_evidence", map[string]any{"project_id": h.project, "name": "FEA", "kind": "simulation", "metric": "tip_deflection",
		"value": 0.2, "unit": "mm", "valid_against": []any{"CAD-BRACKET"}})
	code, out = do("POST", "/v1/baselines", "alice", map[string]any{"project_id": h.project, "reason": "release candidate"})
	if code != http.StatusOK || out["result"].(map[string]any)["approved_by"] != "alice" || !strings.HasPrefix(out["workflow_id"].(string), "call-rest-") {
		t.Fatalf("baseline = %d %v", code, out)
	}
	// The write was a held ToolCall, approved by alice: as the Temporal UI shows it.
	var res workflows.ToolCallResult
	if err := h.temporal.Client.GetWorkflow(h.ctx, out["workflow_id"].(string), "").Get(h.ctx, &res); err != nil || res.Approval == nil ||
		res.Approval.ApprovedBy != "alice" || res.ToolID != "twin.create_baseline" {
		t.Fatalf("the baseline's call = %+v %v", res, err)
	}
	ra := h.call("twin.record_engineering_entity", map[string]any{"project_id": h.project, "entity_type": "release_approval", "name": "Ship"})
	if _, err := h.callAs("twin.approve_engineering_entity", map[string]any{"project_id": h.project, "node_id": ra["node_id"]}, "alice"); err != nil {
		t.Fatal(err)
	}
	code, out = do("POST", "/v1/releases", "alice", map[string]any{"project_id": h.project, "reason": "first"})
	if code != http.StatusOK || out["result"].(map[string]any)["version"] != 1.0 {
		t.Fatalf("release = %d %v", code, out)
	}
	claim := h.call("twin.record_claim", map[string]any{"project_id": h.project, "claim": "stiff", "requirement_ref": "CS-REQS",
		"requirement_name": "stiff", "evidence_refs": []any{ev["node_id"]}})
	code, out = do("POST", "/v1/promotion/attempt", "alice", map[string]any{"project_id": h.project, "required_claim_ids": []any{claim["node_id"]},
		"maturity_level": "prototype"})
	if code != http.StatusOK || out["result"].(map[string]any)["promoted"] != true || out["result"].(map[string]any)["decided_by"] != "alice" {
		t.Fatalf("promotion = %d %v", code, out)
	}
	if code, out = do("POST", "/v1/promotion/attempt", "alice", map[string]any{"project_id": h.project, "required_claim_ids": []any{claim["node_id"]},
		"maturity_level": "prototype", "decided_by": "mallory"}); code != http.StatusBadRequest || !strings.Contains(out["error"].(string), "decided_by") {
		t.Fatalf("a supplied decided_by = %d %v", code, out)
	}

	if code, out = do("GET", "/v1/baselines?project="+h.project, "", nil); code != http.StatusOK || len(out["baselines"].([]any)) != 1 {
		t.Fatalf("GET baselines = %d %v", code, out)
	}
	if code, out = do("GET", "/v1/releases?project="+h.project, "", nil); code != http.StatusOK || out["count"] != 1.0 {
		t.Fatalf("GET releases = %d %v", code, out)
	}
	code, out = do("GET", "/v1/promotion?project="+h.project, "", nil)
	if code != http.StatusOK || len(out["gates"].([]any)) != 6 || len(out["promotions"].([]any)) != 1 {
		t.Fatalf("GET promotion = %d %v", code, out)
	}
}
