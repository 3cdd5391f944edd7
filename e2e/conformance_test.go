//go:build unix

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// conformancePlanFile is the committed contract with the official MCP
// conformance suite: the package version it was written against, the server
// scenarios MetaForge must pass, and each scenario left out with the reason.
// Every server scenario the installed suite lists must be in one list or the
// other, so a new version of the suite forces a decision.
const conformancePlanFile = "testdata/conformance/expected.json"

type conformancePlan struct {
	Package  string              `json:"package"`
	Version  string              `json:"version"`
	Why      string              `json:"why_this_version"`
	MustPass []conformanceChoice `json:"must_pass"`
	Excluded []conformanceChoice `json:"excluded"`
}

type conformanceChoice struct {
	Scenario string `json:"scenario"`
	Why      string `json:"why"`
}

// conformanceCheck is one entry of the suite's checks.json.
type conformanceCheck struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	Description    string          `json:"description"`
	Status         string          `json:"status"` // SUCCESS, FAILURE, WARNING, INFO
	ErrorMessage   string          `json:"errorMessage"`
	Details        json.RawMessage `json:"details"`
	SpecReferences []struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	} `json:"specReferences"`
}

// conformanceResults keeps the last run's results, beside this file.
const conformanceResults = "conformance-results"

// conformanceOutcome is one scenario's result, as summary.json keeps it.
type conformanceOutcome struct {
	Scenario string               `json:"scenario"`
	ExitCode int                  `json:"exitCode"`
	Passed   int                  `json:"passed"`
	Failed   int                  `json:"failed"`
	Warnings int                  `json:"warnings"`
	Seconds  float64              `json:"seconds"`
	Failures []conformanceFailure `json:"failures,omitempty"`
}

type conformanceFailure struct {
	ID      string `json:"id"`
	Message string `json:"message"`
}

