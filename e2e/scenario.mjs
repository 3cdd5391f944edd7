// The scenario both e2e clients run against metaforge through the official
// MCP TypeScript SDK: initialize, tools/list, tools/call (a real call, a
// health check, bad arguments, an unknown tool), then call.get_result for
// the first call. Every expectation is a node:assert; the first one that
// fails ends the run with a non-zero exit and a message on stderr.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

export const REFERENCE_ARGS = {
  rails: [
    { name: '5V', voltage_v: 5, source_kind: 'supply', rated_output_ma: 1000 },
    { name: '3V3', voltage_v: 3.3, source_kind: 'ldo', input_rail: '5V', quiescent_ma: 10, rated_output_ma: 500 },
  ],
  loads: [{ name: 'mcu', rail: '3V3', current_ma: 200 }],
};

const EXPECTED_TOOLS = ['power.check_budget', 'health.check', 'call.get_result'];
const CALL_ID = /^[0-9a-f]{16}$/;
const INVALID_PARAMS = -32602;

// step runs one named expectation group so a failure says where it was.
async function step(name, fn) {
  try {
    return await fn();
  } catch (err) {
    err.message = `${name}: ${err.message}`;
    throw err;
  }
}

// expectMcpError calls fn and returns the McpError it must throw.
export async function expectMcpError(what, fn) {
  let result;
  try {
    result = await fn();
  } catch (err) {
    assert.ok(err instanceof McpError, `${what}: expected a JSON-RPC error (McpError), got ${err?.stack ?? err}`);
    return err;
  }
  assert.fail(`${what}: expected a JSON-RPC error, got a result: ${JSON.stringify(result)}`);
}

// toolCaller gives the solver scenarios their two ways to call a tool:
// call returns the structured result, or {error: {code, message}} for a
// JSON-RPC error or an isError result, so the Go side can check failures
// as data; must fails the run on any error.
export function toolCaller(client, timeoutMs) {
  const call = async (name, args) => {
    try {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs });
      if (r.isError) return { error: { code: r._meta?.error?.code, message: r.content?.[0]?.text ?? '' } };
      return r.structuredContent ?? JSON.parse(r.content[0].text);
    } catch (err) {
      if (err instanceof McpError) return { error: { code: err.code, message: err.message } };
      throw err;
    }
  };
  const must = async (name, args) => {
    const r = await call(name, args);
    assert.ok(!r.error, `${name}: ${JSON.stringify(r.error)}`);
    return r;
  };
  return { call, must };
}

