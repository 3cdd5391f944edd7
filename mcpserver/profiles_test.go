package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/cad"
	"github.com/metaforge/metaforge/adapters/cadquery"
	"github.com/metaforge/metaforge/adapters/calculix"
	"github.com/metaforge/metaforge/adapters/call"
	"github.com/metaforge/metaforge/adapters/component"
	"github.com/metaforge/metaforge/adapters/flow"
	"github.com/metaforge/metaforge/adapters/freecad"
	"github.com/metaforge/metaforge/adapters/gazebo"
	"github.com/metaforge/metaforge/adapters/gmsh"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/adapters/kicad"
	knowledgeadapter "github.com/metaforge/metaforge/adapters/knowledge"
	"github.com/metaforge/metaforge/adapters/omniverseusd"
	"github.com/metaforge/metaforge/adapters/physics"
	"github.com/metaforge/metaforge/adapters/power"
	"github.com/metaforge/metaforge/adapters/spice"
	twinadapter "github.com/metaforge/metaforge/adapters/twin"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/mcpserver"
	"github.com/metaforge/metaforge/mcpserver/mcptest"
	"github.com/metaforge/metaforge/protocol"
	"github.com/metaforge/metaforge/twin"
	"github.com/metaforge/metaforge/worker"
	"github.com/metaforge/metaforge/worker/workertest"
)

// catalogue is every adapter `metaforge serve` registers (cmd/metaforge
// catalog.go) except call and health, which mcptest adds: the tools the
// profiles may name.
func catalogue(dataDir string) []adapters.Adapter {
	ws := workspace.New(dataDir)
	mem := twin.NewMemoryStore()
	mesher := gmsh.New(ws)
	kernels := []adapters.Adapter{cadquery.New(ws, cadquery.Options{}), mesher, freecad.New(ws, freecad.Options{Mesher: mesher})}
	// cad reads the kernels from a registry of them, as the catalog's.
	reg := adapters.NewRegistry()
	for _, k := range kernels {
		if err := reg.Register(k); err != nil {
			panic(err)
		}
	}
	all := append(kernels, power.New(), spice.New(ws.Roots()...), calculix.New(ws), kicad.New(ws), cad.New(reg),
		physics.New(ws, physics.Options{}), omniverseusd.New(ws, omniverseusd.Options{}), gazebo.New(ws, gazebo.Options{}),
		knowledgeadapter.New(knowledgeadapter.Options{Files: ws}), component.New(component.Options{Files: ws}))
	all = append(all, flow.New(&flow.Service{Store: mem})...)
	return append(all, twinadapter.New(&twinadapter.Backend{Store: mem, Sessions: mem})...)
}

