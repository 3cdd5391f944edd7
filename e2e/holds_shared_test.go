//go:build unix

package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// What the approval-hold tests (holds_dashboard_test.go,
// holds_elicit_test.go, approvals_page_test.go) read from the server.

// approvalMeta is _meta.approval of an approved call's result.
type approvalMeta struct {
	Held             bool    `json:"held"`
	Outcome          string  `json:"outcome"`
	Route            string  `json:"route"`
	HeldSeconds      float64 `json:"heldSeconds"`
	ApprovalID       string  `json:"approvalId"`
	ApprovedBy       string  `json:"approvedBy"`
	ApproverVerified bool    `json:"approverVerified"`
	Comment          string  `json:"comment"`
	WindowSeconds    *int    `json:"windowSeconds"`
}

// heldCall is one entry of GET /v1/approvals.
type heldCall struct {
	ApprovalID    string    `json:"approval_id"`
	CallID        string    `json:"call_id"`
	ToolID        string    `json:"tool_id"`
	Summary       string    `json:"summary"`
	Reason        string    `json:"reason"`
	Caller        string    `json:"caller"`
	Client        string    `json:"client"`
	ProjectID     string    `json:"project_id"`
	Route         string    `json:"route"`
	WindowSeconds int       `json:"window_seconds"`
	HeldSince     time.Time `json:"held_since"`
	ExpiresAt     time.Time `json:"expires_at"`
}

// listHolds is GET /v1/approvals[?query] on the serve at base.
func listHolds(t *testing.T, base, query string, headers map[string]string) []heldCall {
	t.Helper()
	url := base + "/v1/approvals"
	if query != "" {
		url += "?" + query
	}
	status, body := hdRequest(t, http.MethodGet, url, headers, "")
	if status != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d: %s", url, status, body)
	}
	var out struct {
		Approvals []heldCall `json:"approvals"`
		Count     *int       `json:"count"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Approvals == nil || out.Count == nil || *out.Count != len(out.Approvals) {
		t.Fatalf("GET %s: not {approvals, count} (%v): %s", url, err, body)
	}
	return out.Approvals
}
