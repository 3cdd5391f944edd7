// Usage: node stdio_client.mjs BINARY ARGS...
//
// Starts BINARY ARGS... (e.g. metaforge mcp --data-dir DIR ...) as an MCP
// stdio server with the official MCP TypeScript SDK, runs the e2e scenario
// (scenario.mjs), and prints one JSON line of what it observed.
//
// With E2E_HOLD_STDIN=1 it then keeps the server running until a line (or
// EOF) arrives on its own stdin, so the caller can inspect the server (its
// embedded Temporal) first. Finally it closes the server's stdin and checks
// that the server exited by itself with status 0. Exits non-zero on any
// failed expectation.
import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { emit, main, newClient, runScenario } from './scenario.mjs';

function waitForStdinLine() {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin });
    const done = () => {
      rl.close();
      resolve();
    };
    rl.once('line', done);
    rl.once('close', done);
  });
}

await main(async () => {
  const [command, ...args] = process.argv.slice(2);
  assert.ok(command, 'usage: node stdio_client.mjs BINARY ARGS...');
  // stderr is inherited: the server's logs go to this process's stderr.
  const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
  const client = newClient('metaforge-e2e-stdio');
  let child;
  let exited;
  try {
    const observed = await runScenario(client, transport, 'metaforge-e2e-stdio');
    // The SDK keeps the child private; it is read here only to learn how
    // the server ended.
    child = transport._process;
    assert.ok(child, 'the transport has no child process');
    exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    observed.serverPid = child.pid;
    emit(observed);
    if (process.env.E2E_HOLD_STDIN === '1') {
      await waitForStdinLine();
    }
  } finally {
    // The SDK closes the server's stdin, waits 2 s, then SIGTERMs, waits
    // 2 s, then SIGKILLs.
    const started = Date.now();
    await client.close();
    if (exited) {
      const end = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 10_000).unref())]);
      assert.ok(end, 'the server did not exit within 10 s of stdin closing');
      const ms = Date.now() - started;
      assert.deepEqual(end, { code: 0, signal: null }, `the server's exit after its stdin closed (after ${ms} ms)`);
      // Past 2 s the SDK sent SIGTERM, which the server also handles with
      // status 0: say so, but only a wrong status fails.
      const how = ms < 2000 ? 'by itself' : 'possibly only after the SDK sent SIGTERM';
      process.stderr.write(`e2e stdio client: the server exited 0 ${how}, ${ms} ms after its stdin closed\n`);
    }
  }
});
