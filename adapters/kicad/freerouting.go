package kicad

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/protocol"
)

// Freerouting is the autorouter kicad.auto_route runs: a Java program,
// pinned to the release deploy/install-freerouting.sh installs (the newest
// whose dependencies Maven Central serves), which is compiled for Java 25.
const (
	FreeroutingVersion   = "2.2.3"
	FreeroutingJavaMajor = 25
	// EnvFreeroutingJar names freerouting-<version>.jar, its runtime
	// dependencies beside it (or a self-contained jar).
	EnvFreeroutingJar = "METAFORGE_FREEROUTING_JAR"
	// EnvFreeroutingJava names the java program that runs it.
	EnvFreeroutingJava = "METAFORGE_FREEROUTING_JAVA"
	installFreerouting = "install it with `bash deploy/install-freerouting.sh` from the MetaForge source (Freerouting " +
		FreeroutingVersion + " and its dependencies from Maven Central with mvn; it needs Java 25 or newer, which Debian bookworm " +
		"does not have), or set " + EnvFreeroutingJar + " to freerouting-" + FreeroutingVersion + ".jar (its dependencies beside it) and " +
		EnvFreeroutingJava + " to a Java 25's bin/java"
)

// freeroutingHomes are where install-freerouting.sh puts Freerouting: for
// root, then for the user running the adapter.
func freeroutingHomes() []string {
	dirs := []string{filepath.Join("/usr/local/share/metaforge/freerouting", FreeroutingVersion)}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".cache", "metaforge", "freerouting", FreeroutingVersion))
	}
	return dirs
}

// freerouting is an installed Freerouting and the Java that runs it.
type freerouting struct {
	jar, java string
}

// classpath is the jar and every jar beside it (its dependencies, as
// install-freerouting.sh lays them out).
func (f freerouting) classpath() string {
	return f.jar + string(os.PathListSeparator) + filepath.Join(filepath.Dir(f.jar), "*")
}

// locateFreerouting finds the jar ($METAFORGE_FREEROUTING_JAR, then the
// install folders) and a Java 25 or newer ($METAFORGE_FREEROUTING_JAVA,
// the one the installer recorded beside the jar, the newest in
// /usr/lib/jvm, java on PATH). Not found is TOOL_UNAVAILABLE saying how to
// install it.
func locateFreerouting() (freerouting, error) {
	var f freerouting
	jar, named := os.Getenv(EnvFreeroutingJar), "$"+EnvFreeroutingJar
	if jar != "" {
		if st, err := os.Stat(jar); err != nil || !st.Mode().IsRegular() {
			return f, protocol.Unavailable("%s %s is not a file; %s", named, jar, installFreerouting)
		}
	} else {
		var looked []string
		for _, dir := range freeroutingHomes() {
			p := filepath.Join(dir, "freerouting-"+FreeroutingVersion+".jar")
			looked = append(looked, p)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				jar = p
				break
			}
		}
		if jar == "" {
			return f, protocol.Unavailable("Freerouting %s is not installed (not at %s); %s", FreeroutingVersion, strings.Join(looked, " or "), installFreerouting)
		}
	}
	f.jar = jar
	java, named := os.Getenv(EnvFreeroutingJava), "$"+EnvFreeroutingJava
	if java != "" {
		if m, ok := javaMajor(java); ok && m < FreeroutingJavaMajor {
			return f, protocol.Unavailable("%s %s is Java %d; Freerouting %s needs Java %d or newer; %s", named, java, m, FreeroutingVersion, FreeroutingJavaMajor, installFreerouting)
		}
		if _, err := exec.LookPath(java); err != nil {
			return f, protocol.Unavailable("%s %s cannot be run: %v; %s", named, java, err, installFreerouting)
		}
		f.java = java
		return f, nil
	}
	candidates := []string{filepath.Join(filepath.Dir(jar), "java")}
	jvms, _ := filepath.Glob("/usr/lib/jvm/*/bin/java")
	candidates = append(candidates, jvms...)
	if p, err := exec.LookPath("java"); err == nil {
		candidates = append(candidates, p)
	}
	best := 0
	for _, c := range candidates {
		if m, ok := javaMajor(c); ok && m >= FreeroutingJavaMajor && m > best {
			f.java, best = c, m
		}
	}
	if f.java == "" {
		return f, protocol.Unavailable("no Java %d or newer found for Freerouting %s (looked beside the jar, in /usr/lib/jvm and on PATH); %s",
			FreeroutingJavaMajor, FreeroutingVersion, installFreerouting)
	}
	return f, nil
}

