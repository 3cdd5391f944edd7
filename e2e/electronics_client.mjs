// Usage: node electronics_client.mjs URL DEMOS
//
// Issue 6's reference cases through MCP with the official TypeScript SDK:
// ngspice on closed-form circuits, and KiCad's own demo projects (under
// DEMOS) checked and exported, an exported SPICE netlist simulated by path.
// Prints one JSON line; electronics_test.go checks the numbers.
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { emit, main, newClient, toolCaller } from './scenario.mjs';

const RC = 'RC low-pass\nV1 in 0 PULSE(0 5 0 1n 1n 1 2) AC 1\nR1 in cap 1k\nC1 cap 0 1u\n';

await main(async () => {
  const [url, demos] = process.argv.slice(2);
  assert.ok(url && demos, 'usage: node electronics_client.mjs URL DEMOS');
  const client = newClient('metaforge-e2e-electronics');
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const o = {};
  try {
    const { call, must } = toolCaller(client, 180_000);
    const final = (r, name, key = 'final') => {
      const v = r.vectors.find((x) => x.name === name);
      assert.ok(v, `no ${name} in ${JSON.stringify(r.vectors.map((x) => x.name))}`);
      return key === 'final' ? v.final : v[key].final;
    };

    const divider = await must('spice.run_simulation', {
      netlist: 'divider\nV1 in 0 DC 5\nR1 in out 1k\nR2 out 0 1k\n', analysis_type: 'op',
    });
    o.divider = final(divider, 'v(out)');
    const step = await must('spice.run_simulation', {
      netlist: RC, analysis_type: 'transient', params: { tstep: 10e-6, tstop: 5e-3 }, vectors: ['cap'],
    });
    o.rcAt5Tau = final(step, 'v(cap)');
    const ac = await must('spice.run_simulation', {
      netlist: RC, analysis_type: 'ac', params: { variation: 'dec', points: 100, fstart: 1, fstop: 100e3 }, vectors: ['cap'],
    });
    o.acAt100k = final(ac, 'v(cap)', 'magnitude_db');
    const corner = await must('spice.run_simulation', {
      netlist: RC, analysis_type: 'ac', params: { variation: 'lin', points: 1, fstart: 159.15, fstop: 159.15 }, vectors: ['cap'],
    });
    o.acAtCorner = final(corner, 'v(cap)', 'magnitude_db');
    const broken = await must('spice.run_simulation', { netlist: 'broken\nV1 in 0 DC 5\nR1 in out 1k\nR2 out 0 1k\nX1 out 0 nosuch\n', analysis_type: 'op' });
    o.syntaxError = { converged: broken.converged, log: broken.log ?? [] };
    o.afterSyntaxError = final(await must('spice.run_simulation', {
      netlist: 'divider\nV1 in 0 DC 5\nR1 in out 1k\nR2 out 0 1k\n', analysis_type: 'op',
    }), 'v(out)');

    // KiCad's own demos.
    const ecc83 = `${demos}/ecc83/ecc83-pp.kicad_pcb`;
    const drc = await must('kicad.run_drc', { board_file: ecc83 });
    o.drc = { violations: drc.violation_count, listed: drc.violations.length, unconnected: drc.unconnected_items.count, passed: drc.passed };
    const gerber = await must('kicad.export_gerber', { board_file: ecc83 });
    o.gerber = { layers: gerber.gerber_files.map((g) => g.layer), drills: gerber.drill_files.length };
    const bom = await must('kicad.export_bom', { schematic_file: `${demos}/ecc83/ecc83-pp.kicad_sch` });
    o.bom = { lines: bom.line_count, references: bom.total_references };
    const boardNets = await must('kicad.export_netlist', { board_file: ecc83 });
    const schNets = await must('kicad.export_netlist', { schematic_file: `${demos}/ecc83/ecc83-pp.kicad_sch` });
    // A schematic also lists each unconnected pin as a net of its own, as
    // KiCad's netlister does; the board has no net on those pads.
    const joined = (r) => r.nets.filter((n) => n.pins.length > 1).length;
    o.netlist = { board: joined(boardNets), schematic: joined(schNets) };
    const spiceNet = await must('kicad.export_netlist', { schematic_file: `${demos}/simulation/rectifier/rectifier.kicad_sch`, format: 'spice' });
    const sim = await must('spice.run_simulation', { netlist_path: spiceNet.spice.netlist_file });
    o.rectifier = { converged: sim.converged, vectors: sim.vectors.map((v) => ({ name: v.name, max: v.max })) };
    o.erc = (await call('kicad.run_erc', { schematic_file: `${demos}/ecc83/ecc83-pp.kicad_sch` })).error;
    o.notABoard = (await call('kicad.run_drc', { board_file: `${demos}/ecc83/ecc83-pp.kicad_sch` })).error;
    o.outsideRoots = (await call('spice.run_simulation', { netlist_path: '/etc/hostname' })).error;
    o.missingBoard = (await call('kicad.run_drc', { board_file: `${demos}/nope.kicad_pcb` })).error;
  } finally {
    await client.close();
  }
  emit(o);
}, { timeoutMs: 300_000 });
