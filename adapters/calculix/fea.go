package calculix

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/metaforge/metaforge/internal/materials"
	"github.com/metaforge/metaforge/internal/solver"
	"github.com/metaforge/metaforge/internal/vec3"
	"github.com/metaforge/metaforge/protocol"
)

// FEARequest is calculix.run_fea's arguments.
type FEARequest struct {
	MeshFile           string            `json:"mesh_file"`
	AnalysisType       string            `json:"analysis_type,omitempty"`
	Material           string            `json:"material"`
	MaterialProperties *MaterialOverride `json:"material_properties,omitempty"`
	FixedNodeSet       string            `json:"fixed_node_set" jsonschema:"Surface set held fixed (all three translations), e.g. Face1."`
	LoadNodeSet        string            `json:"load_node_set,omitempty" jsonschema:"Surface set the load is spread over as a uniform traction (static_stress)."`
	LoadForceN         *float64          `json:"load_force_n,omitempty" jsonschema:"Total load in N (static_stress); its direction is load_direction."`
	LoadDirection      []float64         `json:"load_direction,omitempty" jsonschema:"Direction of the load in the mesh frame; default [0, 0, -1]."`
	NumModes           int               `json:"num_modes,omitempty" jsonschema:"Modes to find (modal)."`
	SectionDistancesMM []float64         `json:"section_distances_mm,omitempty" jsonschema:"static_stress: distances from fixed_node_set (a planar face) at which to cut the part and report the stress through the section, linearised as membrane plus bending. Default: one support width (the face's largest extent), or half the part's depth if that is less."`
	MaxMemoryMB        *int              `json:"max_memory_mb,omitempty" jsonschema:"Memory the solve may use, MB (default 2048, at most the deployment's maximum). A solve estimated not to fit is refused before it runs."`
}

// FEAResult is calculix.run_fea's result.
type FEAResult struct {
	AnalysisType     string             `json:"analysis_type"`
	MeshFile         string             `json:"mesh_file"`
	MeshElements     int                `json:"mesh_elements"`
	MeshNodes        int                `json:"mesh_nodes"`
	ElementType      string             `json:"element_type"`
	Material         materials.Material `json:"material"`
	FixedNodeSet     string             `json:"fixed_node_set"`
	LoadNodeSet      string             `json:"load_node_set,omitempty"`
	LoadForceN       *float64           `json:"load_force_n,omitempty"`
	LoadDirection    []float64          `json:"load_direction,omitempty"`
	LoadDistribution string             `json:"load_distribution,omitempty"`
	MaxVonMises      map[string]float64 `json:"max_von_mises,omitempty"`
	MaxVonMisesMPa   *float64           `json:"max_von_mises_mpa,omitempty"`
	MaxVonMisesNode  int                `json:"max_von_mises_node,omitempty"`
	MaxVonMisesAt    []float64          `json:"max_von_mises_at_mm,omitempty"`
	// MaxVonMisesSingularity is set when the peak sits on or next to the
	// fixed or loaded face: a likely singularity, not a design value.
	MaxVonMisesSingularity *Singularity `json:"max_von_mises_singularity,omitempty"`
	// SectionStress is the stress through the part at distances from the
	// support, which converges where the peak at a clamp does not.
	SectionStress []SectionStress `json:"section_stress,omitempty"`
	// SectionNote says why no section was cut, when none was.
	SectionNote       string    `json:"section_note,omitempty"`
	SafetyFactor      *float64  `json:"safety_factor,omitempty"`
	MaxDisplacementMM *float64  `json:"max_displacement_mm,omitempty"`
	MaxDisplacementAt []float64 `json:"max_displacement_at_mm,omitempty"`
	MaxDisplacement   []float64 `json:"max_displacement_vector_mm,omitempty"`
	// MaxDeflectionMM is the largest displacement along load_direction:
	// the tip deflection a hand calculation predicts.
	MaxDeflectionMM *float64          `json:"max_deflection_along_load_mm,omitempty"`
	FrequenciesHz   []float64         `json:"frequencies_hz,omitempty"`
	SolverTime      float64           `json:"solver_time"`
	Memory          memoryPlan        `json:"memory"`
	Warnings        []string          `json:"warnings"`
	Files           map[string]string `json:"files"`
}

