package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/runs"
)

// metaforge calls lists the ToolCall workflows by tool, project and
// start time, and metaforge call shows one's arguments (to an identified
// person only), outcome and result.
func TestCLICalls(t *testing.T) {
	_, at := objectServe(t)
	ctx := context.Background()
	var out bytes.Buffer
	if err := runProject(ctx, append([]string{"create", "Called"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	callID := strings.Fields(out.String())[5]
	if !strings.HasPrefix(callID, "rest-") {
		t.Fatalf("project create printed %q: no call id", out.String())
	}
	// Visibility lags the workflow a little: ask until the call is listed.
	deadline := time.Now().Add(10 * time.Second)
	for {
		out.Reset()
		if err := runCalls(ctx, append([]string{"--tool", "project.create", "--since", "1h"}, at...), &out); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), callID) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "CALL") || !strings.Contains(lines[1], callID) ||
		!strings.Contains(lines[1], "project.create") || !strings.Contains(lines[1], "completed") {
		t.Fatalf("calls --tool project.create:\n%s", out.String())
	}
	out.Reset()
	if err := runCalls(ctx, append([]string{"--limit", "5", "--json"}, at...), &out); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Calls []runs.CallSummary `json:"calls"`
	}
	if err := json.Unmarshal(out.Bytes(), &list); err != nil || len(list.Calls) != 1 || list.Calls[0].CallID != callID || list.Calls[0].ClosedAt == nil {
		t.Fatalf("calls --json printed %s (%v)", out.String(), err)
	}
	for _, filter := range [][]string{{"--tool", "twin.get_node"}, {"--since", "2099-01-01T00:00:00Z"}} {
		out.Reset()
		if err := runCalls(ctx, append(filter, at...), &out); err != nil || out.String() != "no calls match\n" {
			t.Fatalf("calls %v: %v %q, want none", filter, err, out.String())
		}
	}
	wantStatus(t, "calls --since yesterday", runCalls(ctx, append([]string{"--since", "yesterday"}, at...), &out), 2, "RFC3339")
	wantStatus(t, "calls --limit 0", runCalls(ctx, append([]string{"--limit", "0"}, at...), &out), 2, "HTTP 400")

	out.Reset()
	if err := runCall(ctx, append([]string{callID}, at...), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"call " + callID + ": project.create completed", `arguments: {"name":"Called"}`, "outcome: success", `"name":"Called"`} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("call %s does not say %q:\n%s", callID, want, out.String())
		}
	}
	// A credential that identifies nobody reads the outcome, not the arguments.
	out.Reset()
	if err := runCall(ctx, append([]string{callID, "--token", "not-a-token"}, at...), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "arguments: (hidden)") || strings.Contains(out.String(), `{"name":"Called"}`) {
		t.Fatalf("call with a token that identifies nobody:\n%s", out.String())
	}
	out.Reset()
	if err := runCall(ctx, append([]string{callID, "--json"}, at...), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var d runs.CallDetail
	if err := json.Unmarshal(out.Bytes(), &d); err != nil || d.State != "completed" || compactJSON(d.Arguments) != `{"name":"Called"}` {
		t.Fatalf("call --json printed %s (%v)", out.String(), err)
	}
	wantStatus(t, "a call that is not there", runCall(ctx, append([]string{"0123456789abcdef"}, at...), &out, io.Discard), 1, "no call 0123456789abcdef")
	wantStatus(t, "call without an id", runCall(ctx, at, &out, io.Discard), 2, "usage: metaforge call")
}

func TestSinceTime(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{"90m": now.Add(-90 * time.Minute), "2026-12-01T00:00:00Z": time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)} {
		if got, err := sinceTime(in, now); err != nil || !got.Equal(want) {
			t.Errorf("sinceTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"-1h", "yesterday", "2026-12-01"} {
		if _, err := sinceTime(bad, now); err == nil {
			t.Errorf("sinceTime(%q) accepted", bad)
		}
	}
}
