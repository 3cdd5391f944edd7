package telemetry

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// scrape fetches h over HTTP, as Prometheus would, and returns every
// sample by its series, such as
// `metaforge_mcp_error_total{client="codex",error_class="tool_timeout",tool_id="x"}`.
func scrape(t *testing.T, h http.Handler) map[string]float64 {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %s", resp.Status)
	}
	samples := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("scrape: %q: %v", line, err)
		}
		samples[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return samples
}

// seriesWith returns the samples of metric whose series has every label.
func seriesWith(samples map[string]float64, metric string, labels ...string) map[string]float64 {
	out := map[string]float64{}
	for s, v := range samples {
		if !strings.HasPrefix(s, metric+"{") {
			continue
		}
		all := true
		for _, l := range labels {
			all = all && strings.Contains(s, l)
		}
		if all {
			out[s] = v
		}
	}
	return out
}

func TestMetricsScrape(t *testing.T) {
	m := NewMetrics()
	m.ObserveCall("power.check_budget", StatusSuccess, "claude-code", 20*time.Millisecond)
	m.ObserveCall("power.check_budget", StatusSuccess, "claude-code", 3*time.Second)
	m.ObserveCall("power.check_budget", StatusError, "claude-code", 40*time.Millisecond)
	m.ObserveError("power.check_budget", ClassAdapterUnavailable, "claude-code")
	m.ObserveCall("twin.commit_geometry", StatusError, "codex", 180*time.Second)
	m.ObserveError("twin.commit_geometry", ClassApprovalExpired, "codex")
	m.ObserveCall("twin.commit_geometry", StatusError, "", time.Second)
	m.ObserveError("twin.commit_geometry", "no_such_class", "")
	m.ObserveProbe("cadquery", true)
	m.ObserveProbe("cadquery", true)
	m.ObserveProbe("calculix", false)

	got := scrape(t, m.Handler())
	want := map[string]float64{
		`metaforge_mcp_tool_call_total{client="claude-code",status="success",tool_id="power.check_budget"}`:              2,
		`metaforge_mcp_tool_call_total{client="claude-code",status="error",tool_id="power.check_budget"}`:                1,
		`metaforge_mcp_tool_call_total{client="codex",status="error",tool_id="twin.commit_geometry"}`:                    1,
		`metaforge_mcp_tool_call_total{client="unknown",status="error",tool_id="twin.commit_geometry"}`:                  1,
		`metaforge_mcp_error_total{client="claude-code",error_class="adapter_unavailable",tool_id="power.check_budget"}`: 1,
		`metaforge_mcp_error_total{client="codex",error_class="approval_expired",tool_id="twin.commit_geometry"}`:        1,
		// A class nobody defined is counted, as unexpected.
		`metaforge_mcp_error_total{client="unknown",error_class="unexpected",tool_id="twin.commit_geometry"}`:       1,
		`metaforge_mcp_adapter_probe_total{adapter_id="cadquery",result="reachable"}`:                               2,
		`metaforge_mcp_adapter_probe_total{adapter_id="cadquery",result="unreachable"}`:                             0,
		`metaforge_mcp_adapter_probe_total{adapter_id="calculix",result="reachable"}`:                               0,
		`metaforge_mcp_adapter_probe_total{adapter_id="calculix",result="unreachable"}`:                             1,
		`metaforge_mcp_tool_call_duration_seconds_count{status="success",tool_id="power.check_budget"}`:             2,
		`metaforge_mcp_tool_call_duration_seconds_sum{status="success",tool_id="power.check_budget"}`:               3.02,
		`metaforge_mcp_tool_call_duration_seconds_bucket{status="success",tool_id="power.check_budget",le="0.025"}`: 1,
		`metaforge_mcp_tool_call_duration_seconds_bucket{status="success",tool_id="power.check_budget",le="5"}`:     2,
		`metaforge_mcp_tool_call_duration_seconds_count{status="error",tool_id="twin.commit_geometry"}`:             2,
		`metaforge_mcp_tool_call_duration_seconds_bucket{status="error",tool_id="twin.commit_geometry",le="120"}`:   1,
		`metaforge_mcp_tool_call_duration_seconds_bucket{status="error",tool_id="twin.commit_geometry",le="300"}`:   2,
	}
	for series, v := range want {
		if g, ok := got[series]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", series, g, ok, v)
		}
	}
	for _, metric := range []string{"metaforge_mcp_tool_call_total", "metaforge_mcp_error_total", "metaforge_mcp_adapter_probe_total"} {
		if n, w := len(seriesWith(got, metric)), len(seriesWith(want, metric)); n != w {
			t.Errorf("%s has %d series, want %d: %v", metric, n, w, seriesWith(got, metric))
		}
	}
	for _, runtime := range []string{"go_goroutines", "process_start_time_seconds"} {
		if _, ok := got[runtime]; !ok {
			t.Errorf("%s is missing: the Go and process collectors are not registered", runtime)
		}
	}
}

