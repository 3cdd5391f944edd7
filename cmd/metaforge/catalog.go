package main

import (
	"context"
	"fmt"
	"os"
	"time"

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
	"github.com/metaforge/metaforge/adapters/web"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/runs"
	"github.com/metaforge/metaforge/worker"
)

// catalog is the registry of every adapter this binary serves, and the
// health checker over it. Tools write into per-call folders under dataDir
// and the write roots, and read only from there and the read roots (see
// workspaceFor).
//
// lib is the knowledge base and the component catalogue; nil (a test of
// the catalogue's shape) lists their tools, which then say there is none.
func catalog(ctx context.Context, t *worker.Temporal, tw *twinadapter.Backend, ws *workspace.Workspace, rs *runs.Service, lib *library, components map[string]health.Probe) (*adapters.Registry, *health.Checker, error) {
	tw.Files = ws
	sp, err := spiceAdapter(ctx, ws)
	if err != nil {
		return nil, nil, err
	}
	feaMemory, err := feaMaxMemoryMB()
	if err != nil {
		return nil, nil, err
	}
	reg := adapters.NewRegistry()
	checker := &health.Checker{
		Service:  "metaforge-mcp",
		Version:  version,
		Started:  time.Now(),
		Registry: reg,
		Components: map[string]health.Probe{
			"temporal":    t.Probe,
			"twin":        twinProbe(tw.Store),
			"file_access": fileAccessProbe(ws),
		},
		Skip: map[string]bool{"health": true},
	}
	for name, probe := range components {
		checker.Components[name] = probe
	}
	mesher := gmsh.New(ws) // one gmsh adapter: its own tools, and freecad's meshing
	all := []adapters.Adapter{
		power.New(),
		sp,
		cadquery.New(ws, cadquery.Options{}),
		freecad.New(ws, freecad.Options{Mesher: mesher, Sessions: &runs.CadSessions{Client: t.Client}}),
		mesher,
		cad.New(reg), // the CAD contract over cadquery and freecad: reads reg at each call
		calculix.NewWith(ws, calculix.Options{MaxMemoryMB: feaMemory}),
		kicad.New(ws),
		physics.New(ws, physics.Options{}),
		omniverseusd.New(ws, omniverseusd.Options{}),
		gazebo.New(ws, gazebo.Options{}),
		call.New(worker.CallLookup{Client: t.Client}),
		&health.Adapter{Checker: checker},
		knowledgeadapter.New(knowledgeadapter.Options{Store: lib.knowledgeStore(), Files: ws, Ingest: runs.Knowledge{}}),
		component.New(component.Options{Catalogue: lib.catalogue(), Knowledge: lib.knowledgeStore(), Files: ws}),
	}
	// The web tools are listed only where the deployment enables them
	// (METAFORGE_WEB_FETCH, BRAVE_API_KEY): an agent never sees a tool
	// that cannot work.
	if o := web.FromEnv(); o.Enabled() {
		all = append(all, web.New(o))
	}
	rs.Registry = reg
	all = append(all, flow.New(&flow.Service{Engine: rs, Store: tw.Store, Facts: tw, Catalog: reg})...)
	for _, a := range append(all, twinadapter.New(tw)...) {
		if err := reg.Register(a); err != nil {
			return nil, nil, err
		}
	}
	if err := reg.Unserve(unservedTools()...); err != nil {
		return nil, nil, err
	}
	return reg, checker, nil
}

// spiceAdapter is spice in process, confined like every adapter, or,
// when METAFORGE_ADAPTER_SPICE_URL is set, the one `metaforge adapter spice`
// serves there: ngspice need not be installed where the main server runs.
func spiceAdapter(ctx context.Context, ws *workspace.Workspace) (adapters.Adapter, error) {
	url := os.Getenv("METAFORGE_ADAPTER_SPICE_URL")
	if url == "" {
		return spice.NewIn(ws), nil
	}
	c, err := adapters.DialHTTP(ctx, spice.AdapterID, url)
	if err != nil {
		return nil, fmt.Errorf("METAFORGE_ADAPTER_SPICE_URL=%s: %w; start `metaforge adapter spice` there, or unset the variable to run spice in process", url, err)
	}
	return c, nil
}
