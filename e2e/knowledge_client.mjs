// Usage: E2E_KNOWLEDGE='{...}' node knowledge_client.mjs BINARY ARGS...
//
// Issue 26's knowledge and component path driven through MCP with the
// official TypeScript SDK, as an agent on this machine would, on the
// electronics profile (metaforge mcp over stdio, beside metaforge serve on
// the same data dir, so both see one knowledge base): three datasheets
// ingested with their tags, searched, their figures extracted, a BOM
// enriched with the purchase_unit filter; a catalogue indexed and searched
// by figures and by intent; the knowledge resources read. Prints one JSON
// line of what came back; knowledge_test.go checks it.
import assert from 'node:assert/strict';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { emit, main, newClient, toolCaller } from './scenario.mjs';

await main(async () => {
  const [command, ...args] = process.argv.slice(2);
  const input = JSON.parse(process.env.E2E_KNOWLEDGE ?? '{}');
  assert.ok(command && input.datasheets, 'usage: E2E_KNOWLEDGE=... node knowledge_client.mjs BINARY ARGS...');
  const client = newClient('metaforge-e2e-knowledge');
  await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' }));
  const o = {};
  try {
    const { call, must } = toolCaller(client, 120_000);
    o.tools = (await client.listTools()).tools.map((t) => t.name).sort();

    o.ingested = [];
    for (const d of input.datasheets) {
      o.ingested.push(await must('knowledge.ingest', {
        file_path: d.path,
        tags: { mpn: d.mpn, manufacturer: d.manufacturer, category: d.category, purchase_unit: d.purchase_unit },
      }));
    }
    o.again = await must('knowledge.ingest', { file_path: input.datasheets[0].path });
    o.search = await must('knowledge.search', { query: 'electrical characteristics switching frequency', tags: { category: 'buck-converter' } });
    o.nothing = await must('knowledge.search', { query: 'hiccup inductor', tags: { category: 'op-amp' } });
    o.extract = await must('knowledge.extract', { mpn: input.datasheets[0].mpn });
    o.bom = await must('knowledge.populate_bom', {
      purchase_unit: 'reel',
      lines: [{ ref: 'U1', mpn: input.datasheets[0].mpn }, { ref: 'U2', mpn: input.datasheets[1].mpn }, { ref: 'U9', mpn: 'NOPE-404' }],
    });

    o.indexed = await must('component.index_catalog', { file_path: input.catalogue });
    o.parametric = await must('component.search_parametric', {
      category: 'buck_converter', filters: ['v_out==5 V', 'i_out>=2000 mA', 'efficiency>0.9'],
    });
    o.empty = await must('component.search_parametric', { category: 'buck_converter', filters: ['v_out==48 V'] });
    o.intent = await must('component.search_intent', { goal: 'step 12V down to 5V at 2A for a flight controller' });
    o.badUnit = await call('component.search_parametric', { category: 'buck_converter', filters: ['v_out>=2 A'] });

    const read = async (uri) => JSON.parse((await client.readResource({ uri })).contents[0].text);
    o.sourcesResource = await read('metaforge://knowledge/sources');
    o.sourceResource = await read(`metaforge://knowledge/sources/${o.ingested[0].source_id}`);
  } finally {
    await client.close();
  }
  emit(o);
});
