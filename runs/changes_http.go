package runs

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/internal/operatorpage"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/workflows"
)

// ChangesHandler serves engineering changes: GET/POST /v1/changes, GET
// /v1/changes/{id}, POST /v1/changes/{id}/analyze|decision|commit|
// revalidate|rollback, and the page at /changes. Every write is a verified
// person's (Authority), recorded under their name; a review by the
// change's creator is refused by the change itself.
type ChangesHandler struct {
	Changes *Changes
	Runs    *Service
	// Store checks a proposed patch against the twin before anything
	// starts.
	Store      twin.Store
	Authority  approvals.Authority
	Logger     *slog.Logger
	TemporalUI string
}

// Register adds the routes to mux.
func (h ChangesHandler) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/changes", h.list)
	mux.HandleFunc("POST /v1/changes", h.propose)
	mux.HandleFunc("GET /v1/changes/{id}", h.get)
	mux.HandleFunc("POST /v1/changes/{id}/decision", h.decide)
	for route, step := range map[string]string{"analyze": twinadapter.StepAnalyze, "commit": twinadapter.StepCommit,
		"revalidate": twinadapter.StepRevalidate, "rollback": twinadapter.StepRollBack} {
		mux.HandleFunc("POST /v1/changes/{id}/"+route, h.step(step))
	}
	mux.HandleFunc("GET /changes", operatorpage.Page(changesPageHTML))
}

// Pages is the page served beside the routes.
func (h ChangesHandler) Pages() []string { return []string{"/changes"} }

//go:embed changes_page.html
var changesPageHTML []byte

// changeView is a change as the routes show it, with its workflow's page.
type changeView struct {
	workflows.ChangeState
	WorkflowID string `json:"workflow_id"`
	Running    bool   `json:"running"`
	TemporalUI string `json:"temporal_ui,omitempty"`
}

func (h ChangesHandler) view(st workflows.ChangeState, running bool) changeView {
	v := changeView{ChangeState: st, WorkflowID: workflows.EngineeringChangeWorkflowID(st.ChangeID), Running: running}
	if h.TemporalUI != "" {
		v.TemporalUI = fmt.Sprintf("%s/namespaces/%s/workflows/%s", strings.TrimSuffix(h.TemporalUI, "/"), h.Changes.namespace(), v.WorkflowID)
	}
	return v
}

func (h ChangesHandler) list(w http.ResponseWriter, r *http.Request) {
	list, err := h.Changes.ListChanges(r.Context(), r.URL.Query().Get("project"), r.URL.Query().Get("status"))
	if err != nil {
		httpjson.Error(w, changeStatusOf(err), err.Error())
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"changes": list, "count": len(list)})
}

func (h ChangesHandler) get(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !changeIDPattern.MatchString(id) {
		httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("%q is not a change id (16 hex characters)", id))
		return
	}
	st, running, err := h.Changes.State(r.Context(), id)
	if err != nil {
		httpjson.Error(w, changeStatusOf(err), err.Error())
		return
	}
	httpjson.Write(w, http.StatusOK, h.view(st, running))
}

// ProposeChangeRequest is the body of POST /v1/changes.
type ProposeChangeRequest struct {
	ProjectID string         `json:"project_id"`
	Title     string         `json:"title"`
	Reason    string         `json:"reason"`
	Patch     []twin.PatchOp `json:"patch"`
	// Analyze analyses the change at once, as twin.propose_change does.
	Analyze  bool   `json:"analyze,omitempty"`
	Approver string `json:"approver,omitempty"`
}

