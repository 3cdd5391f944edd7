package solver

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/metaforge/metaforge/protocol"
)

// How a Sandbox holds Policy.Limits, and how a run that broke one is named.
//
// Memory and processes are limits on the whole run, so they are held by a
// cgroup made for the run when the machine lets the worker make one: cgroup
// v2 with the memory and pids controllers enabled for the worker's children,
// or the v1 memory and pids hierarchies. The cgroup's own counters then say
// whether the kernel stopped the run. Without one, memory falls back to
// RLIMIT_DATA and processes to RLIMIT_NPROC, both per process (and
// RLIMIT_NPROC binds nobody when the worker is root). RLIMIT_AS is not used:
// it breaks programs that reserve far more address space than they touch.
// CPU time and file size are always rlimits (set by util-linux prlimit),
// since no cgroup counts CPU seconds to a stop.

// The isolation layers a run reports in Output.Isolation.
const (
	LayerBwrap        = "bwrap"               // mount, PID and IPC namespaces, read-only root, private /tmp, no capabilities
	LayerNoNetwork    = "no-network"          // a network namespace with only a loopback
	LayerWorkspaceRO  = "workspace-read-only" // the workspace outside the call's folder cannot be written
	LayerCgroupMemory = "cgroup-memory"
	LayerCgroupPids   = "cgroup-pids"
	LayerRlimitData   = "rlimit-data"
	LayerRlimitNproc  = "rlimit-nproc"
	LayerRlimitCPU    = "rlimit-cpu"
	LayerRlimitFsize  = "rlimit-fsize"
)

const (
	// cgroupPrefix starts the name of every run's cgroup, followed by the
	// worker's pid, so workers sharing a hierarchy never collide.
	cgroupPrefix = "metaforge-sandbox-"
	// cgroupRemoveWithin bounds the wait for a finished run's cgroup to empty.
	cgroupRemoveWithin = 2 * time.Second
)

// cgroups is where this machine lets the worker make a cgroup per run.
// Empty fields mean that limit has no cgroup here.
type cgroups struct {
	v2      string // a v2 cgroup whose children get memory and pids
	memory  string // the worker's cgroup in the v1 memory hierarchy
	pids    string // the worker's cgroup in the v1 pids hierarchy
	why     string // why there is no cgroup for a limit, when there is not
	counter atomic.Uint64
}

// findCgroups locates the worker's own cgroups and keeps those in which a
// child can be made and removed right now.
func findCgroups() *cgroups {
	cg := &cgroups{}
	own, mounts, err := ownCgroups()
	if err != nil {
		cg.why = "cannot read this process's cgroups: " + err.Error()
		return cg
	}
	if dir, ok := mounts["cgroup2"]; ok {
		d := filepath.Join(dir, own["cgroup2"])
		ctl, _ := os.ReadFile(filepath.Join(d, "cgroup.subtree_control"))
		if hasFields(string(ctl), "memory", "pids") && canMakeChild(d) {
			cg.v2 = d
			return cg
		}
		cg.why = fmt.Sprintf("cgroup v2 at %s does not enable memory and pids for the worker's child cgroups", d)
	}
	why := []string{cg.why}
	for _, c := range []struct {
		name string
		dir  *string
	}{{"memory", &cg.memory}, {"pids", &cg.pids}} {
		if mnt, ok := mounts[c.name]; ok && canMakeChild(filepath.Join(mnt, own[c.name])) {
			*c.dir = filepath.Join(mnt, own[c.name])
		} else {
			why = append(why, "no cgroup v1 "+c.name+" hierarchy in which the worker can make a cgroup")
		}
	}
	cg.why = strings.Join(slices.DeleteFunc(why, func(s string) bool { return s == "" }), "; ")
	return cg
}