// Every profile names only tools this build has and has health.check; a
// served one holds 20..40, and one below 20 is withheld and says why.
func TestProfilesFitAndNameRealTools(t *testing.T) {
	reg := adapters.NewRegistry()
	for _, a := range append(catalogue(t.TempDir()), call.New(worker.CallLookup{}), &health.Adapter{}) {
		if err := reg.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	var served []string
	for _, p := range mcpserver.Profiles() {
		if !p.Has("health.check") {
			t.Errorf("profile %s has no health.check", p.Name)
		}
		seen := map[string]bool{}
		for _, id := range p.Tools {
			if seen[id] {
				t.Errorf("profile %s names %s twice", p.Name, id)
			}
			seen[id] = true
			if _, _, ok := reg.Tool(id); !ok {
				t.Errorf("profile %s names %s, which this build does not have", p.Name, id)
			}
			if _, ok := adapters.AnnotationsFor(id); !ok {
				t.Errorf("profile %s serves %s, which adapters/annotations.go does not classify", p.Name, id)
			}
		}
		if len(p.Tools) > mcpserver.MaxProfileTools {
			t.Errorf("profile %s has %d tools, over %d: decide what to drop", p.Name, len(p.Tools), mcpserver.MaxProfileTools)
		}
		if why := p.Withheld(); why != "" {
			if p.Lacks == "" || len(p.Tools) >= mcpserver.MinProfileTools {
				t.Errorf("profile %s is withheld (%s) without saying what it lacks", p.Name, why)
			}
			if err := mcpserver.ValidateProfile(p.Name); err == nil || !strings.Contains(err.Error(), "withheld") {
				t.Errorf("ValidateProfile(%s) = %v, want withheld", p.Name, err)
			}
			continue
		}
		served = append(served, p.Name)
		if len(p.Tools) < mcpserver.MinProfileTools {
			t.Errorf("profile %s is served with %d tools, under %d", p.Name, len(p.Tools), mcpserver.MinProfileTools)
		}
		if err := mcpserver.ValidateProfile(p.Name); err != nil {
			t.Errorf("ValidateProfile(%s) = %v", p.Name, err)
		}
	}
	slices.Sort(served)
	if want := []string{"core", "electronics", "mechanical", "mechanical_product", "robotics", "simulation"}; !slices.Equal(served, want) {
		t.Errorf("served profiles = %v, want %v", served, want)
	}
	err := mcpserver.ValidateProfile("mech")
	if err == nil {
		t.Fatal("an unknown profile was accepted")
	}
	for _, name := range served {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("ValidateProfile(mech) = %v, want it to name %s", err, name)
		}
	}
	if mcpserver.ValidateProfile("") != nil {
		t.Error("no profile (every tool) was refused")
	}
}

// profileShared is one Temporal stack over the whole catalogue, shared by
// the profile tests.
var (
	profileOnce   sync.Once
	profileShared *mcptest.Stack
)

func theProfileStack(t *testing.T) *mcptest.Stack {
	profileOnce.Do(func() {
		dir, err := os.MkdirTemp("", "metaforge-profiles")
		if err != nil {
			t.Fatal(err)
		}
		profileShared = mcptest.Start(mcptest.Shared{TB: t}, catalogue(dir)...)
	})
	if profileShared == nil {
		t.Fatal("the profile stack did not start")
	}
	return profileShared
}

// serveHTTP serves st's catalogue over Streamable HTTP with the deployment
// default profile given, telling observers of every call that ended.
func serveHTTP(t *testing.T, st *mcptest.Stack, defaultProfile string, observers ...mcpserver.CallObserver) string {
	t.Helper()
	srv := mcpserver.New(mcpserver.Options{
		Registry: st.Registry, Engine: mcpserver.TemporalEngine{Client: st.Temporal.Client, Eager: true}, Health: st.Health,
		Caller: mcpserver.CallerLocal, Version: "test", Logger: workertest.QuietLogger(), Transport: mcpserver.TransportHTTP,
		Profile: defaultProfile, Observers: observers,
	})
	hs := httptest.NewServer(srv.HTTPHandler())
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

func connectTo(t *testing.T, endpoint string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "profiles-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func profileNamed(t *testing.T, name string) mcpserver.Profile {
	t.Helper()
	for _, p := range mcpserver.Profiles() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no profile %s", name)
	return mcpserver.Profile{}
}

func listedNames(t *testing.T, cs *mcp.ClientSession) ([]string, *mcp.ListToolsResult) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names, res
}

func healthProfile(t *testing.T, cs *mcp.ClientSession) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "health.check"})
	if err != nil || res.IsError {
		t.Fatalf("health.check: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var rep map[string]any
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	p, ok := rep["profile"].(map[string]any)
	if !ok {
		t.Fatalf("health.check has no profile block: %s", raw)
	}
	return p
}

func wantInvalidParams(t *testing.T, err error, mentions ...string) {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
		t.Fatalf("error = %v, want -32602", err)
	}
	for _, m := range mentions {
		if !strings.Contains(rpcErr.Message, m) {
			t.Errorf("error %q does not mention %q", rpcErr.Message, m)
		}
	}
}

