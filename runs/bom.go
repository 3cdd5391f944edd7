package runs

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/twin"
)

// BOM serves the engineering BOM over REST: GET
// /v1/bom?project=&view=flat|hierarchical&category=, derived from the
// product hierarchy by twin.EBOM (quantities multiplied down CONTAINS),
// and its roll-ups, GET /v1/bom/rollup?project= (bom_rollup.go). It is a
// read of the twin: nothing here writes.
type BOM struct {
	Twin twin.Store
}

// Register adds the route to mux.
func (h BOM) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/bom", h.bom)
	mux.HandleFunc("GET /v1/bom/rollup", h.rollup)
}

// Pages is none: the route has no page of its own.
func (h BOM) Pages() []string { return nil }

// bomParams are the query parameters GET /v1/bom reads.
var bomParams = []string{"project", "view", "category"}

func (h BOM) bom(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if !onlyParams(w, r, bomParams, "pass project=PROJECT_ID, view=flat|hierarchical (default flat) and optionally category=NAME") {
		return
	}
	p, ok := project(w, r)
	if !ok {
		return
	}
	view := strings.TrimSpace(q.Get("view"))
	if view == "" {
		view = twin.EBOMFlat
	}
	if !slices.Contains(twin.EBOMViews, view) {
		httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("view %q: pass view=flat (one line per BOM item, quantities totalled) "+
			"or view=hierarchical (the product tree with per-position quantities)", view))
		return
	}
	bom, err := twin.EBOM(r.Context(), h.Twin, p, view, q.Get("category"))
	if err != nil {
		httpjson.Error(w, twinStatus(err), err.Error())
		return
	}
	httpjson.Write(w, http.StatusOK, bom)
}
