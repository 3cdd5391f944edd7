//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/metaforge/metaforge/flows"
)

// designFlow is what designflow_client.mjs saw.
type designFlow struct {
	ProjectID       string `json:"projectId"`
	RunID           string `json:"runId"`
	UnapprovedStart *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"unapprovedStart"`
	Gates []struct {
		Gate     string   `json:"gate"`
		Status   string   `json:"status"`
		Allowed  []string `json:"allowed"`
		Decision string   `json:"decision"`
		HTTP     int      `json:"http"`
	} `json:"gates"`
	NoData struct {
		Status  string   `json:"status"`
		Allowed []string `json:"allowed"`
		HTTP    int      `json:"http"`
		Error   string   `json:"error"`
	} `json:"noData"`
	FEA struct {
		Displacement float64 `json:"displacement"`
		VonMises     float64 `json:"vonMises"`
		SafetyFactor float64 `json:"safetyFactor"`
	} `json:"fea"`
	WithEvidence struct {
		Status  string   `json:"status"`
		Allowed []string `json:"allowed"`
	} `json:"withEvidence"`
	FinalStatus string `json:"finalStatus"`
	Verdict     string `json:"verdict"`
}

// A mech_v1 bracket flow through MCP with the TypeScript SDK, from the
// proposal to COMPLETED_VERIFIED: the unapproved version is refused, the
// analysis gate refuses approval while its evidence is missing and accepts
// it once real FEA evidence is recorded; the Temporal UI's API lists the run
// with its search attributes.
func TestMechDesignFlowThroughMCP(t *testing.T) {
	ports := freePorts(t, 3)
	var o designFlow
	runStdioAgent(t, "designflow_client.mjs", ports, 10*time.Minute, &o)
	if o.UnapprovedStart == nil || !strings.Contains(o.UnapprovedStart.Message, "has not been approved") {
		t.Errorf("starting the unapproved version: want a refusal naming the approval, got %+v", o.UnapprovedStart)
	}
	if o.NoData.Status != "no_data" || contains(o.NoData.Allowed, "approve") || o.NoData.HTTP != http.StatusConflict ||
		!strings.Contains(o.NoData.Error, "no_data") {
		t.Errorf("analysis gate without evidence: want no_data, approve not offered and refused (409), got %+v", o.NoData)
	}
	if o.WithEvidence.Status != "pass" || !contains(o.WithEvidence.Allowed, "approve") {
		t.Errorf("analysis gate with FEA evidence: want pass and approve offered, got %+v", o.WithEvidence)
	}
	// The evidence is CalculiX's: a 100 x 20 x 20 mm aluminium cantilever
	// under 200 N bends F L^3 / (3 E I) = 0.0726 mm (E 68.9 GPa); the
	// quadratic tetrahedra and the load spread over the end face stay within 10%.
	want := 200 * 1e6 / (3 * 68900 * (20 * 8000.0 / 12))
	if d := o.FEA.Displacement; d < 0.9*want || d > 1.1*want {
		t.Errorf("FEA tip displacement %.4f mm, want %.4f mm within 10%%", d, want)
	}
	for _, g := range o.Gates {
		if g.Decision == "approve" && g.HTTP != http.StatusOK && g.Status == "pass" {
			t.Errorf("gate %s passed but its approval answered %d", g.Gate, g.HTTP)
		}
	}
	if o.FinalStatus != flows.RunCompletedVerified || o.Verdict != flows.RunCompletedVerified {
		t.Errorf("run ended %s with verdict %s, want COMPLETED_VERIFIED", o.FinalStatus, o.Verdict)
	}

	// The run in Temporal's visibility with its search attributes, through
	// the Temporal API and through the UI's own HTTP API on :ui-port.
	c := dialTemporal(t, ports[0])
	query := fmt.Sprintf("WorkflowType = 'DesignFlow' AND MfProject = '%s' AND MfFlow = 'mech_v1' AND MfGate = 'approved' AND MfPhase = 'release'", o.ProjectID)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default", Query: query})
		if err == nil && len(resp.GetExecutions()) == 1 && resp.GetExecutions()[0].GetExecution().GetWorkflowId() == "design-flow-"+o.RunID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("visibility does not list the run for %s: %v %v", query, resp, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	ui := fmt.Sprintf("http://127.0.0.1:%d/api/v1/namespaces/default/workflows?query=%s", ports[1], url.QueryEscape(query))
	resp, err := http.Get(ui)
	if err != nil {
		t.Fatalf("the Temporal UI's API: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "design-flow-"+o.RunID) || !strings.Contains(string(body), "MfGate") {
		t.Errorf("the Temporal UI's API (%s) does not list the run with its search attributes: %d %s", ui, resp.StatusCode, tail(string(body), 800))
	}

	// REST: the run is listed with its Temporal UI link.
	r, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/v1/runs?project=%s", ports[2], o.ProjectID))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Runs []struct {
			RunID      string `json:"run_id"`
			Status     string `json:"status"`
			TemporalUI string `json:"temporal_ui"`
		} `json:"runs"`
	}
	_ = json.NewDecoder(r.Body).Decode(&list)
	r.Body.Close()
	if len(list.Runs) != 1 || list.Runs[0].RunID != o.RunID || !strings.Contains(list.Runs[0].TemporalUI, "design-flow-"+o.RunID) {
		t.Errorf("GET /v1/runs: %+v", list)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// runStdioAgent serves MetaForge on ports and runs a Node client as an
// agent on this machine would: its MCP server is `metaforge mcp` over
// stdio, sharing serve's Temporal (its tools run on serve's workers and
// twin), with serve's REST address and the operator token a person
// decides with. mcpArgs are added to metaforge mcp's own (a --profile).
// It decodes the client's line into out.
func runStdioAgent(t *testing.T, script string, ports []int, timeout time.Duration, out any, mcpArgs ...string) {
	t.Helper()
	srv := serve(t, ports[0], ports[1], ports[2])
	base := fmt.Sprintf("http://127.0.0.1:%d", ports[2])
	args := append([]string{script, base, binary, "mcp", "--data-dir", filepath.Join(t.TempDir(), "mcp"), "--no-worker"}, mcpArgs...)
	cmd := command(t, timeout, nodePath, args...)
	cmd.Env = append(cmd.Env, fmt.Sprintf("TEMPORAL_ADDRESS=127.0.0.1:%d", ports[0]), "E2E_OPERATOR_TOKEN="+operatorToken(t, srv.dataDir))
	runClient(t, "node "+script, cmd, timeout, out)
}
