package knowledge

import (
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/metaforge/metaforge/internal/httpjson"
	"github.com/metaforge/metaforge/internal/operatorpage"
)

// Handler serves the knowledge base over REST: GET /v1/knowledge/sources
// (filtered by ?tag=key=value, repeatable), GET /v1/knowledge/sources/{id}
// (the source with its chunks), and the /knowledge page over them. A nil
// Store answers 503 saying so, so the routes exist either way.
type Handler struct {
	Store Store
}

// Register adds the routes to api.
func (h Handler) Register(api *http.ServeMux) {
	api.HandleFunc("GET /v1/knowledge/sources", h.sources)
	api.HandleFunc("GET /v1/knowledge/sources/{id}", h.source)
	api.HandleFunc("GET /knowledge", operatorpage.Page(pageHTML))
}

// Pages is the knowledge page, served beside the routes.
func (h Handler) Pages() []string { return []string{"/knowledge"} }

//go:embed page.html
var pageHTML []byte

func (h Handler) sources(w http.ResponseWriter, r *http.Request) {
	if h.Store == nil {
		httpjson.Error(w, http.StatusServiceUnavailable, errNoStore.Error())
		return
	}
	tags, err := tagFilter(r.URL.Query()["tag"])
	if err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	list, err := h.Store.Sources(r.Context(), tags)
	if err != nil {
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if list == nil {
		list = []Source{}
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"sources": list, "count": len(list), "search": h.Store.Describe()})
}

func (h Handler) source(w http.ResponseWriter, r *http.Request) {
	if h.Store == nil {
		httpjson.Error(w, http.StatusServiceUnavailable, errNoStore.Error())
		return
	}
	id := r.PathValue("id")
	s, err := h.Store.Source(r.Context(), id)
	if errors.Is(err, ErrNotFound) {
		httpjson.Error(w, http.StatusNotFound, fmt.Sprintf("no knowledge source %q; GET /v1/knowledge/sources lists them", id))
		return
	}
	if err != nil {
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	chunks, err := h.Store.Chunks(r.Context(), id)
	if err != nil {
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if chunks == nil {
		chunks = []Chunk{}
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"source": s, "chunks": chunks})
}

var errNoStore = errors.New("this server keeps no knowledge base")

// tagFilter reads tag filters written key=value, keys lower-cased as the
// store keeps them.
func tagFilter(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	tags := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" {
			return nil, fmt.Errorf("tag filter %q is not key=value (for example tag=purchase_unit=reel)", p)
		}
		tags[k] = strings.TrimSpace(v)
	}
	return tags, nil
}