var ccxError = regexp.MustCompile(`\*ERROR.*`)

// runCCX writes the deck into dir and runs ccx on it. A deck CalculiX
// refuses is a refusal carrying its own error lines.
func (a *Adapter) runCCX(ctx context.Context, dir, job, text, memoryHint string) (solver.Output, error) {
	if err := os.WriteFile(filepath.Join(dir, job+".inp"), []byte(text), 0o644); err != nil {
		return solver.Output{}, protocol.Transient("cannot write the deck: %v", err)
	}
	env := append(os.Environ(), "OMP_NUM_THREADS=1", "CCX_NPROC_EQUATION_SOLVER=1")
	out, err := solver.Run(ctx, solver.Command{
		Binary: a.binary(), Args: []string{"-i", job}, Dir: dir, Env: env,
		Install:     "install it with `apt-get install calculix-ccx`",
		TimeoutHint: "use a coarser mesh (a larger mesh_size_mm) or give the call a longer timeout",
		MemoryHint:  memoryHint,
	})
	if err != nil {
		return out, err
	}
	_ = os.WriteFile(filepath.Join(dir, job+".log"), []byte(out.Stdout+out.Stderr), 0o644)
	if errs := ccxError.FindAllString(out.Stdout+out.Stderr, 8); len(errs) > 0 || out.ExitCode != 0 {
		lines := errs
		if len(lines) == 0 {
			lines = tail(out.Stdout+out.Stderr, 8)
		}
		return out, protocol.Refusal("CalculiX rejected the deck %s: %s", filepath.Join(dir, job+".inp"), strings.Join(detail(out.Stdout+out.Stderr, lines), " | "))
	}
	if _, err := os.Stat(filepath.Join(dir, job+".frd")); err != nil {
		return out, protocol.Refusal("CalculiX wrote no results (%s.frd); its output ends: %s", job, strings.Join(tail(out.Stdout, 6), " | "))
	}
	return out, nil
}

// solved is a finished CalculiX run: its folder, files and result blocks.
type solved struct {
	dir     string
	files   map[string]string
	blocks  []*Block
	seconds float64
}

// solve runs a deck against the mesh in the call's own folder, within the
// memory the plan gives it, and reads back the result blocks named in
// fields: none for a run whose results are elsewhere (modal frequencies
// are in the .dat).
func (a *Adapter) solve(ctx context.Context, meshPath, job, deck string, mem memoryPlan, fields ...string) (*solved, error) {
	ctx = solver.WithMemoryLimit(ctx, mem.LimitMB)
	dir, err := a.ws.ForCall(ctx)
	if err != nil {
		return nil, err
	}
	if err := a.screenMesh(meshPath, dir); err != nil {
		return nil, err
	}
	if _, err := linkMesh(dir, meshPath); err != nil {
		return nil, err
	}
	out, err := a.runCCX(ctx, dir, job, deck, mem.memoryHint())
	if err != nil {
		return nil, err
	}
	s := &solved{dir: dir, seconds: out.Duration.Seconds(),
		files: map[string]string{"deck": filepath.Join(dir, job+".inp"), "frd": filepath.Join(dir, job+".frd")}}
	if len(fields) > 0 {
		if _, s.blocks, err = ReadFRD(s.files["frd"], fields...); err != nil {
			return nil, protocol.Refusal("cannot read CalculiX's results: %v", err)
		}
	}
	return s, nil
}

// detail adds the line after each *ERROR line, where CalculiX says which
// card it could not read.
func detail(all string, errs []string) []string {
	lines := strings.Split(all, "\n")
	var out []string
	for i, l := range lines {
		if strings.Contains(l, "*ERROR") {
			msg := strings.TrimSpace(l)
			if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				msg += " " + strings.TrimSpace(lines[i+1])
			}
			out = append(out, msg)
			if len(out) == 6 {
				break
			}
		}
	}
	if len(out) == 0 {
		return errs
	}
	return out
}

func tail(s string, n int) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

