package ledger_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/metaforge/metaforge/ledger"
	"github.com/metaforge/metaforge/ledger/pgtest"
)

// GET /v1/ledger/sessions/{id}: one session, who and from which client,
// with its narrative; one the ledger never saw is 404 saying where the
// sessions are listed.
func TestSessionRoute(t *testing.T) {
	t.Parallel()
	l := open(t, pgtest.URL(t))
	record(t, l, scriptedSession()...)
	ctx := testContext(t)
	if _, err := l.LogSessionEvent(ctx, ledger.SessionEvent{SessionID: "s1", ProjectID: "p1", CallID: "e1", Kind: "decision",
		Text: "thicker web", Actor: "local"}); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, ledger.Handler{Ledger: l})

	status, body := get(t, srv, "/v1/ledger/sessions/s1")
	if status != http.StatusOK {
		t.Fatalf("GET s1: %d %v", status, body)
	}
	s := body["session"].(map[string]any)
	if s["session_id"] != "s1" || s["agent_code"] != "claude-code" || s["actions"] != 3.0 || s["project_id"] != "p1" || body["status"] != "open" {
		t.Errorf("session s1: %v", body)
	}
	if ev := body["events"].([]any); len(ev) != 1 || ev[0].(map[string]any)["text"] != "thicker web" {
		t.Errorf("s1's events: %v", body["events"])
	}

	status, body = get(t, srv, "/v1/ledger/sessions/nobody")
	if msg, _ := body["error"].(string); status != http.StatusNotFound || !strings.Contains(msg, "nobody") || !strings.Contains(msg, "GET /v1/ledger/sessions") {
		t.Errorf("an unknown session: %d %v", status, body)
	}
	if status, body = get(t, serve(t, ledger.Handler{}), "/v1/ledger/sessions/s1"); status != http.StatusServiceUnavailable || body["error"] != ledger.Off() {
		t.Errorf("no ledger: %d %v", status, body)
	}
}
