// Usage: node designflow_client.mjs BASE_URL BINARY ARGS...
//
// A mech_v1 design flow for a bracket, driven through MCP with the official
// TypeScript SDK as an agent on this machine would (over stdio, `metaforge
// mcp` against the Temporal of a running `metaforge serve`, so its writes
// are a local caller's): propose the flow, have a person approve
// the version (POST /v1/approvals/{id}/decision), start the run, and do each
// phase as the client with the real tools (requirements, a decision,
// CadQuery geometry committed to the twin, gmsh + CalculiX evidence), while
// a person decides each gate through POST /v1/runs/{id}/gates/{gate}/decision.
// Prints one JSON line of what it saw; designflow_test.go checks it.
import assert from 'node:assert/strict';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { emit, main, newClient, toolCaller } from './scenario.mjs';

await main(async () => {
  const [base, command, ...args] = process.argv.slice(2);
  assert.ok(base && command, 'usage: node designflow_client.mjs BASE_URL BINARY ARGS...');
  const client = newClient('metaforge-e2e-designflow');
  await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' }));
  const o = { gates: [] };
  try {
    const { call, must } = toolCaller(client, 300_000);
    const rest = async (path, body) => {
      // A person decides: the local operator, with the token serve wrote.
      const r = await fetch(base + path, { method: 'POST', body: JSON.stringify(body),
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${process.env.E2E_OPERATOR_TOKEN}` } });
      return { status: r.status, body: await r.json() };
    };
    const project = await must('project.create', { name: `bracket-${Date.now()}` });
    o.projectId = project.project_id;

    const proposal = await must('flow.propose', {
      project_id: project.project_id, flow: 'mech_v1',
      goal: 'Design an aluminium 6061 cantilever bracket, 100 mm long, carrying 200 N at its tip with under 0.5 mm deflection, ' +
        'von Mises stress below 100 MPa and a safety factor of at least 2, fitting within 120 x 40 x 40 mm',
      manufacturing_context: 'cnc_milling', target_maturity: 'prototype', loads_and_use: '200 N static load at the tip',
    });
    assert.equal(proposal.status, 'proposed', JSON.stringify(proposal));
    o.flowVersionId = proposal.flow_version_id;
    o.approvalId = proposal.approval_id;

    // Not approved yet: the run is refused, with who to ask.
    o.unapprovedStart = (await call('flow.start_run', { flow_version_id: proposal.flow_version_id })).error ?? null;

    const approved = await rest(`/v1/approvals/${proposal.approval_id}/decision`, { decision: 'approve', approver: 'e2e-reviewer' });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    // The approval is recorded by the held call once it runs.
    let started;
    for (let i = 0; i < 100; i++) {
      started = await call('flow.start_run', { flow_version_id: proposal.flow_version_id });
      if (!started.error) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(!started.error, JSON.stringify(started.error));
    const runId = started.run_id;
    o.runId = runId;

    // doPhase claims the run's phase, runs work, submits what it recorded.
    const doPhase = async (phase, work) => {
      for (let i = 0; i < 100; i++) {
        const tasks = await must('phase.list_tasks', { project_id: project.project_id });
        if (tasks.tasks.some((t) => t.run_id === runId && t.phase === phase)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const brief = await must('phase.claim', { run_id: runId, phase });
      assert.equal(brief.phase, phase);
      const ids = await work(brief);
      await must('phase.submit', { run_id: runId, phase, summary: `${phase} done`, recorded_ids: ids });
      const gate = await must('flow.await_gate', { run_id: runId, wait_seconds: 60 });
      assert.ok(gate.at_gate, JSON.stringify(gate));
      return gate;
    };
    const decide = async (gate, decision) => {
      const r = await rest(`/v1/runs/${runId}/gates/${encodeURIComponent(gate.gate.name)}/decision`, { decision, approver: 'e2e-reviewer' });
      o.gates.push({ gate: gate.gate.name, status: gate.gate.result.status, allowed: gate.allowed, decision, http: r.status });
      return r;
    };

    let g = await doPhase('requirements', async () => {
      const cs = await must('twin.record_constraint_set', {
        project_id: project.project_id, name: 'bracket requirements', constraints: [
          { name: 'fits the envelope', metric: 'envelope_x', operator: '<=', limit: 120, unit: 'mm', verification_method: 'inspection' },
          { name: 'stiff enough', metric: 'max_displacement', operator: '<=', limit: 0.5, unit: 'mm', verification_method: 'analysis' },
          { name: 'stress margin', metric: 'max_von_mises', operator: '<=', limit: 100, unit: 'MPa', verification_method: 'analysis' },
          { name: 'safety factor', metric: 'safety_factor', operator: '>=', limit: 2, unit: '1', verification_method: 'analysis' },
        ],
      });
      return [cs.node_id];
    });
    assert.equal((await decide(g, 'approve')).status, 200);

    g = await doPhase('concept', async () => {
      const d = await must('twin.record_decision', { project_id: project.project_id, name: 'bracket concept',
        decision: 'a solid 100 x 20 x 20 mm bar, machined', rationale: 'stiff, simple to machine' });
      return [d.node_id];
    });
    assert.equal((await decide(g, 'approve')).status, 200);

    let cad;
    let bar;
    g = await doPhase('design', async () => {
      bar = await must('cadquery.create_parametric', { shape_type: 'box', parameters: { length: 100, width: 20, height: 20 }, material: 'aluminium_6061' });
      const step = await must('cadquery.export_geometry', { input_file: bar.cad_file, output_format: 'step' });
      const props = await must('cadquery.get_properties', { input_file: bar.cad_file, material: 'aluminium_6061' });
      cad = await must('twin.commit_geometry', { project_id: project.project_id, name: 'bracket', step_base64: step.step_base64,
        material: 'aluminium_6061', properties: { bounding_box: props.bounding_box, volume_mm3: props.volume, mass_kg: props.mass_kg } });
      return [cad.node_id];
    });
    assert.equal((await decide(g, 'approve')).status, 200);

    // The analysis gate before any evidence: no data, so approve is neither
    // offered nor accepted.
    g = await doPhase('analysis', async () => []);
    o.noData = { status: g.gate.result.status, allowed: g.allowed };
    const refused = await decide(g, 'approve');
    o.noData.http = refused.status;
    o.noData.error = refused.body.error;

    const mesh = await must('gmsh.generate_mesh', { input_file: bar.cad_file, element_order: 2, mesh_size_mm: 4 });
    const faces = Object.entries(mesh.surface_sets).sort((a, b) => a[1].centroid_mm[0] - b[1].centroid_mm[0]);
    const fea = await must('calculix.run_fea', { mesh_file: mesh.mesh_file, material: 'aluminium_6061',
      fixed_node_set: faces[0][0], load_node_set: faces[faces.length - 1][0], load_force_n: 200, load_direction: [0, 0, -1] });
    o.fea = { displacement: fea.max_displacement_mm, vonMises: fea.max_von_mises_mpa, safetyFactor: fea.safety_factor };
    const evidence = [];
    for (const [metric, value, unit] of [['max_displacement', fea.max_displacement_mm, 'mm'], ['max_von_mises', fea.max_von_mises_mpa, 'MPa'],
      ['safety_factor', fea.safety_factor, '1']]) {
      const ev = await must('twin.record_evidence', { project_id: project.project_id, name: `tip load ${metric}`, kind: 'simulation',
        metric, value, unit, valid_against: [cad.item_ref], data: { solver: 'calculix', load_n: 200 } });
      evidence.push(ev.node_id);
    }
    g = await must('flow.await_gate', { run_id: runId, wait_seconds: 5 });
    o.withEvidence = { status: g.gate.result.status, allowed: g.allowed };
    assert.equal((await decide(g, 'approve')).status, 200);

    g = await doPhase('verification', async () => evidence);
    assert.equal((await decide(g, 'approve')).status, 200);
    g = await doPhase('release', async () => {
      // G8 gates the package: a baseline (decided by the person who asks
      // for it over REST), an approved release approval (its held call
      // decided through the approvals queue), then the package itself.
      const baseline = await rest('/v1/baselines', { project_id: project.project_id, reason: 'bracket release 1' });
      assert.equal(baseline.status, 200, JSON.stringify(baseline.body));
      const ra = await must('twin.record_engineering_entity', { project_id: project.project_id, entity_type: 'release_approval',
        name: 'bracket release 1' });
      const approving = must('twin.approve_engineering_entity', { project_id: project.project_id, node_id: ra.node_id });
      let held;
      for (let i = 0; i < 300 && !held; i++) {
        const r = await fetch(base + '/v1/approvals?tool=twin.approve_engineering_entity',
          { headers: { Authorization: `Bearer ${process.env.E2E_OPERATOR_TOKEN}` } });
        held = ((await r.json()).approvals ?? [])[0]?.approval_id;
        if (!held) await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(held, 'the release approval was never held for a person');
      assert.equal((await rest(`/v1/approvals/${held}/decision`, { decision: 'approve', approver: 'e2e-reviewer' })).status, 200);
      await approving;
      const pkg = await must('twin.create_release_package', { project_id: project.project_id, reason: 'bracket release 1' });
      return [pkg.release_package_id];
    });
    assert.equal((await decide(g, 'approve')).status, 200);

    let status;
    for (let i = 0; i < 100; i++) {
      status = await must('flow.status', { run_id: runId });
      if (status.status !== 'running' && status.status !== 'at_gate') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    o.finalStatus = status.status;
    o.verdict = (await must('flow.verify_completion', { run_id: runId })).verdict;
  } finally {
    emit(o);
    await client.close();
  }
}, { timeoutMs: 600_000 });
