//go:build unix

package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/flows"
)

// cli runs `metaforge run VERB ARGS...` against r's serve: start and status
// read and start through its Temporal (--temporal-port), and every
// decision goes through its REST API as the operator (--data-dir, --url).
func cli(t *testing.T, r *crashRig, args ...string) (string, bool) {
	t.Helper()
	var at []string
	if args[1] == "start" || args[1] == "status" {
		at = append(at, "--temporal-port", strconv.Itoa(r.ports[0]))
	}
	if args[1] == "start" || args[1] == "decide" {
		at = append(at, "--data-dir", r.dataDir, "--url", fmt.Sprintf("http://127.0.0.1:%d", r.ports[2]))
	}
	cmd := command(t, 2*time.Minute, binary, append(args, at...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// `metaforge run start|status|decide` against a running serve: propose and
// approve a version as the CLI's user, start the run, read its state, and
// decide a gate; a bad decision is refused with its reason.
func TestRunCommandLine(t *testing.T) {
	r := &crashRig{t: t, dataDir: filepath.Join(t.TempDir(), "data"), ports: freePorts(t, 3)}
	r.start()
	project := r.call("project.create", map[string]any{"name": "cli-bracket"})["project_id"].(string)

	out, ok := cli(t, r, "run", "start", "mech_v1", "--project", project, "--goal", "a bracket carrying 200 N with under 0.5 mm deflection")
	if ok || !strings.Contains(out, "blocking questions") {
		t.Fatalf("run start without the route and maturity: want the blocking questions, got ok=%v:\n%s", ok, out)
	}
	out, ok = cli(t, r, "run", "start", "mech_v1", "--project", project, "--goal", "an aluminium 6061 bracket carrying 200 N with under 0.5 mm deflection",
		"--manufacturing", "cnc_milling", "--maturity", "prototype", "--loads", "200 N at the tip", "--approve", "--as", "carol")
	if !ok {
		t.Fatalf("run start: %s", out)
	}
	m := regexp.MustCompile(`run ([0-9a-f]{16}) started`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "approved by operator:carol") {
		t.Fatalf("run start printed no run id or approver:\n%s", out)
	}
	runID := m[1]
	cs := r.call("twin.record_constraint_set", map[string]any{"project_id": project, "name": "reqs", "constraints": []map[string]any{
		{"name": "stiff", "metric": "max_displacement", "operator": "<=", "limit": 0.5, "unit": "mm", "verification_method": "analysis"}}})
	r.clientPhase(runID, "requirements", []string{cs["node_id"].(string)})

	out, _ = cli(t, r, "run", "status", runID)
	if !strings.Contains(out, "at_gate") || !strings.Contains(out, "requirements_recorded=pass") {
		t.Fatalf("run status at the requirements gate:\n%s", out)
	}
	if out, ok = cli(t, r, "run", "decide", runID, "--rework-to", "release", "--as", "carol"); ok || !strings.Contains(out, "rework_to") {
		t.Fatalf("rework to a phase not yet run: want a refusal, got ok=%v:\n%s", ok, out)
	}
	if out, ok = cli(t, r, "run", "decide", runID, "--approve", "--reject"); ok {
		t.Fatalf("two decisions at once were accepted:\n%s", out)
	}
	if out, ok = cli(t, r, "run", "decide", runID, "--approve", "--as", "carol", "--comment", "typed and complete"); !ok {
		t.Fatalf("run decide --approve: %s", out)
	}
	st := r.waitStatus(runID, flows.RunWaitingForClient)
	if st["phase"] != "concept" {
		t.Fatalf("after the approval the run is at %v", st["phase"])
	}
	out, _ = cli(t, r, "run", "status", runID)
	if !regexp.MustCompile(`requirements\s+approved`).MatchString(out) {
		t.Fatalf("run status after the approval:\n%s", out)
	}
}
