import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/errors.ts';
import { assertError } from './assertions.ts';
import type { TestServer } from './server.ts';

/** Connections to the tool server of one test server, closed with it. */
export class Clients {
  private readonly open: Client[] = [];
  constructor(private readonly s: () => TestServer) {}

  /** The tool server's URL: /mcp beside the API's base path. */
  url = () => new URL('/mcp', this.s().url);

  /** The SDK's own client over Streamable HTTP; `key` null connects anonymously. */
  async connect(key: string | null, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    const auth: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
    await client.connect(new StreamableHTTPClientTransport(this.url(), { requestInit: { headers: { ...auth, ...headers } } }));
    this.open.push(client);
    // The client checks structured content against the output schemas it has listed.
    await client.listTools();
    return client;
  }

  /** A JSON-RPC message posted with plain fetch. */
  async post(message: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(this.url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, ...headers },
      body: typeof message === 'string' ? message : JSON.stringify(message),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text === '' ? undefined : JSON.parse(text) };
  }

  closeAll = () => Promise.all(this.open.map((c) => c.close()));
}

/** A successful tool result's structured content, after checking the text item holds the same JSON. */
export function content(result: unknown): any {
  const r = result as CallToolResult;
  assert.notEqual(r.isError, true, JSON.stringify(r.content));
  assert.equal(r.content[0].type, 'text');
  assert.deepEqual(JSON.parse((r.content[0] as { text: string }).text), r.structuredContent);
  return r.structuredContent;
}

/** A failed tool result's error object: `isError`, and the text is the REST API's error body. */
export function toolError(result: unknown, code: string, data: Record<string, unknown> = {}): any {
  const r = result as CallToolResult;
  assert.equal(r.isError, true, JSON.stringify(r));
  assert.equal(r.structuredContent, undefined);
  const body = JSON.parse((r.content[0] as { text: string }).text);
  return assertError({ status: ERROR_CATALOGUE[code as ErrorCode].status, body }, ERROR_CATALOGUE[code as ErrorCode].status, code, data);
}
