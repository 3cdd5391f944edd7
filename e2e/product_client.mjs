// Usage: node product_client.mjs BASE_URL BINARY ARGS...
//
// Issue 22's product structure driven through MCP with the official
// TypeScript SDK, as an agent on this machine would (its server is
// metaforge mcp over stdio, on serve's Temporal, workers and twin): parts
// made with CadQuery and imported (measured durably), a servo chosen
// against a requirement, the robot's hierarchy recorded with its joints,
// rolled up, realised where a part had no model, its EBOM read over REST;
// the bring-up order and harness; a test plan, a built unit measured three
// times; the session's narrative. Prints one JSON line of what came back;
// product_test.go checks it against hand computations.
import assert from 'node:assert/strict';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { emit, main, newClient, toolCaller } from './scenario.mjs';

await main(async () => {
  const [base, command, ...args] = process.argv.slice(2);
  assert.ok(base && command, 'usage: node product_client.mjs BASE_URL BINARY ARGS...');
  const client = newClient('metaforge-e2e-product');
  await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' }));
  const o = {};
  try {
    const { call, must } = toolCaller(client, 300_000);
    const project = await must('project.create', { name: 'E2E robot' });
    const pid = project.project_id;

    // Parts: CadQuery boxes, imported into the twin and measured there.
    const part = async (name, length, width, height, material) => {
      const box = await must('cadquery.create_parametric', { shape_type: 'box', parameters: { length, width, height } });
      const imported = await must('twin.import_work_product', { project_id: pid, name, file_path: box.cad_file, material });
      return imported.item_ref;
    };
    const baseCAD = await part('Base plate', 100, 100, 10, 'steel');
    const lowerCAD = await part('Lower link', 200, 40, 20, 'aluminum_6061_t6');
    const upperCAD = await part('Upper link', 150, 30, 20, 'aluminum_6061_t6');

    // The servo, chosen against a supply-voltage requirement: one
    // candidate gives no voltage, so it is no_data for it, not a pass.
    const servo = await must('twin.select_component', {
      project_id: pid, name: 'Joint servo', quantity: 2,
      candidates: [
        { mpn: 'DS3225', manufacturer: 'DSServo', specs: { supply_voltage: '8.4 V', unit_cost: '$18.90', category: 'actuator' } },
        { mpn: 'MG996R', manufacturer: 'TowerPro', specs: { unit_cost: '$9.50', category: 'actuator' } },
      ],
      requirements: [{ spec: 'supply_voltage', threshold: 7.4, unit: 'V', direction: '>=' }],
    });
    o.servo = {
      selected: servo.selected.mpn, meets: servo.selected_meets_requirements, decision: servo.decision.item_ref,
      candidates: servo.candidates.map((c) => ({ mpn: c.mpn, passes: c.passes, noData: c.no_data, margins: c.margins })),
    };
    const plate = await must('twin.record_component_selection', {
      project_id: pid, name: 'Machined plate', mpn: 'AL-PLATE-01', specs: { unit_cost: '$45.00', category: 'raw material' },
    });

    // The hierarchy: a robot product holding an arm assembly with two joints.
    const robot = await must('twin.record_hierarchy_node', { project_id: pid, name: 'Robot', level: 'product' });
    const arm = await must('twin.record_hierarchy_node', {
      project_id: pid, name: 'Arm', level: 'assembly', parent: robot.item_key,
      joints: [
        { name: 'elbow', type: 'revolute', base: 'Lower link', follower: 'Upper link', anchor_mm: [0, 0, 200], lower_limit: -120, upper_limit: 120 },
        { name: 'shoulder', type: 'revolute', base: 'Base', follower: 'Lower link', anchor_mm: [0, 0, 60], lower_limit: -90, upper_limit: 90 },
      ],
    });
    const position = (name, extra) => must('twin.record_hierarchy_node', { project_id: pid, name, level: 'part', parent: arm.item_key, ...extra });
    await position('Base', { realized_by: baseCAD, instance_of: plate.item_ref });
    await position('Lower link', { realized_by: lowerCAD, instance_of: plate.item_ref });
    await position('Upper link', { realized_by: upperCAD, instance_of: plate.item_ref });
    const servoPos = await position('Servo', { quantity: 2, instance_of: servo.bom_item.item_ref });

    const before = await must('twin.compute_hierarchy_rollup', { project_id: pid, root: robot.item_key });
    o.before = { mass: before.root.mass_kg, cost: before.root.cost_usd };

    // A mass budget of 2.5 kg, 1 kg of it allocated to the servos.
    await must('twin.record_engineering_entity', {
      project_id: pid, entity_type: 'budget', name: 'Robot mass',
      properties: { metric: 'mass', unit: 'kg', system_total: 2.5, allocations: [{ target: servoPos.item_key, amount: 0.4 }] },
    });

    // The servo had no model: realise it with one, and the mass is known.
    const servoCAD = await part('Servo body', 40, 20, 40, 'steel');
    const realized = await must('twin.realize_hierarchy_node', { project_id: pid, node: servoPos.item_key, realized_by: servoCAD });
    o.realized = { revision: realized.revision };
    const after = await must('twin.compute_hierarchy_rollup', { project_id: pid, root: robot.item_key });
    o.after = { mass: after.root.mass_kg, cost: after.root.cost_usd, budgets: after.budgets };

    const bom = await fetch(`${base}/v1/bom?project=${pid}&view=flat`);
    o.bom = { status: bom.status, body: await bom.json() };

    const checklist = await must('twin.create_bringup_checklist', { project_id: pid, assembly_ref: arm.item_key });
    o.checklist = checklist.steps.map((s) => s.text);
    const harness = await must('twin.get_harness_estimate', { project_id: pid, assembly_ref: arm.item_key });
    o.harness = { total: harness.total_conductor_mm, lengths: Object.fromEntries(harness.harness.map((h) => [h.joint, h.length_mm])) };

    // Verification: a plan from the test requirements, a built unit
    // measured three times.
    await must('twin.record_constraint_set', {
      project_id: pid, name: 'Robot requirements', constraints: [
        { name: 'stiff tip', metric: 'tip_deflection', operator: '<=', limit: 0.5, unit: 'mm', verification_method: 'test', target_node_type: 'arm' },
        { name: 'light', metric: 'mass', operator: '<=', limit: 2.5, unit: 'kg', verification_method: 'analysis' },
        { name: 'payload', metric: 'payload_mass', operator: '>=', limit: 0.5, unit: 'kg', verification_method: 'test', target_node_type: 'arm' },
      ],
    });
    const plan = await must('twin.generate_test_plan', { project_id: pid });
    o.plan = plan.cases.map((c) => c.step);
    await must('twin.commit_system_architecture', {
      project_id: pid, name: 'Robot architecture',
      subsystems: [{ name: 'arm', hierarchy_node: arm.item_key }, { name: 'controller' }],
      interfaces: [{ name: 'arm tip', from: 'arm', to: 'controller', kind: 'mechanical', quantities: [{ name: 'tip_deflection', unit: 'mm' }] }],
    });
    const unit = await must('twin.register_device_instance', { project_id: pid, product_ref: robot.item_key, serial: 'SN-0001' });
    let last;
    for (const value of [0.31, 0.29, 0.33]) {
      last = await must('twin.record_measurement', {
        project_id: pid, device: unit.node_id, interface: 'arm tip', quantity: 'tip_deflection', value, unit: 'mm',
      });
    }
    o.calibration = last.calibration;

    await must('session.log_event', { project_id: pid, kind: 'decision', text: 'chose the DS3225 for its 8.4 V supply' });
    o.ended = await must('session.complete', { project_id: pid, status: 'completed', summary: 'robot structured and measured' });
    o.afterEnd = await call('session.log_event', { project_id: pid, kind: 'thought', text: 'one more thing' });
  } finally {
    await client.close();
  }
  emit(o);
}, { timeoutMs: 600_000 });
