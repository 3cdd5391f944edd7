//go:build linux

package bench

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkColdStart times `metaforge serve` from exec to the first 200 from
// /healthz, as a user restarting it sees. The binary is built once; one
// serve creates a fresh --data-dir and is stopped with SIGTERM; then each of
// the b.N starts runs on that existing data dir and is stopped the same way
// before the next. The first start (new data dir: schema, namespace) is
// reported beside them for comparison.
//
// Metrics: p50-ms and max-ms of the starts on the existing dir,
// first-start-ms for the new one, stop-p50-ms (SIGTERM to exit) and
// cpu-ms/start, serve's own CPU (user + system) from exec to exit. ns/op
// is suppressed. METAFORGE_BENCH_BINARY runs a given binary instead of a
// fresh build. Linux only (process groups, as BenchmarkHeldCalls).
func BenchmarkColdStart(b *testing.B) {
	coldOnce.Do(func() { coldSetup, coldErr = prepareColdStart(b) })
	if coldErr != nil {
		b.Fatal(coldErr)
	}
	var starts, stops, cpu []time.Duration
	for i := range b.N {
		took, stopped, used, err := timeServeStart(b, coldSetup.binary, coldSetup.dir, coldSetup.dataDir, fmt.Sprintf("start-%d", i))
		if err != nil {
			b.Fatal(err)
		}
		starts, stops, cpu = append(starts, took), append(stops, stopped), append(cpu, used)
	}
	l := percentiles(starts)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ms(l.p50), "p50-ms")
	b.ReportMetric(ms(l.max), "max-ms")
	b.ReportMetric(ms(coldSetup.first), "first-start-ms")
	b.ReportMetric(ms(percentiles(stops).p50), "stop-p50-ms")
	b.ReportMetric(ms(percentiles(cpu).p50), "cpu-ms/start")
	b.Logf("starts on the existing data dir: %v", roundAll(starts))
}

// atExit runs when the benchmarks are done (TestMain): what outlives one
// round of a benchmark, such as the binary built once.
var atExit []func()

var (
	coldOnce  sync.Once
	coldSetup *coldStart
	coldErr   error
)

type coldStart struct {
	binary, dir, dataDir string
	first                time.Duration // the start that created the data dir
}

// prepareColdStart builds the binary and makes the data dir with one start
// and a clean stop. The directory outlives b (b.TempDir would be removed
// when the first, b.N=1 round ends) and is removed when the process ends.
func prepareColdStart(b *testing.B) (*coldStart, error) {
	dir, err := os.MkdirTemp("", "metaforge-coldstart-")
	if err != nil {
		return nil, err
	}
	atExit = append(atExit, func() { _ = os.RemoveAll(dir) })
	binary, err := buildMetaforge(b, dir)
	if err != nil {
		return nil, err
	}
	c := &coldStart{binary: binary, dir: dir, dataDir: filepath.Join(dir, "data")}
	c.first, _, _, err = timeServeStart(b, binary, dir, c.dataDir, "first")
	if err != nil {
		return nil, err
	}
	b.Logf("first start, new data dir: %s", c.first.Round(time.Millisecond))
	return c, nil
}

// timeServeStart starts serve on dataDir with free ports and no Temporal
// UI, polls /healthz every 5 ms until it answers 200, then stops serve with
// SIGTERM. It returns exec to 200, SIGTERM to exit, and serve's CPU time.
func timeServeStart(b *testing.B, binary, dir, dataDir, name string) (start, stop, cpu time.Duration, err error) {
	ports, err := freeTCPPorts(2)
	if err != nil {
		return 0, 0, 0, err
	}
	stderr, err := os.Create(filepath.Join(dir, name+".stderr"))
	if err != nil {
		return 0, 0, 0, err
	}
	defer stderr.Close()
	cmd := exec.Command(binary, "serve",
		"--data-dir", dataDir,
		"--temporal-port", strconv.Itoa(ports[0]),
		"--ui-port", "0",
		"--http-addr", fmt.Sprintf("127.0.0.1:%d", ports[1]))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TEMPORAL_") && !strings.HasPrefix(kv, "NEO4J_") && !strings.HasPrefix(kv, "METAFORGE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &serveProcess{cmd: cmd, base: fmt.Sprintf("http://127.0.0.1:%d", ports[1]), dataDir: dataDir,
		stderr: stderr.Name(), done: make(chan struct{})}
	hc := &http.Client{Timeout: 30 * time.Second}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, err
	}
	p.pid = cmd.Process.Pid
	go func() { _ = cmd.Wait(); close(p.done) }()
	for {
		select {
		case <-p.done:
			return 0, 0, 0, fmt.Errorf("metaforge serve exited (%v) before /healthz answered:\n%s", cmd.ProcessState, p.tail(30))
		default:
		}
		if time.Since(t0) > 2*time.Minute {
			p.stop(b)
			return 0, 0, 0, fmt.Errorf("metaforge serve did not answer /healthz within 2 min:\n%s", p.tail(30))
		}
		resp, err := hc.Get(p.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				start = time.Since(t0)
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t1 := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.stop(b) // SIGKILL
		return 0, 0, 0, fmt.Errorf("metaforge serve did not stop within 20 s of SIGTERM:\n%s", p.tail(30))
	}
	stop = time.Since(t1)
	if !cmd.ProcessState.Success() {
		return 0, 0, 0, fmt.Errorf("metaforge serve ended with %v after SIGTERM, want a clean exit:\n%s", cmd.ProcessState, p.tail(30))
	}
	return start, stop, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

func roundAll(d []time.Duration) []time.Duration {
	out := slices.Clone(d)
	for i := range out {
		out[i] = out[i].Round(time.Millisecond)
	}
	return out
}
