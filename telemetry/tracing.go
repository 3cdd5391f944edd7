package telemetry

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// instrumentation names this package's tracer (the span's scope).
const instrumentation = "github.com/metaforge/metaforge/telemetry"

// ExportEnv switches span export. "false" turns it off whatever endpoint
// is set: a laptop with no
// collector logs no connection errors, and spans are still made. "true"
// turns it on, to the default endpoint when none is set.
const ExportEnv = "METAFORGE_OTEL_EXPORT"

// Tracing is a process's span pipeline. It is passed to what makes spans
// rather than installed as the OpenTelemetry global, so two servers in one
// process, and tests, each have their own.
type Tracing struct {
	provider  *sdktrace.TracerProvider
	exporting bool
}

// Setup builds the tracing a server runs with. Spans are always made;
// they are exported over OTLP/HTTP, in batches, when
// OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set or
// METAFORGE_OTEL_EXPORT is true, and not when it is false. The exporter
// is configured by the standard OTEL_EXPORTER_OTLP_* variables and does
// not connect until it has spans to send: a collector that is not there
// costs dropped spans, never a call and never start-up.
//
// The only errors are configuration errors, such as a METAFORGE_OTEL_EXPORT
// that is neither true nor false.
func Setup(ctx context.Context, service, version string) (*Tracing, error) {
	export, err := exportWanted()
	if err != nil {
		return nil, err
	}
	res := newResource(service, version)
	if !export {
		return &Tracing{provider: sdktrace.NewTracerProvider(sdktrace.WithResource(res))}, nil
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("telemetry: the OTLP exporter: %w", err)
	}
	return &Tracing{
		provider:  sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(exporter)),
		exporting: true,
	}, nil
}

// NewTracing is tracing that hands each span to exporter as it ends, such
// as a tracetest.InMemoryExporter in a test. A nil exporter exports
// nowhere. A server should use Setup, whose export never waits on a
// collector.
func NewTracing(service, version string, exporter sdktrace.SpanExporter) *Tracing {
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(newResource(service, version))}
	if exporter != nil {
		opts = append(opts, sdktrace.WithSyncer(exporter))
	}
	return &Tracing{provider: sdktrace.NewTracerProvider(opts...), exporting: exporter != nil}
}

// exportWanted reads whether spans leave the process.
func exportWanted() (bool, error) {
	if v := os.Getenv(ExportEnv); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("telemetry: %s=%q is neither true nor false", ExportEnv, v)
		}
		return on, nil
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "", nil
}

// newResource names the service on every span. OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES override it, as operators expect; a malformed
// one is skipped rather than stopping start-up.
func newResource(service, version string) *resource.Resource {
	attrs := []attribute.KeyValue{
		attribute.String("service.name", service),
		attribute.String("service.version", version),
	}
	// These detectors read only the environment; the context is unused.
	res, err := resource.New(context.Background(),
		resource.WithAttributes(attrs...), resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && res == nil {
		return resource.NewSchemaless(attrs...)
	}
	return res
}

// Exporting reports whether spans leave the process, for a start-up line
// that says so.
func (t *Tracing) Exporting() bool { return t != nil && t.exporting }

// Provider is the tracer provider, for instrumentation that takes one.
func (t *Tracing) Provider() trace.TracerProvider {
	if t == nil {
		return noop.NewTracerProvider()
	}
	return t.provider
}

// Tracer is this package's tracer, for a path the middleware does not
// cover (the legacy dialect); RecordFailure marks its failures.
func (t *Tracing) Tracer() trace.Tracer { return t.Provider().Tracer(instrumentation) }

// Shutdown sends the spans still queued and stops export. ctx bounds how
// long a collector that does not answer can hold it up.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}
