package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestCLIVerbsAgainstServe runs the built binary's object verbs against a
// running metaforge serve (its REST routes as serve wires them): project,
// twin, calls, call, tools and completion, as tables and as --json, with
// the exit codes a script reads: 0 done, 1 not there, 2 refused.
func TestCLIVerbsAgainstServe(t *testing.T) {
	r := &crashRig{t: t, dataDir: t.TempDir() + "/data", ports: freePorts(t, 3)}
	r.start()
	at := []string{"--data-dir", r.dataDir, "--url", fmt.Sprintf("http://127.0.0.1:%d", r.ports[2])}
	cli := func(want int, args ...string) string {
		t.Helper()
		code, stdout, stderr := hdCLI(t, append(args, at...)...)
		if code != want {
			t.Fatalf("metaforge %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, stdout, stderr)
		}
		return stdout + stderr
	}
	decode := func(out string, into any) {
		t.Helper()
		if err := json.Unmarshal([]byte(out), into); err != nil {
			t.Fatalf("--json printed %v: %s", err, out)
		}
	}

	// project: create (as the operator), list, show; a name taken is
	// refused (2), a project that is not there is not found (1).
	out := cli(0, "project", "create", "CLI e2e", "--description", "made from the terminal")
	fields := strings.Fields(out)
	if len(fields) < 3 || fields[0] != "created" || fields[1] != "project" {
		t.Fatalf("project create printed %q", out)
	}
	project := fields[2]
	cli(2, "project", "create", "cli E2E")
	var projects struct {
		Projects []struct {
			ID   string `json:"project_id"`
			Name string `json:"name"`
		} `json:"projects"`
	}
	decode(cli(0, "project", "list", "--json"), &projects)
	if len(projects.Projects) != 1 || projects.Projects[0].ID != project || projects.Projects[0].Name != "CLI e2e" {
		t.Fatalf("project list --json: %+v, want the one project %s", projects, project)
	}
	if out := cli(0, "project", "show", project); !strings.Contains(out, "CLI e2e") || !strings.Contains(out, "made from the terminal") {
		t.Fatalf("project show %s:\n%s", project, out)
	}
	cli(1, "project", "show", "p-not-there")

	// twin: an item an agent recorded, by key, by KEY@n, its history and
	// by a property; a key that is not there is not found.
	ref := r.call("twin.record_component_selection", map[string]any{"project_id": project, "name": "Plate stock", "mpn": "AL6061-100x60",
		"manufacturer": "Metals4U", "specs": map[string]any{"unit_cost": "$45.00"}})["item_ref"].(string)
	key, _, _ := strings.Cut(ref, "@")
	for _, show := range []string{key, ref} {
		if out := cli(0, "twin", "show", show, "--project", project); !strings.Contains(out, "Plate stock") || !strings.Contains(out, ref) {
			t.Fatalf("twin show %s:\n%s", show, out)
		}
	}
	var history struct {
		Revisions []struct {
			Ref    string `json:"ref"`
			IsHead bool   `json:"is_head"`
		} `json:"revisions"`
	}
	decode(cli(0, "twin", "history", key, "--project", project, "--json"), &history)
	if len(history.Revisions) != 1 || history.Revisions[0].Ref != ref || !history.Revisions[0].IsHead {
		t.Fatalf("twin history %s --json: %+v, want the one revision %s at head", key, history, ref)
	}
	if out := cli(0, "twin", "find", "mpn=AL6061-100x60", "--project", project); !strings.Contains(out, "Plate stock") {
		t.Fatalf("twin find mpn=AL6061-100x60:\n%s", out)
	}
	cli(1, "twin", "show", "NOT-THERE", "--project", project)
	cli(2, "twin", "find", "no-equals-sign", "--project", project)

	// calls and call: the component's call from Temporal, its arguments
	// to the operator; a call that is not there is not found.
	var calls struct {
		Calls []struct {
			CallID string `json:"call_id"`
			State  string `json:"state"`
		} `json:"calls"`
	}
	decode(cli(0, "calls", "--tool", "twin.record_component_selection", "--json"), &calls)
	if len(calls.Calls) != 1 || calls.Calls[0].State != "completed" {
		t.Fatalf("calls --tool twin.record_component_selection --json: %+v, want the one completed call", calls)
	}
	if out := cli(0, "call", calls.Calls[0].CallID); !strings.Contains(out, "twin.record_component_selection completed") ||
		!strings.Contains(out, "AL6061-100x60") || !strings.Contains(out, "outcome: success") {
		t.Fatalf("call %s:\n%s", calls.Calls[0].CallID, out)
	}
	cli(1, "call", "0123456789abcdef")
	cli(2, "calls", "--since", "yesterday")

	// tools and completion need no serve, but answer the same way.
	code, stdout, _ := hdCLI(t, "tools", "--profile", "core")
	if code != 0 || !strings.Contains(stdout, "health.check") {
		t.Fatalf("tools --profile core: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := hdCLI(t, "tools", "--profile", "no-such-profile"); code != 2 {
		t.Fatalf("tools --profile no-such-profile: exit %d, want 2\n%s", code, stderr)
	}
	if code, stdout, _ := hdCLI(t, "completion", "bash"); code != 0 || !strings.Contains(stdout, "install-agent") || !strings.Contains(stdout, "twin") {
		t.Fatalf("completion bash: exit %d, want a script that completes install-agent and twin", code)
	}
}
