package telemetry

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Call statuses, the status label.
const (
	StatusSuccess = "success"
	StatusError   = "error"
)

// Probe results, the result label.
const (
	ProbeReachable   = "reachable"
	ProbeUnreachable = "unreachable"
)

// Caps on distinct label values. A deployment has one to a few clients,
// about 120 tools and a dozen adapters; the caps leave room for growth and
// none for a client that invents names.
const (
	maxClients  = 32
	maxTools    = 512
	maxAdapters = 64
)

// durationBuckets span a cached lookup (milliseconds) to a solver run at
// the longest timeout a call may ask for (3600s), with a held write's
// approval window (100s, 180s) in between.
var durationBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}

// Metrics are the MCP surface's four metrics, which say which tool is failing,
// for whom and why. They live on a registry of their own rather than the
// global one, so several servers in one process, and tests, stay apart.
//
// The server calls ObserveCall, and ObserveError for a failure, once per call
// from its own dispatch, whichever dialect the call came in.
type Metrics struct {
	registry *prometheus.Registry
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	errors   *prometheus.CounterVec
	probes   *prometheus.CounterVec

	clients, tools, adapters *boundedLabel
}

// NewMetrics registers the four metrics, with the Go runtime and process
// collectors beside them, on a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "metaforge_mcp_tool_call_total",
			Help: "MCP tool calls by tool, outcome and client: throughput and failure rate per tool.",
		}, []string{"tool_id", "status", "client"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "metaforge_mcp_tool_call_duration_seconds",
			Help:    "How long MCP tool calls took to answer, held time included.",
			Buckets: durationBuckets,
		}, []string{"tool_id", "status"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "metaforge_mcp_error_total",
			Help: "Failed MCP tool calls by tool, error class and client: what kind of failure.",
		}, []string{"tool_id", "error_class", "client"}),
		probes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "metaforge_mcp_adapter_probe_total",
			Help: "Adapter health probes by adapter and result.",
		}, []string{"adapter_id", "result"}),
		clients:  newBoundedLabel(maxClients),
		tools:    newBoundedLabel(maxTools),
		adapters: newBoundedLabel(maxAdapters),
	}
	m.registry.MustRegister(
		m.calls, m.duration, m.errors, m.probes,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// ObserveCall counts a finished call and its duration. toolID is the
// registered tool id; pass "" for a name the registry does not know, which
// is the client's text rather than a tool. client is the name the client
// gave at initialize, as it gave it. A status other than StatusSuccess
// counts as StatusError.
func (m *Metrics) ObserveCall(toolID, status, client string, d time.Duration) {
	if m == nil {
		return
	}
	if status != StatusSuccess {
		status = StatusError
	}
	tool := m.tools.value(toolID)
	m.calls.WithLabelValues(tool, status, m.clients.value(client)).Inc()
	m.duration.WithLabelValues(tool, status).Observe(max(d, 0).Seconds())
}

// ObserveError counts a failed call by its class, one of Classes; any
// other class counts as unexpected, so a caller's mistake shows up as one
// rather than as a new series.
func (m *Metrics) ObserveError(toolID, errorClass, client string) {
	if m == nil {
		return
	}
	if !isClass(errorClass) {
		errorClass = ClassUnexpected
	}
	m.errors.WithLabelValues(m.tools.value(toolID), errorClass, m.clients.value(client)).Inc()
}

// ObserveProbe counts an adapter health probe. Both results' series are
// made on an adapter's first probe, so an alert on the unreachable one
// sees it rise from zero.
func (m *Metrics) ObserveProbe(adapterID string, ok bool) {
	if m == nil {
		return
	}
	adapter := m.adapters.value(adapterID)
	reachable := m.probes.WithLabelValues(adapter, ProbeReachable)
	unreachable := m.probes.WithLabelValues(adapter, ProbeUnreachable)
	if ok {
		reachable.Inc()
	} else {
		unreachable.Inc()
	}
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}