func (a *Adapter) runFEA(ctx context.Context, req FEARequest) (*FEAResult, []string, error) {
	if req.AnalysisType == "" {
		req.AnalysisType = "static_stress"
	}
	static := req.AnalysisType == "static_stress"
	if !static && req.AnalysisType != "modal" {
		return nil, nil, protocol.Invalid("analysis_type %q is not supported; use static_stress or modal (thermal: calculix.run_thermal)", req.AnalysisType)
	}
	need := []string{"youngs_modulus_gpa", "poisson_ratio"}
	if !static {
		need = append(need, "density_kg_m3")
	}
	mat, err := resolveMaterial(req.Material, req.MaterialProperties, need...)
	if err != nil {
		return nil, nil, err
	}
	var dir3 [3]float64
	if static {
		if req.LoadForceN == nil {
			return nil, nil, protocol.Invalid("load_force_n is required for static_stress: the load's magnitude in N")
		}
		if *req.LoadForceN <= 0 {
			return nil, nil, protocol.Invalid("load_force_n %g must be positive: give the magnitude here and the direction in load_direction (default [0, 0, -1])", *req.LoadForceN)
		}
		if strings.TrimSpace(req.LoadNodeSet) == "" {
			return nil, nil, protocol.Invalid("load_node_set is required for static_stress: the surface set the load is spread over")
		}
		if req.LoadDirection == nil {
			req.LoadDirection = []float64{0, 0, -1}
		}
		if dir3, err = unit(req.LoadDirection, "load_direction"); err != nil {
			return nil, nil, err
		}
	} else if len(req.SectionDistancesMM) > 0 {
		return nil, nil, protocol.Invalid("section_distances_mm is for static_stress: a modal analysis has no stress to cut; leave it out")
	}
	if req.NumModes == 0 {
		req.NumModes = 6
	}
	meshPath, md, err := a.openMesh(req.MeshFile)
	if err != nil {
		return nil, nil, err
	}
	fixed, err := md.faceSet("fixed_node_set", req.FixedNodeSet)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	if w := md.spanWarning("fixed_node_set", req.FixedNodeSet, fixed); w != "" {
		warnings = append(warnings, w)
	}
	if !static {
		warnings = append(warnings, ignoredInModal(req)...)
	}
	res := &FEAResult{
		AnalysisType: req.AnalysisType, MeshFile: meshPath, MeshElements: len(md.mesh.Elements), MeshNodes: len(md.mesh.Nodes),
		ElementType: md.mesh.ElementType, Material: mat, FixedNodeSet: req.FixedNodeSet,
	}
	var cuts []sectionCut
	if static {
		if cuts, res.SectionNote, err = md.sectionCuts(req.FixedNodeSet, fixed, req.SectionDistancesMM); err != nil {
			return nil, nil, err
		}
	}
	kind := solveStatic
	if !static {
		kind = solveModal
	}
	if res.Memory, err = a.planMemory(req.MaxMemoryMB, md.mesh, kind); err != nil {
		return nil, nil, err
	}
	var d deck
	d.header("calculix.run_fea "+req.AnalysisType, "mesh.inp", md.mesh, mat, true, false)
	d.line("*STEP")
	var faces []boundaryFace
	if static {
		loadIDs, err := md.faceSet("load_node_set", req.LoadNodeSet)
		if err != nil {
			return nil, nil, err
		}
		if w := md.spanWarning("load_node_set", req.LoadNodeSet, loadIDs); w != "" {
			warnings = append(warnings, w)
		}
		faces = []boundaryFace{{name: req.FixedNodeSet, role: "fixed", nodes: fixed}, {name: req.LoadNodeSet, role: "load", nodes: loadIDs}}
		f := *req.LoadForceN
		loads, consistent, err := spread(md.mesh, md.table, req.LoadNodeSet, [3]float64{f * dir3[0], f * dir3[1], f * dir3[2]})
		if err != nil {
			return nil, nil, protocol.Invalid("load_node_set %q: %v", req.LoadNodeSet, err)
		}
		res.LoadNodeSet, res.LoadForceN, res.LoadDirection = req.LoadNodeSet, req.LoadForceN, dir3[:]
		res.LoadDistribution = "consistent nodal forces of a uniform traction over the face's surface triangles"
		if !consistent {
			res.LoadDistribution = "split equally over the set's nodes"
			warnings = append(warnings, "the mesh has no face table beside it, so the load is split equally over the set's nodes; that is exact for linear elements only (mesh with gmsh.generate_mesh to get one)")
		}
		d.line("*STATIC")
		d.line("*BOUNDARY")
		d.line("%s, 1, 3, 0.", req.FixedNodeSet)
		d.cload(loads)
		d.line("*NODE FILE")
		d.line("U")
		d.line("*EL FILE")
		d.line("S")
	} else {
		d.line("*FREQUENCY")
		d.line("%d", req.NumModes)
		d.line("*BOUNDARY")
		d.line("%s, 1, 3, 0.", req.FixedNodeSet)
		d.line("*NODE FILE")
		d.line("U")
	}
	d.line("*END STEP")

	var fields []string
	if static {
		fields = []string{"DISP", "STRESS"}
	}
	run, err := a.solve(ctx, meshPath, "fea", d.String(), res.Memory, fields...)
	if err != nil {
		return nil, nil, err
	}
	res.SolverTime, res.Files = run.seconds, run.files
	if static {
		if err := res.fillStatic(md, run.blocks, dir3, faces, cuts); err != nil {
			return nil, nil, err
		}
	} else {
		res.Files["dat"] = filepath.Join(run.dir, "fea.dat") // the eigenvalue table
		if res.FrequenciesHz, err = ReadFrequencies(res.Files["dat"]); err != nil {
			return nil, nil, protocol.Refusal("cannot read the natural frequencies: %v", err)
		}
	}
	if w := linearTetWarning(res); w != "" {
		warnings = append(warnings, w)
	}
	res.Warnings = append(warnings, res.Warnings...)
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	files := []string{res.Files["deck"], res.Files["frd"]}
	if !static {
		files = append(files, res.Files["dat"])
	}
	return res, files, nil
}

