// Package calculix is the in-process adapter "calculix": linear static and
// modal FEA and steady conduction on a tetrahedral mesh with CalculiX's
// ccx, the .frd results reader, and the hand calculations an FEA result is
// checked against. Every run writes its deck and results into the call's
// own folder under the data dir and names them in the result.
package calculix

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/metaforge/metaforge/adapters"
	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/internal/workspace"
	"github.com/metaforge/metaforge/protocol"
)

// Identity of the adapter and its tools.
const (
	AdapterID             = "calculix"
	ToolRunFEA            = "calculix.run_fea"
	ToolRunThermal        = "calculix.run_thermal"
	ToolValidateMesh      = "calculix.validate_mesh"
	ToolExtractResults    = "calculix.extract_results"
	ToolCrossCheckBeam    = "calculix.cross_check_cantilever_beam"
	ToolCrossCheckFreq    = "calculix.cross_check_cantilever_frequency"
	ToolCrossCheckThermal = "calculix.cross_check_thermal_steady_state"
	ToolCheckConvergence  = "calculix.check_mesh_convergence"
	ToolComputeJointLoads = "calculix.compute_joint_loads"
	version               = "0.1.0"
	installHint           = "install it with `apt-get install calculix-ccx`"
)

// Adapter serves the calculix tools.
type Adapter struct {
	// Binary is the CalculiX executable; default "ccx" on PATH.
	Binary string

	ws     *workspace.Workspace
	opts   Options
	calls  *adapters.Invocations
	models modelCache
}

