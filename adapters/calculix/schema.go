package calculix

// Input schemas of the calculix tools. Every tool rejects arguments it does
// not know, so a misspelt name is an error rather than a default.

const materialProps = `"material_properties": {"type": "object", "additionalProperties": false,
  "description": "Overrides (or, for a name the table lacks, defines) the material's properties.",
  "properties": {
    "youngs_modulus_gpa": {"type": "number", "exclusiveMinimum": 0},
    "poisson_ratio": {"type": "number", "exclusiveMinimum": -1, "exclusiveMaximum": 0.5},
    "density_kg_m3": {"type": "number", "exclusiveMinimum": 0},
    "yield_strength_mpa": {"type": "number", "exclusiveMinimum": 0},
    "thermal_conductivity_w_mk": {"type": "number", "exclusiveMinimum": 0}}}`

const materialName = `"material": {"type": "string", "minLength": 1, "description": "A material of the shared table (steel, aluminum_6061_t6, stainless_304, titanium_ti6al4v, copper_c110, abs, pla, ...)."}`

const meshFile = `"mesh_file": {"type": "string", "minLength": 1, "description": "The .inp mesh gmsh.generate_mesh returned (its mesh_file)."}`

const runFEASchema = `{"type": "object", "additionalProperties": false,
 "required": ["mesh_file", "material", "fixed_node_set"],
 "properties": {
  ` + meshFile + `,
  "analysis_type": {"type": "string", "enum": ["static_stress", "modal"], "default": "static_stress"},
  ` + materialName + `,
  ` + materialProps + `,
  "fixed_node_set": {"type": "string", "minLength": 1, "description": "Surface set held fixed (all three translations), e.g. Face1."},
  "load_node_set": {"type": "string", "minLength": 1, "description": "Surface set the load is spread over as a uniform traction (static_stress)."},
  "load_force_n": {"type": "number", "exclusiveMinimum": 0, "description": "Total load in N (static_stress); its direction is load_direction."},
  "load_direction": {"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3, "description": "Direction of the load in the mesh frame; default [0, 0, -1]."},
  "num_modes": {"type": "integer", "minimum": 1, "maximum": 50, "default": 6, "description": "Modes to find (modal)."}}}`

const runThermalSchema = `{"type": "object", "additionalProperties": false,
 "required": ["mesh_file", "material", "heat_source_node_set", "heat_load_w", "sink_node_set"],
 "properties": {
  ` + meshFile + `,
  ` + materialName + `,
  ` + materialProps + `,
  "heat_source_node_set": {"type": "string", "minLength": 1, "description": "Surface set the heat enters through, as a uniform flux."},
  "heat_load_w": {"type": "number", "exclusiveMinimum": 0, "description": "Heat entering, W (a component's dissipation)."},
  "sink_node_set": {"type": "string", "minLength": 1, "description": "Surface set held at sink_temperature_c."},
  "sink_temperature_c": {"type": "number", "minimum": -273.15, "default": 20},
  "analysis_mode": {"type": "string", "enum": ["steady_state"], "default": "steady_state"}}}`

const validateMeshSchema = `{"type": "object", "additionalProperties": false, "required": ["mesh_file"],
 "properties": {` + meshFile + `}}`

const extractResultsSchema = `{"type": "object", "additionalProperties": false, "required": ["results_file"],
 "properties": {"results_file": {"type": "string", "minLength": 1, "description": "A CalculiX .frd results file (run_fea's files.frd)."}}}`

const beamSchema = `{"type": "object", "additionalProperties": false,
 "required": ["length_mm", "width_mm", "height_mm", "load_n", "material"],
 "properties": {
  "length_mm": {"type": "number", "exclusiveMinimum": 0},
  "width_mm": {"type": "number", "exclusiveMinimum": 0},
  "height_mm": {"type": "number", "exclusiveMinimum": 0, "description": "Section depth in the load direction."},
  "load_n": {"type": "number", "exclusiveMinimum": 0, "description": "Tip load, N."},
  ` + materialName + `,
  ` + materialProps + `,
  "fea_max_stress_mpa": {"type": "number"},
  "fea_tip_deflection_mm": {"type": "number"},
  "tolerance_pct": {"type": "number", "exclusiveMinimum": 0, "default": 5}}}`

const frequencySchema = `{"type": "object", "additionalProperties": false,
 "required": ["length_mm", "width_mm", "height_mm", "material"],
 "properties": {
  "length_mm": {"type": "number", "exclusiveMinimum": 0},
  "width_mm": {"type": "number", "exclusiveMinimum": 0},
  "height_mm": {"type": "number", "exclusiveMinimum": 0, "description": "Section depth in the bending direction."},
  ` + materialName + `,
  ` + materialProps + `,
  "fea_frequency_hz": {"type": "number", "description": "The first bending mode from a modal run_fea."},
  "tolerance_pct": {"type": "number", "exclusiveMinimum": 0, "default": 5}}}`

const thermalCheckSchema = `{"type": "object", "additionalProperties": false,
 "required": ["heat_load_w", "length_mm", "area_mm2", "material"],
 "properties": {
  "heat_load_w": {"type": "number", "exclusiveMinimum": 0},
  "length_mm": {"type": "number", "exclusiveMinimum": 0, "description": "Conduction path length from source face to sink face."},
  "area_mm2": {"type": "number", "exclusiveMinimum": 0, "description": "Cross-section of the bar."},
  "sink_temperature_c": {"type": "number", "default": 20},
  ` + materialName + `,
  ` + materialProps + `,
  "fea_peak_temperature_c": {"type": "number"},
  "tolerance_pct": {"type": "number", "exclusiveMinimum": 0, "default": 2}}}`

const convergenceSchema = `{"type": "object", "additionalProperties": false, "required": ["points"],
 "properties": {
  "points": {"type": "array", "minItems": 2, "items": {"type": "object", "additionalProperties": false,
    "required": ["element_size_mm", "max_stress_mpa"],
    "properties": {"element_size_mm": {"type": "number", "exclusiveMinimum": 0},
                   "max_stress_mpa": {"type": "number", "exclusiveMinimum": 0},
                   "element_count": {"type": "integer", "minimum": 1}}}},
  "threshold_pct": {"type": "number", "exclusiveMinimum": 0, "default": 5}}}`

const vec3Schema = `{"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3}`

const jointLoadsSchema = `{"type": "object", "additionalProperties": false, "required": ["joints", "links"],
 "properties": {
  "joints": {"type": "array", "minItems": 1, "description": "Joints from base to tip, posed.", "items": {"type": "object", "additionalProperties": false,
    "required": ["name", "position_mm"], "properties": {"name": {"type": "string"}, "position_mm": ` + vec3Schema + `}}},
  "links": {"type": "array", "minItems": 1, "description": "Link i is driven by joint i.", "items": {"type": "object", "additionalProperties": false,
    "required": ["name", "mass_kg", "com_mm"], "properties": {"name": {"type": "string"}, "mass_kg": {"type": "number", "minimum": 0}, "com_mm": ` + vec3Schema + `}}},
  "payload": {"type": "object", "additionalProperties": false, "required": ["mass_kg", "position_mm"],
    "properties": {"mass_kg": {"type": "number", "minimum": 0}, "position_mm": ` + vec3Schema + `}},
  "gravity_m_s2": ` + vec3Schema + `}}`
