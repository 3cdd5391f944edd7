// Usage: node tasks_client.mjs CONFIG_JSON
//
// MCP Tasks (2025-11-25) against metaforge serve with the official MCP
// TypeScript SDK, for tasks_test.go. CONFIG_JSON says which scenario:
//
//   {"mode":"main","url":U,"tokenA":T,"tokenB":T,"operator":T,"base":B,"fineMesh":S}
//       the FEA task next to a plain call, the refusal of a required tool,
//       cancelling a running solver, two clients' isolation, a held write
//       decided on the approvals REST, and a 2025-06-18 client;
//   {"mode":"elicit","url":U,"operator":T}
//       a held write as a task whose question comes through tasks/result;
//   {"mode":"restart-start","url":U,"tokenA":T,"fineMesh":S}
//       starts a long FEA task and prints its id as soon as its solver runs;
//   {"mode":"restart-resume","url":U,"tokenA":T,"taskId":ID}
//       reads the task from a new connection after serve was killed.
//
// Prints one JSON line of observations; the Go test checks them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema, CancelTaskResultSchema, CreateTaskResultSchema, ElicitRequestSchema, GetTaskResultSchema,
  ListTasksResultSchema, McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { emit, main } from './scenario.mjs';

const cfg = JSON.parse(process.argv[2]);
const RELATED = 'io.modelcontextprotocol/related-task';

// connect opens one client; token is its bearer credential, elicit
// answers every question with approve: true, revision forces initialize's
// protocolVersion.
async function connect(name, { token, elicit = false, revision } = {}) {
  const opts = token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {};
  const transport = new StreamableHTTPClientTransport(new URL(cfg.url), opts);
  if (revision) {
    const send = transport.send.bind(transport);
    transport.send = (msg, o) => {
      if (msg.method === 'initialize') msg = { ...msg, params: { ...msg.params, protocolVersion: revision } };
      return send(msg, o);
    };
  }
  const client = new Client({ name, version: '0.0.1' }, { capabilities: elicit ? { elicitation: {} } : {} });
  client.asked = [];
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      client.asked.push({ message: req.params.message, meta: req.params._meta ?? null });
      return { action: 'accept', content: { approve: true } };
    });
  }
  await client.connect(transport);
  return client;
}

const timeout = { timeout: 300_000 };

async function callTask(client, name, args, ttl) {
  const began = performance.now();
  const created = await client.request({ method: 'tools/call', params: { name, arguments: args } }, CreateTaskResultSchema,
    { ...timeout, task: ttl === undefined ? {} : { ttl } });
  return { ms: performance.now() - began, task: created.task };
}

const getTask = (c, taskId) => c.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, timeout);
const taskResult = (c, taskId) => c.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, timeout);
const cancelTask = (c, taskId) => c.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema, timeout);
const listTasks = (c, cursor) => c.request({ method: 'tasks/list', params: cursor ? { cursor } : {} }, ListTasksResultSchema, timeout);
const plainCall = (c, name, args) => c.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, timeout);

// errorOf is the JSON-RPC error fn throws, or null when it answers.
async function errorOf(fn) {
  try {
    await fn();
    return null;
  } catch (err) {
    if (err instanceof McpError) return { code: err.code, message: err.message, data: err.data ?? null };
    throw err;
  }
}

// pollUntil polls tasks/get until done(task), collecting the statuses seen.
async function pollUntil(c, taskId, done, withinMs = 240_000) {
  const seen = [];
  const end = Date.now() + withinMs;
  for (;;) {
    const t = await getTask(c, taskId);
    if (seen.at(-1) !== t.status) seen.push(t.status);
    if (done(t)) return { task: t, seen };
    assert.ok(Date.now() < end, `task ${taskId}: still ${t.status} after ${withinMs} ms (${JSON.stringify(t)})`);
    await new Promise((r) => setTimeout(r, Math.min(t.pollInterval ?? 1000, 250)));
  }
}

const terminal = (t) => ['completed', 'failed', 'cancelled'].includes(t.status);

function structured(r) {
  return r.structuredContent ?? JSON.parse(r.content[0].text);
}

// solverOf is the pid of a ccx running in the call's folder, or 0.
function solverOf(callId) {
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (!comm.startsWith('ccx')) continue;
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      if (cwd.includes(`/calls/${callId}`)) return { pid: Number(pid), cwd };
    } catch {
      // gone, or not ours to read
    }
  }
  return null;
}