// fillStatic reads peak displacement and von Mises stress (overall and per
// element set) from the static step's blocks, says where the peak is and
// whether it is a likely singularity, and cuts the sections.
func (res *FEAResult) fillStatic(md *model, blocks []*Block, loadDir [3]float64, faces []boundaryFace, cuts []sectionCut) error {
	force := vec3.Scale(loadDir, *res.LoadForceN)
	disp, stress := Find(blocks, "DISP"), Find(blocks, "STRESS")
	if disp == nil || stress == nil {
		return protocol.Refusal("CalculiX's results lack displacements or stresses")
	}
	dmax, dnode, dvec := disp.Magnitude()
	res.MaxDisplacementMM = &dmax
	res.MaxDisplacement = dvec[:]
	p := md.mesh.Nodes[dnode]
	res.MaxDisplacementAt = p[:]
	along := math.Inf(-1)
	for _, u := range disp.Values {
		if len(u) >= 3 {
			along = math.Max(along, u[0]*loadDir[0]+u[1]*loadDir[1]+u[2]*loadDir[2])
		}
	}
	res.MaxDeflectionMM = &along
	vm := stress.VonMises()
	peak := maxOf(vm)
	res.MaxVonMisesMPa, res.MaxVonMisesNode = &peak.Value, peak.Node
	at := md.mesh.Nodes[peak.Node]
	res.MaxVonMisesAt = at[:]
	res.MaxVonMises = map[string]float64{}
	for i, el := range md.mesh.Elements {
		s := md.mesh.ElementSetOf[i]
		if s < 0 {
			continue
		}
		name := md.mesh.ElementSets[s]
		for _, n := range el {
			if v, ok := vm[n]; ok && v > res.MaxVonMises[name] {
				res.MaxVonMises[name] = v
			}
		}
	}
	if res.Material.YieldStrengthMPa > 0 && peak.Value > 0 {
		sf := res.Material.YieldStrengthMPa / peak.Value
		res.SafetyFactor = &sf
	}
	loadAt, loadNodes, loaded := md.loadResultant(faces)
	for _, c := range cuts {
		sec, why := md.section(c, stress)
		if sec == nil {
			res.SectionNote = why
			continue
		}
		if loaded {
			sec.checkEquilibrium(c, force, loadAt, loadNodes)
		}
		res.SectionStress = append(res.SectionStress, *sec)
	}
	if sing := md.singularityAt(peak.Node, faces); sing != nil {
		res.MaxVonMisesSingularity = sing
		res.Warnings = append(res.Warnings, res.singularityWarning())
	} else if flag := concentration(vm); flag != "" {
		res.Warnings = append(res.Warnings, flag)
	}
	return nil
}
