// Usage: node cad_session_client.mjs BASE_URL BINARY ARGS...
//
// Issue 23's FreeCAD editing session driven through MCP with the official
// TypeScript SDK, as an agent on this machine would (metaforge mcp over
// stdio, on serve's Temporal, workers and twin): a supplier's STEP opened
// and seen part by part; a bracket made feature by feature in a session
// (sketch, pad, pocket, fillet), described, closed and so recorded as a
// cad_model of its project; then what a closed session and bad input are
// told. Prints one JSON line of what came back; cad_session_test.go checks
// it against the closed forms.
import assert from 'node:assert/strict';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { emit, main, newClient, toolCaller } from './scenario.mjs';

await main(async () => {
  const [base, command, ...args] = process.argv.slice(2);
  assert.ok(base && command, 'usage: node cad_session_client.mjs BASE_URL BINARY ARGS...');
  const client = newClient('metaforge-e2e-cad-session');
  await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' }));
  const o = {};
  try {
    const { call, must } = toolCaller(client, 300_000);
    const project = await must('project.create', { name: 'E2E bracket' });
    const pid = project.project_id;

    // A part from a supplier: a 40 x 30 x 20 block as STEP, imported with
    // its label, opened as a session's base and described there.
    const block = await must('freecad.create_parametric', { shape_type: 'box', parameters: { length: 40, width: 30, height: 20 } });
    const imported = await must('freecad.import_step', { input_file: block.cad_file });
    const supplier = await must('freecad.open_session', { base_file: imported.output_file, idle_seconds: 600 });
    const seen = await must('freecad.describe_model', { session_id: supplier.session_id });
    o.supplier = { parts: imported.parts.map((p) => ({ label: p.label, volume: p.volume_mm3 })), described: seen };
    await must('freecad.close_session', { session_id: supplier.session_id, reason: 'only looked' });

    // The bracket, feature by feature.
    const s = await must('freecad.open_session', { project_id: pid, name: 'Bracket', idle_seconds: 600 });
    o.opened = s;
    const sid = s.session_id;
    const rect = await must('freecad.create_sketch', {
      session_id: sid, plane: 'XY', geometry: [{ type: 'rectangle', x: 0, y: 0, width: 40, height: 30 }],
    });
    const pad = await must('freecad.pad_sketch', { session_id: sid, sketch: rect.obj_id, length: 20 });
    const hole = await must('freecad.create_sketch', {
      session_id: sid, plane: 'XY', offset: 20, geometry: [{ type: 'circle', cx: 20, cy: 15, r: 5 }],
    });
    const pocket = await must('freecad.pocket_sketch', { session_id: sid, sketch: hole.obj_id, through_all: true });
    const fillet = await must('freecad.fillet', { session_id: sid, selector: '|Z', radius: 3 });
    o.edits = [rect, pad, hole, pocket, fillet].map((r) => ({ obj: r.obj_id, volume: r.volume_mm3, edits: r.session_edits }));
    o.described = await must('freecad.describe_model', { session_id: sid });
    o.badFillet = await call('freecad.fillet', { session_id: sid, selector: '|Z', radius: 50 });
    o.badLength = await call('freecad.pad_sketch', { session_id: sid, sketch: rect.obj_id, length: -5 });
    o.afterBad = await must('freecad.describe_model', { session_id: sid });

    o.closed = await must('freecad.close_session', { session_id: sid, reason: 'done' });
    const wp = o.closed.saved?.work_product_id;
    o.recorded = wp ? await must('twin.get_node', { node_id: wp }) : null;
    o.afterClose = await call('freecad.pad_sketch', { session_id: sid, sketch: rect.obj_id, length: 5 });
    o.unknown = await call('freecad.describe_model', { session_id: '00000000000000ff' });
  } finally {
    await client.close();
  }
  emit(o);
}, { timeoutMs: 600_000 });
