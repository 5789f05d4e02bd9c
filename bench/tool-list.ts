/**
 * What the tool server's tool list costs a model's context: `npx tsx bench/tool-list.ts`.
 *
 * A client puts the server's instructions and every tool of `tools/list` (name, title, description,
 * input and output schemas, annotations) into the model's context. No tokenizer is available offline,
 * so this counts what one can: characters and words of the compact JSON a client receives, and an
 * estimate of tokens at 4 characters a token (English prose comes out near it with the common
 * tokenizers, JSON nearer 3: the estimate is low, but before and after are estimated alike).
 * Figures are for a caller with help:write (every tool) and an anonymous one.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer } from '../test/helpers/server.ts';

const s = await startTestServer();
try {
  for (const key of [s.key, null]) {
    const client = new Client({ name: 'tool-list', version: '1' });
    const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', s.url), { requestInit: { headers } }));
    const { tools } = await client.listTools();
    const instructions = client.getInstructions() ?? '';
    const text = JSON.stringify(tools) + instructions;
    const words = text.split(/[^\p{L}\p{N}]+/u).filter(Boolean).length;
    const descriptions = tools.reduce((n, t) => n + (t.description?.length ?? 0), 0);
    console.log(
      `${key === null ? 'anonymous' : 'help:write'}: ${tools.length} tools, ${text.length} characters, ${words} words, ~${Math.round(text.length / 4)} tokens ` +
        `(descriptions ${descriptions} characters, instructions ${instructions.length})`,
    );
    await client.close();
  }
} finally {
  await s.close();
}