var javaVersionLine = regexp.MustCompile(`(?m)^JAVA_VERSION="(?:1\.)?(\d+)`)

// javaMajor reads a Java's major version from the release file of the
// runtime its program belongs to (<home>/bin/java, <home>/release), which
// every JDK and JRE build carries, without starting a JVM.
func javaMajor(java string) (int, bool) {
	real, err := filepath.EvalSymlinks(java)
	if err != nil {
		return 0, false
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return 0, false
	}
	text, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(real)), "release"))
	if err != nil {
		return 0, false
	}
	m := javaVersionLine.FindSubmatch(text)
	if m == nil {
		return 0, false
	}
	v, err := strconv.Atoi(string(m[1]))
	return v, err == nil
}

// routeRun is one Freerouting run on a DSN in dir.
type routeRun struct {
	dir, dsn, ses string // the DSN and session, names in dir
	jobSeconds    int    // Freerouting's own job timeout
	maxPasses     int    // 0: Freerouting's default
	optimize      bool
}

// userDataDir is Freerouting's settings folder for a run, in the call's
// folder so that runs never share one; it is removed after the run.
const userDataDir = ".freerouting"

// args are the JVM's and Freerouting's arguments. Freerouting is told to
// stay offline: no GUI, no API server, no analytics, no telemetry. Its
// update check (a GitHub request every start, which no setting of 2.2.3
// turns off) and anything else it would fetch over HTTP go to a proxy at
// a closed port on the loopback, so they fail at once without leaving the
// machine. The sandbox's own network namespace stops them too, where the
// adapter runs in one.
func (f freerouting) args(r routeRun, memoryMB int) []string {
	jvm := []string{
		// Two processors' worth of GC and compiler threads, whatever the
		// machine: the sandbox caps a run's processes (threads count).
		"-XX:ActiveProcessorCount=2",
		"-XX:-UsePerfData",
		"-Djava.awt.headless=true",
		// The log's numbers as parseFreeroutingLog reads them (980.35).
		"-Duser.language=en", "-Duser.country=US",
		"-Djava.net.useSystemProxies=false",
		"-Dhttp.proxyHost=127.0.0.1", "-Dhttp.proxyPort=9",
		"-Dhttps.proxyHost=127.0.0.1", "-Dhttps.proxyPort=9",
		"-DsocksProxyHost=127.0.0.1", "-DsocksProxyPort=9",
	}
	if memoryMB > 0 {
		// The heap leaves a quarter of the limit to the JVM itself.
		jvm = append(jvm, fmt.Sprintf("-Xmx%dm", max(64, memoryMB*3/4)))
	}
	fr := []string{
		"-cp", f.classpath(), "app.freerouting.Freerouting",
		// Relative names: -de splits its value on spaces and '+'.
		"-de", r.dsn, "-do", r.ses,
		"--user_data_path=" + userDataDir,
		"--gui.enabled=false", "--api_server.enabled=false",
		"-da", "--usage_and_diagnostic_data.disable_analytics=true", "--profile.allow_telemetry=false",
		"-dl", "--logging.console.level=INFO",
		"--router.job_timeout=" + hms(r.jobSeconds),
		// One routing thread: the same board routes the same way.
		"--router.max_threads=1", "-mt", "1",
	}
	if r.maxPasses > 0 {
		fr = append(fr, "-mp", strconv.Itoa(r.maxPasses))
	}
	if r.optimize {
		fr = append(fr, "--router.optimizer.enabled=true")
	}
	return append(jvm, fr...)
}

