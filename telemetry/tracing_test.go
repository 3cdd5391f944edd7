package telemetry

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// cleanOTelEnv clears what decides where spans go, what they say and
// whether they are sampled, so the machine's own environment does not
// decide a test.
func cleanOTelEnv(t *testing.T) {
	for _, k := range []string{ExportEnv, "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
		"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_SAMPLER", "OTEL_SDK_DISABLED"} {
		t.Setenv(k, "")
	}
}

// closedPort is an address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestSetupWithoutEndpointMakesSpansAndExportsNone(t *testing.T) {
	cleanOTelEnv(t)
	tr, err := Setup(context.Background(), "metaforge-mcp", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Shutdown(context.Background())
	if tr.Exporting() {
		t.Error("Exporting with no endpoint configured")
	}
	_, span := tr.Tracer().Start(context.Background(), "local")
	defer span.End()
	if !span.IsRecording() || !span.SpanContext().IsValid() {
		t.Error("with export off, spans are not made: local instrumentation must stay on")
	}
}

func TestSetupExportOff(t *testing.T) {
	cleanOTelEnv(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+closedPort(t))
	t.Setenv(ExportEnv, "false")
	tr, err := Setup(context.Background(), "metaforge-mcp", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Shutdown(context.Background())
	if tr.Exporting() {
		t.Errorf("%s=false and still exporting", ExportEnv)
	}
}

func TestSetupRefusesAnExportSettingItCannotRead(t *testing.T) {
	cleanOTelEnv(t)
	t.Setenv(ExportEnv, "flase")
	if _, err := Setup(context.Background(), "metaforge-mcp", "test"); err == nil {
		t.Errorf("%s=flase was accepted", ExportEnv)
	}
}

func TestSetupWithUnreachableCollector(t *testing.T) {
	cleanOTelEnv(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+closedPort(t))

	start := time.Now()
	tr, err := Setup(context.Background(), "metaforge-mcp", "test")
	if err != nil {
		t.Fatalf("Setup failed with the collector down: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Setup took %v with the collector down; start-up must not wait on it", d)
	}
	if !tr.Exporting() {
		t.Error("not exporting with an endpoint configured")
	}
	_, span := tr.Tracer().Start(context.Background(), "call")
	span.End()

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start = time.Now()
	_ = tr.Shutdown(ctx) // it may say the spans were not sent; it must return
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Shutdown took %v with a 1s deadline and the collector down", d)
	}
}

// otlpReceiver is a collector's OTLP/HTTP trace endpoint that keeps what
// it is sent.
type otlpReceiver struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.NotFound(w, req)
		return
	}
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.bodies = append(r.bodies, body)
	r.mu.Unlock()
	// An empty ExportTraceServiceResponse is zero bytes of protobuf.
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

func (r *otlpReceiver) received() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bodies
}

func TestSetupExportsToCollector(t *testing.T) {
	cleanOTelEnv(t)
	rec := &otlpReceiver{}
	collector := httptest.NewServer(rec)
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)

	tr, err := Setup(context.Background(), "metaforge-mcp", "test")
	if err != nil {
		t.Fatal(err)
	}
	_, span := tr.Tracer().Start(context.Background(), "tools/call power.check_budget")
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	bodies := rec.received()
	if len(bodies) == 0 {
		t.Fatal("the collector received nothing on POST /v1/traces")
	}
	var sent bool
	for _, b := range bodies {
		sent = sent || bytes.Contains(b, []byte("tools/call power.check_budget")) && bytes.Contains(b, []byte("metaforge-mcp"))
	}
	if !sent {
		t.Error("no export carried the span and its service name")
	}
}

func TestNilTracingIsHarmless(t *testing.T) {
	var tr *Tracing
	if tr.Exporting() {
		t.Error("a nil Tracing exports")
	}
	_, span := tr.Tracer().Start(context.Background(), "x")
	span.End()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}
