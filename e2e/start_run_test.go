package e2e

import (
	"testing"
	"time"
)

// startApprovedRun starts a run with flow.start_run's args, of a flow
// version whose approval was just decided. The decision reaches the
// version asynchronously, so the call is retried every 200 ms, for up to
// a minute, until the version takes it; it returns the run's id.
func startApprovedRun(t *testing.T, callErr func(string, map[string]any) (map[string]any, error), args map[string]any) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := callErr("flow.start_run", args)
		if err == nil {
			id, _ := out["run_id"].(string)
			if id == "" {
				t.Fatalf("flow.start_run answered no run_id: %v", out)
			}
			return id
		}
		if time.Now().After(deadline) {
			t.Fatalf("flow.start_run after the version was approved: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