function textOf(result) {
  return (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

// newClient is the SDK client both scripts use.
export function newClient(name) {
  return new Client({ name, version: '0.0.1' }, { capabilities: {} });
}

// runScenario connects client over transport and returns what it saw. The
// caller closes the client. The negotiated protocol version is captured
// through setProtocolVersion, which the SDK's Client calls after initialize.
export async function runScenario(client, transport, clientName) {
  const observed = { client: clientName };
  const transportErrors = [];

  let negotiated;
  const original = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    negotiated = v;
    original?.(v);
  };

  // Anything the transport could not parse (junk on a stdio server's
  // stdout, a broken SSE stream) surfaces here.
  client.onerror = (err) => transportErrors.push(String(err?.stack ?? err));

  await step('initialize', async () => {
    await client.connect(transport);
    const info = client.getServerVersion();
    assert.equal(info?.name, 'metaforge-mcp', `serverInfo.name: ${JSON.stringify(info)}`);
    assert.ok(info.version, 'serverInfo.version is empty');
    assert.ok(negotiated, 'no protocol version was negotiated');
    assert.ok(client.getServerCapabilities()?.tools, `the server declares no tools capability: ${JSON.stringify(client.getServerCapabilities())}`);
    observed.serverName = info.name;
    observed.serverVersion = info.version;
    observed.protocolVersion = negotiated;
    observed.instructions = client.getInstructions() ?? '';
  });

  await step('tools/list', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const want of EXPECTED_TOOLS) {
      assert.ok(names.includes(want), `tools/list lacks ${want}: ${JSON.stringify(names)}`);
    }
    for (const t of tools) {
      assert.ok(t.annotations && typeof t.annotations === 'object', `${t.name} has no annotations`);
      assert.equal(typeof t.annotations.readOnlyHint, 'boolean', `${t.name}: annotations.readOnlyHint ${JSON.stringify(t.annotations)}`);
      assert.equal(t.inputSchema?.type, 'object', `${t.name}: inputSchema.type`);
    }
    const budget = tools.find((t) => t.name === 'power.check_budget');
    assert.equal(budget.annotations.readOnlyHint, true, 'power.check_budget is read-only');
    assert.ok(budget.outputSchema, 'power.check_budget declares an outputSchema');
    observed.tools = names;
    observed.annotations = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
  });

  let budget;
  await step('tools/call power.check_budget', async () => {
    // The SDK validates structuredContent against the tool's outputSchema.
    const res = await client.callTool({ name: 'power.check_budget', arguments: REFERENCE_ARGS });
    assert.notEqual(res.isError, true, `isError result: ${textOf(res)}`);
    const sc = res.structuredContent;
    assert.ok(sc, 'no structuredContent');
    assert.equal(sc.rails?.[0]?.name, '5V');
    assert.equal(sc.rails[0].load_ma, 210, `5V load_ma: ${JSON.stringify(sc.rails[0])}`);
    assert.equal(sc.rails[1]?.name, '3V3');
    assert.equal(sc.rails[1].input_current_ma, 210, `3V3 input_current_ma: ${JSON.stringify(sc.rails[1])}`);
    assert.equal(sc.status, 'pass');
    assert.deepEqual(JSON.parse(textOf(res)), sc, 'the text content is the structured content as JSON');
    const callId = res._meta?.callId;
    assert.match(String(callId), CALL_ID, `_meta.callId: ${JSON.stringify(res._meta)}`);
    budget = sc;
    observed.budgetCallId = callId;
    observed.budgetStatus = sc.status;
    observed.upstreamLoadMa = sc.rails[0].load_ma;
    observed.ldoInputCurrentMa = sc.rails[1].input_current_ma;
  });

  await step('tools/call health.check', async () => {
    const res = await client.callTool({ name: 'health.check', arguments: {} });
    assert.notEqual(res.isError, true, `isError result: ${textOf(res)}`);
    const report = res.structuredContent ?? JSON.parse(textOf(res));
    assert.equal(report.service, 'metaforge-mcp');
    assert.ok(['healthy', 'degraded'].includes(report.status), `health status ${report.status}`);
    assert.equal(report.components?.temporal?.reachable, true, `temporal component: ${JSON.stringify(report.components?.temporal)}`);
    assert.match(String(res._meta?.callId), CALL_ID, `health.check _meta.callId: ${JSON.stringify(res._meta)}`);
    observed.healthCallId = res._meta.callId;
    observed.healthStatus = report.status;
    observed.temporalMode = report.components.temporal.mode;
  });

  await step('tools/call with bad arguments', async () => {
    const bad = structuredClone(REFERENCE_ARGS);
    bad.rails[0].voltage_v = 'five';
    const err = await expectMcpError('voltage_v "five"', () => client.callTool({ name: 'power.check_budget', arguments: bad }));
    assert.equal(err.code, INVALID_PARAMS, `code: ${err.message}`);
    assert.match(err.message, /voltage_v/, 'the message names the field');
    observed.badArgumentsCode = err.code;
    observed.badArgumentsMessage = err.message;
  });

  await step('tools/call an unknown tool', async () => {
    const err = await expectMcpError('power.check_budgte', () => client.callTool({ name: 'power.check_budgte', arguments: REFERENCE_ARGS }));
    assert.equal(err.code, INVALID_PARAMS, `code: ${err.message}`);
    assert.match(err.message, /did you mean[^?]*power\.check_budget/, 'the message suggests the tool');
    observed.unknownToolCode = err.code;
    observed.unknownToolMessage = err.message;
  });

  await step('tools/call call.get_result', async () => {
    const res = await client.callTool({ name: 'call.get_result', arguments: { call_id: observed.budgetCallId, wait_seconds: 10 } });
    assert.notEqual(res.isError, true, `isError result: ${textOf(res)}`);
    const outcome = res.structuredContent;
    assert.equal(outcome?.call_id, observed.budgetCallId);
    assert.equal(outcome.workflow_id, `call-${observed.budgetCallId}`);
    assert.equal(outcome.state, 'completed', `outcome: ${JSON.stringify(outcome)}`);
    assert.equal(outcome.tool_id, 'power.check_budget');
    assert.equal(outcome.result?.status, 'success', `result: ${JSON.stringify(outcome.result)}`);
    assert.deepEqual(outcome.result.data, budget, 'call.get_result returns the same data as the call');
    assert.match(String(res._meta?.callId), CALL_ID);
    assert.notEqual(res._meta.callId, observed.budgetCallId, 'call.get_result is a call of its own');
    observed.getResultState = outcome.state;
    observed.getResultCallId = res._meta.callId;
    observed.getResultSameData = true;
  });

  assert.deepEqual(transportErrors, [], 'the transport reported errors');
  return observed;
}

// emit prints the one JSON line of observations on stdout.
export function emit(observed) {
  process.stdout.write(JSON.stringify(observed) + '\n');
}

// main runs fn and turns a failed expectation (or any error) into exit
// status 1 with the reason on stderr. A watchdog ends a run that hangs.
export async function main(fn, { timeoutMs = 90_000 } = {}) {
  const watchdog = setTimeout(() => {
    process.stderr.write(`e2e client FAILED: no end after ${timeoutMs} ms\n`);
    process.exit(2);
  }, timeoutMs);
  watchdog.unref();
  try {
    await fn();
  } catch (err) {
    process.stderr.write(`e2e client FAILED: ${err?.stack ?? err}\n`);
    process.exitCode = 1;
  }
}
