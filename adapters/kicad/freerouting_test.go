package kicad

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A Freerouting 2.2.3 log, as it printed routing pic_programmer (passes
// 2 to 17 left out), then an optimizer's passes.
const sampleFreeroutingLog = `2026-12-05 07:42:02.646 INFO   Freerouting v2.2.3 (build-date: 2026-05-08)
2026-12-05 07:42:05.396 WARN   Failed to check for new version
2026-12-05 07:42:05.992 INFO   [50C3CF\3EC066] Job '50C3CF\3EC066' started at 2026-12-05T07:42:05.991997316Z.
2026-12-05 07:42:17.606 INFO   [50C3CF\3EC066] Auto-router pass #1 on board '5804eafd6ae074b01c9d9c2fadd1d351' was completed in 11.09 seconds with the score of 979.48 (2 unrouted), using 3.14 CPU seconds and the job allocated 2.05 GB of memory so far
2026-12-05 07:42:24.783 INFO   [50C3CF\3EC066] Auto-router pass #18 on board 'cfcf3a1baf40cb7c5e53ac1e51cb9395' was completed in 0.45 seconds with the score of 980.35 (2 unrouted), using 5.14 CPU seconds and the job allocated 4.38 GB of memory so far.
2026-12-05 07:42:24.809 INFO   [50C3CF\3EC066] The router's score (980.35) has not improved by more than 0.5 points in the last 10 passes (2 items still unconnected). Stopping the auto-router.
The following connections could not be routed -- please review your design (e.g. check pad clearances, trace width rules, and available routing space):
  Net '/pic_sockets/VCC_PIC' (2 unrouted connections):
    - JP1-2  ->  R21-2
    - P3-11  ->  JP1-2
2026-12-05 08:12:18.790 ERROR  [97D71F\B31887] Something went wrong during the auto-routing
java.lang.NullPointerException: Cannot load from object array because "to_trace_entries" is null
	at app.freerouting.board.ShapeSearchTree.merge_entries_at_end(ShapeSearchTree.java:237)
2026-12-05 08:12:18.790 ERROR  [97D71F\B31887] Something went wrong during the auto-routing
java.lang.NullPointerException: Cannot load from object array because "to_trace_entries" is null
2026-12-05 07:42:24.837 INFO   [50C3CF\3EC066] Auto-router session completed: started with 125 unrouted nets, completed in 18.61 seconds, final score: 980.35 (2 unrouted and 3 violations), using 5.14 total CPU seconds, 4.38 GB total allocated, and 636.05 MB peak heap usage.
2026-12-05 07:47:24.862 INFO   [7259F8\33859A] Optimizer pass #1 was completed in 2.60 seconds with the score of 985.91.
2026-12-05 07:47:26.086 INFO   [7259F8\33859A] Optimizer pass #2 was completed in 1.08 seconds with the score of 986.03.
`

func TestParseFreeroutingLog(t *testing.T) {
	got := parseFreeroutingLog(sampleFreeroutingLog)
	want := FreeroutingReport{
		Version: "2.2.3", Completion: "completed", StartedUnrouted: 125, FinalUnrouted: 2, FinalViolations: 3, FinalScore: 980.35,
		Routed: 123, Passes: 18, OptimizerPasses: 2, HasSummary: true,
		Unrouted: []UnroutedConnection{{Net: "/pic_sockets/VCC_PIC", From: "JP1-2", To: "R21-2"}, {Net: "/pic_sockets/VCC_PIC", From: "P3-11", To: "JP1-2"}},
		Errors:   []string{"Something went wrong during the auto-routing: java.lang.NullPointerException: Cannot load from object array because \"to_trace_entries\" is null"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("report\n %+v\nwant\n %+v", got, want)
	}
}

func TestParseFreeroutingLogStopped(t *testing.T) {
	// Stopped by its job timeout in the first pass: nothing routed; and a
	// score with nothing left says no counts.
	got := parseFreeroutingLog(`2026-12-05 07:43:23.723 INFO   [4943C5\C37A99] Auto-router session completed with timeout: started with 125 unrouted nets, completed in 2.17 seconds, final score: 0.00 (125 unrouted), using 0.27 total CPU seconds`)
	if got.Completion != "completed with timeout" || got.StartedUnrouted != 125 || got.FinalUnrouted != 125 || got.Routed != 0 || !got.HasSummary {
		t.Errorf("stopped: %+v", got)
	}
	got = parseFreeroutingLog(`2026-12-05 07:47:22.133 INFO   [7259F8\33859A] Auto-router session completed: started with 20 unrouted nets, completed in 2.58 seconds, final score: 985.54, using 0.41 total CPU seconds`)
	if got.Completion != "completed" || got.StartedUnrouted != 20 || got.FinalUnrouted != 0 || got.Routed != 20 || got.FinalScore != 985.54 {
		t.Errorf("complete: %+v", got)
	}
	if got := parseFreeroutingLog("Exception in thread main\n"); got.HasSummary || got.Unrouted == nil {
		t.Errorf("no summary: %+v", got)
	}
}

func TestFreeroutingArguments(t *testing.T) {
	f := freerouting{jar: "/opt/fr/freerouting-2.2.3.jar", java: "/usr/bin/java"}
	args := f.args(routeRun{dsn: "b.dsn", ses: "b.ses", jobSeconds: 3725, maxPasses: 7, optimize: true}, 2048)
	joined := map[string]bool{}
	for _, a := range args {
		joined[a] = true
	}
	// Offline: no GUI, API server, analytics or telemetry; HTTP to a
	// closed loopback port. 3725 s is 01:02:05; the heap 3/4 of 2048 MB.
	for _, want := range []string{"--gui.enabled=false", "--api_server.enabled=false", "-da", "--usage_and_diagnostic_data.disable_analytics=true",
		"--profile.allow_telemetry=false", "-Dhttps.proxyHost=127.0.0.1", "-Dhttps.proxyPort=9", "-Dhttp.proxyHost=127.0.0.1",
		"--router.job_timeout=01:02:05", "-Xmx1536m", "--router.optimizer.enabled=true", "-mp", "7", "b.dsn", "b.ses",
		"/opt/fr/freerouting-2.2.3.jar:/opt/fr/*"} {
		if !joined[want] {
			t.Errorf("arguments %v lack %q", args, want)
		}
	}
}

func TestJavaMajorFromRelease(t *testing.T) {
	for release, want := range map[string]int{`JAVA_VERSION="25.0.3"`: 25, `JAVA_VERSION="1.8.0_392"`: 8, `JAVA_VERSION="17"`: 17} {
		home := t.TempDir()
		if err := os.MkdirAll(filepath.Join(home, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		java := filepath.Join(home, "bin", "java")
		if err := os.WriteFile(java, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "release"), []byte("IMPLEMENTOR=\"x\"\n"+release+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// Through a link, as /usr/bin/java is one.
		link := filepath.Join(t.TempDir(), "java")
		if err := os.Symlink(java, link); err != nil {
			t.Fatal(err)
		}
		if got, ok := javaMajor(link); !ok || got != want {
			t.Errorf("%s: %d, %v; want %d", release, got, ok, want)
		}
	}
	if _, ok := javaMajor(filepath.Join(t.TempDir(), "nothing")); ok {
		t.Error("a missing program has a version")
	}
}

// TestFreeroutingStaysOffline routes ecc83-pp under strace and checks
// every network connection Freerouting opens: only the closed loopback
// port its HTTP proxy names (its update check's try), nothing else, and
// no DNS lookup.
func TestFreeroutingStaysOffline(t *testing.T) {
	needFreerouting(t)
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (apt-get install strace)")
	}
	fr, _ := locateFreerouting()
	dir := t.TempDir()
	exportBareDSN(t, "ecc83/ecc83-pp.kicad_pcb", filepath.Join(dir, "b.dsn"))
	trace := filepath.Join(t.TempDir(), "trace")
	wrapper := filepath.Join(t.TempDir(), "java")
	script := "#!/bin/sh\nexec " + strace + " -f -qq -e trace=connect,sendto,sendmsg -o " + trace + " " + fr.java + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	a, _ := newAdapter(t)
	out, err := a.route(context.Background(), freerouting{jar: fr.jar, java: wrapper}, routeRun{dir: dir, dsn: "b.dsn", ses: "b.ses", jobSeconds: 60}, 2*time.Minute)
	if err != nil || out.killed || !out.report.HasSummary {
		t.Fatalf("route: %+v, %v", out, err)
	}
	text, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	loopback := regexp.MustCompile(`inet_addr\("127\.0\.0\.1"\)|inet_pton\(AF_INET6, "(::ffff:127\.0\.0\.1|::1)"`)
	inet := 0
	for _, line := range strings.Split(string(text), "\n") {
		if !strings.Contains(line, "AF_INET") {
			continue // AF_UNIX, netlink, results
		}
		inet++
		if !loopback.MatchString(line) || !strings.Contains(line, "htons(9)") {
			t.Errorf("Freerouting reached out: %s", line)
		}
	}
	if inet == 0 {
		t.Error("no connection seen at all: the update check's try through the proxy should show")
	}
}

// exportBareDSN writes a demo board's DSN without its tracks, vias and
// zones (with the test's own pcbnew).
func exportBareDSN(t *testing.T, demoBoard, dsn string) {
	t.Helper()
	runPython(t, `
import sys, pcbnew
b = pcbnew.LoadBoard(sys.argv[1])
for z in list(b.Zones()):
    b.Remove(z)
for t in list(b.GetTracks()):
    b.Remove(t)
pcbnew.ExportSpecctraDSN(b, sys.argv[2])
`, demo(demoBoard), dsn)
}