var ansiRe = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// TestConformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in package.json) against
// `metaforge serve` over Streamable HTTP: one `conformance server --scenario`
// run per scenario of the plan, each a subtest that fails with the suite's
// own messages. The suite's checks.json per scenario, its console output and
// a summary.json are kept in e2e/conformance-results (the last run's;
// ignored by git), whose path the test logs.
func TestConformance(t *testing.T) {
	plan := loadConformancePlan(t)
	script := conformanceCLI(t, plan)

	// Every scenario of the installed suite is decided on, and none of the
	// plan's is unknown to it.
	listed := listConformanceScenarios(t, script)
	var planned []string
	for _, c := range append(slices.Clone(plan.MustPass), plan.Excluded...) {
		planned = append(planned, c.Scenario)
	}
	for _, s := range listed {
		if !slices.Contains(planned, s) {
			t.Errorf("%s %s lists server scenario %q, which %s neither runs nor excludes: read its source, then add it to must_pass or to excluded with the reason", plan.Package, plan.Version, s, conformancePlanFile)
		}
	}
	for _, s := range planned {
		if !slices.Contains(listed, s) {
			t.Errorf("%s names scenario %q, which %s %s does not have", conformancePlanFile, s, plan.Package, plan.Version)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	ports := freePorts(t, 2)
	temporalPort, httpPort := ports[0], ports[1]
	serve(t, temporalPort, 0, httpPort)
	mcpURL := fmt.Sprintf("http://127.0.0.1:%d/mcp", httpPort)

	artifacts, err := filepath.Abs(conformanceResults)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(artifacts); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	var outcomes []conformanceOutcome
	began := time.Now()
	for _, c := range plan.MustPass {
		t.Run(c.Scenario, func(t *testing.T) {
			o := &conformanceOutcome{Scenario: c.Scenario, ExitCode: -1}
			defer func() { outcomes = append(outcomes, *o) }() // also when the subtest stops early
			runConformanceScenario(t, script, mcpURL, filepath.Join(artifacts, c.Scenario), o)
		})
	}

	var lines []string
	for _, o := range outcomes {
		mark := "PASS"
		if o.Failed > 0 || o.ExitCode != 0 || o.Passed == 0 {
			mark = "FAIL"
		}
		lines = append(lines, fmt.Sprintf("  %s %-28s %d passed, %d failed, %d warnings, exit %d, %.1fs", mark, o.Scenario, o.Passed, o.Failed, o.Warnings, o.ExitCode, o.Seconds))
	}
	t.Logf("%s %s against %s: %d scenarios in %s (%d excluded, see %s)\n%s", plan.Package, plan.Version, mcpURL,
		len(outcomes), time.Since(began).Round(time.Millisecond), len(plan.Excluded), conformancePlanFile, strings.Join(lines, "\n"))
	summary, _ := json.MarshalIndent(map[string]any{
		"package": plan.Package, "version": plan.Version, "url": mcpURL, "scenarios": outcomes,
	}, "", "  ")
	if err := os.WriteFile(filepath.Join(artifacts, "summary.json"), append(summary, '\n'), 0o644); err != nil {
		t.Errorf("write summary: %v", err)
	}
	t.Logf("results (checks.json per scenario, output.txt, summary.json): %s", artifacts)
}

func loadConformancePlan(t *testing.T) conformancePlan {
	t.Helper()
	b, err := os.ReadFile(conformancePlanFile)
	if err != nil {
		t.Fatal(err)
	}
	var plan conformancePlan
	if err := json.Unmarshal(b, &plan); err != nil {
		t.Fatalf("%s: %v", conformancePlanFile, err)
	}
	if plan.Package == "" || plan.Version == "" || len(plan.MustPass) == 0 {
		t.Fatalf("%s: needs package, version and must_pass", conformancePlanFile)
	}
	seen := map[string]bool{}
	for _, c := range append(slices.Clone(plan.MustPass), plan.Excluded...) {
		if seen[c.Scenario] {
			t.Fatalf("%s: scenario %q is listed twice", conformancePlanFile, c.Scenario)
		}
		seen[c.Scenario] = true
		if strings.TrimSpace(c.Why) == "" {
			t.Fatalf("%s: scenario %q has no why", conformancePlanFile, c.Scenario)
		}
	}
	return plan
}

// conformanceCLI is the suite's CLI script in node_modules, after checking
// that the installed version is the one package.json pins and the plan was
// written for.
func conformanceCLI(t *testing.T, plan conformancePlan) string {
	t.Helper()
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	b, err := os.ReadFile("package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatalf("package.json: %v", err)
	}
	if pin := pkg.Dependencies[plan.Package]; pin != plan.Version {
		t.Fatalf("e2e/package.json pins %s %q but %s was written for %q: update one to the other (npm install --save-exact %s@VERSION in e2e/, then review the plan)", plan.Package, pin, conformancePlanFile, plan.Version, plan.Package)
	}
	dir := filepath.Join("node_modules", filepath.FromSlash(plan.Package))
	b, err = os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatalf("%s is not installed in e2e/node_modules (%v): run `npm ci` in e2e/, or bash deploy/test-deps.sh", plan.Package, err)
	}
	var installed struct {
		Version string          `json:"version"`
		Bin     json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(b, &installed); err != nil {
		t.Fatalf("%s/package.json: %v", dir, err)
	}
	if installed.Version != plan.Version {
		t.Fatalf("e2e/node_modules has %s %s, package.json pins %s: run `npm ci` in e2e/", plan.Package, installed.Version, plan.Version)
	}
	var bin string
	var bins map[string]string
	if json.Unmarshal(installed.Bin, &bin) != nil {
		if err := json.Unmarshal(installed.Bin, &bins); err != nil || bins["conformance"] == "" {
			t.Fatalf("%s/package.json: no conformance bin in %s", dir, installed.Bin)
		}
		bin = bins["conformance"]
	}
	return filepath.Join(dir, filepath.FromSlash(bin))
}

// listConformanceScenarios is `conformance list --server`: lines "  - name"
// (newer versions add " [spec versions]").
func listConformanceScenarios(t *testing.T, script string) []string {
	t.Helper()
	code, out := runNode(t, time.Minute, script, "list", "--server")
	if code != 0 {
		t.Fatalf("node %s list --server exited %d:\n%s", script, code, out)
	}
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "- "); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				names = append(names, f[0])
			}
		}
	}
	if len(names) == 0 {
		t.Fatalf("node %s list --server listed no scenarios:\n%s", script, out)
	}
	return names
}

