// Package simresults serves FEA results to the dashboard's /sim page over
// REST: a project's results (the solver calls its evidence names), and a
// result's field (von Mises stress, displacement, temperature) on the
// outer surface of its mesh, decimated to what a screen can show, with
// its peak, the nodes' displacements and the fixtures and loads.
//
// A call's result is read through call.Lookup (the worker backs it with
// the ToolCall workflow call-<callId> in Temporal); its mesh and CalculiX
// results file, named in that result, are read where the solve left them
// in the workspace, and nowhere else. The package knows no Temporal.
package simresults

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/adapters/call"
	"github.com/metaforge/metaforge/internal/fieldview"
	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
)

// Handler serves
//
//	GET /v1/simulation/results?project=ID          the project's FEA results
//	GET /v1/results/{callId}/field?name=NAME       one result's field
//	GET /v1/simulation/results/{callId}/field?name=NAME   (the same)
//
// The field answer is JSON with flat float32 arrays (fieldview.View):
// positions, triangle indices, per-vertex values and displacements, at
// most TriangleCap triangles (fieldview.DefaultTriangleCap, 100 000, when
// zero). A result that has no such field answers 404 with an error
// starting "field not stored".
type Handler struct {
	Calls call.Lookup
	Twin  twin.Store
	// Files confines the files read to the workspace's roots.
	Files       *workspace.Workspace
	TriangleCap int

	cache *solutions
}

// New returns the handler with its cache of read results.
func New(calls call.Lookup, store twin.Store, files *workspace.Workspace) Handler {
	return Handler{Calls: calls, Twin: store, Files: files, cache: newSolutions(4)}
}

// Register adds the routes to mux.
func (h Handler) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/simulation/results", h.list)
	mux.HandleFunc("GET /v1/results/{callId}/field", h.field)
	mux.HandleFunc("GET /v1/simulation/results/{callId}/field", h.field)
}

// Pages is none: the /sim page is the dashboard's.
func (h Handler) Pages() []string { return nil }

var callIDPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

// unknownParams answers 400 naming the parameters r has beyond allowed.
func unknownParams(w http.ResponseWriter, r *http.Request, allowed []string, howTo string) bool {
	var unknown []string
	for k := range r.URL.Query() {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return false
	}
	sort.Strings(unknown)
	httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("unknown parameter %s: %s", strings.Join(unknown, ", "), howTo))
	return true
}

func (h Handler) list(w http.ResponseWriter, r *http.Request) {
	if unknownParams(w, r, []string{"project"}, "pass project=PROJECT_ID") {
		return
	}
	p := strings.TrimSpace(r.URL.Query().Get("project"))
	if p == "" {
		httpjson.Error(w, http.StatusBadRequest, "name the project: ?project=PROJECT_ID")
		return
	}
	out, err := listResults(r.Context(), h.Twin, p)
	if err != nil {
		status := http.StatusServiceUnavailable
		if errors.Is(err, twin.ErrNotFound) || strings.Contains(err.Error(), twin.ErrNotFound.Error()) {
			status = http.StatusNotFound
		}
		httpjson.Error(w, status, err.Error())
		return
	}
	httpjson.Write(w, http.StatusOK, out)
}

func (h Handler) field(w http.ResponseWriter, r *http.Request) {
	const howTo = "pass name=von_mises, displacement or temperature"
	if unknownParams(w, r, []string{"name"}, howTo) {
		return
	}
	callID := r.PathValue("callId")
	if !callIDPattern.MatchString(callID) {
		httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("callId %q is not a call id (16 hex characters): give the _meta.callId of a calculix.run_fea or calculix.run_thermal call", callID))
		return
	}
	name := r.URL.Query().Get("name")
	if _, ok := Fields[name]; !ok {
		httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("name %q: %s", name, howTo))
		return
	}
	s, err := h.cache.get(callID, func() (*solution, error) { return h.load(r.Context(), callID) })
	if err == nil {
		var a *FieldAnswer
		if a, err = s.view(name, h.cap()); err == nil {
			httpjson.Write(w, http.StatusOK, a)
			return
		}
	}
	var perr *protocol.Error
	switch {
	case errors.Is(err, errNotStored), errors.Is(err, errNoCall):
		httpjson.Error(w, http.StatusNotFound, err.Error())
	case errors.Is(err, errRunning):
		httpjson.Error(w, http.StatusConflict, err.Error())
	case errors.As(err, &perr) && perr.Code == protocol.ToolUnavailable:
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
	default:
		httpjson.Error(w, http.StatusInternalServerError, err.Error())
	}
}

func (h Handler) cap() int {
	if h.TriangleCap > 0 {
		return h.TriangleCap
	}
	return fieldview.DefaultTriangleCap
}
