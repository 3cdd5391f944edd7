package calculix

import (
	"context"
	"sort"

	"github.com/metaforge/metaforge/internal/materials"
	"github.com/metaforge/metaforge/protocol"
)

// ThermalRequest is calculix.run_thermal's arguments: steady conduction
// from a heat source on one face to a fixed-temperature sink on another.
type ThermalRequest struct {
	MeshFile           string            `json:"mesh_file"`
	Material           string            `json:"material"`
	MaterialProperties *MaterialOverride `json:"material_properties,omitempty"`
	HeatSourceNodeSet  string            `json:"heat_source_node_set" jsonschema:"Surface set the heat enters through, as a uniform flux."`
	HeatLoadW          *float64          `json:"heat_load_w" jsonschema:"Heat entering, W (a component's dissipation)."`
	SinkNodeSet        string            `json:"sink_node_set" jsonschema:"Surface set held at sink_temperature_c."`
	SinkTemperatureC   *float64          `json:"sink_temperature_c,omitempty"`
	AnalysisMode       string            `json:"analysis_mode,omitempty"`
	MaxMemoryMB        *int              `json:"max_memory_mb,omitempty" jsonschema:"Memory the solve may use, MB (default 2048, at most the deployment's maximum)."`
}

// ThermalResult is calculix.run_thermal's result.
type ThermalResult struct {
	AnalysisType      string             `json:"analysis_type"`
	MeshFile          string             `json:"mesh_file"`
	MeshElements      int                `json:"mesh_elements"`
	MeshNodes         int                `json:"mesh_nodes"`
	Material          materials.Material `json:"material"`
	HeatSourceNodeSet string             `json:"heat_source_node_set"`
	HeatLoadW         float64            `json:"heat_load_w"`
	SinkNodeSet       string             `json:"sink_node_set"`
	SinkTemperatureC  float64            `json:"sink_temperature_c"`
	PeakTemperatureC  float64            `json:"peak_temperature_c"`
	PeakTemperatureAt []float64          `json:"peak_temperature_at_mm"`
	MinTemperatureC   float64            `json:"min_temperature_c"`
	TemperatureRiseK  float64            `json:"temperature_rise_k"`
	SolverTime        float64            `json:"solver_time"`
	HeatDistribution  string             `json:"heat_distribution"`
	Memory            memoryPlan         `json:"memory"`
	Warnings          []string           `json:"warnings"`
	Files             map[string]string  `json:"files"`
}

func (a *Adapter) runThermal(ctx context.Context, req ThermalRequest) (*ThermalResult, []string, error) {
	if req.AnalysisMode != "" && req.AnalysisMode != "steady_state" {
		return nil, nil, protocol.Invalid("analysis_mode %q is not supported: only steady_state conduction is solved (no time-stepping deck exists yet)", req.AnalysisMode)
	}
	if req.HeatLoadW == nil || *req.HeatLoadW <= 0 {
		return nil, nil, protocol.Invalid("heat_load_w must be a positive power in W (the heat entering through heat_source_node_set)")
	}
	sinkT := 20.0
	if req.SinkTemperatureC != nil {
		sinkT = *req.SinkTemperatureC
	}
	if sinkT < -273.15 {
		return nil, nil, protocol.Invalid("sink_temperature_c %g is below absolute zero", sinkT)
	}
	mat, err := resolveMaterial(req.Material, req.MaterialProperties, "thermal_conductivity_w_mk")
	if err != nil {
		return nil, nil, err
	}
	meshPath, md, err := a.openMesh(req.MeshFile)
	if err != nil {
		return nil, nil, err
	}
	src, err := md.faceSet("heat_source_node_set", req.HeatSourceNodeSet)
	if err != nil {
		return nil, nil, err
	}
	sink, err := md.faceSet("sink_node_set", req.SinkNodeSet)
	if err != nil {
		return nil, nil, err
	}
	if sameSet(src, sink) {
		return nil, nil, protocol.Invalid("heat_source_node_set and sink_node_set are the same nodes; the heat must enter and leave through different faces")
	}
	var warnings []string
	for _, c := range []struct {
		arg, name string
		ids       []int
	}{{"heat_source_node_set", req.HeatSourceNodeSet, src}, {"sink_node_set", req.SinkNodeSet, sink}} {
		if w := md.spanWarning(c.arg, c.name, c.ids); w != "" {
			warnings = append(warnings, w)
		}
	}
	flows, consistent, err := spread(md.mesh, md.table, req.HeatSourceNodeSet, [3]float64{*req.HeatLoadW * wattsToMilliwatts})
	if err != nil {
		return nil, nil, protocol.Invalid("heat_source_node_set %q: %v", req.HeatSourceNodeSet, err)
	}
	res := &ThermalResult{
		AnalysisType: "steady_state_conduction", MeshFile: meshPath, MeshElements: len(md.mesh.Elements), MeshNodes: len(md.mesh.Nodes),
		Material: mat, HeatSourceNodeSet: req.HeatSourceNodeSet, HeatLoadW: *req.HeatLoadW, SinkNodeSet: req.SinkNodeSet, SinkTemperatureC: sinkT,
		HeatDistribution: "consistent nodal heat flows of a uniform flux over the face's surface triangles",
	}
	if !consistent {
		res.HeatDistribution = "split equally over the set's nodes"
		warnings = append(warnings, "the mesh has no face table beside it, so the heat is split equally over the set's nodes; that is exact for linear elements only")
	}

	var d deck
	d.header("calculix.run_thermal steady state", "mesh.inp", md.mesh, mat, false, true)
	all := make([]int, 0, len(md.mesh.Nodes))
	for id := range md.mesh.Nodes {
		all = append(all, id)
	}
	sort.Ints(all)
	d.nodeSet("MF_ALLNODES", all)
	d.line("*INITIAL CONDITIONS, TYPE=TEMPERATURE")
	d.line("MF_ALLNODES, %.6g", sinkT)
	d.line("*STEP")
	d.line("*HEAT TRANSFER, STEADY STATE")
	d.line("1., 1.")
	d.line("*BOUNDARY")
	d.line("%s, 11, 11, %.6g", req.SinkNodeSet, sinkT)
	d.cflux(flows)
	d.line("*NODE FILE")
	d.line("NT")
	d.line("*END STEP")

	if res.Memory, err = a.planMemory(req.MaxMemoryMB, md.mesh, solveThermal); err != nil {
		return nil, nil, err
	}
	run, err := a.solve(ctx, meshPath, "thermal", d.String(), res.Memory, "NDTEMP")
	if err != nil {
		return nil, nil, err
	}
	res.SolverTime, res.Files = run.seconds, run.files
	blocks := run.blocks
	temp := Find(blocks, "NDTEMP")
	if temp == nil {
		return nil, nil, protocol.Refusal("CalculiX's results have no temperatures")
	}
	field := temp.Scalar()
	hi, lo := maxOf(field), minOf(field)
	res.PeakTemperatureC, res.MinTemperatureC, res.TemperatureRiseK = hi.Value, lo.Value, hi.Value-sinkT
	p := md.mesh.Nodes[hi.Node]
	res.PeakTemperatureAt = p[:]
	res.Warnings = warnings
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	return res, []string{res.Files["deck"], res.Files["frd"]}, nil
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	seen := make(map[int]bool, len(a))
	for _, x := range a {
		seen[x] = true
	}
	for _, y := range b {
		if !seen[y] {
			return false
		}
	}
	return true
}
