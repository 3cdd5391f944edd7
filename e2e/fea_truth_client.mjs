// Usage: node fea_truth_client.mjs URL
//
// Issue 20's FEA cases through MCP with the official TypeScript SDK, as an
// analyst would run them: the 200 x 20 x 5 mm aluminium cantilever on three
// quadratic meshes (the clamp's singular peak and the section stress),
// check_mesh_convergence on both, the cantilever cross-check, the same beam
// in linear tetrahedra, a 1 mm mesh too big for the default memory, a modal
// run given a load, and a strip with a hole against Peterson's Kt. Prints
// one JSON line; fea_truth_test.go checks it against the closed forms.
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { emit, main, newClient, toolCaller } from './scenario.mjs';

const P = 50; // N, the beam's tip load along -z

await main(async () => {
  const url = process.argv[2];
  assert.ok(url, 'usage: node fea_truth_client.mjs URL');
  const client = newClient('metaforge-e2e-fea-truth');
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const o = {};
  try {
    const { call, must } = toolCaller(client, 300_000);
    // The end faces of a mesh by position: fixed at the smallest x, loaded at the largest.
    const ends = (mesh) => {
      const byX = Object.entries(mesh.surface_sets).sort((a, b) => a[1].centroid_mm[0] - b[1].centroid_mm[0]);
      return { fixed: byX[0][0], loaded: byX[byX.length - 1][0] };
    };

    const beam = await must('cadquery.create_parametric', {
      shape_type: 'box', parameters: { length: 200, width: 20, height: 5 }, material: 'aluminum_6061_t6',
    });
    const meshBeam = (order, size) => must('gmsh.generate_mesh', { input_file: beam.cad_file, element_order: order, mesh_size_mm: size });
    const solveBeam = async (mesh, extra = {}) => {
      const { fixed, loaded } = ends(mesh);
      return call('calculix.run_fea', {
        mesh_file: mesh.mesh_file, material: 'aluminum_6061_t6', fixed_node_set: fixed, load_node_set: loaded,
        load_force_n: P, load_direction: [0, 0, -1], ...extra,
      });
    };

    // The clamp's peak and the section stress on three quadratic meshes.
    o.beam = [];
    for (const size of [5, 2, 1.25]) {
      const mesh = await meshBeam(2, size);
      const r = await solveBeam(mesh);
      assert.ok(!r.error, JSON.stringify(r.error));
      o.beam.push({
        size, nodes: r.mesh_nodes, fixed: r.fixed_node_set, peak: r.max_von_mises_mpa, peakAt: r.max_von_mises_at_mm,
        singularity: r.max_von_mises_singularity ?? null, section: r.section_stress?.[0] ?? null,
        deflection: r.max_deflection_along_load_mm, warnings: r.warnings, material: r.material,
      });
    }
    o.peakConvergence = await must('calculix.check_mesh_convergence', {
      quantity: 'peak von Mises',
      points: o.beam.map((b) => ({ element_size_mm: b.size, value: b.peak, at_singularity: b.singularity !== null })),
    });
    o.sectionConvergence = await must('calculix.check_mesh_convergence', {
      quantity: 'section stress 20 mm from the clamp',
      points: o.beam.map((b) => ({ element_size_mm: b.size, value: b.section.linearized_peak_mpa })),
    });
    const finest = o.beam[o.beam.length - 1];
    o.crossCheck = await must('calculix.cross_check_cantilever_beam', {
      length_mm: 200, width_mm: 20, height_mm: 5, load_n: P, material: 'aluminum_6061_t6',
      fea_section_stress_mpa: finest.section.linearized_peak_mpa, section_distance_mm: finest.section.distance_from_support_mm,
      fea_max_stress_mpa: finest.peak, fea_tip_deflection_mm: finest.deflection, tolerance_pct: 1.5,
    });

    // Linear tetrahedra: too stiff, and said so.
    const linear = await solveBeam(await meshBeam(1, 2));
    o.linear = { deflection: linear.max_deflection_along_load_mm, warnings: linear.warnings, equilibrium: linear.section_stress?.[0]?.equilibrium ?? null };

    // The 1 mm mesh: refused at once with the estimate.
    const fine = await meshBeam(2, 1);
    let began = Date.now();
    const refused = await solveBeam(fine);
    o.fine = { nodes: fine.nodes, error: refused.error ?? null, ms: Date.now() - began };
    began = Date.now();
    o.fine.overDeployment = (await solveBeam(fine, { max_memory_mb: 1 << 30 })).error ?? null;

    // A modal run given a load says it ignored the load.
    const coarse = await meshBeam(2, 5);
    const { fixed, loaded } = ends(coarse);
    const modal = await must('calculix.run_fea', {
      mesh_file: coarse.mesh_file, analysis_type: 'modal', material: 'aluminum_6061_t6', fixed_node_set: fixed,
      load_node_set: loaded, load_force_n: P, num_modes: 2,
    });
    o.modal = { frequencies: modal.frequencies_hz, warnings: modal.warnings };

    // The strip with a hole: 80 x 20 x 1 mm steel, 4 mm hole at its middle, pulled with 160 N.
    const strip = await must('cadquery.execute_script', {
      script: "import cadquery as cq\nresult = cq.Workplane('XY').box(80, 20, 1, centered=False).faces('>Z').workplane().center(40, 10).hole(4)\n",
    });
    o.hole = [];
    for (const size of [2, 1.4, 1]) {
      const mesh = await must('gmsh.generate_mesh', { input_file: strip.cad_file, element_order: 2, mesh_size_mm: size });
      const e = ends(mesh);
      const r = await must('calculix.run_fea', {
        mesh_file: mesh.mesh_file, material: 'steel', fixed_node_set: e.fixed, load_node_set: e.loaded,
        load_force_n: 160, load_direction: [1, 0, 0],
      });
      o.hole.push({ size, peak: r.max_von_mises_mpa, peakAt: r.max_von_mises_at_mm, singularity: r.max_von_mises_singularity ?? null, warnings: r.warnings });
    }
    o.holeConvergence = await must('calculix.check_mesh_convergence', {
      quantity: 'peak von Mises at the hole', points: o.hole.map((h) => ({ element_size_mm: h.size, value: h.peak })),
    });
  } finally {
    await client.close();
  }
  emit(o);
}, { timeoutMs: 900_000 });
