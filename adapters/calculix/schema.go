package calculix

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metaforge/metaforge/adapters"
)

// Input schemas of the calculix tools, generated from the request types
// the calls decode into. Every tool rejects arguments it does not know, so
// a misspelt name is an error rather than a default.
var (
	runFEASchema = adapters.SchemaFor[FEARequest](append(meshFileRules(), append(materialRules(),
		adapters.At("analysis_type", adapters.Enum("static_stress", "modal"), adapters.Default("static_stress")),
		adapters.At("fixed_node_set", adapters.MinLength(1)),
		adapters.At("load_node_set", adapters.MinLength(1)),
		adapters.At("load_force_n", adapters.ExclusiveMinimum(0)),
		adapters.At("load_direction", threeNumbers...),
		adapters.At("num_modes", adapters.Minimum(1), adapters.Maximum(50), adapters.Default(6)),
		adapters.At("section_distances_mm", adapters.MinItems(1)),
		adapters.At("section_distances_mm[]", adapters.ExclusiveMinimum(0)),
		memoryRule(),
	)...)...)
	runThermalSchema = adapters.SchemaFor[ThermalRequest](append(meshFileRules(), append(materialRules(),
		adapters.At("heat_source_node_set", adapters.MinLength(1)),
		adapters.At("heat_load_w", adapters.ExclusiveMinimum(0)),
		adapters.At("sink_node_set", adapters.MinLength(1)),
		adapters.At("sink_temperature_c", adapters.Minimum(-273.15), adapters.Default(20)),
		adapters.At("analysis_mode", adapters.Enum("steady_state"), adapters.Default("steady_state")),
		memoryRule(),
	)...)...)
	validateMeshSchema   = adapters.SchemaFor[ValidateRequest](meshFileRules()...)
	extractResultsSchema = adapters.SchemaFor[ExtractRequest](adapters.At("results_file", adapters.MinLength(1)))
	beamSchema           = adapters.SchemaFor[BeamRequest](append(materialRules(),
		positiveArgs("length_mm", "width_mm", "height_mm", "load_n"),
		adapters.At("section_distance_mm", adapters.Minimum(0)),
		adapters.At("tolerance_pct", adapters.ExclusiveMinimum(0), adapters.Default(5)),
	)...)
	frequencySchema = adapters.SchemaFor[FrequencyRequest](append(materialRules(),
		positiveArgs("length_mm", "width_mm", "height_mm"),
		adapters.At("tolerance_pct", adapters.ExclusiveMinimum(0), adapters.Default(5)),
	)...)
	thermalCheckSchema = adapters.SchemaFor[ThermalCheckRequest](append(materialRules(),
		positiveArgs("heat_load_w", "length_mm", "area_mm2"),
		adapters.At("sink_temperature_c", adapters.Default(20)),
		adapters.At("tolerance_pct", adapters.ExclusiveMinimum(0), adapters.Default(2)),
	)...)
	convergenceSchema = adapters.SchemaFor[ConvergenceRequest](
		adapters.At("points", adapters.MinItems(3)),
		adapters.At("points[].element_size_mm", adapters.ExclusiveMinimum(0)),
		adapters.At("points[].element_count", adapters.Minimum(1)),
		adapters.At("threshold_pct", adapters.ExclusiveMinimum(0), adapters.Default(5)),
	)
	jointLoadsSchema = adapters.SchemaFor[JointLoadsRequest](
		adapters.At("joints", adapters.MinItems(1)),
		adapters.At("joints[].position_mm", threeNumbers...),
		adapters.At("links", adapters.MinItems(1)),
		adapters.At("links[].mass_kg", adapters.Minimum(0)),
		adapters.At("links[].com_mm", threeNumbers...),
		adapters.At("payload.mass_kg", adapters.Minimum(0)),
		adapters.At("payload.position_mm", threeNumbers...),
		adapters.At("gravity_m_s2", threeNumbers...),
	)
)

// threeNumbers is a point or direction: three numbers.
var threeNumbers = []adapters.SchemaEdit{adapters.MinItems(3), adapters.MaxItems(3)}

// meshFileRules describe mesh_file, which the solvers and validate_mesh share.
func meshFileRules() []adapters.SchemaRule {
	return []adapters.SchemaRule{adapters.At("mesh_file", adapters.MinLength(1),
		adapters.Describe("The .inp mesh gmsh.generate_mesh returned (its mesh_file)."))}
}

// materialRules describe material and material_properties, which every
// tool that needs a material shares, so they are said once.
func materialRules() []adapters.SchemaRule {
	return []adapters.SchemaRule{
		adapters.At("material", adapters.MinLength(1),
			adapters.Describe("A material of the shared table (steel, aluminum_6061_t6, stainless_304, titanium_ti6al4v, copper_c110, abs, pla, ...).")),
		adapters.At("material_properties", adapters.Describe("Overrides (or, for a name the table lacks, defines) the material's properties.")),
		adapters.At("material_properties.youngs_modulus_gpa", adapters.ExclusiveMinimum(0)),
		adapters.At("material_properties.poisson_ratio", adapters.ExclusiveMinimum(-1), adapters.ExclusiveMaximum(0.5)),
		adapters.At("material_properties.density_kg_m3", adapters.ExclusiveMinimum(0)),
		adapters.At("material_properties.yield_strength_mpa", adapters.ExclusiveMinimum(0)),
		adapters.At("material_properties.thermal_conductivity_w_mk", adapters.ExclusiveMinimum(0)),
	}
}

// memoryRule bounds max_memory_mb below; its top is the deployment's,
// which the call checks (planMemory) and names in the error.
func memoryRule() adapters.SchemaRule {
	return adapters.At("max_memory_mb", adapters.Minimum(minCallMemoryMB), adapters.Default(DefaultCallMemoryMB))
}

// positiveArgs makes each named number strictly positive.
func positiveArgs(names ...string) adapters.SchemaRule {
	return adapters.At("", func(s *jsonschema.Schema) {
		for _, n := range names {
			adapters.ExclusiveMinimum(0)(s.Properties[n])
		}
	})
}
