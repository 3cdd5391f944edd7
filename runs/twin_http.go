package runs

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/twin"
)

// TwinViews serves what the /twin page draws: GET /v1/twin/hierarchy
// (the product structure with roll-ups, owners and interfaces), GET
// /v1/twin/model (the parts a node's 3D view is made of, placed) and GET
// /v1/twin/mesh (one part's triangles as binary STL, converted from its
// STEP once and cached), GET /v1/twin/node (one node and its neighbours)
// and GET /v1/twin/find (nodes by a property), for the CLI. Reads of the twin; the one tool a conversion
// runs (cadquery.export_geometry) is read-only and runs as a ToolCall.
type TwinViews struct {
	Twin  twin.Store
	Blobs *twin.BlobStore
	// Runs starts the conversion's tool calls; nil: STEP parts are not
	// converted, and their mesh says so.
	Runs *Service
	// MeshCache is the folder converted meshes are kept in, by the
	// STEP's hash; "" keeps none.
	MeshCache string
}

// Register adds the routes to mux.
func (h TwinViews) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/twin/hierarchy", h.hierarchy)
	mux.HandleFunc("GET /v1/twin/model", h.model)
	mux.HandleFunc("GET /v1/twin/mesh", h.mesh)
	mux.HandleFunc("GET /v1/twin/node", h.node)
	mux.HandleFunc("GET /v1/twin/find", h.find)
}

// Pages is none: /twin is the dashboard's.
func (h TwinViews) Pages() []string { return nil }

// twinQuery reads the query parameters of a twin view: each of want
// required, nothing else allowed; a 400 names what to pass.
func twinQuery(w http.ResponseWriter, r *http.Request, howTo string, want ...string) (map[string]string, bool) {
	if !onlyParams(w, r, want, howTo) {
		return nil, false
	}
	q := r.URL.Query()
	out := map[string]string{}
	for _, k := range want {
		v := strings.TrimSpace(q.Get(k))
		if v == "" {
			httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("%s is missing: %s", k, howTo))
			return nil, false
		}
		out[k] = v
	}
	return out, true
}

// twinViewStatus is the HTTP status of a twin read's error: a missing
// node 404, a refusal (the twin's rules, saying what to do) 422, a bad
// reference 400, anything else (the store) 503.
func twinViewStatus(err error) int {
	var refusal *twin.RefusalError
	switch {
	case errors.Is(err, twin.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, twin.ErrInvalid):
		return http.StatusBadRequest
	case errors.As(err, &refusal):
		return http.StatusUnprocessableEntity
	}
	return http.StatusServiceUnavailable
}
