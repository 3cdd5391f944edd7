// Usage: node electronics_client.mjs URL DEMOS
//
// Issue 6's reference cases through MCP with the official TypeScript SDK:
// ngspice on closed-form circuits, and KiCad's own demo projects (under
// DEMOS) checked and exported, an exported SPICE netlist simulated by path;
// issue 20's: SPICE-suffixed params, power topology rules, a board's
// escaped net name.
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
    // Issue 20: SPICE-suffixed params, read as ngspice reads a card.
    const stepSuffixed = await must('spice.run_simulation', {
      netlist: RC, analysis_type: 'transient', params: { tstep: '10u', tstop: '5m' }, vectors: ['cap'],
    });
    o.rcAt5TauSuffixed = { card: stepSuffixed.analysis_card, final: final(stepSuffixed, 'v(cap)'), numericCard: step.analysis_card };
    const cornerSuffixed = await must('spice.run_simulation', {
      netlist: RC, analysis_type: 'ac', params: { variation: 'dec', points: 10, fstart: '159.15', fstop: '1.5915k' }, vectors: ['cap'],
    });
    const m = cornerSuffixed.vectors.find((x) => x.name === 'v(cap)').magnitude_db;
    o.acSuffixed = { card: cornerSuffixed.analysis_card, corner: m.max, decadeUp: m.final };
    o.badFigure = (await call('spice.run_simulation', { netlist: RC, analysis_type: 'transient', params: { tstep: '10u', tstop: '5 ms' } })).error;
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
    // Issue 20: a board's escaped net name is the schematic's.
    const vpp = (r) => {
      const n = r.nets.find((x) => x.name === '/VPP/MCLR');
      return n ? n.pins.map((p) => `${p.reference}/${p.pin}`).sort() : null;
    };
    const picBoard = await must('kicad.export_netlist', { board_file: `${demos}/pic_programmer/pic_programmer.kicad_pcb` });
    const picSch = await must('kicad.export_netlist', { schematic_file: `${demos}/pic_programmer/pic_programmer.kicad_sch` });
    o.escapedNet = {
      board: vpp(picBoard), schematic: vpp(picSch),
      boardEscaped: picBoard.nets.filter((n) => n.name.includes('{slash}')).map((n) => n.name),
    };

    // Issue 20: power topology rules.
    const chain = async (vin, regulator) => {
      const r = await must('power.check_budget', {
        rails: [{ name: 'IN', voltage_v: vin, source_kind: 'supply', rated_output_ma: 500 }, { name: 'OUT', input_rail: 'IN', rated_output_ma: 500, ...regulator }],
        loads: [{ name: 'U1', rail: 'OUT', current_ma: 10 }],
      });
      const out = r.rails.find((x) => x.name === 'OUT');
      return { status: r.status, summary: r.summary, warnings: r.warnings, checks: out.checks, dropout_v: out.dropout_v, dropout_defaulted: out.dropout_defaulted };
    };
    o.power = {
      ldoFrom33: await chain(3.3, { voltage_v: 5, source_kind: 'ldo', quiescent_ma: 1 }),
      ldoDropout: await chain(3.6, { voltage_v: 3.3, source_kind: 'ldo', quiescent_ma: 1, dropout_v: 0.5 }),
      buck: await chain(5, { voltage_v: 1.8, source_kind: 'switching', efficiency: 0.9, topology: 'buck' }),
      fakeBuck: await chain(5, { voltage_v: 12, source_kind: 'switching', efficiency: 0.9, topology: 'buck' }),
      boost: await chain(5, { voltage_v: 12, source_kind: 'switching', efficiency: 0.9, topology: 'boost' }),
      noTopology: await chain(5, { voltage_v: 12, source_kind: 'switching', efficiency: 0.9 }),
    };

    const erc = await must('kicad.run_erc', { schematic_file: `${demos}/electric/electric.kicad_sch` });
    o.erc = {
      checker: erc.checker, errorCount: erc.error_count, warningCount: erc.warning_count, passed: erc.passed,
      rules: [...new Set(erc.violations.map((v) => v.rule))], listed: erc.violations.length,
    };
    o.notABoard = (await call('kicad.run_drc', { board_file: `${demos}/ecc83/ecc83-pp.kicad_sch` })).error;
    o.outsideRoots = (await call('spice.run_simulation', { netlist_path: '/etc/hostname' })).error;
    o.missingBoard = (await call('kicad.run_drc', { board_file: `${demos}/nope.kicad_pcb` })).error;
  } finally {
    await client.close();
  }
  emit(o);
}, { timeoutMs: 300_000 });