async function waitSolver(callId, withinMs = 120_000) {
  const end = Date.now() + withinMs;
  for (;;) {
    const s = solverOf(callId);
    if (s) return s;
    assert.ok(Date.now() < end, `no ccx process for call ${callId} within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// beam makes the 200 x 20 x 5 mm aluminium cantilever's mesh and the
// run_fea arguments that load it.
async function beam(c, size) {
  const cad = structured(await plainCall(c, 'cadquery.create_parametric', {
    shape_type: 'box', parameters: { length: 200, width: 20, height: 5 }, material: 'aluminum_6061_t6',
  }));
  const mesh = structured(await plainCall(c, 'gmsh.generate_mesh', { input_file: cad.cad_file, element_order: 2, mesh_size_mm: size }));
  const byX = Object.entries(mesh.surface_sets).sort((a, b) => a[1].centroid_mm[0] - b[1].centroid_mm[0]);
  return {
    mesh_file: mesh.mesh_file, material: 'aluminum_6061_t6', fixed_node_set: byX[0][0], load_node_set: byX[byX.length - 1][0],
    load_force_n: 50, load_direction: [0, 0, -1], max_memory_mb: 8192,
  };
}

function feaFigures(r) {
  return { nodes: r.mesh_nodes, peak: r.max_von_mises_mpa, deflection: r.max_deflection_along_load_mm };
}

async function mainScenario() {
  const o = {};
  const a = await connect('metaforge-e2e-tasks-a', { token: cfg.tokenA });
  const b = await connect('metaforge-e2e-tasks-b', { token: cfg.tokenB });
  try {
    o.capabilities = a.getServerCapabilities();
    const tools = (await a.listTools()).tools;
    o.taskSupport = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport ?? null]));

    // The FEA as a task, next to the same FEA as a plain call.
    const args = await beam(a, 5);
    o.plain = feaFigures(structured(await plainCall(a, 'calculix.run_fea', args)));
    const created = await callTask(a, 'calculix.run_fea', args, 60_000);
    o.create = { ms: created.ms, task: created.task };
    const done = await pollUntil(a, created.task.taskId, terminal);
    o.feaSeen = done.seen;
    o.feaFinal = done.task;
    const res = await taskResult(a, created.task.taskId);
    o.feaResult = { figures: feaFigures(structured(res)), related: res._meta?.[RELATED] ?? null, callId: res._meta?.callId ?? null };

    // CreateTaskResult's latency over ten more tasks.
    o.createMs = [];
    for (let i = 0; i < 10; i++) o.createMs.push((await callTask(a, 'health.check', {})).ms);

    // A required tool called plainly is refused, naming the task form.
    o.requiredPlain = await errorOf(() => plainCall(a, 'twin.start_design_loop', { work_product_id: 'x', load_n: 1, deflection_limit_mm: 1 }));

    // Cancel a running solver.
    const fine = await beam(a, cfg.fineMesh);
    const long = await callTask(a, 'calculix.run_fea', fine);
    const solver = await waitSolver(long.task.taskId);
    const cancelledAt = performance.now();
    const cancelled = await cancelTask(a, long.task.taskId);
    o.cancel = { status: cancelled.status, message: cancelled.statusMessage ?? null, cwd: solver.cwd };
    while (fs.existsSync(`/proc/${solver.pid}`) && performance.now() - cancelledAt < 10_000) {
      await new Promise((r) => setTimeout(r, 20));
    }
    o.cancel.solverGoneMs = fs.existsSync(`/proc/${solver.pid}`) ? null : performance.now() - cancelledAt;
    o.cancel.folderKept = fs.existsSync(solver.cwd);
    o.cancel.result = await errorOf(() => taskResult(a, long.task.taskId));
    o.cancel.again = await errorOf(() => cancelTask(a, long.task.taskId));
    await new Promise((r) => setTimeout(r, 1500));
    o.cancel.after = (await getTask(a, long.task.taskId)).status;

    // Two tokens, two owners: neither sees the other's tasks.
    const bTask = (await callTask(b, 'health.check', {})).task;
    await pollUntil(b, bTask.taskId, terminal);
    const aIDs = [created.task.taskId, long.task.taskId];
    const listAll = async (c, want) => {
      const end = Date.now() + 30_000;
      for (;;) {
        const tasks = [];
        let cursor;
        do {
          const page = await listTasks(c, cursor);
          tasks.push(...page.tasks);
          cursor = page.nextCursor;
        } while (cursor);
        if (want.every((id) => tasks.some((t) => t.taskId === id)) || Date.now() > end) return tasks;
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const listedA = await listAll(a, aIDs);
    const listedB = await listAll(b, [bTask.taskId]);
    o.isolation = {
      aLists: listedA.map((t) => t.taskId), bLists: listedB.map((t) => t.taskId), aIDs, bID: bTask.taskId,
      aCreated: listedA.map((t) => t.createdAt),
      bGetsA: await errorOf(() => getTask(b, created.task.taskId)),
      bResultOfA: await errorOf(() => taskResult(b, created.task.taskId)),
      bCancelsA: await errorOf(() => cancelTask(b, created.task.taskId)),
      aGetsB: await errorOf(() => getTask(a, bTask.taskId)),
    };

    // A held write as a task, decided on the approvals REST.
    const name = `tasks-held-${Date.now()}`;
    const held = await callTask(a, 'project.create', { name });
    const waiting = await getTask(a, held.task.taskId);
    o.held = { created: held.task, waiting };
    const decision = await fetch(`${cfg.base}/v1/approvals/${held.task.taskId}/decision`, {
      method: 'POST', headers: { Authorization: `Bearer ${cfg.operator}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ decision: 'approve', approver: 'operator', comment: 'tasks e2e' }),
    });
    o.held.decisionStatus = decision.status;
    const heldDone = await pollUntil(a, held.task.taskId, terminal, 60_000);
    o.held.seen = heldDone.seen;
    const heldRes = await taskResult(a, held.task.taskId);
    o.held.approval = heldRes._meta?.approval ?? null;
    o.held.related = heldRes._meta?.[RELATED] ?? null;

    // A 2025-06-18 client: no tasks, a task field ignored, tasks/* unknown.
    const old = await connect('metaforge-e2e-tasks-old', { token: cfg.tokenA, revision: '2025-06-18' });
    try {
      o.old = { capabilities: old.getServerCapabilities() };
      o.old.execution = (await old.listTools()).tools.filter((t) => t.execution).length;
      const r = await old.request({ method: 'tools/call', params: { name: 'health.check', arguments: {} } }, CallToolResultSchema,
        { ...timeout, task: { ttl: 1000 } });
      o.old.callAnswered = { isError: r.isError ?? false, callId: r._meta?.callId ?? null, hasContent: (r.content ?? []).length > 0 };
      o.old.tasksGet = await errorOf(() => getTask(old, created.task.taskId));
    } finally {
      await old.close();
    }
  } finally {
    await a.close();
    await b.close();
  }
  return o;
}

