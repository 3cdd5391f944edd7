package runs

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/metaforge/metaforge/adapters/flow"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/flows"
	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/internal/operatorpage"
	"github.com/metaforge/metaforge/workflows"
)

// Handler serves the runs: GET /v1/runs, GET /v1/runs/{id}, POST
// /v1/runs/{id}/gates/{gate}/decision, and the page at /runs. A gate is a
// human authority: only a verified person decides it (Authority).
type Handler struct {
	Runs      *Service
	Authority approvals.Authority
	Logger    *slog.Logger
	// TemporalUI is the Temporal UI's base URL, for each run's link; ""
	// when there is none.
	TemporalUI string
}

// Register adds the routes to mux.
func (h Handler) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/runs", h.list)
	mux.HandleFunc("GET /v1/runs/{id}", h.get)
	mux.HandleFunc("POST /v1/runs/{id}/gates/{gate}/decision", h.decide)
	mux.HandleFunc("GET /runs", operatorpage.Page(pageHTML))
}

// Pages is the page served beside the routes.
func (h Handler) Pages() []string { return []string{"/runs"} }

//go:embed page.html
var pageHTML []byte

// runView is a run as the REST routes show it: its state and its page in
// the Temporal UI.
type runView struct {
	flows.RunState
	WorkflowID string `json:"workflow_id"`
	TemporalUI string `json:"temporal_ui,omitempty"`
}

func (h Handler) view(st flows.RunState) runView {
	v := runView{RunState: st, WorkflowID: workflows.DesignFlowWorkflowID(st.RunID)}
	if h.TemporalUI != "" {
		v.TemporalUI = fmt.Sprintf("%s/namespaces/%s/workflows/%s", strings.TrimSuffix(h.TemporalUI, "/"), h.Runs.namespace(), v.WorkflowID)
	}
	return v
}

func (h Handler) list(w http.ResponseWriter, r *http.Request) {
	list, err := h.Runs.ListRuns(r.Context(), r.URL.Query().Get("project"))
	if err != nil {
		httpjson.Error(w, statusOf(err), err.Error())
		return
	}
	views := []runView{}
	for _, st := range list {
		views = append(views, h.view(st))
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"runs": views, "count": len(views)})
}

func (h Handler) get(w http.ResponseWriter, r *http.Request) {
	st, err := h.Runs.RunState(r.Context(), r.PathValue("id"))
	if err != nil {
		httpjson.Error(w, statusOf(err), err.Error())
		return
	}
	httpjson.Write(w, http.StatusOK, h.view(st))
}

// DecisionRequest is the body of POST /v1/runs/{id}/gates/{gate}/decision.
type DecisionRequest struct {
	Decision string `json:"decision"` // approve, reject, rework
	ReworkTo string `json:"rework_to,omitempty"`
	Approver string `json:"approver,omitempty"`
	Comment  string `json:"comment,omitempty"`
}

func (h Handler) decide(w http.ResponseWriter, r *http.Request) {
	runID, gate := r.PathValue("id"), r.PathValue("gate")
	decider, ok := h.Authority.Decider(w, r)
	if !ok {
		return
	}
	var body DecisionRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		httpjson.Error(w, http.StatusBadRequest, `the body must be JSON {"decision": "approve"|"reject"|"rework", "rework_to": "PHASE", "comment": "...", "approver": "your name (recorded after operator: when you decide with the operator token)"}: `+err.Error())
		return
	}
	d := flows.GateDecision{Gate: gate, Decision: strings.TrimSpace(body.Decision), ReworkTo: strings.TrimSpace(body.ReworkTo),
		Comment: strings.TrimSpace(body.Comment), Decider: decider.Named(body.Approver).Name, DeciderVerified: true, Route: workflows.RouteDashboard}
	st, err := h.Runs.Decide(r.Context(), runID, d)
	if err != nil {
		httpjson.Error(w, statusOf(err), err.Error())
		return
	}
	if h.Logger != nil {
		h.Logger.Info("gate_decided", "run_id", runID, "gate", gate, "decision", d.Decision, "decider", d.Decider,
			"decider_verified", d.DeciderVerified)
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"run_id": runID, "gate": gate, "decision": d.Decision, "decider": d.Decider,
		"decider_verified": d.DeciderVerified, "run": h.view(st)})
}

// statusOf maps a run error to its HTTP status.
func statusOf(err error) int {
	switch {
	case errors.Is(err, flow.ErrNoRun):
		return http.StatusNotFound
	case errors.Is(err, flow.ErrRefused):
		return http.StatusConflict
	}
	return http.StatusServiceUnavailable
}
