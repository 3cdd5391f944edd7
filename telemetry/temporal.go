package telemetry

import (
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// TemporalInterceptor traces Temporal clients and workers on this
// provider, carrying the span context through workflow headers: a
// tools/call span, the workflow it starts and the activity that runs the
// tool form one trace. Set it on the client's options; workers built from
// that client inherit it.
func (t *Tracing) TemporalInterceptor() (interceptor.Interceptor, error) {
	return temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{
		Tracer: t.Provider().Tracer("temporal-sdk-go"),
	})
}