func TestMetricsSeparateRegistries(t *testing.T) {
	a, b := NewMetrics(), NewMetrics()
	a.ObserveCall("power.check_budget", StatusSuccess, "codex", time.Millisecond)
	if n := len(seriesWith(scrape(t, b.Handler()), "metaforge_mcp_tool_call_total")); n != 0 {
		t.Errorf("a call observed on one Metrics shows on another (%d series)", n)
	}
}

func TestMetricsHostileClientIsBounded(t *testing.T) {
	m := NewMetrics()
	hostile := "  Evil\x00Client\"}<script>💥" + strings.Repeat("A", 1<<20)
	m.ObserveCall("power.check_budget", StatusSuccess, hostile, time.Millisecond)
	m.ObserveError("power.check_budget", ClassToolExecutionError, "\xff\xfe not utf-8")

	series := seriesWith(scrape(t, m.Handler()), "metaforge_mcp_tool_call_total")
	want := "evil_client___script__" + strings.Repeat("a", maxLabelLen-len("evil_client___script__"))
	if _, ok := series[`metaforge_mcp_tool_call_total{client="`+want+`",status="success",tool_id="power.check_budget"}`]; !ok {
		t.Errorf("hostile client became %v, want client=%q", series, want)
	}
	errs := seriesWith(scrape(t, m.Handler()), "metaforge_mcp_error_total")
	if _, ok := errs[`metaforge_mcp_error_total{client="not-utf-8",error_class="tool_execution_error",tool_id="power.check_budget"}`]; !ok {
		t.Errorf("invalid UTF-8 client became %v", errs)
	}
}

func TestMetricsDistinctClientCap(t *testing.T) {
	m := NewMetrics()
	for i := range maxClients + 10 {
		m.ObserveCall("power.check_budget", StatusSuccess, fmt.Sprintf("client-%d", i), time.Millisecond)
	}
	// A client seen before the cap keeps its own series after it.
	m.ObserveCall("power.check_budget", StatusSuccess, "client-0", time.Millisecond)

	got := scrape(t, m.Handler())
	series := seriesWith(got, "metaforge_mcp_tool_call_total")
	if len(series) != maxClients+1 {
		t.Errorf("%d client series, want %d named and one other", len(series), maxClients)
	}
	if v := got[`metaforge_mcp_tool_call_total{client="other",status="success",tool_id="power.check_budget"}`]; v != 10 {
		t.Errorf("other = %v, want the 10 clients past the cap", v)
	}
	if v := got[`metaforge_mcp_tool_call_total{client="client-0",status="success",tool_id="power.check_budget"}`]; v != 2 {
		t.Errorf("client-0 = %v, want 2", v)
	}
}

func TestNormalise(t *testing.T) {
	for raw, want := range map[string]string{
		"":                   "unknown",
		"   ":                "unknown",
		"Claude Code":        "claude-code",
		"claude-code":        "claude-code",
		"codex-mcp-client":   "codex-mcp-client",
		"power.check_budget": "power.check_budget",
		"<>":                 "unknown",
		"ünïcode":            "n_code",
	} {
		if got := normalise(raw); got != want {
			t.Errorf("normalise(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestNilMetricsRecordsNothing(t *testing.T) {
	var m *Metrics
	m.ObserveCall("power.check_budget", StatusSuccess, "codex", time.Second)
	m.ObserveError("power.check_budget", ClassUnexpected, "codex")
	m.ObserveProbe("cadquery", false)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("a nil Metrics serves %d, want 404", rec.Code)
	}
}
