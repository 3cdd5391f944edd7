package adapters_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/metaforge/metaforge/adapters"
)

// briefAdapter declares one tool of each kind RunsLocal tells apart.
type briefAdapter struct{}

func (briefAdapter) ID() string      { return "brief" }
func (briefAdapter) Version() string { return "test" }
func (briefAdapter) Manifests() []adapters.Manifest {
	tool := func(name string, short, idempotent bool) adapters.Manifest {
		return adapters.Manifest{ToolID: "brief." + name, AdapterID: "brief", Name: name, Description: "test fixture",
			Capability: "test", InputSchema: json.RawMessage(`{"type":"object"}`), Short: short, Idempotent: idempotent, TimeoutSeconds: 5}
	}
	return []adapters.Manifest{
		tool("read", true, true),
		tool("write_once", true, false),
		tool("solve", false, true),
	}
}
func (briefAdapter) Call(context.Context, string, json.RawMessage) (*adapters.Result, error) {
	return &adapters.Result{Data: json.RawMessage(`{}`)}, nil
}
func (briefAdapter) Health(context.Context) (adapters.HealthStatus, error) {
	return adapters.HealthStatus{AdapterID: "brief", Status: "healthy"}, nil
}

// Only a short, idempotent tool of an adapter in this process runs as a
// local activity: the same tool reached over HTTP runs where its adapter
// is, and a tool unsafe to repeat or long stays on the adapter's queue.
func TestRunsLocal(t *testing.T) {
	inProcess := adapters.NewRegistry()
	if err := inProcess.Register(briefAdapter{}); err != nil {
		t.Fatal(err)
	}
	viaHTTP, _ := serve(t, briefAdapter{})
	remote := adapters.NewRegistry()
	if err := remote.Register(viaHTTP); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		reg    *adapters.Registry
		where  string
		toolID string
		want   bool
	}{
		{inProcess, "in process", "brief.read", true},
		{inProcess, "in process", "brief.write_once", false},
		{inProcess, "in process", "brief.solve", false},
		{inProcess, "in process", "brief.unknown", false},
		{remote, "over HTTP", "brief.read", false},
	} {
		if got := tc.reg.RunsLocal(tc.toolID); got != tc.want {
			t.Errorf("%s %s: RunsLocal = %v, want %v", tc.where, tc.toolID, got, tc.want)
		}
	}
	// The manifest says short on the wire too; only the placement differs.
	if m, _, _ := remote.Tool("brief.read"); !m.Short {
		t.Errorf("brief.read lost short over HTTP: %+v", m)
	}
}
