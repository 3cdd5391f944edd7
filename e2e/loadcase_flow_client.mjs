// Usage: node loadcase_flow_client.mjs BASE_URL BINARY ARGS...
//
// Issue 30's mech_v1 flow through MCP with the official TypeScript SDK, as
// an agent on this machine would drive it (over stdio, `metaforge mcp`
// against a running `metaforge serve`): the goal's 20 kg shelf read as its
// weight; in the requirements phase a load case recorded before the part
// exists ("the shelf on the top face, fixed at the wall face"); a CadQuery
// bracket committed as BRACKET@1; the analysis phase meshes and solves it
// by itself; a person reworks to design; a thicker bracket BRACKET@2; the
// analysis reruns by itself. A person decides each gate over REST. Prints
// one JSON line; loadcase_flow_test.go checks it.
import assert from 'node:assert/strict';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { emit, main, newClient, toolCaller } from './scenario.mjs';

await main(async () => {
  const [base, command, ...args] = process.argv.slice(2);
  assert.ok(base && command, 'usage: node loadcase_flow_client.mjs BASE_URL BINARY ARGS...');
  const client = newClient('metaforge-e2e-loadcase-flow');
  await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' }));
  const o = {};
  try {
    const { must } = toolCaller(client, 300_000);
    const rest = async (path, body) => {
      const r = await fetch(base + path, { method: 'POST', body: JSON.stringify(body),
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${process.env.E2E_OPERATOR_TOKEN}` } });
      return { status: r.status, body: await r.json() };
    };
    o.intentShelf = (await must('flow.compile_intent', { goal: 'A wall bracket that holds a 20 kg shelf' })).loads;
    o.intentSide = (await must('flow.compile_intent', { goal: 'A mount that takes a 500 N side load' })).loads;

    const project = await must('project.create', { name: `shelf-${Date.now()}` });
    const pid = project.project_id;
    const proposal = await must('flow.propose', {
      project_id: pid, flow: 'mech_v1',
      goal: 'Design an aluminium 6061 wall bracket that holds a 20 kg shelf with a safety factor of at least 2, within 120 mm',
      manufacturing_context: 'cnc_milling', target_maturity: 'prototype',
    });
    assert.equal(proposal.status, 'proposed', JSON.stringify(proposal));
    o.proposedLoads = proposal.intent.loads;
    o.intentDrafts = proposal.intent.load_case_drafts;
    o.drafts = proposal.load_case_drafts;
    assert.equal((await rest(`/v1/approvals/${proposal.approval_id}/decision`, { decision: 'approve', approver: 'e2e-reviewer' })).status, 200);
    let started;
    for (let i = 0; i < 100; i++) {
      started = await toolCaller(client, 30_000).call('flow.start_run', { flow_version_id: proposal.flow_version_id });
      if (!started.error) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(!started.error, JSON.stringify(started.error));
    const runId = started.run_id;

    const awaitGate = async () => {
      for (let i = 0; i < 20; i++) {
        const g = await must('flow.await_gate', { run_id: runId, wait_seconds: 60 });
        if (g.at_gate) return g;
      }
      assert.fail('the run never reached a gate');
    };
    const doPhase = async (phase, work) => {
      for (let i = 0; i < 100; i++) {
        const tasks = await must('phase.list_tasks', { project_id: pid });
        if (tasks.tasks.some((t) => t.run_id === runId && t.phase === phase)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await must('phase.claim', { run_id: runId, phase });
      const ids = await work();
      await must('phase.submit', { run_id: runId, phase, summary: `${phase} done`, recorded_ids: ids });
      return awaitGate();
    };
    const decide = async (gate, decision, extra = {}) =>
      rest(`/v1/runs/${runId}/gates/${encodeURIComponent(gate.gate.name)}/decision`, { decision, approver: 'e2e-reviewer', ...extra });

    let g = await doPhase('requirements', async () => {
      const cs = await must('twin.record_constraint_set', { project_id: pid, name: 'bracket requirements', constraints: [
        { name: 'fits', metric: 'envelope_x', operator: '<=', limit: 120, unit: 'mm', verification_method: 'inspection' },
        { name: 'strong', metric: 'safety_factor', operator: '>=', limit: 2, unit: '1', verification_method: 'analysis' },
      ] });
      // The goal's draft completed: the shelf's weight, on the top face,
      // fixed at the wall face, about BRACKET (not designed yet).
      const draft = o.intentDrafts[0];
      const lc = await must('twin.record_load_case', { project_id: pid, name: draft.name, part: 'BRACKET', material: 'aluminum_6061_t6',
        fixture: { normal: [-1, 0, 0] }, load_face: { normal: [0, 0, 1] }, force_n: draft.force_n,
        source: { kind: 'requirement', ref: draft.text, note: draft.conversion } });
      o.loadCase = lc;
      return [cs.node_id, lc.node_id];
    });
    assert.equal((await decide(g, 'approve')).status, 200);
    g = await doPhase('concept', async () => [(await must('twin.record_decision', { project_id: pid, name: 'concept',
      decision: 'a flat plate standing off the wall' })).node_id]);
    assert.equal((await decide(g, 'approve')).status, 200);

    const commit = async (thickness, cornerRadius) => {
      const plate = await must('cadquery.create_parametric', { shape_type: 'plate',
        parameters: { length: 100, width: 40, thickness, corner_radius: cornerRadius } });
      const step = await must('cadquery.export_geometry', { input_file: plate.cad_file, output_format: 'step' });
      const props = await must('cadquery.get_properties', { input_file: plate.cad_file });
      return must('twin.commit_geometry', { project_id: pid, name: 'bracket', item_key: 'BRACKET', step_base64: step.step_base64,
        material: 'aluminum_6061_t6', properties: { bounding_box: props.bounding_box } });
    };
    // analysis waits for the run to stand at the analysis gate on the given
    // attempt: a decision sent just before is applied by the workflow in its
    // own time, so the run may still show the gate just decided.
    const analysis = async (attempt) => {
      let gate;
      let phase;
      for (let i = 0; i < 600; i++) {
        gate = await awaitGate();
        const st = await must('flow.status', { run_id: runId });
        phase = st.phases.find((p) => p.name === 'analysis');
        if (st.phase === 'analysis' && phase.attempt === attempt && phase.status === 'at_gate') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const found = await must('twin.find_by_property', { project_id: pid, node_type: 'evidence', key: 'metric', value: 'safety_factor' });
      const evidence = [];
      for (const n of found.nodes) {
        const node = await must('twin.get_node', { node_id: n.node_id });
        const props = node.properties ?? node.node?.properties ?? {};
        evidence.push({ node_id: n.node_id, value: props.value, data: props.data });
      }
      return { gate: gate.gate.name, status: gate.gate.result.status, attempt: phase.attempt, steps: phase.steps ?? [], skipped: phase.steps_skipped ?? '',
        evidence };
    };

    g = await doPhase('design', async () => [(await commit(5, 0)).node_id]);
    assert.equal((await decide(g, 'approve')).status, 200);
    o.first = await analysis(1);
    assert.equal((await decide({ gate: { name: o.first.gate } }, 'rework', { rework_to: 'design', comment: 'thicker' })).status, 200);
    g = await doPhase('design', async () => [(await commit(8, 3)).node_id]);
    assert.equal((await decide(g, 'approve')).status, 200);
    o.second = await analysis(2);
    o.whereUsed = await must('twin.where_used', { project_id: pid, item_key: 'BRACKET' });
  } finally {
    emit(o);
    await client.close();
  }
}, { timeoutMs: 600_000 });