func (h ChangesHandler) propose(w http.ResponseWriter, r *http.Request) {
	who, ok := h.Authority.Decider(w, r)
	if !ok {
		return
	}
	var body ProposeChangeRequest
	if !decodeBody(w, r, &body, `{"project_id": "...", "title": "...", "reason": "...", "patch": [{"ref": "KEY@n", "set": {...}}], "analyze": true}`) {
		return
	}
	if strings.TrimSpace(body.Title) == "" || strings.TrimSpace(body.Reason) == "" {
		httpjson.Error(w, http.StatusBadRequest, "a change needs a title and a reason")
		return
	}
	ctx := r.Context()
	p, err := h.Store.GetProject(ctx, body.ProjectID)
	if err != nil {
		httpjson.Error(w, http.StatusNotFound, fmt.Sprintf("project %q: %v", body.ProjectID, err))
		return
	}
	if _, err := twin.CheckPatch(ctx, h.Store, p.ID, body.Patch); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	var raw [8]byte
	if _, err := rand.Read(raw[:]); err != nil {
		httpjson.Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	s := twinadapter.ChangeStart{ChangeID: hex.EncodeToString(raw[:]), ProjectID: p.ID, Title: body.Title, Reason: body.Reason,
		CreatedBy: who.Named(body.Approver).Name, Patch: body.Patch, AnalyzeNow: body.Analyze}
	proc, err := h.Changes.ChangeProcess(s)
	if err == nil {
		err = h.Runs.Start(ctx, proc)
	}
	if err != nil {
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	st, running, err := h.settled(ctx, s.ChangeID, body.Analyze)
	if err != nil {
		httpjson.Error(w, changeStatusOf(err), err.Error())
		return
	}
	httpjson.Write(w, http.StatusCreated, h.view(st, running))
}

// settled waits (briefly) for a new change to be recorded, and analysed
// when asked.
func (h ChangesHandler) settled(ctx context.Context, id string, analyzed bool) (workflows.ChangeState, bool, error) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, running, err := h.Changes.State(ctx, id)
		done := err == nil && len(st.History) > 0 && st.Busy == "" && (!analyzed || (st.Status != workflows.ChangeProposed && st.Status != workflows.ChangeAnalyzing))
		if done || time.Now().After(deadline) {
			return st, running, err
		}
		select {
		case <-ctx.Done():
			return st, running, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ChangeDecisionRequest is the body of POST /v1/changes/{id}/decision.
type ChangeDecisionRequest struct {
	Decision string `json:"decision"` // approve, reject
	Comment  string `json:"comment,omitempty"`
	Approver string `json:"approver,omitempty"`
}

func (h ChangesHandler) decide(w http.ResponseWriter, r *http.Request) {
	who, ok := h.Authority.Decider(w, r)
	if !ok {
		return
	}
	var body ChangeDecisionRequest
	if !decodeBody(w, r, &body, `{"decision": "approve"|"reject", "comment": "...", "approver": "your name (recorded after operator: when you decide with the operator token)"}`) {
		return
	}
	step := twinadapter.ChangeStep{By: who.Named(body.Approver).Name, Verified: true, Comment: strings.TrimSpace(body.Comment)}
	switch strings.TrimSpace(body.Decision) {
	case "approve":
		step.Name = twinadapter.StepApprove
	case "reject":
		if step.Comment == "" {
			httpjson.Error(w, http.StatusBadRequest, "a rejection needs a comment saying why")
			return
		}
		step.Name = twinadapter.StepReject
	default:
		httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("decision %q: say approve or reject", body.Decision))
		return
	}
	h.send(w, r, step)
}

// ChangeStepRequest is the body of the other step routes (may be empty).
type ChangeStepRequest struct {
	Reason   string `json:"reason,omitempty"`
	Approver string `json:"approver,omitempty"`
}

func (h ChangesHandler) step(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		who, ok := h.Authority.Decider(w, r)
		if !ok {
			return
		}
		var body ChangeStepRequest
		if r.ContentLength != 0 && !decodeBody(w, r, &body, `{"reason": "...", "approver": "..."}`) {
			return
		}
		if name == twinadapter.StepRollBack && strings.TrimSpace(body.Reason) == "" {
			httpjson.Error(w, http.StatusBadRequest, "a roll-back label needs a reason: it records who labelled the change and why")
			return
		}
		h.send(w, r, twinadapter.ChangeStep{Name: name, By: who.Named(body.Approver).Name, Verified: true, Reason: strings.TrimSpace(body.Reason)})
	}
}

func (h ChangesHandler) send(w http.ResponseWriter, r *http.Request, s twinadapter.ChangeStep) {
	id := r.PathValue("id")
	if !changeIDPattern.MatchString(id) {
		httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("%q is not a change id (16 hex characters)", id))
		return
	}
	st, err := h.Changes.Step(r.Context(), id, s)
	if err != nil {
		httpjson.Error(w, changeStatusOf(err), err.Error())
		return
	}
	if h.Logger != nil {
		h.Logger.Info("change_step", "change_id", id, "step", s.Name, "by", s.By, "status", st.Status)
	}
	httpjson.Write(w, http.StatusOK, h.view(st, st.Status != workflows.ChangeRejected && st.Status != workflows.ChangeRolledBack))
}

// decodeBody reads a JSON body of at most 64 KiB, refusing unknown
// fields with the shape it wants.
func decodeBody(w http.ResponseWriter, r *http.Request, into any, shape string) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		httpjson.Error(w, http.StatusBadRequest, "the body must be JSON "+shape+": "+err.Error())
		return false
	}
	return true
}

// changeStatusOf maps a change error to its HTTP status.
func changeStatusOf(err error) int {
	var refusal *twin.RefusalError
	switch {
	case errors.Is(err, twinadapter.ErrNoChange):
		return http.StatusNotFound
	case errors.Is(err, twinadapter.ErrChangeRefused), errors.As(err, &refusal):
		return http.StatusConflict
	}
	return http.StatusServiceUnavailable
}
