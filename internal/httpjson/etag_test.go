package httpjson

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// A poll that finds the same body gets 304 and no body; a changed body a
// new tag; errors and writes are not tagged.
func TestETagAnswersNotModifiedForTheSameBody(t *testing.T) {
	body := map[string]any{"runs": 1}
	h := ETag(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			Error(w, http.StatusNotFound, "no such run")
			return
		}
		Write(w, http.StatusOK, body)
	}))
	get := func(path, inm string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	first := get("/v1/runs", "")
	tag := first.Header().Get("ETag")
	if first.Code != http.StatusOK || tag == "" || first.Body.String() != `{"runs":1}`+"\n" ||
		first.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("first GET: %d tag %q body %q", first.Code, tag, first.Body.String())
	}
	if again := get("/v1/runs", tag); again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("GET with If-None-Match %s: %d %q, want 304 and no body", tag, again.Code, again.Body.String())
	}
	body["runs"] = 2
	if changed := get("/v1/runs", tag); changed.Code != http.StatusOK || changed.Header().Get("ETag") == tag {
		t.Errorf("after a change: %d tag %q (old %q), want 200 and a new tag", changed.Code, changed.Header().Get("ETag"), tag)
	}
	if miss := get("/missing", ""); miss.Code != http.StatusNotFound || miss.Header().Get("ETag") != "" {
		t.Errorf("an error answer: %d tag %q, want 404 untagged", miss.Code, miss.Header().Get("ETag"))
	}
}
