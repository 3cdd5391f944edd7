package runs

import (
	"net/http"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/twin"
)

// rollup is GET /v1/bom/rollup?project=: the roll-up (mass, cost, power,
// each child counted as many times as its parent holds it) of every root
// of the project's product hierarchy, computed live by twin.ComputeRollup.
// A figure some leaf cannot give is no_data naming that leaf, with the
// known partial sum beside it, never a total that counts it as zero.
func (h BOM) rollup(w http.ResponseWriter, r *http.Request) {
	p, ok := queriedProject(w, r, h.Twin)
	if !ok {
		return
	}
	ctx := r.Context()
	roots, err := twin.HierarchyRoots(ctx, h.Twin, p.ID)
	if err != nil {
		httpjson.Error(w, twinStatus(err), err.Error())
		return
	}
	out := make([]twin.RollupNode, 0, len(roots))
	for _, root := range roots {
		ru, err := twin.ComputeRollup(ctx, h.Twin, p.ID, root.ID)
		if err != nil {
			httpjson.Error(w, twinStatus(err), err.Error())
			return
		}
		out = append(out, ru.Root)
	}
	body := map[string]any{"project_id": p.ID, "roots": out, "count": len(out)}
	if len(out) == 0 {
		body["note"] = "no product hierarchy is recorded in this project, so there is nothing to roll up: record positions with " +
			"twin.record_hierarchy_node (realized_by a cad_model for mass, instance_of a BOM item for cost, power for draw)"
	}
	httpjson.Write(w, http.StatusOK, body)
}
