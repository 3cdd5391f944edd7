package activities_test

import (
	"encoding/json"
	"errors"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/metaforge/metaforge/activities"
	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/workflows"
)

// shortFixture is the fixture adapter with its tools declared short, as an
// adapter compiled into the worker declares its quick reads.
type shortFixture struct{ *fixtureAdapter }

func (s shortFixture) Manifests() []adapters.Manifest {
	ms := s.fixtureAdapter.Manifests()
	for i := range ms {
		ms[i].Short = true
	}
	return ms
}

// InvokeToolLocal runs a tool the worker may run itself, with the same
// validation and result as InvokeTool, and answers NotLocal, without
// calling the adapter, for one it may not.
func TestInvokeToolLocal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		adapter adapters.Adapter
		local   bool
	}{
		{"short tools", shortFixture{&fixtureAdapter{calls: map[string]int{}}}, true},
		{"tools not declared short", &fixtureAdapter{calls: map[string]int{}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := adapters.NewRegistry()
			if err := reg.Register(tc.adapter); err != nil {
				t.Fatal(err)
			}
			env, _ := newEnv(t)
			tools := &activities.Tools{Registry: reg}
			req := workflows.InvokeToolRequest{CallID: "0123456789abcdef", ToolID: "fixture.echo", Arguments: json.RawMessage(`{"x":2}`), TimeoutSeconds: 30}
			val, err := env.ExecuteLocalActivity(tools.InvokeToolLocal, req)
			calls := tc.adapter.(interface{ callsTo(string) int }).callsTo("fixture.echo")
			if !tc.local {
				var appErr *temporal.ApplicationError
				if !errors.As(err, &appErr) || appErr.Type() != workflows.NotLocal || !appErr.NonRetryable() {
					t.Fatalf("error %v, want a final %s", err, workflows.NotLocal)
				}
				if calls != 0 {
					t.Errorf("the adapter was called %d times; a tool not run locally must not run here", calls)
				}
				return
			}
			if err != nil {
				t.Fatalf("InvokeToolLocal: %v", err)
			}
			var out workflows.InvokeToolResponse
			if err := val.Get(&out); err != nil {
				t.Fatal(err)
			}
			if string(out.Data) != `{"echo":{"x":2}}` || out.Attempt != 1 || calls != 1 {
				t.Errorf("data %s attempt %d after %d calls, want the echo on attempt 1 after 1 call", out.Data, out.Attempt, calls)
			}
			// The schema is checked as on the queue.
			req.Arguments = json.RawMessage(`{"x":"two"}`)
			if _, err := env.ExecuteLocalActivity(tools.InvokeToolLocal, req); err == nil {
				t.Errorf("InvokeToolLocal accepted arguments its schema refuses")
			}
		})
	}
}
