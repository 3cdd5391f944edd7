// Usage: node http_client.mjs URL
//
// Runs the e2e scenario (scenario.mjs) against metaforge's MCP Streamable
// HTTP endpoint, e.g. http://127.0.0.1:8765/mcp, with the official MCP
// TypeScript SDK, and prints one JSON line of what it observed. Exits
// non-zero on any failed expectation.
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { emit, main, newClient, runScenario } from './scenario.mjs';

await main(async () => {
  const url = process.argv[2];
  assert.ok(url, 'usage: node http_client.mjs URL');
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = newClient('metaforge-e2e-http');
  try {
    const observed = await runScenario(client, transport, 'metaforge-e2e-http');
    observed.url = url;
    observed.sessionId = transport.sessionId ?? null;
    emit(observed);
  } finally {
    await client.close();
  }
});
