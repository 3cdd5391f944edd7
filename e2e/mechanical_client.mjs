// Usage: node mechanical_client.mjs URL
//
// The mechanical reference cases of issue 5, driven through MCP with the
// official TypeScript SDK the way an agent would: create the part with
// CadQuery, mesh it with gmsh, pick the faces by position from the mesh's
// surface sets, solve it with CalculiX. Prints one JSON line of what came
// back; mechanical_test.go checks the numbers against the closed forms.
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { emit, main, newClient, toolCaller } from './scenario.mjs';

const TOOLS = [
  'cadquery.create_parametric', 'cadquery.boolean_operation', 'cadquery.get_properties', 'cadquery.export_geometry',
  'cadquery.execute_script', 'cadquery.create_assembly', 'gmsh.generate_mesh', 'gmsh.list_named_faces',
  'calculix.run_fea', 'calculix.run_thermal', 'calculix.validate_mesh', 'calculix.extract_results',
  'calculix.cross_check_cantilever_beam', 'calculix.cross_check_cantilever_frequency',
  'calculix.cross_check_thermal_steady_state', 'calculix.check_mesh_convergence', 'calculix.compute_joint_loads',
];

await main(async () => {
  const url = process.argv[2];
  assert.ok(url, 'usage: node mechanical_client.mjs URL');
  const client = newClient('metaforge-e2e-mechanical');
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const o = {};
  try {
    const { call, must } = toolCaller(client, 300_000);

    const { tools } = await client.listTools();
    o.missingTools = TOOLS.filter((t) => !tools.some((x) => x.name === t));
    o.readOnlyHints = Object.fromEntries(tools.filter((t) => TOOLS.includes(t.name)).map((t) => [t.name, t.annotations?.readOnlyHint ?? null]));

    // The cantilever: 100 x 10 x 10 mm steel.
    const bar = await must('cadquery.create_parametric', {
      shape_type: 'box', parameters: { length: 100, width: 10, height: 10 }, material: 'steel',
    });
    o.bar = { volume: bar.volume_mm3, mass: bar.mass_kg, file: bar.cad_file };
    const mesh = await must('gmsh.generate_mesh', { input_file: bar.cad_file, element_order: 2, mesh_size_mm: 2.5 });
    o.mesh = { elements: mesh.elements, type: mesh.element_type, frame: mesh.coordinate_frame, bbox: mesh.mesh_bbox_mm, quality: mesh.quality_metrics };
    // The fixed face is the one at the smallest x, the loaded one at the largest.
    const faces = Object.entries(mesh.surface_sets);
    const byX = faces.sort((a, b) => a[1].centroid_mm[0] - b[1].centroid_mm[0]);
    const fixed = byX[0][0];
    const loaded = byX[byX.length - 1][0];
    o.faces = { fixed, loaded, fixedNormal: byX[0][1].normal, loadedArea: byX[byX.length - 1][1].area_mm2 };

    const fea = await must('calculix.run_fea', {
      mesh_file: mesh.mesh_file, material: 'steel', fixed_node_set: fixed, load_node_set: loaded,
      load_force_n: 1000, load_direction: [0, 0, -1],
    });
    o.static = { deflection: fea.max_deflection_along_load_mm, vonMises: fea.max_von_mises_mpa, warnings: fea.warnings, frd: fea.files.frd };
    const check = await must('calculix.cross_check_cantilever_beam', {
      length_mm: 100, width_mm: 10, height_mm: 10, load_n: 1000, material: 'steel',
      fea_tip_deflection_mm: fea.max_deflection_along_load_mm, tolerance_pct: 3,
    });
    o.static.crossCheckPassed = check.passed;

    const modal = await must('calculix.run_fea', {
      mesh_file: mesh.mesh_file, analysis_type: 'modal', material: 'steel', fixed_node_set: fixed, num_modes: 4,
    });
    o.modal = { frequencies: modal.frequencies_hz };

    const thermal = await must('calculix.run_thermal', {
      mesh_file: mesh.mesh_file, material: 'aluminum_6061_t6', heat_source_node_set: loaded, heat_load_w: 5,
      sink_node_set: fixed, sink_temperature_c: 25,
    });
    o.thermal = { peak: thermal.peak_temperature_c };

    // CadQuery: a 20 mm cube minus a 10 mm through hole.
    const cube = await must('cadquery.create_parametric', { shape_type: 'box', parameters: { length: 20, width: 20, height: 20 } });
    const pin = await must('cadquery.create_parametric', { shape_type: 'cylinder', parameters: { diameter: 10, height: 20 } });
    const holed = await must('cadquery.boolean_operation', { input_file_a: cube.cad_file, input_file_b: pin.cad_file, operation: 'subtract' });
    o.holed = { volume: holed.result_volume, cubeHasMass: 'mass_kg' in cube };

    // Two 10 mm cubes, the second moved 5 mm along x: they overlap 500 mm^3.
    const small = await must('cadquery.create_parametric', { shape_type: 'box', parameters: { length: 10, width: 10, height: 10 } });
    const asm = await must('cadquery.create_assembly', {
      parts: [{ name: 'a', file: small.cad_file }, { name: 'b', file: small.cad_file, x: 5 }],
    });
    o.assembly = { passed: asm.interference_check_passed, interferences: asm.interferences };

    // Bad input: each a clear error, and the next call works.
    o.bad = {};
    o.bad.missingMesh = (await call('calculix.run_fea', {
      mesh_file: mesh.mesh_file.replace(/mesh\.inp$/, 'nope.inp'), material: 'steel', fixed_node_set: fixed, load_node_set: loaded, load_force_n: 10,
    })).error;
    o.bad.unknownFace = (await call('calculix.run_fea', {
      mesh_file: mesh.mesh_file, material: 'steel', fixed_node_set: 'Face99', load_node_set: loaded, load_force_n: 10,
    })).error;
    o.bad.negativeLoad = (await call('calculix.run_fea', {
      mesh_file: mesh.mesh_file, material: 'steel', fixed_node_set: fixed, load_node_set: loaded, load_force_n: -10,
    })).error;
    o.bad.missingStep = (await call('gmsh.generate_mesh', { input_file: '/nonexistent/part.step' })).error;
    o.bad.loopingScript = (await call('cadquery.execute_script', { script: 'while True:\n    pass\n', timeout_seconds: 2 })).error;
    o.bad.readingOutside = (await call('cadquery.execute_script', {
      script: "open('/etc/passwd').read()\nimport cadquery as cq\nresult = cq.Workplane().box(1, 1, 1)\n",
    })).error;
    const after = await must('cadquery.execute_script', { script: 'import cadquery as cq\nresult = cq.Workplane().box(2, 3, 4)\n' });
    o.bad.scriptAfter = after.volume_mm3;
    const again = await must('calculix.run_fea', {
      mesh_file: mesh.mesh_file, analysis_type: 'modal', material: 'steel', fixed_node_set: fixed, num_modes: 1,
    });
    o.bad.feaAfter = again.frequencies_hz[0];
  } finally {
    await client.close();
  }
  emit(o);
}, { timeoutMs: 600_000 });
