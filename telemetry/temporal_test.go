package telemetry

import "testing"

func TestTemporalInterceptor(t *testing.T) {
	for name, tr := range map[string]*Tracing{
		"tracing": NewTracing("metaforge-worker", "test", nil),
		"nil":     nil,
	} {
		i, err := tr.TemporalInterceptor()
		if err != nil || i == nil {
			t.Errorf("%s: TemporalInterceptor() = %v, %v", name, i, err)
		}
	}
}
