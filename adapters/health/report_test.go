package health_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/internal/adaptertest"
	"github.com/metaforge/metaforge/protocol"
)

// probed is a test adapter whose health answer is set by the test: fine,
// an error (the adapter is down) or nothing at all (wedged).
type probed struct {
	id     string
	answer func(ctx context.Context) (adapters.HealthStatus, error)
}

func (p probed) ID() string      { return p.id }
func (p probed) Version() string { return "1.2.3" }
func (p probed) Manifests() []adapters.Manifest {
	return []adapters.Manifest{{ToolID: p.id + ".run", AdapterID: p.id, Name: "run", InputSchema: json.RawMessage(`{"type":"object"}`)}}
}
func (p probed) Call(context.Context, string, json.RawMessage) (*adapters.Result, error) {
	return nil, errors.New("not called")
}
func (p probed) Health(ctx context.Context) (adapters.HealthStatus, error) { return p.answer(ctx) }

func checker(t *testing.T, as ...adapters.Adapter) *health.Checker {
	reg := adapters.NewRegistry()
	for _, a := range as {
		if err := reg.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	c := &health.Checker{Service: "metaforge-mcp", Version: "test", Started: time.Now(), Registry: reg,
		Components: map[string]health.Probe{"temporal": func(context.Context) health.Component {
			return health.Component{Mode: "embedded", Reachable: true}
		}}, RetryAfter: time.Minute}
	t.Cleanup(c.Close)
	return c
}

func TestHealthyWhenEveryAdapterAnswers(t *testing.T) {
	fx := &adaptertest.Fixture{}
	r := checker(t, fx).Check(context.Background())
	if r.Status != "healthy" || r.Detail != "" || len(r.UnreachableAdapters) != 0 || r.ToolCount != len(fx.Manifests()) || r.AdapterCount != 1 {
		t.Fatalf("report = %+v", r)
	}
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "unreachable_adapters") || strings.Contains(string(b), `"detail"`) {
		t.Errorf("a healthy report carries unreachable_adapters or detail: %s", b)
	}
}

func TestDegradedKeepsTheTwoFailureShapesApart(t *testing.T) {
	down := probed{id: "calculix", answer: func(context.Context) (adapters.HealthStatus, error) {
		return adapters.HealthStatus{}, protocol.Unavailable("container is down")
	}}
	wedged := probed{id: "freecad", answer: func(ctx context.Context) (adapters.HealthStatus, error) {
		<-ctx.Done()
		time.Sleep(time.Hour) // ignores its context, as a wedged process does
		return adapters.HealthStatus{}, nil
	}}
	fine := probed{id: "spice", answer: func(context.Context) (adapters.HealthStatus, error) {
		return adapters.HealthStatus{Status: "healthy"}, nil
	}}
	start := time.Now()
	r := checker(t, down, wedged, fine).Check(context.Background())
	took := time.Since(start)
	if took > health.ProbeTimeout+time.Second {
		t.Errorf("the check took %s: probes must run concurrently, one timeout in all", took)
	}
	if r.Status != "degraded" || strings.Join(r.UnreachableAdapters, ",") != "calculix,freecad" {
		t.Fatalf("report = %+v", r)
	}
	if !strings.Contains(r.Detail, "2 of 3 adapters did not answer: calculix, freecad") {
		t.Errorf("detail = %q", r.Detail)
	}
	byID := map[string]health.AdapterReport{}
	for _, a := range r.Adapters {
		byID[a.AdapterID] = a
	}
	if e := byID["calculix"].Error; !strings.Contains(e, "adapter is down: container is down (-32003)") {
		t.Errorf("calculix error = %q, want it down with its code", e)
	}
	if e := byID["freecad"].Error; e != "no answer within 3s" {
		t.Errorf("freecad error = %q, want no answer within 3s", e)
	}
	// tools_registered is the catalogue: it does not shrink when an
	// adapter is down.
	if byID["calculix"].ToolsRegistered != 1 || byID["calculix"].Reachable || !byID["spice"].Reachable {
		t.Errorf("adapters = %+v", r.Adapters)
	}
}

func TestAnUnreachableComponentDegrades(t *testing.T) {
	c := checker(t, &adaptertest.Fixture{})
	c.Components["twin"] = func(context.Context) health.Component {
		return health.Component{Mode: "neo4j", Address: "bolt://127.0.0.1:7687", Error: "connection refused"}
	}
	c.Components["ledger"] = func(context.Context) health.Component { return health.Component{Mode: "none"} }
	r := c.Check(context.Background())
	if r.Status != "degraded" || !strings.Contains(r.Detail, "twin (neo4j) is not reachable: connection refused") || strings.Contains(r.Detail, "ledger") {
		t.Fatalf("report = %+v", r)
	}
}

// An adapter served by workers elsewhere is measured there, not by asking
// the local copy (which may lack its solver); one served here is asked
// here; and each probe is heard by OnProbe.
func TestAdaptersServedElsewhereAreMeasuredByTheirWorkers(t *testing.T) {
	asked := map[string]bool{}
	answer := func(id string) func(context.Context) (adapters.HealthStatus, error) {
		return func(context.Context) (adapters.HealthStatus, error) {
			asked[id] = true
			return adapters.HealthStatus{}, &protocol.Error{Code: protocol.ToolUnavailable, Details: "no solver on this machine"}
		}
	}
	c := checker(t, probed{id: "calculix", answer: answer("calculix")}, probed{id: "spice", answer: answer("spice")},
		probed{id: "kicad", answer: answer("kicad")})
	c.Elsewhere = func(_ context.Context, id string) (bool, string, bool) {
		switch id {
		case "calculix":
			return true, "", true
		case "spice":
			return false, "no worker has polled task queue adapter-spice", true
		}
		return false, "", false // kicad is served here
	}
	heard := map[string]bool{}
	c.OnProbe = func(id string, reachable bool) { heard[id] = reachable }
	r := c.Check(context.Background())
	if asked["calculix"] || asked["spice"] || !asked["kicad"] {
		t.Errorf("asked locally: %v, want only kicad, the one served here", asked)
	}
	got := map[string]health.AdapterReport{}
	for _, a := range r.Adapters {
		got[a.AdapterID] = a
	}
	if !got["calculix"].Reachable || got["spice"].Reachable || !strings.Contains(got["spice"].Error, "adapter-spice") || got["kicad"].Reachable {
		t.Errorf("adapters = %+v", r.Adapters)
	}
	if len(heard) != 3 || !heard["calculix"] || heard["spice"] || heard["kicad"] {
		t.Errorf("OnProbe heard %v", heard)
	}
}

// Tools the spec defines but this build does not serve are listed with
// their reasons, and do not make a healthy report degraded: they are
// missing on purpose, not down.
func TestUnservedToolsAreListedWithoutDegrading(t *testing.T) {
	c := checker(t, &adaptertest.Fixture{})
	sim := adapters.UnservedTool{ToolID: "sim.run", Reason: "no simulator package here"}
	if err := c.Registry.Unserve(sim); err != nil {
		t.Fatal(err)
	}
	r := c.Check(context.Background())
	if r.Status != "healthy" || len(r.UnservedTools) != 1 || r.UnservedTools[0] != sim {
		t.Fatalf("report = %+v", r)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"unserved_tools":[{"tool_id":"sim.run","reason":"no simulator package here"}]`) {
		t.Errorf("the report's JSON lacks unserved_tools: %s", b)
	}
}
