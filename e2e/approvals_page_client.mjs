// Usage: node approvals_page_client.mjs MCP_URL PROJECT_NAME
//
// An untrusted MCP client of metaforge serve: the official MCP TypeScript
// SDK over Streamable HTTP, declaring no elicitation capability, so a write
// it asks for is held on the dashboard route until a person decides it on
// the Approvals page. It calls project.create {name: PROJECT_NAME}, waits
// (through the hold) for the answer, and prints one JSON line: the
// tools/call result as the SDK gave it, and the progress messages the hold
// sent meanwhile. Exits non-zero if the call fails or the transport
// reports an error.
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { emit, main, newClient } from './scenario.mjs';

const CLIENT_NAME = 'metaforge-e2e-approvals-page';

await main(
  async () => {
    const [url, name] = process.argv.slice(2);
    assert.ok(url && name, 'usage: node approvals_page_client.mjs MCP_URL PROJECT_NAME');
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = newClient(CLIENT_NAME);
    const transportErrors = [];
    client.onerror = (err) => transportErrors.push(String(err?.stack ?? err));
    try {
      await client.connect(transport); // newClient declares no capabilities: no elicitation
      const progress = [];
      const began = Date.now();
      // The hold lasts up to its window (180 s with a progress token); the
      // SDK's own 60 s default would give up first, so the timeout restarts
      // on each progress report the held call sends.
      const result = await client.callTool({ name: 'project.create', arguments: { name } }, undefined, {
        onprogress: (p) => progress.push(p.message ?? ''),
        resetTimeoutOnProgress: true,
        timeout: 30_000,
        maxTotalTimeout: 170_000,
      });
      assert.deepEqual(transportErrors, [], 'the transport reported errors');
      emit({
        client: CLIENT_NAME,
        sessionId: transport.sessionId ?? null,
        waitedMs: Date.now() - began,
        progress,
        result,
      });
    } finally {
      await client.close();
    }
  },
  { timeoutMs: 180_000 },
);
