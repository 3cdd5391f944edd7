//go:build unix

package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/flows"
)

// The /runs page in headless Chromium: a run waiting at its requirements
// gate is listed with its phase, its gate's state and criteria, the
// decisions it allows and a link to its page in the Temporal UI; a person
// approves the gate with its button, and the run moves on.
func TestRunsPage(t *testing.T) {
	r := startPageRig(t)
	project := r.call("project.create", map[string]any{"name": "runs-page"})["project_id"].(string)
	p := r.call("flow.propose", map[string]any{"project_id": project, "flow": "design_v1",
		"goal": "an aluminium 6061 bracket under 1 kg carrying 100 N", "manufacturing_context": "cnc_milling",
		"target_maturity": "prototype", "loads_and_use": "100 N"})
	if code, body := r.rest("/v1/approvals/"+p["approval_id"].(string)+"/decision", map[string]any{"decision": "approve", "approver": "dana"}); code != http.StatusOK {
		t.Fatalf("approve the version: %d %s", code, body)
	}
	runID := startApprovedRun(t, r.callErr, map[string]any{"flow_version_id": p["flow_version_id"]})
	cs := r.call("twin.record_constraint_set", map[string]any{"project_id": project, "name": "reqs", "constraints": []map[string]any{
		{"name": "light", "metric": "mass", "operator": "<=", "limit": 1, "unit": "kg", "verification_method": "inspection"}}})
	r.clientPhase(runID, "requirements", []string{cs["node_id"].(string)})

	var o struct {
		RowText        string         `json:"rowText"`
		TemporalLink   string         `json:"temporalLink"`
		RunLink        string         `json:"runLink"`
		Buttons        []string       `json:"buttons"`
		DecisionStatus int            `json:"decisionStatus"`
		DecisionResp   map[string]any `json:"decisionResponse"`
		DecisionAuth   string         `json:"decisionAuthorization"`
		Address        string         `json:"addressAfterLoad"`
		PageErrors     []string       `json:"pageErrors"`
	}
	runPageScript(t, r, 3*time.Minute, &o, "runs_page.mjs", runID, "dana")
	for _, want := range []string{"requirements", "G1-requirements: waiting", "requirements_recorded: pass", project} {
		if !strings.Contains(o.RowText, want) {
			t.Errorf("the run's row does not show %q:\n%s", want, o.RowText)
		}
	}
	if !strings.HasSuffix(o.TemporalLink, "/namespaces/default/workflows/design-flow-"+runID) {
		t.Errorf("the run's Temporal UI link: %q", o.TemporalLink)
	}
	if o.RunLink != "/runs/"+runID {
		t.Errorf("the run's row links to %q, want its page /runs/%s", o.RunLink, runID)
	}
	if strings.Join(o.Buttons, ",") != "approve,reject,rework" || o.DecisionStatus != http.StatusOK || o.DecisionResp["decider"] != "operator:dana" ||
		o.DecisionResp["decider_verified"] != true {
		t.Errorf("the gate's buttons %v and the decision %d %v", o.Buttons, o.DecisionStatus, o.DecisionResp)
	}
	token := operatorToken(t, r.dataDir)
	// The page took the token from the link once, out of the address bar,
	// and sent it with the decision.
	if strings.Contains(o.Address, token) || o.DecisionAuth != "Bearer "+token {
		t.Errorf("address after load %q, the decision's Authorization %q; want the token gone from the address and sent as a bearer token", o.Address, o.DecisionAuth)
	}
	if len(o.PageErrors) > 0 {
		t.Errorf("the page threw: %v", o.PageErrors)
	}
	if st := r.waitStatus(runID, flows.RunWaitingForClient); st["phase"] != "concept" {
		t.Fatalf("after the page's approval the run is at %v", st["phase"])
	}
}
