package approvals

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/internal/operatorpage"
	"github.com/metaforge/metaforge/workflows"
)

// Decider is what the dashboard needs of the queue.
type Decider interface {
	List(ctx context.Context, f Filter) ([]HeldCall, error)
	Decide(ctx context.Context, approvalID string, d workflows.Decision) (workflows.HoldState, error)
}

// Handler serves the approvals queue: GET /v1/approvals, POST
// /v1/approvals/{id}/decision, and the page at /approvals. Only a verified
// person decides (Authority), and only one who could decide sees what a
// held call was asked to do.
type Handler struct {
	Queue     Decider
	Authority Authority
	Logger    *slog.Logger
}

// Register adds the routes to mux.
func (h Handler) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/approvals", h.list)
	mux.HandleFunc("POST /v1/approvals/{id}/decision", h.decide)
	mux.HandleFunc("GET /approvals", operatorpage.Page(pageHTML))
}

//go:embed page.html
var pageHTML []byte

// list answers every pending hold, or one page of them when the client
// asks for pages (page_size, then each next_page_token in turn).
func (h Handler) list(w http.ResponseWriter, r *http.Request) {
	query := r.URL.Query()
	f := Filter{ProjectID: query.Get("project"), ToolID: query.Get("tool")}
	paged := query.Has("page_size") || query.Has("page_token")
	size := MaxPageSize
	if v := query.Get("page_size"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("page_size %q: ask for 1 to %d holds", v, MaxPageSize))
			return
		}
		size = n
	}
	held, err := h.Queue.List(r.Context(), f)
	switch {
	case errors.Is(err, ErrBadFilter):
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	case err != nil:
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error()+"; check that Temporal is up (health.check)")
		return
	}
	if held == nil {
		held = []HeldCall{}
	}
	out := map[string]any{}
	if paged {
		total := len(held)
		var next string
		if held, next, err = Page(held, size, query.Get("page_token")); err != nil {
			httpjson.Error(w, http.StatusBadRequest, err.Error())
			return
		}
		out["next_page_token"], out["total"] = next, total
	}
	out["approvals"], out["count"] = held, len(held)
	if !h.Authority.MayDecide(r) {
		// The arguments are what a reviewer weighs; anyone else learns
		// only that calls wait, and how to become a reviewer.
		for i := range held {
			held[i].Summary = ""
		}
		out["arguments_hidden"] = true
		out["how_to_see_them"] = "arguments are shown only to a person who may decide: " + h.Authority.HowToDecide()
	}
	httpjson.Write(w, http.StatusOK, out)
}

// DecisionRequest is the body of POST /v1/approvals/{id}/decision.
type DecisionRequest struct {
	Decision string `json:"decision"` // approve or reject
	Approver string `json:"approver,omitempty"`
	Comment  string `json:"comment,omitempty"`
}

func (h Handler) decide(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var body DecisionRequest
	// Who decides is settled before the body is read: nothing a caller
	// who may not decide sends is looked at.
	decider, ok := h.Authority.Decider(w, r)
	if !ok {
		return
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		httpjson.Error(w, http.StatusBadRequest, `the body must be JSON {"decision": "approve"|"reject", "comment": "...", "approver": "your name (recorded after operator: when you decide with the operator token)"}: `+err.Error())
		return
	}
	d := workflows.Decision{Route: workflows.RouteDashboard, Comment: strings.TrimSpace(body.Comment)}
	switch body.Decision {
	case "approve", "approved":
		d.Outcome = workflows.OutcomeApproved
	case "reject", "rejected":
		d.Outcome = workflows.OutcomeRejected
	default:
		httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf(`decision %q: say "approve" or "reject"`, body.Decision))
		return
	}
	d.Approver, d.ApproverVerified = decider.Named(body.Approver).Name, true
	state, err := h.Queue.Decide(r.Context(), id, d)
	switch {
	case errors.Is(err, ErrSelfApproval):
		httpjson.Error(w, http.StatusForbidden, err.Error())
		return
	case errors.Is(err, ErrNoSuchHold):
		httpjson.Error(w, http.StatusNotFound, err.Error()+"; GET /v1/approvals lists the pending holds")
		return
	case errors.Is(err, ErrNotPending):
		httpjson.Error(w, http.StatusConflict, err.Error())
		return
	case err != nil:
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if h.Logger != nil {
		h.Logger.Info("approval_decided", "approval_id", id, "outcome", d.Outcome, "approver", d.Approver,
			"approver_verified", d.ApproverVerified, "route", d.Route)
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"approval_id": id, "outcome": d.Outcome, "approver": d.Approver,
		"approver_verified": d.ApproverVerified, "state": state})
}
