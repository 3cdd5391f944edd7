package adapters

import (
	"context"
	"encoding/json"
)

// httpLifetime fills a served adapter's health answer with the uptime and last
// call of the httpHandler, where the adapter reports none itself. Every HTTP
// request is a session of its own to ServeStdio, which would
// otherwise measure them over that one request.
type httpLifetime struct {
	Adapter
	calls *Invocations
}

func withHTTPLifetime(a Adapter) *httpLifetime {
	return &httpLifetime{Adapter: a, calls: NewInvocations()}
}

func (l *httpLifetime) Call(ctx context.Context, toolID string, args json.RawMessage) (*Result, error) {
	l.calls.Called()
	return l.Adapter.Call(ctx, toolID, args)
}

func (l *httpLifetime) Health(ctx context.Context) (HealthStatus, error) {
	st, err := l.Adapter.Health(ctx)
	if err != nil {
		return st, err
	}
	served := l.calls.Healthy(st.AdapterID, st.Version, st.ToolsAvailable)
	if st.UptimeSeconds == 0 {
		st.UptimeSeconds = served.UptimeSeconds
	}
	if st.LastInvocation == nil {
		st.LastInvocation = served.LastInvocation
	}
	return st, nil
}