// Options configure the adapter for a deployment.
type Options struct {
	// MaxMemoryMB is the most memory one solve may be given (a call's
	// max_memory_mb is refused above it, and the sandbox holds the solve
	// to the call's limit); zero means DefaultCallMemoryMB.
	MaxMemoryMB int
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the calculix adapter over the given workspace.
func New(ws *workspace.Workspace) *Adapter {
	return NewWith(ws, Options{})
}

// NewWith returns the calculix adapter configured for a deployment.
func NewWith(ws *workspace.Workspace, opts Options) *Adapter {
	return &Adapter{ws: ws, opts: opts, calls: adapters.NewInvocations()}
}

func (a *Adapter) binary() string {
	if a.Binary == "" {
		return "ccx"
	}
	return a.Binary
}

// ID is "calculix".
func (a *Adapter) ID() string { return AdapterID }

// Version is the adapter's version.
func (a *Adapter) Version() string { return version }

// Manifests declares the tools. All are idempotent: the same mesh and
// arguments give the same results, so a lost worker's call is run again.
func (a *Adapter) Manifests() []adapters.Manifest {
	// A solve's memory is the deployment's maximum; each call runs under
	// its own max_memory_mb within it (planMemory).
	solve := adapters.ResourceLimits{MaxMemoryMB: a.maxMemoryMB(), MaxCPUSeconds: 600, MaxDiskMB: 512}
	m := func(id, name, capability, desc string, schema json.RawMessage, timeout int, limits adapters.ResourceLimits) adapters.Manifest {
		return adapters.Manifest{ToolID: id, AdapterID: AdapterID, Name: name, Description: desc, Capability: capability,
			InputSchema: schema, Idempotent: true, TimeoutSeconds: timeout, ResourceLimits: limits}
	}
	return []adapters.Manifest{
		m(ToolRunFEA, "Run FEA", "stress_analysis",
			"CalculiX on a tetrahedral mesh from gmsh.generate_mesh (units mm, N, MPa). analysis_type static_stress: fixed_node_set held, load_force_n N spread over load_node_set as a uniform traction in load_direction (default [0,0,-1]); returns max_von_mises per element set and overall (MPa) and where the peak is (max_von_mises_at_mm), max_displacement_mm, safety_factor against the material's yield, and section_stress: the stress through the part at section_distances_mm from a planar fixed face (default one support width), linearised as membrane plus bending, with its force and moment checked against the load's statics. A peak on or next to the fixed or loaded face is flagged (max_von_mises_singularity, and a warning): a likely singularity that rises without limit with refinement, not a design value; read section_stress instead. modal: frequencies_hz, lowest first, with fixed_node_set clamped. Linear tetrahedra (C3D4) in bending get a warning (they lock; use C3D10). The solve's memory is estimated from the node count and refused at once when over max_memory_mb (default 2048, at most the deployment's maximum). material states the E, nu and rho used. Faces are the mesh's surface sets (gmsh.list_named_faces); a fixed or load face spanning the part's whole length gets a warning. Deck and results stay in the call's folder (files).",
			runFEASchema, 900, solve),
		m(ToolRunThermal, "Run steady thermal analysis", "thermal_analysis",
			"Steady conduction in CalculiX: heat_load_w W enters uniformly through heat_source_node_set and leaves through sink_node_set held at sink_temperature_c (default 20). Returns peak_temperature_c and where it is. Conduction only: no convection or radiation.",
			runThermalSchema, 900, solve),
		m(ToolValidateMesh, "Validate mesh", "mesh_validation",
			"Checks an .inp mesh before a solve: element type, nodes the elements name but the mesh lacks, unused nodes, inverted or degenerate tetrahedra, surface sets, and element quality (minimum dihedral angle, aspect ratio, radius ratio).",
			validateMeshSchema, 120, adapters.ResourceLimits{}),
		m(ToolExtractResults, "Extract FEA results", "result_extraction",
			"Reads a CalculiX .frd file: per result block the peak displacement, von Mises stress, temperature or stress error estimate (ERROR, %) and where it is. A stress peak far above the field's 99th percentile is flagged (accuracy.suspicious) as a likely point-load or constraint artefact.",
			extractResultsSchema, 120, adapters.ResourceLimits{}),
		m(ToolCrossCheckBeam, "Cross-check cantilever beam", "fea_cross_check",
			"Euler-Bernoulli hand calculation for a rectangular cantilever with a tip load, compared with FEA values within tolerance_pct: the bending stress 6F(L-x)/(bh^2) at section_distance_mm x against run_fea's section_stress (fea_section_stress_mpa), and the tip deflection FL^3/(3EI). The FEA peak (fea_max_stress_mpa) sits at the clamp, a singularity, so it is shown beside 6FL/(bh^2) but not compared. Without a comparable FEA value nothing is compared and passed is absent. material states the figures used.",
			beamSchema, 10, adapters.ResourceLimits{}),
		m(ToolCrossCheckFreq, "Cross-check cantilever frequency", "fea_cross_check",
			"First bending frequency of a uniform rectangular cantilever, f1 = (1.8751)^2/(2 pi L^2) sqrt(EI/(rho A)), compared with a modal run_fea's first mode within tolerance_pct.",
			frequencySchema, 10, adapters.ResourceLimits{}),
		m(ToolCrossCheckThermal, "Cross-check steady conduction", "fea_cross_check",
			"1D steady conduction to a fixed-temperature sink, T_peak = T_sink + Q L/(k A), compared with run_thermal's peak within tolerance_pct of the temperature rise.",
			thermalCheckSchema, 10, adapters.ResourceLimits{}),
		m(ToolCheckConvergence, "Check mesh convergence", "fea_cross_check",
			"Whether a result has settled across three or more meshes the caller already ran, by Richardson extrapolation: the observed order of convergence, the value extrapolated to zero element size and the grid convergence index (GCI, %) of the finest mesh, against threshold_pct (default 5). status is converged, converging (not yet), oscillating or diverging: changes that shrink too slowly for any limit (observed order below 0.5), or a peak run_fea flagged as a singularity (at_singularity), have no limit to converge to.",
			convergenceSchema, 10, adapters.ResourceLimits{}),
		m(ToolComputeJointLoads, "Compute joint loads", "load_case",
			"Quasi-static reaction force and moment at every joint of a posed serial chain from gravity alone (links' masses and centres of mass, optional payload). The worst joint's force feeds run_fea's load_force_n. No velocity, acceleration or friction terms.",
			jointLoadsSchema, 10, adapters.ResourceLimits{}),
	}
}

// needsSolver lists the tools that run ccx.
var needsSolver = map[string]bool{ToolRunFEA: true, ToolRunThermal: true}

// Call runs a tool. Bad input is INVALID_PARAMS and runs nothing; a deck
// CalculiX rejects is a refusal with its error lines; a missing ccx is
// TOOL_UNAVAILABLE.
func (a *Adapter) Call(ctx context.Context, toolID string, args json.RawMessage) (*adapters.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.calls.Called()
	if needsSolver[toolID] {
		if _, err := solver.Locate(a.binary(), installHint); err != nil {
			return nil, adapters.WithToolID(err, toolID)
		}
	}
	out, files, err := a.dispatch(ctx, toolID, args)
	if err != nil {
		return nil, adapters.WithToolID(err, toolID)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, adapters.WithToolID(protocol.Refusal("could not encode the result: %v", err), toolID)
	}
	return &adapters.Result{Data: data, OutputFiles: files}, nil
}

func (a *Adapter) dispatch(ctx context.Context, toolID string, args json.RawMessage) (any, []string, error) {
	switch toolID {
	case ToolRunFEA:
		var req FEARequest
		if err := adapters.DecodeArguments(args, &req); err != nil {
			return nil, nil, err
		}
		return a.runFEA(ctx, req)
	case ToolRunThermal:
		var req ThermalRequest
		if err := adapters.DecodeArguments(args, &req); err != nil {
			return nil, nil, err
		}
		return a.runThermal(ctx, req)
	case ToolValidateMesh:
		var req ValidateRequest
		if err := adapters.DecodeArguments(args, &req); err != nil {
			return nil, nil, err
		}
		out, err := a.validateMesh(req)
		return out, nil, err
	case ToolExtractResults:
		var req ExtractRequest
		if err := adapters.DecodeArguments(args, &req); err != nil {
			return nil, nil, err
		}
		out, err := a.extractResults(req)
		return out, nil, err
	case ToolCrossCheckBeam:
		var req BeamRequest
		if err := adapters.DecodeArguments(args, &req); err != nil {
			return nil, nil, err
		}
		out, err := crossCheckBeam(req)
		return out, nil, err
	case ToolCrossCheckFreq:
		var req FrequencyRequest
		if err := adapters.DecodeArguments(args, &req); err != nil {
			return nil, nil, err
		}
		out, err := crossCheckFrequency(req)
		return out, nil, err
	case ToolCrossCheckThermal:
		var req ThermalCheckRequest
		if err := adapters.DecodeArguments(args, &req); err != nil {
			return nil, nil, err
		}
		out, err := crossCheckThermal(req)
		return out, nil, err
	case ToolCheckConvergence:
		var req ConvergenceRequest
		if err := adapters.DecodeArguments(args, &req); err != nil {
			return nil, nil, err
		}
		out, err := checkConvergence(req)
		return out, nil, err
	case ToolComputeJointLoads:
		var req JointLoadsRequest
		if err := adapters.DecodeArguments(args, &req); err != nil {
			return nil, nil, err
		}
		out, err := computeJointLoads(req)
		return out, nil, err
	}
	return nil, nil, protocol.Invalid("adapter calculix has no tool %q", toolID)
}

var ccxVersion = regexp.MustCompile(`Version [0-9][0-9.]*`)

// Health runs `ccx -v`: healthy with CalculiX's version, or TOOL_UNAVAILABLE
// naming what is missing and how to install it.
func (a *Adapter) Health(ctx context.Context) (adapters.HealthStatus, error) {
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := solver.Run(hctx, solver.Command{Binary: a.binary(), Args: []string{"-v"}, Install: installHint})
	if err != nil {
		return adapters.HealthStatus{}, err
	}
	v := ccxVersion.FindString(out.Stdout + out.Stderr)
	if v == "" {
		return adapters.HealthStatus{}, protocol.Unavailable("`%s -v` did not report a CalculiX version (exit %d); %s", a.binary(), out.ExitCode, installHint)
	}
	return a.calls.Healthy(AdapterID, fmt.Sprintf("%s (CalculiX %s)", version, v), len(a.Manifests())), nil
}
