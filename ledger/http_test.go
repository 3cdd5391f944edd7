package ledger_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/ledger/pgtest"
)

func serve(t *testing.T, h ledger.Handler) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	h.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// get fetches path and decodes its JSON body.
func get(t *testing.T, srv *httptest.Server, path string) (int, map[string]any) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("GET %s: Content-Type %q", path, ct)
	}
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, body
}

func TestHTTP(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	l := open(t, url)
	record(t, l, scriptedSession()...)
	ctx := testContext(t)
	if err := l.RecordDecision(ctx, ledger.Decision{ApprovalID: "run_a1", CallID: "c2", ProjectID: "p1",
		Outcome: "approved", By: "Fidel", Route: "dashboard"}); err != nil {
		t.Fatal(err)
	}
	h := ledger.Handler{Ledger: l}
	if pages := h.Pages(); len(pages) != 1 || pages[0] != "/sessions" {
		t.Errorf("Pages() = %v, want [/sessions]", pages)
	}
	srv := serve(t, h)

	for _, c := range []struct {
		path, list string
		count      float64
		first      map[string]any // fields of the first item
	}{
		{"/v1/ledger/actions", "actions", 5, map[string]any{"call_id": "c5"}},
		{"/v1/ledger/actions?session=s1&limit=2", "actions", 2, map[string]any{"call_id": "c3", "error_type": "TOOL_TIMEOUT"}},
		{"/v1/ledger/actions?project=p1&tool=twin.commit_geometry", "actions", 1,
			map[string]any{"call_id": "c2", "actor_verified": true, "claimed": map[string]any{"model": "claude-opus-5"}}},
		{"/v1/ledger/actions?session=nobody", "actions", 0, nil},
		{"/v1/ledger/sessions", "sessions", 2, map[string]any{"session_id": "s2"}},
		{"/v1/ledger/sessions?project=p1", "sessions", 1, map[string]any{"session_id": "s1", "agent_code": "claude-code", "actions": 3.0}},
		{"/v1/ledger/decisions?approval=run_a1", "decisions", 1, map[string]any{"by": "Fidel", "route": "dashboard"}},
		{"/v1/ledger/decisions?call=c2&project=p1", "decisions", 1, map[string]any{"approval_id": "run_a1"}},
		{"/v1/ledger/decisions?call=c9", "decisions", 0, nil},
	} {
		status, body := get(t, srv, c.path)
		list, _ := body[c.list].([]any)
		if status != http.StatusOK || body["count"] != c.count || list == nil || float64(len(list)) != c.count {
			t.Errorf("GET %s: %d %v", c.path, status, body)
			continue
		}
		if c.first == nil {
			continue
		}
		first := list[0].(map[string]any)
		for k, want := range c.first {
			if got, _ := json.Marshal(first[k]); string(got) != mustJSON(t, want) {
				t.Errorf("GET %s: first %s = %s, want %s", c.path, k, got, mustJSON(t, want))
			}
		}
	}
	// The unverified caller's client is absent, not empty.
	if _, body := get(t, srv, "/v1/ledger/actions?session=s2"); strings.Contains(mustJSON(t, body), `"client"`) {
		t.Errorf("s2's actions carry a client: %v", body)
	}

	for _, path := range []string{
		"/v1/ledger/actions?limit=abc",
		"/v1/ledger/actions?limit=0",
		"/v1/ledger/actions?limit=1001",
		"/v1/ledger/decisions?limit=-1",
	} {
		status, body := get(t, srv, path)
		if msg, _ := body["error"].(string); status != http.StatusBadRequest || !strings.Contains(msg, "give a whole number from 1 to 1000") {
			t.Errorf("GET %s: %d %v, want 400 saying what limit to give", path, status, body)
		}
	}

	// No ledger, or one whose database is gone: 503 saying which.
	off := serve(t, ledger.Handler{})
	for _, path := range []string{"/v1/ledger/actions", "/v1/ledger/sessions", "/v1/ledger/decisions"} {
		status, body := get(t, off, path)
		if status != http.StatusServiceUnavailable || body["error"] != ledger.Off() {
			t.Errorf("GET %s with no ledger: %d %v", path, status, body)
		}
	}
	gone := open(t, url)
	gone.Close()
	goneSrv := serve(t, ledger.Handler{Ledger: gone})
	for _, path := range []string{"/v1/ledger/actions", "/v1/ledger/sessions", "/v1/ledger/decisions"} {
		status, body := get(t, goneSrv, path)
		if msg, _ := body["error"].(string); status != http.StatusServiceUnavailable || !strings.Contains(msg, "postgres://") {
			t.Errorf("GET %s with the database gone: %d %v, want 503 naming the database", path, status, body)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