// ownCgroups reads /proc/self/cgroup and /proc/self/mountinfo: this
// process's path in each hierarchy, relative to where that hierarchy is
// mounted, and the mount points, both keyed by controller ("cgroup2" for
// v2).
func ownCgroups() (paths, mounts map[string]string, err error) {
	paths, mounts = map[string]string{}, map[string]string{}
	roots := map[string]string{}
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			paths["cgroup2"] = parts[2]
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			paths[ctl] = parts[2]
		}
	}
	mi, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, nil, err
	}
	defer mi.Close()
	for sc := bufio.NewScanner(mi); sc.Scan(); {
		// id parent dev root mountpoint opts [optional...] - fstype source superopts
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 3 {
			continue
		}
		root, point := fields[3], fields[4]
		switch tail[0] {
		case "cgroup2":
			mounts["cgroup2"], roots["cgroup2"] = point, root
		case "cgroup":
			for _, opt := range strings.Split(tail[2], ",") {
				if opt == "memory" || opt == "pids" {
					mounts[opt], roots[opt] = point, root
				}
			}
		}
	}
	for ctl, p := range paths {
		if r, ok := roots[ctl]; ok && r != "/" {
			paths[ctl] = strings.TrimPrefix(p, r)
		}
	}
	return paths, mounts, nil
}

func hasFields(s string, want ...string) bool {
	have := strings.Fields(s)
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// canMakeChild tries to make and remove a cgroup under dir.
func canMakeChild(dir string) bool {
	probe := filepath.Join(dir, fmt.Sprintf("%sprobe-%d", cgroupPrefix, os.Getpid()))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return false
	}
	return os.Remove(probe) == nil
}

// runCgroup is the cgroup (one per v1 hierarchy, or one v2) of one run.
type runCgroup struct {
	v2           bool
	memory, pids string // the dirs holding each limit, "" when not held
	dirs         []string
}

// make creates the run's cgroups for the limits that are set, leaving out
// (and undoing) any it cannot make: the run then falls back to rlimits.
func (cg *cgroups) make(l Limits) *runCgroup {
	name := fmt.Sprintf("%s%d-%d", cgroupPrefix, os.Getpid(), cg.counter.Add(1))
	r := &runCgroup{v2: cg.v2 != ""}
	if r.v2 {
		d := filepath.Join(cg.v2, name)
		if (l.MemoryMB <= 0 && l.Processes <= 0) || os.Mkdir(d, 0o755) != nil {
			return r
		}
		r.dirs = []string{d}
		if l.MemoryMB > 0 && writeCgroup(d, "memory.max", bytesOf(l.MemoryMB)) == nil {
			_ = writeCgroup(d, "memory.swap.max", "0") // absent without swap accounting
			r.memory = d
		}
		if l.Processes > 0 && writeCgroup(d, "pids.max", strconv.Itoa(l.Processes)) == nil {
			r.pids = d
		}
		return r
	}
	if l.MemoryMB > 0 && cg.memory != "" {
		d := filepath.Join(cg.memory, name)
		if os.Mkdir(d, 0o755) == nil {
			r.dirs = append(r.dirs, d)
			// Swap is bounded too, where it is accounted (memsw), so the
			// run cannot go past its limit by swapping.
			if writeCgroup(d, "memory.limit_in_bytes", bytesOf(l.MemoryMB)) == nil {
				_ = writeCgroup(d, "memory.memsw.limit_in_bytes", bytesOf(l.MemoryMB))
				r.memory = d
			}
		}
	}
	if l.Processes > 0 && cg.pids != "" {
		d := filepath.Join(cg.pids, name)
		if os.Mkdir(d, 0o755) == nil {
			r.dirs = append(r.dirs, d)
			if writeCgroup(d, "pids.max", strconv.Itoa(l.Processes)) == nil {
				r.pids = d
			}
		}
	}
	return r
}

func bytesOf(mb int) string { return strconv.FormatInt(int64(mb)<<20, 10) }

// writeCgroup sets one of a cgroup's files.
func writeCgroup(dir, file, value string) error {
	return os.WriteFile(filepath.Join(dir, file), []byte(value), 0)
}

// procsFiles are the files the run's first process writes its pid to.
func (r *runCgroup) procsFiles() []string {
	var files []string
	for _, d := range r.dirs {
		files = append(files, filepath.Join(d, "cgroup.procs"))
	}
	return files
}

