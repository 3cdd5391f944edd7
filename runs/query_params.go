package runs

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/twin"
)

// onlyParams answers 400 when the request's query has a parameter not in
// known, naming it and saying what to pass (howTo), and reports whether
// the request may go on. A misspelt filter must not be read as no filter.
func onlyParams(w http.ResponseWriter, r *http.Request, known []string, howTo string) bool {
	var unknown []string
	for k := range r.URL.Query() {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return true
	}
	sort.Strings(unknown)
	httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("unknown parameter %s: %s", strings.Join(unknown, ", "), howTo))
	return false
}

// queriedProject reads ?project= (and nothing else) and the project it
// names; on false the response is already a 400 or 404 saying what to pass.
func queriedProject(w http.ResponseWriter, r *http.Request, store twin.Store) (twin.Project, bool) {
	if !onlyParams(w, r, []string{"project"}, "pass project=PROJECT_ID") {
		return twin.Project{}, false
	}
	pid, ok := project(w, r)
	if !ok {
		return twin.Project{}, false
	}
	p, err := store.GetProject(r.Context(), pid)
	if err != nil {
		httpjson.Error(w, twinStatus(err), projectMissing(pid, err))
		return twin.Project{}, false
	}
	return p, true
}
