package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/adapters/health"
	"github.com/metaforge/metaforge/internal/solver"
)

// solverFlags choose where the adapters' solver runs happen.
type solverFlags struct {
	runtime         string
	adapterRuntimes string
	images          string
}

// defaultImages are the solver images deploy/docker builds, by adapter:
// calculix and gmsh share one (an FEA needs both).
var defaultImages = map[string]string{
	"calculix": "metaforge/solver-calculix:" + version,
	"gmsh":     "metaforge/solver-calculix:" + version,
	"spice":    "metaforge/solver-ngspice:" + version,
	"kicad":    "metaforge/solver-kicad:" + version,
}

func (f *solverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.runtime, "runtime", envOr("METAFORGE_RUNTIME", "auto"),
		`where solvers run: "sandbox" (bubblewrap: no network, read-only root, limits), "process", "docker" (a container per call), or "auto" (sandbox wherever bwrap works, else process)`)
	fs.StringVar(&f.adapterRuntimes, "adapter-runtime", os.Getenv("METAFORGE_ADAPTER_RUNTIMES"),
		`runtime per adapter, overriding --runtime: "calculix=docker,spice=sandbox"`)
	fs.StringVar(&f.images, "docker-image", os.Getenv("METAFORGE_DOCKER_IMAGES"),
		`image per adapter for the docker runtime: "calculix=registry/solver-calculix:1" (defaults: metaforge/solver-<solver>:`+version+`)`)
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// solverSetup is the runtimes chosen, and how health reports them.
type solverSetup struct {
	runtimes solver.Runtimes
	summary  string
	detail   string
}

// setup builds the runtimes. A runtime that cannot work here (sandbox
// without bwrap, an adapter with no image for docker) is an error naming
// the flag, before anything starts.
func (f solverFlags) setup() (solverSetup, error) {
	images, err := pairs("--docker-image", f.images)
	if err != nil {
		return solverSetup{}, err
	}
	perAdapter, err := pairs("--adapter-runtime", f.adapterRuntimes)
	if err != nil {
		return solverSetup{}, err
	}
	imageFor := func(adapterID string) string {
		if img := images[adapterID]; img != "" {
			return img
		}
		return defaultImages[adapterID]
	}
	var s solverSetup
	details := map[string]string{}
	build := func(name, adapterID string) (solver.Runtime, error) {
		switch name {
		case "auto":
			rt := solver.DefaultRuntime()
			if rt.Name() == "process" {
				_, why := solver.NewSandbox()
				details["process"] = fmt.Sprintf("no sandbox: %v", why)
			}
			return rt, nil
		case "process":
			return solver.Process{}, nil
		case "sandbox":
			sb, err := solver.NewSandbox()
			if err != nil {
				return nil, fmt.Errorf("--runtime sandbox: %w", err)
			}
			details["sandbox"] = sb.Enforcement().String()
			return sb, nil
		case "docker":
			img := imageFor(adapterID)
			if img == "" {
				return nil, fmt.Errorf("the docker runtime has no image for adapter %q: give --docker-image %s=IMAGE", adapterID, adapterID)
			}
			return solver.NewDocker("", img)
		}
		return nil, solver.CheckRuntimeName(name)
	}
	switch f.runtime {
	case "docker":
		// Only the solver adapters run programs; the rest (power, the
		// twin) run in the worker, so docker is set per solver adapter.
		s.runtimes.Default = solver.Process{}
		s.runtimes.ByAdapter = map[string]solver.Runtime{}
		for id := range defaultImages {
			rt, err := build("docker", id)
			if err != nil {
				return solverSetup{}, err
			}
			s.runtimes.ByAdapter[id] = rt
		}
	default:
		rt, err := build(f.runtime, "")
		if err != nil {
			return solverSetup{}, err
		}
		s.runtimes.Default = rt
	}
	for id, name := range perAdapter {
		rt, err := build(name, id)
		if err != nil {
			return solverSetup{}, fmt.Errorf("--adapter-runtime %s=%s: %w", id, name, err)
		}
		if s.runtimes.ByAdapter == nil {
			s.runtimes.ByAdapter = map[string]solver.Runtime{}
		}
		s.runtimes.ByAdapter[id] = rt
	}
	if sb, ok := s.runtimes.Default.(*solver.Sandbox); ok && details["sandbox"] == "" {
		details["sandbox"] = sb.Enforcement().String()
	}
	s.summary = s.runtimes.For("").Name()
	var per []string
	for id, rt := range s.runtimes.ByAdapter {
		per = append(per, id+"="+rt.Name())
	}
	sort.Strings(per)
	if len(per) > 0 {
		s.summary += " (" + strings.Join(per, ", ") + ")"
	}
	var ds []string
	for name, d := range details {
		ds = append(ds, name+": "+d)
	}
	sort.Strings(ds)
	s.detail = strings.Join(ds, "; ")
	return s, nil
}

// check refuses a runtime set for an adapter the catalogue does not have:
// a misspelt --adapter-runtime must not silently leave it on the default.
func (s solverSetup) check(reg *adapters.Registry) error {
	known := map[string]bool{}
	for _, a := range reg.Adapters() {
		known[a.ID()] = true
	}
	for id := range s.runtimes.ByAdapter {
		if !known[id] {
			return fmt.Errorf("--adapter-runtime names adapter %q, which this build does not have", id)
		}
	}
	return nil
}

// probe reports the runtimes in health: what isolates a solver run here.
func (s solverSetup) probe(context.Context) health.Component {
	return health.Component{Mode: s.summary, Reachable: true, Durable: false, Detail: s.detail}
}

// pairs reads "a=b,c=d".
func pairs(flagName, v string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		k, val, ok := strings.Cut(p, "=")
		if !ok || k == "" || val == "" {
			return nil, fmt.Errorf("%s %q: write ADAPTER=VALUE, comma separated", flagName, p)
		}
		out[k] = val
	}
	return out, nil
}
