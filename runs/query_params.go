package runs

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/internal/httpjson"
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