// oomKilled is whether the kernel killed a process of the run for going
// past its memory limit.
func (r *runCgroup) oomKilled() bool {
	if r.memory == "" {
		return false
	}
	if r.v2 {
		return cgroupCounter(filepath.Join(r.memory, "memory.events"), "oom_kill") > 0
	}
	return cgroupCounter(filepath.Join(r.memory, "memory.oom_control"), "oom_kill") > 0
}

// forkRefused is whether a fork or thread start of the run failed at the
// process limit.
func (r *runCgroup) forkRefused() bool {
	return r.pids != "" && cgroupCounter(filepath.Join(r.pids, "pids.events"), "max") > 0
}

// cgroupCounter reads "key value" from a flat-keyed cgroup file (0 if absent).
func cgroupCounter(file, key string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// remove kills whatever of the run is left and removes its cgroups, so a
// broken limit leaks neither processes nor cgroups into the next run.
func (r *runCgroup) remove() error {
	var errs []error
	for _, d := range r.dirs {
		// bwrap returns when the program exits, while the rest of its PID
		// namespace may still be dying: the cgroup is busy for a moment.
		deadline := time.Now().Add(cgroupRemoveWithin)
		for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
			killAll(d)
			err := os.Remove(d)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			if time.Now().After(deadline) {
				errs = append(errs, fmt.Errorf("cannot remove the run's cgroup %s: %w", d, err))
				break
			}
			time.Sleep(wait)
		}
	}
	return errors.Join(errs...)
}

// killAll sends SIGKILL to every process in the cgroup dir.
func killAll(dir string) {
	if writeCgroup(dir, "cgroup.kill", "1") == nil {
		return
	}
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// outOfMemory is how a program says an allocation failed: with RLIMIT_DATA
// the kernel refuses the allocation and leaves the telling to the program.
var outOfMemory = regexp.MustCompile(`(?i)out of memory|cannot allocate memory|not enough memory|MemoryError|bad_alloc|allocation failed|failed to allocate`)

// breach is the error naming the limit a finished run broke, or nil. Memory
// and processes are read from the run's cgroup when it had one; CPU time
// and file size from the signal the kernel sends the program at the rlimit.
// A refused fork fails the run even when the program exited 0: it did not
// do all it meant to.
func breach(c Command, l Limits, out Output, cg *runCgroup) error {
	failed := out.ExitCode != 0 || out.Signal != ""
	switch {
	case l.MemoryMB > 0 && cg.oomKilled():
		return memoryError(c, l)
	case l.MemoryMB > 0 && cg.memory == "" && failed && outOfMemory.MatchString(out.Stderr+out.Stdout):
		return memoryError(c, l)
	case l.Processes > 0 && cg.forkRefused():
		return protocol.Refusal("%s could not start a process or thread: it reached the sandbox's process limit (%d processes and threads for the whole run); "+
			"run it with fewer threads (OMP_NUM_THREADS) or raise the limit", c.Binary, l.Processes)
	case l.CPUSeconds > 0 && out.Signal == "SIGXCPU":
		hint := c.TimeoutHint
		if hint == "" {
			hint = "make the problem smaller or raise the tool's max_cpu_seconds"
		}
		return &protocol.Error{Code: protocol.ToolTimeout, Details: fmt.Sprintf(
			"%s was stopped by the sandbox's CPU-time limit (%d s, the tool's max_cpu_seconds) after using all of it; %s", c.Binary, l.CPUSeconds, hint)}
	case l.FileSizeMB > 0 && out.Signal == "SIGXFSZ":
		return protocol.Refusal("%s was stopped writing a file larger than the sandbox's file-size limit (%d MB, the tool's max_disk_mb); "+
			"make the problem smaller or ask for fewer results", c.Binary, l.FileSizeMB)
	}
	return nil
}

func memoryError(c Command, l Limits) error {
	return protocol.Refusal("%s ran out of memory: it went past the sandbox's memory limit (%d MB, the tool's max_memory_mb); %s",
		c.Binary, l.MemoryMB, c.memoryHint("make the problem smaller or raise the limit"))
}

// memoryHint is the command's own advice for a run out of memory, or def.
func (c Command) memoryHint(def string) string {
	if c.MemoryHint != "" {
		return c.MemoryHint
	}
	return def
}