// hms is Freerouting's timespan format.
func hms(s int) string {
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

// routeOutcome is how a Freerouting run ended.
type routeOutcome struct {
	report FreeroutingReport
	// killed: it outran its window and was stopped from outside, so its
	// session (written only at its end) is not there.
	killed  bool
	elapsed time.Duration
}

// route runs Freerouting on r.dsn within window, writing r.ses. A run that
// outruns the window is killed and reported as such, not as an error; an
// error is Freerouting missing, failing, or the call itself ending.
func (a *Adapter) route(ctx context.Context, f freerouting, r routeRun, window time.Duration) (*routeOutcome, error) {
	if err := os.MkdirAll(filepath.Join(r.dir, userDataDir), 0o755); err != nil {
		return nil, protocol.Transient("cannot make Freerouting's settings folder in %s: %v", r.dir, err)
	}
	defer os.RemoveAll(filepath.Join(r.dir, userDataDir))
	_, policy := solver.RuntimeFrom(ctx)
	rctx, cancel := context.WithTimeout(ctx, window)
	defer cancel()
	start := time.Now()
	res, err := solver.Run(rctx, solver.Command{
		Binary:      f.java,
		Args:        f.args(r, policy.Limits.MemoryMB),
		Dir:         r.dir,
		Env:         freeroutingEnv(),
		Install:     installFreerouting,
		TimeoutHint: "give max_seconds or the call's timeout more time, or route a smaller board",
		MemoryHint:  "route a smaller board or raise the tool's max_memory_mb",
	})
	out := &routeOutcome{elapsed: time.Since(start)}
	if err != nil {
		if ctx.Err() != nil || rctx.Err() == nil {
			return nil, err // the call ended, or a limit or a missing program
		}
		out.killed = true
		out.report = parseFreeroutingLog(res.Stdout + "\n" + res.Stderr)
		return out, nil
	}
	text := res.Stdout + "\n" + res.Stderr
	out.report = parseFreeroutingLog(text)
	if strings.Contains(text, "UnsupportedClassVersionError") {
		return nil, protocol.Unavailable("%s is too old for Freerouting %s, which needs Java %d or newer; %s", f.java, FreeroutingVersion, FreeroutingJavaMajor, installFreerouting)
	}
	if _, err := os.Stat(filepath.Join(r.dir, r.ses)); err != nil {
		return nil, protocol.Refusal("Freerouting wrote no session (exit status %d): %s", res.ExitCode, tail(text, 1500))
	}
	return out, nil
}

// freeroutingEnv is this process's environment without FREEROUTING__*
// settings, which would otherwise change how Freerouting runs (its API
// server, analytics) behind the arguments' back.
func freeroutingEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FREEROUTING__") {
			env = append(env, kv)
		}
	}
	return env
}

// FreeroutingReport is what Freerouting's log says of its run, for
// comparison with what the board's own connectivity says after the merge.
type FreeroutingReport struct {
	Version string `json:"version"`
	// Completion is the session summary's word: completed, completed with
	// timeout, interrupted, cancelled; "" when it printed no summary.
	Completion string `json:"completion"`
	// StartedUnrouted is the connections it found unrouted at the start
	// (its log says "unrouted nets"; they are connections).
	StartedUnrouted int `json:"started_unrouted"`
	// FinalUnrouted and FinalViolations are its final score's counts.
	FinalUnrouted   int     `json:"final_unrouted"`
	FinalViolations int     `json:"final_violations"`
	FinalScore      float64 `json:"final_score"`
	// Routed is StartedUnrouted - FinalUnrouted: the connections it
	// claims to have routed.
	Routed          int                  `json:"routed"`
	Passes          int                  `json:"passes"`
	OptimizerPasses int                  `json:"optimizer_passes"`
	Unrouted        []UnroutedConnection `json:"unrouted_connections"`
	// HasSummary says its session summary was read; without one (a run
	// killed before the end) the counts are zero.
	HasSummary bool `json:"has_summary"`
	// Errors are the distinct errors it logged (at most maxLoggedErrors),
	// such as its failures on a board's fixed wiring.
	Errors []string `json:"errors"`
}