// ?profile=core lists exactly core's tools and says so in _meta; a tool
// outside core is refused, saying where it is; health.check says the
// short list is the profile, not an outage.
func TestCoreProfileOverStreamableHTTP(t *testing.T) {
	st := theProfileStack(t)
	cs := connectTo(t, serveHTTP(t, st, "")+"?profile=core")
	core := profileNamed(t, "core")

	names, res := listedNames(t, cs)
	want := slices.Sorted(slices.Values(core.Tools))
	if !slices.Equal(names, want) {
		t.Errorf("tools/list = %v\nwant core's %v", names, want)
	}
	meta, _ := json.Marshal(res.Meta["profile"])
	if string(meta) != `{"missing":[],"name":"core","toolCount":`+itoa(len(core.Tools))+`}` {
		t.Errorf("_meta.profile = %s", meta)
	}
	for _, tool := range res.Tools {
		if tool.Name == "twin.query_cypher" && !tool.Annotations.ReadOnlyHint {
			t.Error("twin.query_cypher is not read-only on the core profile without --allow-twin-mutations")
		}
	}

	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "kicad.run_drc", Arguments: map[string]any{}})
	wantInvalidParams(t, err, `tool profile "core"`, "?profile=electronics", "without ?profile=")

	p := healthProfile(t, cs)
	if p["active"] != "core" || p["served_tool_count"] != float64(len(core.Tools)) {
		t.Errorf("profile block = %v", p)
	}
	detail, _ := p["detail"].(string)
	if !strings.Contains(detail, "Profile 'core' serves "+itoa(len(core.Tools))+" of "+itoa(st.Registry.ToolCount())+" registered tools") ||
		!strings.Contains(detail, "nothing is down") {
		t.Errorf("detail = %q", detail)
	}
	if withheld, _ := json.Marshal(p["withheld"]); strings.Contains(string(withheld), `"name"`) {
		t.Errorf("withheld = %s, want none: every profile is served", withheld)
	}
	if avail, _ := json.Marshal(p["available"]); string(avail) != `["core","electronics","mechanical","mechanical_product","robotics","simulation"]` {
		t.Errorf("available = %s", avail)
	}
}

// An unknown profile is never resolved to every tool: the list is -32602
// naming the profiles there are, and health.check reports the error.
func TestUnknownProfileIsInvalidParams(t *testing.T) {
	cs := connectTo(t, serveHTTP(t, theProfileStack(t), "")+"?profile=mech")
	_, err := cs.ListTools(context.Background(), nil)
	wantInvalidParams(t, err, `unknown tool profile "mech"`, "core", "electronics", "mechanical", "mechanical_product", "robotics", "simulation")
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "project.list", Arguments: map[string]any{}})
	wantInvalidParams(t, err, `unknown tool profile "mech"`)

	p := healthProfile(t, cs)
	if e, _ := p["error"].(string); !strings.Contains(e, `unknown tool profile "mech"`) || p["active"] != nil || p["served_tool_count"] != float64(1) {
		t.Errorf("profile block = %v", p)
	}
}

// A profile naming too few tools to work in is withheld, saying what it
// lacks; robotics, withheld until its exporters and simulators existed, is
// served and lists exactly its tools.
func TestThinProfileIsWithheldAndRoboticsIsServed(t *testing.T) {
	thin := mcpserver.Profile{Name: "thin", Tools: []string{"health.check"}, Lacks: "its tools are not built yet"}
	if why := thin.Withheld(); !strings.Contains(why, "1 of the") || !strings.Contains(why, "its tools are not built yet") {
		t.Errorf("a one-tool profile's Withheld() = %q, want how many tools it has and what it lacks", why)
	}
	var robotics mcpserver.Profile
	for _, p := range mcpserver.Profiles() {
		if p.Name == "robotics" {
			robotics = p
		}
	}
	cs := connectTo(t, serveHTTP(t, theProfileStack(t), "")+"?profile=robotics")
	names, _ := listedNames(t, cs)
	want := slices.Clone(robotics.Tools)
	slices.Sort(want)
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("?profile=robotics lists %v, want %v", names, want)
	}
}

