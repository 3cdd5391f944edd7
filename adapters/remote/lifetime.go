package remote

import (
	"context"
	"encoding/json"

	"github.com/metaforge/metaforge/adapters"
)

// lifetime fills a served adapter's health answer with the uptime and last
// call of the handler, where the adapter reports none itself. Every HTTP
// request is a session of its own to adapters.ServeStdio, which would
// otherwise measure them over that one request.
type lifetime struct {
	adapters.Adapter
	calls *adapters.Invocations
}

func withLifetime(a adapters.Adapter) *lifetime {
	return &lifetime{Adapter: a, calls: adapters.NewInvocations()}
}

func (l *lifetime) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	l.calls.Called()
	return l.Adapter.Call(ctx, toolID, args)
}

func (l *lifetime) Health(ctx context.Context) (adapters.HealthStatus, error) {
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
