// Usage: node robotics_client.mjs BASE_URL BINARY ARGS...
//
// Issue 24's robotics path driven through MCP with the official TypeScript
// SDK, as an agent on this machine would, on the robotics profile
// (metaforge mcp --profile robotics over stdio, on serve's Temporal,
// workers and twin): a two-link arm made from two CadQuery boxes, exported
// as URDF, SDF and USD, each read back by its own tool (libsdformat,
// usd-core), simulated in PyBullet (settling, then driven to a target), a
// ROS 2 launch file for it, and the URDF imported into the twin as a
// reference design. Prints one JSON line of what came back;
// robotics_test.go checks it against the closed forms and runs check_urdf.
import assert from 'node:assert/strict';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { emit, main, newClient, toolCaller } from './scenario.mjs';

await main(async () => {
  const [base, command, ...args] = process.argv.slice(2);
  assert.ok(base && command, 'usage: node robotics_client.mjs BASE_URL BINARY ARGS...');
  const client = newClient('metaforge-e2e-robotics');
  await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' }));
  const o = {};
  try {
    const { call, must } = toolCaller(client, 300_000);
    o.tools = (await client.listTools()).tools.map((t) => t.name).sort();

    const project = await must('project.create', { name: 'E2E two-link arm' });
    const pid = project.project_id;

    // Link 1 from x = 0 to 200 mm, link 2 from 200 to 350 mm; the elbow
    // turns about Z at x = 200 mm.
    const box = (length, width, height) => must('cadquery.create_parametric', { shape_type: 'box', parameters: { length, width, height } });
    const link1 = await box(200, 40, 20);
    const link2 = await box(150, 30, 20);
    const arm = {
      material: 'aluminum_6061_t6',
      parts: [{ name: 'link1', file: link1.cad_file, x: 100 }, { name: 'link2', file: link2.cad_file, x: 275 }],
      joints: [{
        name: 'elbow', type: 'revolute', base: 'link1', follower: 'link2', origin: [200, 0, 0], axis: [0, 0, 1],
        limits: { lower: -90, upper: 90, effort: 10, velocity: 90 },
      }],
    };

    o.urdf = await must('cadquery.export_urdf_assembly', { ...arm, robot_name: 'arm' });
    o.sdf = await must('cadquery.export_sdf_assembly', { ...arm, model_name: 'arm', world_name: 'bench' });
    o.world = await must('gazebo.validate_world', { file: o.sdf.output_file });
    o.usd = await must('cadquery.export_usd_assembly', { ...arm, name: 'arm' });
    o.stage = await must('omniverse_usd.describe_stage', { file: o.usd.output_file });
    o.usdGate = await must('omniverse_usd.validate_usd_minimum', { file: o.usd.output_file });

    o.stability = await must('cadquery.validate_physics_stability', { urdf_file: o.urdf.output_file, settle_time_s: 1 });
    o.run = await must('physics.run_simulation', {
      urdf_file: o.urdf.output_file, duration_s: 2, joint_targets: { elbow: 45 }, sample_rate_hz: 20,
    });
    o.launch = await must('cadquery.generate_ros2_launch', { urdf_file: o.urdf.output_file, gui: true, rviz: true });

    o.imported = await must('twin.import_urdf', { project_id: pid, file_path: o.urdf.output_file });

    // What is refused: a ball joint has no URDF equivalent; Gazebo itself
    // is not served here.
    o.ball = await call('cadquery.export_urdf_assembly', {
      ...arm, joints: [{ name: 'elbow', type: 'ball', base: 'link1', follower: 'link2', origin: [200, 0, 0] }],
    });
    o.gazeboRun = await call('gazebo.run_simulation', { file: o.sdf.output_file });
    o.health = await must('health.check', {});
  } finally {
    await client.close();
  }
  emit(o);
}, { timeoutMs: 600_000 });