// runConformanceScenario runs o.Scenario into outDir, reports every failed
// check with the suite's own message, and records the counts in o.
func runConformanceScenario(t *testing.T, script, mcpURL, outDir string, o *conformanceOutcome) {
	t.Helper()
	scenario := o.Scenario
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	code, output := runNode(t, 2*time.Minute, script,
		"server", "--url", mcpURL, "--scenario", scenario, "--output-dir", outDir)
	o.ExitCode = code
	o.Seconds = time.Since(began).Seconds()
	_ = os.WriteFile(filepath.Join(outDir, "output.txt"), []byte(output), 0o644)

	// The suite writes <outDir>/server-<scenario>-<timestamp>/checks.json.
	found, _ := filepath.Glob(filepath.Join(outDir, "server-"+scenario+"-*", "checks.json"))
	if len(found) != 1 {
		t.Fatalf("conformance %s (exit %d) left %d checks.json in %s, want 1; its output:\n%s", scenario, o.ExitCode, len(found), outDir, tail(output, 40))
	}
	b, err := os.ReadFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []conformanceCheck
	if err := json.Unmarshal(b, &checks); err != nil {
		t.Fatalf("%s: %v", found[0], err)
	}
	for _, c := range checks {
		switch c.Status {
		case "SUCCESS":
			o.Passed++
		case "FAILURE":
			o.Failed++
			msg := c.ErrorMessage
			if msg == "" {
				msg = "(no message)"
			}
			o.Failures = append(o.Failures, conformanceFailure{c.ID, msg})
			var refs []string
			for _, r := range c.SpecReferences {
				refs = append(refs, r.URL)
			}
			report := fmt.Sprintf("conformance %s: check %s (%s: %s) FAILED: %s", scenario, c.ID, c.Name, c.Description, msg)
			if len(c.Details) > 0 && string(c.Details) != "null" {
				report += "\n  details: " + truncate(string(c.Details), 1500)
			}
			if len(refs) > 0 {
				report += "\n  spec: " + strings.Join(refs, " ")
			}
			t.Error(report)
		case "WARNING":
			o.Warnings++
			t.Logf("conformance %s: check %s WARNING: %s %s", scenario, c.ID, c.Description, c.ErrorMessage)
		}
	}
	switch {
	case o.Passed == 0 && o.Failed == 0:
		t.Errorf("conformance %s recorded no passed check (only %d INFO/WARNING checks): it proves nothing against this server; its output:\n%s", scenario, len(checks), tail(output, 40))
	case o.ExitCode != 0 && o.Failed == 0:
		t.Errorf("conformance %s exited %d with no failed check; its output:\n%s", scenario, o.ExitCode, tail(output, 40))
	case o.ExitCode == 0 && o.Failed > 0:
		t.Errorf("conformance %s exited 0 although %d checks failed", scenario, o.Failed)
	}
	t.Logf("conformance %s: %d passed, %d failed, %d warnings in %.1fs (exit %d)", scenario, o.Passed, o.Failed, o.Warnings, o.Seconds, o.ExitCode)
}

// runNode runs node with args, within timeout, and returns its exit code (-1
// when it was killed) and its stdout and stderr, without colour codes.
func runNode(t *testing.T, timeout time.Duration, args ...string) (int, string) {
	t.Helper()
	var out lockedBuffer
	cmd := command(t, timeout, nodePath, args...)
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return cmd.ProcessState.ExitCode(), ansiRe.ReplaceAllString(out.String(), "")
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