// Without a profile every registered tool is served and _meta is absent,
// and health.check says no profile is in force (null, not missing).
func TestNoProfileServesEveryTool(t *testing.T) {
	st := theProfileStack(t)
	cs := connectTo(t, serveHTTP(t, st, ""))
	names, res := listedNames(t, cs)
	if len(names) != st.Registry.ToolCount() {
		t.Errorf("tools/list has %d tools, the registry %d", len(names), st.Registry.ToolCount())
	}
	if res.Meta != nil {
		t.Errorf("_meta = %v, want absent with nothing to say", res.Meta)
	}
	p := healthProfile(t, cs)
	if active, present := p["active"]; !present || active != nil || p["served_tool_count"] != float64(st.Registry.ToolCount()) {
		t.Errorf("profile block = %v, want active null", p)
	}
}

// The deployment's --profile is the default; a connection's ?profile= wins
// over it.
func TestURLProfileWinsOverTheDefault(t *testing.T) {
	endpoint := serveHTTP(t, theProfileStack(t), "electronics")
	names, res := listedNames(t, connectTo(t, endpoint))
	if want := slices.Sorted(slices.Values(profileNamed(t, "electronics").Tools)); !slices.Equal(names, want) {
		t.Errorf("default tools/list = %v\nwant electronics' %v", names, want)
	}
	if m, _ := res.Meta["profile"].(map[string]any); m["name"] != "electronics" {
		t.Errorf("_meta = %v", res.Meta)
	}
	names, _ = listedNames(t, connectTo(t, endpoint+"?profile=mechanical"))
	if want := slices.Sorted(slices.Values(profileNamed(t, "mechanical").Tools)); !slices.Equal(names, want) {
		t.Errorf("?profile=mechanical tools/list = %v\nwant %v", names, want)
	}
}

// A profile whose adapter is not loaded reports the tools it lacks in
// _meta.profile.missing: a configuration problem, not a smaller profile.
func TestMissingProfileToolsAreNamed(t *testing.T) {
	st := mcptest.StartConfigured(t, func(o *mcpserver.Options) { o.Profile = "electronics" }, power.New())
	_, res := listedNames(t, st.Connect(t, nil))
	m, _ := res.Meta["profile"].(map[string]any)
	missing, _ := json.Marshal(m["missing"])
	if m["toolCount"] != float64(3) || !strings.Contains(string(missing), "kicad.run_drc") || strings.Contains(string(missing), "power.check_budget") {
		t.Errorf("_meta.profile = %v", m)
	}
}

// downPower is the power adapter with its container down: its tools are
// registered, and it does not answer.
type downPower struct{ *power.Adapter }

func (downPower) Health(context.Context) (adapters.HealthStatus, error) {
	return adapters.HealthStatus{}, protocol.Unavailable("adapter container is down")
}

// tools/list names the adapters the last health check found down, so a
// short list is never an adapter dropped quietly.
func TestToolsListNamesAdaptersFoundDown(t *testing.T) {
	cs := mcptest.Start(t, downPower{power.New()}).Connect(t, nil)
	if _, res := listedNames(t, cs); res.Meta != nil {
		t.Errorf("_meta before any health check = %v", res.Meta)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "health.check"}); err != nil {
		t.Fatal(err)
	}
	_, res := listedNames(t, cs)
	down, _ := json.Marshal(res.Meta["unavailableAdapters"])
	if !strings.Contains(string(down), `"adapter_id":"power"`) || !strings.Contains(string(down), "container is down") {
		t.Errorf("_meta = %v, want power named as down", res.Meta)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
