package httpjson

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The bytes on the wire: Content-Type, status and body, newline and all,
// as the routes wrote them before they shared this package.
func TestWhatEachWriterSends(t *testing.T) {
	for _, c := range []struct {
		name   string
		write  func(w http.ResponseWriter)
		status int
		body   string
	}{
		{"Write", func(w http.ResponseWriter) { Write(w, http.StatusOK, map[string]any{"b": 1, "a": "<x>"}) },
			http.StatusOK, `{"a":"\u003cx\u003e","b":1}` + "\n"},
		{"Error", func(w http.ResponseWriter) { Error(w, http.StatusConflict, "already decided") },
			http.StatusConflict, `{"error":"already decided"}` + "\n"},
		{"WriteEncoded", func(w http.ResponseWriter) { WriteEncoded(w, http.StatusBadRequest, []byte(`{"jsonrpc":"2.0"}`)) },
			http.StatusBadRequest, `{"jsonrpc":"2.0"}`},
	} {
		rec := httptest.NewRecorder()
		c.write(rec)
		if rec.Code != c.status || rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != c.body {
			t.Errorf("%s sent %d %q %q, want %d application/json %q", c.name, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String(), c.status, c.body)
		}
	}
}
