//go:build linux

package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// What each part of the deployment spent on a phase's calls, read from
// /proc: the CPU (user + system, and that of waited-for children such as
// ngspice) of every process, grouped as the deployment's parts, and how
// busy the whole machine was. On two cores the groups say what bounds
// throughput: the part that spends most per call, once the machine is
// busy.

// cpuGroups are the parts, in the order they are reported.
var cpuGroups = []string{"history", "frontend", "postgres", "serve", "workers", "clients"}

// clockTicks is USER_HZ, 100 on Linux.
const clockTicks = 100

// cpuSample is the ticks of every process of each group, by pid, and the
// machine's busy and total ticks.
type cpuSample struct {
	procs            map[string]map[int]int64
	machineBusy, all int64
	at               time.Time
	postgresBackends int
	missingPIDs      []string
}

// sampleCPU reads the ticks of the topology's processes: the cluster's
// core (history, matching and the worker service: "history", as history
// does most of its work) and frontend, the PostgreSQL backends serving the
// cluster's two databases, serve, the current workers, and this process
// (the MCP clients).
func (t *clusterTopology) sampleCPU() cpuSample {
	s := cpuSample{procs: map[string]map[int]int64{}, at: time.Now()}
	add := func(group string, pid int) {
		ticks, err := procTicks(pid)
		if err != nil {
			s.missingPIDs = append(s.missingPIDs, fmt.Sprintf("%s %d", group, pid))
			return
		}
		if s.procs[group] == nil {
			s.procs[group] = map[int]int64{}
		}
		s.procs[group][pid] = ticks
	}
	for group, name := range map[string]string{"history": "core", "frontend": "frontend"} {
		if pid, err := pidFile(filepath.Join(t.cluster.StateDir, name+".pid")); err == nil {
			add(group, pid)
		} else {
			s.missingPIDs = append(s.missingPIDs, group)
		}
	}
	for _, pid := range postgresBackends(t.cluster.Port) {
		add("postgres", pid)
		s.postgresBackends++
	}
	add("serve", t.serve.pid)
	for _, w := range append(append([]*mfProcess{}, t.inProc...), t.spice...) {
		add("workers", w.pid)
	}
	add("clients", os.Getpid())
	s.machineBusy, s.all = machineTicks()
	return s
}

// cpuUse is what was spent between two samples.
type cpuUse struct {
	seconds     map[string]float64 // CPU seconds per group
	elapsed     time.Duration
	machineBusy float64 // cores busy on the whole machine
}

func (after cpuSample) since(before cpuSample) cpuUse {
	u := cpuUse{seconds: map[string]float64{}, elapsed: after.at.Sub(before.at)}
	for group, procs := range after.procs {
		var ticks int64
		for pid, t := range procs {
			// A process that started between the samples counts whole.
			ticks += t - before.procs[group][pid]
		}
		u.seconds[group] = float64(ticks) / clockTicks
	}
	if d := after.all - before.all; d > 0 {
		u.machineBusy = float64(after.machineBusy-before.machineBusy) / float64(d) * float64(onlineCPUs())
	}
	return u
}

// plus is u and v together: the CPU of two rounds over their time.
func (u cpuUse) plus(v cpuUse) cpuUse {
	out := cpuUse{seconds: map[string]float64{}, elapsed: u.elapsed + v.elapsed}
	for _, w := range []cpuUse{u, v} {
		for g, s := range w.seconds {
			out.seconds[g] += s
		}
	}
	if out.elapsed > 0 {
		out.machineBusy = (u.machineBusy*u.elapsed.Seconds() + v.machineBusy*v.elapsed.Seconds()) / out.elapsed.Seconds()
	}
	return out
}

// total is the CPU seconds of every group.
func (u cpuUse) total() float64 {
	var s float64
	for _, v := range u.seconds {
		s += v
	}
	return s
}

// ours is the cores busy with the deployment and its clients.
func (u cpuUse) ours() float64 { return u.total() / u.elapsed.Seconds() }

// perCall is the CPU per call of each group, in ms, and the cores busy.
func (u cpuUse) perCall(calls int) string {
	var parts []string
	for _, g := range cpuGroups {
		parts = append(parts, fmt.Sprintf("%s %.1f", g, u.seconds[g]*1000/float64(calls)))
	}
	return fmt.Sprintf("%s; all %.1f ms (ours %.2f cores busy over %s, the machine %.2f)",
		strings.Join(parts, ", "), u.total()*1000/float64(calls), u.ours(), u.elapsed.Round(time.Millisecond), u.machineBusy)
}

// procTicks is utime + stime + cutime + cstime of /proc/<pid>/stat.
func procTicks(pid int) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses.
	fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(fields) < 15 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	var sum int64
	for _, f := range fields[11:15] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		sum += n
	}
	return sum, nil
}

func pidFile(path string) (int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(raw)))
}

// postgresBackends are the PostgreSQL backends connected to the databases
// of the cluster on port (deploy/start-temporal.sh names them
// temporal_PORT and temporal_visibility_PORT): their process titles are
// "postgres: USER DATABASE HOST(PORT) STATE". The server's shared
// processes (WAL writer, checkpointer) serve every database on it, so
// they are not counted.
func postgresBackends(port int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	dbs := []string{fmt.Sprintf(" temporal_%d ", port), fmt.Sprintf(" temporal_visibility_%d ", port)}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.HasPrefix(raw, []byte("postgres: ")) {
			continue
		}
		title := string(bytes.ReplaceAll(raw, []byte{0}, []byte{' '})) + " "
		for _, db := range dbs {
			if strings.Contains(title, db) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// machineTicks is the busy and total ticks of every CPU, from /proc/stat.
func machineTicks() (busy, all int64) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	fields := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	for i, f := range fields[1:min(len(fields), 9)] {
		n, _ := strconv.ParseInt(f, 10, 64)
		all += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, all
}

func onlineCPUs() int {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 1
	}
	n := 0
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "cpu") && !strings.HasPrefix(l, "cpu ") {
			n++
		}
	}
	return max(n, 1)
}

// clusterProfiles takes Go CPU profiles of the cluster's frontend and core
// (their /debug/pprof, which deploy/start-temporal.sh serves on PORT+20
// and PORT+21 under TEMPORAL_PPROF=1) over seconds, into dir, named for
// the phase. It returns at once; wait returns when both are written, each
// with its `go tool pprof -top` beside it (NAME.top.txt).
func (t *clusterTopology) clusterProfiles(dir, phase string, seconds int) (wait func() error) {
	results := make(chan error, 2)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return func() error { return err }
	}
	for name, port := range map[string]int{"core": t.cluster.Port + 21, "frontend": t.cluster.Port + 20} {
		path := filepath.Join(dir, fmt.Sprintf("%s-%s.pprof", name, phase))
		go func() {
			if err := fetchProfile(port, seconds, path); err != nil {
				results <- fmt.Errorf("profile of the %s: %w", name, err)
				return
			}
			top, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=40", path).CombinedOutput()
			if err != nil {
				results <- fmt.Errorf("go tool pprof -top %s: %w: %s", path, err, top)
				return
			}
			results <- os.WriteFile(strings.TrimSuffix(path, ".pprof")+".top.txt", top, 0o644)
		}()
	}
	return func() error {
		var errs []error
		for range 2 {
			errs = append(errs, <-results)
		}
		return errors.Join(errs...)
	}
}

func fetchProfile(port, seconds int, path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(seconds+30)*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=%d", port, seconds), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, body)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
