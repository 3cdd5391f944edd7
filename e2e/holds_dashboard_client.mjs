// Usage: node holds_dashboard_client.mjs
//
// A scriptable MCP client for holds_dashboard_test.go: the official MCP
// TypeScript SDK over Streamable HTTP, with no elicitation capability, so
// every held write waits in the dashboard queue. The Go test drives it with
// one JSON command a line on stdin, and follows it through one JSON event a
// line on stdout:
//
//   {"id":"c","op":"connect","url":URL,"name":NAME,"headers":{...}}
//       -> {"id":"c","kind":"connected","protocolVersion":...,"sessionId":...,
//           "capabilities":{...the client's own...}}
//   {"id":"x","op":"call","name":TOOL,"arguments":{...},"progress":true,"timeoutMs":N}
//       -> {"id":"x","kind":"progress","progress":P,"total":T,"message":M} (each notification)
//       -> {"id":"x","kind":"result","result":{...},"elapsedMs":N}
//        | {"id":"x","kind":"error","error":{"mcp":true,"code":C,"message":M,"data":D},"elapsedMs":N}
//   {"id":"q","op":"close"} -> {"id":"q","kind":"closed"}, then exit 0
//
// Calls run concurrently: a call's command returns at once, its events come
// when they happen. Anything unexpected is {"kind":"fatal"} and exit 1.
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

function emit(ev) {
  process.stdout.write(JSON.stringify(ev) + '\n');
}

let client;
let transport;

async function connect(cmd) {
  const opts = {};
  if (cmd.headers) opts.requestInit = { headers: cmd.headers };
  transport = new StreamableHTTPClientTransport(new URL(cmd.url), opts);
  let negotiated;
  const original = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    negotiated = v;
    original?.(v);
  };
  // capabilities: {} — no elicitation, so holds go to the dashboard.
  const capabilities = {};
  client = new Client({ name: cmd.name ?? 'metaforge-e2e-holds-dashboard', version: '0.0.1' }, { capabilities });
  client.onerror = (err) => emit({ kind: 'transport_error', message: String(err?.message ?? err) });
  await client.connect(transport);
  emit({
    id: cmd.id,
    kind: 'connected',
    protocolVersion: negotiated ?? null,
    sessionId: transport.sessionId ?? null,
    serverName: client.getServerVersion()?.name ?? null,
    capabilities,
  });
}

async function call(cmd) {
  const began = Date.now();
  const options = { timeout: cmd.timeoutMs ?? 120_000 };
  if (cmd.progress) {
    options.onprogress = (p) => emit({ id: cmd.id, kind: 'progress', progress: p.progress, total: p.total ?? null, message: p.message ?? null, atMs: Date.now() - began });
    options.resetTimeoutOnProgress = true;
  }
  try {
    const result = await client.callTool({ name: cmd.name, arguments: cmd.arguments ?? {} }, undefined, options);
    emit({ id: cmd.id, kind: 'result', result, elapsedMs: Date.now() - began });
  } catch (err) {
    emit({
      id: cmd.id,
      kind: 'error',
      error: { mcp: err instanceof McpError, code: err?.code ?? null, message: String(err?.message ?? err), data: err?.data ?? null },
      elapsedMs: Date.now() - began,
    });
  }
}

const watchdog = setTimeout(() => {
  emit({ kind: 'fatal', message: 'no close command within 150 s' });
  process.exit(2);
}, 150_000);
watchdog.unref();

const rl = readline.createInterface({ input: process.stdin });
try {
  for await (const line of rl) {
    if (!line.trim()) continue;
    const cmd = JSON.parse(line);
    switch (cmd.op) {
      case 'connect':
        await connect(cmd);
        break;
      case 'call':
        call(cmd); // not awaited: calls run side by side
        break;
      case 'close':
        await client?.close();
        emit({ id: cmd.id, kind: 'closed' });
        process.exit(0);
      default:
        throw new Error(`unknown op ${JSON.stringify(cmd.op)}`);
    }
  }
} catch (err) {
  emit({ kind: 'fatal', message: String(err?.stack ?? err) });
  process.exit(1);
}
