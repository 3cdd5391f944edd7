package runs

import (
	"net/http"

	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/twin"
)

// Requirements serves the requirement matrix: GET
// /v1/requirements?project=, every current requirement with its live
// status (pass, fail, stale, no_data), as twin.constraint_violations
// reports it, and the evidence behind the rows: each evidence record a
// row rests on or was made stale by, with its value, pins and freshness.
type Requirements struct {
	Twin twin.Store
}

// Register adds the route to mux.
func (h Requirements) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/requirements", h.matrix)
}

// Pages is none: the dashboard serves /requirements.
func (h Requirements) Pages() []string { return nil }

func (h Requirements) matrix(w http.ResponseWriter, r *http.Request) {
	p, ok := queriedProject(w, r, h.Twin)
	if !ok {
		return
	}
	ctx := r.Context()
	view, err := twinadapter.RequirementsView(ctx, h.Twin, p.ID)
	if err != nil {
		httpjson.Error(w, twinStatus(err), err.Error())
		return
	}
	rep, err := twin.Requirements(ctx, h.Twin, p.ID)
	if err != nil {
		httpjson.Error(w, twinStatus(err), err.Error())
		return
	}
	evidence := map[string]twin.EvidenceRecord{}
	for _, row := range rep.Requirements {
		ids := append([]string{}, row.Evidence...)
		for _, v := range row.StaleValues {
			ids = append(ids, v.NodeID)
		}
		for _, id := range ids {
			if _, seen := evidence[id]; seen {
				continue
			}
			n, err := h.Twin.GetNode(ctx, id)
			if err != nil {
				httpjson.Error(w, twinStatus(err), err.Error())
				return
			}
			if evidence[id], err = twin.EvidenceRecordOf(ctx, h.Twin, n); err != nil {
				httpjson.Error(w, twinStatus(err), err.Error())
				return
			}
		}
	}
	view["evidence"] = evidence
	view["project_name"] = p.Name
	httpjson.Write(w, http.StatusOK, view)
}