async function elicitScenario() {
  const o = {};
  const c = await connect('metaforge-e2e-tasks-elicit', { token: cfg.operator, elicit: true });
  try {
    const name = `tasks-elicit-${Date.now()}`;
    const held = await callTask(c, 'project.create', { name });
    o.created = held.task;
    const waiting = await pollUntil(c, held.task.taskId, (t) => t.status !== 'working', 30_000);
    o.waiting = waiting.task;
    const res = await taskResult(c, held.task.taskId);
    o.asked = c.asked;
    o.result = { approval: res._meta?.approval ?? null, related: res._meta?.[RELATED] ?? null, project: structured(res) };
    o.final = (await getTask(c, held.task.taskId)).status;
  } finally {
    await c.close();
  }
  return o;
}

async function restartStart() {
  const c = await connect('metaforge-e2e-tasks-restart', { token: cfg.tokenA });
  try {
    const args = await beam(c, cfg.fineMesh);
    const t = await callTask(c, 'calculix.run_fea', args);
    await waitSolver(t.task.taskId);
    const now = await getTask(c, t.task.taskId);
    return { taskId: t.task.taskId, status: now.status };
  } finally {
    await c.close();
  }
}

async function restartResume() {
  const c = await connect('metaforge-e2e-tasks-resumed', { token: cfg.tokenA });
  try {
    const got = await getTask(c, cfg.taskId);
    const res = await taskResult(c, cfg.taskId);
    const after = await getTask(c, cfg.taskId);
    return {
      got, after,
      result: { isError: res.isError ?? false, related: res._meta?.[RELATED] ?? null, callId: res._meta?.callId ?? null, text: res.content?.[0]?.text?.slice(0, 300) ?? '' },
    };
  } finally {
    await c.close();
  }
}

await main(async () => {
  const run = { main: mainScenario, elicit: elicitScenario, 'restart-start': restartStart, 'restart-resume': restartResume }[cfg.mode];
  assert.ok(run, `unknown mode ${cfg.mode}`);
  emit(await run());
}, { timeoutMs: 900_000 });