// maxLoggedErrors bounds FreeroutingReport.Errors.
const maxLoggedErrors = 5

// UnroutedConnection is one connection Freerouting could not route.
type UnroutedConnection struct {
	Net  string `json:"net"`
	From string `json:"from"`
	To   string `json:"to"`
}

var (
	frSummary   = regexp.MustCompile(`Auto-router session (completed|completed with timeout|interrupted|cancelled): started with (\d+) unrouted nets?, .*?final score: ([0-9.]+)(?: \(([^)]*)\))?`)
	frPass      = regexp.MustCompile(`Auto-router pass #(\d+) `)
	frOptPass   = regexp.MustCompile(`Optimizer pass #(\d+) `)
	frVersion   = regexp.MustCompile(`Freerouting v(\S+)`)
	frScoreUnr  = regexp.MustCompile(`(\d+) unrouted`)
	frScoreViol = regexp.MustCompile(`(\d+) violations?`)
	frNet       = regexp.MustCompile(`^\s+Net '(.*)' \(\d+ unrouted connections?\):$`)
	frConn      = regexp.MustCompile(`^\s+- (\S+)\s+->\s+(\S+)\s*$`)
	frError     = regexp.MustCompile(`^\S+ \S+ ERROR\s+(?:\[[^\]]*\] )?(.*)$`)
)

// parseFreeroutingLog reads Freerouting 2.2.3's console log: its version,
// passes, the session summary and the list of connections it left.
func parseFreeroutingLog(text string) FreeroutingReport {
	r := FreeroutingReport{Unrouted: []UnroutedConnection{}, Errors: []string{}}
	net, lastError := "", ""
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := frVersion.FindStringSubmatch(line); m != nil && r.Version == "" {
			r.Version = m[1]
		}
		if m := frPass.FindStringSubmatch(line); m != nil {
			r.Passes, _ = strconv.Atoi(m[1])
		}
		if m := frOptPass.FindStringSubmatch(line); m != nil {
			r.OptimizerPasses, _ = strconv.Atoi(m[1])
		}
		if m := frError.FindStringSubmatch(line); m != nil {
			lastError = m[1]
			continue
		}
		if lastError != "" {
			// The line after an error names its exception.
			msg := lastError
			if !strings.HasPrefix(line, "\tat ") && strings.TrimSpace(line) != "" {
				msg += ": " + strings.TrimSpace(line)
			}
			if !slices.Contains(r.Errors, msg) && len(r.Errors) < maxLoggedErrors {
				r.Errors = append(r.Errors, msg)
			}
			lastError = ""
		}
		if m := frNet.FindStringSubmatch(line); m != nil {
			net = m[1]
			continue
		}
		if m := frConn.FindStringSubmatch(line); m != nil && net != "" {
			r.Unrouted = append(r.Unrouted, UnroutedConnection{Net: net, From: m[1], To: m[2]})
			continue
		}
		if m := frSummary.FindStringSubmatch(line); m != nil {
			r.HasSummary = true
			r.Completion = m[1]
			r.StartedUnrouted, _ = strconv.Atoi(m[2])
			r.FinalScore, _ = strconv.ParseFloat(m[3], 64)
			r.FinalUnrouted, r.FinalViolations = 0, 0
			if u := frScoreUnr.FindStringSubmatch(m[4]); u != nil {
				r.FinalUnrouted, _ = strconv.Atoi(u[1])
			}
			if v := frScoreViol.FindStringSubmatch(m[4]); v != nil {
				r.FinalViolations, _ = strconv.Atoi(v[1])
			}
			r.Routed = r.StartedUnrouted - r.FinalUnrouted
		}
	}
	return r
}
