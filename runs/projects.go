package runs

import (
	"context"
	"log/slog"
	"maps"
	"net/http"
	"slices"

	"github.com/metaforge/metaforge/approvals"
	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/twin"
)

// Projects serves the projects as the dashboard's home and project pages
// read them: GET /v1/projects (each project with its open runs, pending
// approvals and unverified requirements at a glance), GET
// /v1/projects/{id} (its work-product tree and evidence with freshness),
// GET /v1/projects/{id}/items/{key}/history (one item's revisions and the
// evidence computed against each) and POST /v1/projects (project.create,
// decided by the person asking: project_create.go). The reads go to the
// twin for the design, Temporal's visibility for runs and holds.
type Projects struct {
	Twin twin.Store
	// Runs counts open runs and Holds lists pending approvals; either nil
	// leaves its count out (null), saying so in notes.
	Runs  *Service
	Holds HeldLister
	// Authority says who may create a project (POST /v1/projects): an
	// identified person, as for every REST write.
	Authority approvals.Authority
	Logger    *slog.Logger
}

// HeldLister is what the projects read of the approvals queue.
type HeldLister interface {
	List(ctx context.Context, f approvals.Filter) ([]approvals.HeldCall, error)
}

// Register adds the routes to mux.
func (h Projects) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/projects", h.list)
	mux.HandleFunc("POST /v1/projects", h.create)
	mux.HandleFunc("GET /v1/projects/{id}", h.get)
	mux.HandleFunc("GET /v1/projects/{id}/items/{key}/history", h.history)
}

// Pages is none: the dashboard serves the pages.
func (h Projects) Pages() []string { return nil }

// ProjectGlance is a project with what needs attention in it.
type ProjectGlance struct {
	twin.Project
	// Items counts its work products (items, each once).
	Items int `json:"items"`
	// OpenRuns and PendingApprovals are nil when they could not be
	// counted (the glance's notes say why).
	OpenRuns         *int `json:"open_runs"`
	PendingApprovals *int `json:"pending_approvals"`
	// Requirements counts the current requirements by live status;
	// Unverified is those not passing (fail, stale, no_data).
	Requirements RequirementCounts `json:"requirements"`
	Unverified   int               `json:"unverified_requirements"`
}

// RequirementCounts is twin.RequirementSummary as JSON.
type RequirementCounts struct {
	Requirements int `json:"requirements"`
	Pass         int `json:"pass"`
	Fail         int `json:"fail"`
	Stale        int `json:"stale"`
	NoData       int `json:"no_data"`
}

func (h Projects) list(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r, nil, "GET /v1/projects takes no parameters; GET /v1/projects/{id} reads one project") {
		return
	}
	ps, err := h.Twin.ListProjects(r.Context())
	if err != nil {
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	out := make([]ProjectGlance, 0, len(ps))
	notes := map[string]bool{}
	for _, p := range ps {
		g, err := h.glance(r.Context(), p, notes)
		if err != nil {
			httpjson.Error(w, twinStatus(err), err.Error())
			return
		}
		out = append(out, g)
	}
	body := map[string]any{"projects": out, "count": len(out)}
	if len(notes) > 0 {
		body["notes"] = slices.Sorted(maps.Keys(notes))
	}
	httpjson.Write(w, http.StatusOK, body)
}

// glance reads one project's counts. A count Temporal cannot give now is
// left nil and the reason added to notes; a twin error is the answer's.
func (h Projects) glance(ctx context.Context, p twin.Project, notes map[string]bool) (ProjectGlance, error) {
	g := ProjectGlance{Project: p}
	items, err := h.Twin.Items(ctx, p.ID)
	if err != nil {
		return g, err
	}
	g.Items = len(items)
	rep, err := twin.Requirements(ctx, h.Twin, p.ID)
	if err != nil {
		return g, err
	}
	s := rep.Summary
	g.Requirements = RequirementCounts{Requirements: s.Requirements, Pass: s.Pass, Fail: s.Fail, Stale: s.Stale, NoData: s.NoData}
	g.Unverified = s.Requirements - s.Pass
	if h.Runs == nil {
		notes["open runs are not counted: this server reaches no Temporal"] = true
	} else if n, err := h.Runs.OpenRuns(ctx, p.ID); err != nil {
		notes[err.Error()+"; check that Temporal is up (health.check)"] = true
	} else {
		g.OpenRuns = &n
	}
	if h.Holds == nil {
		notes["pending approvals are not counted: this server has no approvals queue"] = true
	} else if held, err := h.Holds.List(ctx, approvals.Filter{ProjectID: p.ID}); err != nil {
		notes["count the pending approvals of project "+p.ID+": "+err.Error()+"; check that Temporal is up (health.check)"] = true
	} else {
		n := len(held)
		g.PendingApprovals = &n
	}
	return g, nil
}
