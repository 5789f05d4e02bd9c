import { LATEST_PROTOCOL_VERSION, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { assertError, challengeOf } from './helpers/assertions.ts';
import { FakeGitHub } from './helpers/fake-github.ts';
import { Clients, content, toolError } from './helpers/mcp.ts';
import { createNode, createVersion, startTestServer, waitForKey, type TestServer } from './helpers/server.ts';

const SAMPLE = fileURLToPath(new URL('../content-sample', import.meta.url));
const READ_TOOLS = ['list_versions', 'get_tree', 'get_topic', 'list_nodes', 'get_translation', 'get_translation_status', 'search', 'fetch', 'export_version', 'get_pdf_bundle', 'whoami', 'submit_feedback', 'get_attention', 'get_history'];
/** Shown to anonymous callers, yet not read-only: feedback, which is no content. */
const ANONYMOUS_WRITES = ['submit_feedback'];
const WRITE_TOOLS = [
  'create_version', 'update_version', 'duplicate_version', 'delete_version', 'create_node', 'update_node', 'delete_node', 'put_translation', 'delete_translation', 'reorder',
  'import_version', 'import_files', 'create_working_copy', 'create_publish_request', 'list_publish_requests', 'cancel_publish_request',
];
/** Tools that delete or replace what they are given, and those that reach the repository host. */
const DESTRUCTIVE = ['delete_version', 'delete_node', 'delete_translation', 'import_files', 'cancel_publish_request'];
const OPEN_WORLD = ['create_publish_request', 'list_publish_requests', 'cancel_publish_request'];
const ALLOWED = 'https://tools.example.com';
const CORS = 'https://app.example.com';
const BODY_LIMIT = 64 * 1024;

const call = (name: string, args: Record<string, unknown>, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'fetch', version: '1' } } };

/** `{ code }` of an HTTP failure the SDK client raises (StreamableHTTPError). */
const httpStatus = (status: number) => (err: unknown) => (err as { code?: number }).code === status;

describe('Tool server (MCP)', () => {
  let s: TestServer;
  let reader: string;
  const clients = new Clients(() => s);
  let origin: string;
  let metadata: string;

  before(async () => {
    s = await startTestServer({ sample: SAMPLE, env: { HELP_MCP_ALLOWED_ORIGINS: ALLOWED, HELP_CORS_ORIGINS: CORS, HELP_BODY_LIMIT: String(BODY_LIMIT) } });
    await createVersion(s, 'draft');
    await createNode(s, 'draft', { slug: 'secret', translations: { en: { title: 'Secret', bodyMd: 'Not yet.\n' } } });
    reader = await s.createKey({ name: 'reader', scopes: 'help:read' });
    await waitForKey(s, reader);
    origin = new URL(s.url).origin;
    metadata = `${origin}/.well-known/oauth-protected-resource/mcp`;
  });
  after(async () => {
    await clients.closeAll();
    await s.close();
  });

  test('anonymous callers are shown the read tools only', async () => {
    const anon = await clients.connect(null);
    const { tools } = await anon.listTools();
    assert.deepEqual(tools.map((t) => t.name), READ_TOOLS);
  });

  test('the server names itself with the service\'s version, as /metrics does', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    const anon = await clients.connect(null);
    assert.deepEqual(anon.getServerVersion(), { name: 'help-content-service', title: 'Help content', version });
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    assert.ok(metrics.includes(`help_build_info{version="${version}"`), 'the same version in help_build_info');
  });

  test('anonymous callers read published content; a draft does not exist for them', async () => {
    const anon = await clients.connect(null);
    const versions = content(await anon.callTool({ name: 'list_versions', arguments: {} })).versions;
    assert.deepEqual(versions.map((v: { slug: string }) => v.slug), ['v1']);
    assert.equal(content(await anon.callTool({ name: 'get_tree', arguments: { version: 'v1' } })).version.slug, 'v1');
    toolError(await anon.callTool({ name: 'get_tree', arguments: { version: 'draft' } }), 'not_found', { resource: 'version' });
    toolError(await anon.callTool({ name: 'get_topic', arguments: { version: 'draft', slug: 'secret' } }), 'not_found');
    toolError(await anon.callTool({ name: 'whoami', arguments: {} }), 'unauthorized');
    // A reader's key sees the draft.
    const withKey = await clients.connect(reader);
    assert.equal(content(await withKey.callTool({ name: 'get_topic', arguments: { version: 'draft', slug: 'secret' } })).bodyMd, 'Not yet.\n');
  });

  test('with a key, every tool is listed with its annotations and self-contained schemas', async () => {
    const client = await clients.connect(s.key);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), [...READ_TOOLS, ...WRITE_TOOLS]);
    // The service's own ajv settings, without its language-tag format: a format only it knows fails here.
    const ajv = new Ajv({ strict: true, allowUnionTypes: true });
    (addFormats as unknown as typeof addFormats.default)(ajv, ['date-time', 'date']);
    for (const tool of tools as Tool[]) {
      assert.ok(tool.title && tool.description && tool.description.length > 40, tool.name);
      const a = tool.annotations!;
      assert.equal(a.title, tool.title);
      if (READ_TOOLS.includes(tool.name) && !ANONYMOUS_WRITES.includes(tool.name)) {
        assert.deepEqual([a.readOnlyHint, a.openWorldHint], [true, false], tool.name);
      } else if (tool.name === 'list_publish_requests') {
        // It needs help:write, as its route does, but changes nothing.
        assert.deepEqual([a.readOnlyHint, a.openWorldHint], [true, true], tool.name);
      } else {
        assert.equal(a.readOnlyHint, false, tool.name);
        assert.equal(a.destructiveHint, DESTRUCTIVE.includes(tool.name), tool.name);
        assert.equal(a.openWorldHint, OPEN_WORLD.includes(tool.name), tool.name);
      }
      for (const schema of [tool.inputSchema, tool.outputSchema!]) {
        assert.equal(schema.type, 'object', tool.name);
        const text = JSON.stringify(schema);
        assert.doesNotMatch(text, /"\$id"|language-tag/, tool.name);
        const defs = (schema as { $defs?: Record<string, unknown> }).$defs ?? {};
        for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) {
          assert.match(ref, /^#\/\$defs\//, `${tool.name}: ${ref}`);
          assert.ok(ref.slice('#/$defs/'.length) in defs, `${tool.name}: ${ref} is defined`);
        }
        ajv.compile(schema);
      }
      assert.equal((tool.inputSchema as { additionalProperties?: boolean }).additionalProperties, false, tool.name);
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.equal(byName.get('put_translation')!.annotations!.idempotentHint, true);
    assert.equal(byName.get('update_version')!.annotations!.idempotentHint, true);
    assert.equal(byName.get('create_node')!.annotations!.idempotentHint, false);
    assert.deepEqual(byName.get('get_translation')!.inputSchema.required, ['version', 'slug', 'language']);
    assert.deepEqual(byName.get('search')!.inputSchema.required, ['q']);
    assert.deepEqual(Object.keys(byName.get('search')!.inputSchema.properties!).sort(), ['language', 'limit', 'offset', 'order', 'q', 'version']);
    assert.deepEqual(byName.get('fetch')!.inputSchema.required, ['id']);
    assert.deepEqual(Object.keys(byName.get('get_pdf_bundle')!.inputSchema.properties!).sort(), ['language', 'limit', 'topics', 'version']);
    assert.deepEqual(Object.keys(byName.get('import_version')!.inputSchema.properties!).sort(), ['document', 'dryRun', 'mode', 'nodes', 'redirects', 'removed', 'version']);
    // The tree's schema is recursive: its entries refer to themselves through $defs.
    const tree = byName.get('get_tree')!.outputSchema as unknown as { $defs: Record<string, any> };
    assert.equal(tree.$defs.TreeEntry.properties.children.items.$ref, '#/$defs/TreeEntry');
  });

  test('every read tool answers on the sample content what the REST API answers', async () => {
    const client = await clients.connect(s.key);
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['list_versions', {}, '/versions'],
      ['get_tree', { version: 'v1', language: 'de' }, '/versions/v1/tree?language=de'],
      ['get_topic', { version: 'v1', slug: 'create-account', language: 'de' }, '/versions/v1/topics/create-account?language=de'],
      ['list_nodes', { version: 'v1', include: 'bodies' }, '/versions/v1/nodes?include=bodies'],
      ['get_translation', { version: 'v1', slug: 'welcome', language: 'de' }, '/versions/v1/topics/welcome/translations/de'],
      ['search', { version: 'v1', q: 'project', order: 'document' }, '/versions/v1/search?q=project'],
      ['export_version', { version: 'v1' }, '/versions/v1/export'],
      ['get_pdf_bundle', { version: 'latest', lang: 'de', topics: 'getting-started', limit: '2' }, '/versions/latest/pdf-bundle?lang=de&topics=getting-started&limit=2'],
    ];
    for (const [name, args, path] of cases) {
      const viaTool = content(await client.callTool({ name, arguments: args }));
      const rest = await s.request('GET', path);
      assert.equal(rest.status, 200, rest.text);
      // Search hits carry the id fetch takes and the page beside the API's fields (see mcp-search.test.ts).
      if (name === 'search') viaTool.hits = viaTool.hits.map(({ id: _id, url: _url, ...hit }: Record<string, unknown>) => hit);
      assert.deepEqual(viaTool, name === 'list_versions' ? { versions: rest.body, nextCursor: null } : rest.body, name);
    }
    assert.ok(content(await client.callTool({ name: 'search', arguments: { version: 'v1', q: 'project', order: 'document' } })).hits.length > 0);
    assert.equal(content(await client.callTool({ name: 'get_pdf_bundle', arguments: { version: 'latest', lang: 'de', topics: 'getting-started', limit: '2' } })).entries.length, 3);
    const { lastUsedAt: _a, ...who } = content(await client.callTool({ name: 'whoami', arguments: {} }));
    const { lastUsedAt: _b, ...restWho } = (await s.request('GET', '/whoami')).body;
    assert.deepEqual(who, restWho);
    assert.equal(who.keyName, 'writer');
    // The same reads anonymously: published content, checked against the same output schemas.
    const anon = await clients.connect(null);
    for (const [name, args] of cases) assert.ok(content(await anon.callTool({ name, arguments: args })), name);
  });

  test('writes through tools are commits by the caller, visible over REST', async () => {
    const client = await clients.connect(s.key);
    const created = content(
      await client.callTool({ name: 'create_node', arguments: { version: 'draft', slug: 'from-tools', parentSlug: null, translations: { EN: { title: 'From tools', bodyMd: 'Made by a tool.\n' } } } }),
    );
    assert.equal(created.slug, 'from-tools');
    assert.deepEqual(Object.keys(created.translations), ['en'], 'language keys in canonical case');
    assert.equal(s.git('log', '-1', '--format=%an|%s', 'main').trim(), 'writer|Create topic from-tools in draft');
    const put = content(await client.callTool({ name: 'put_translation', arguments: { version: 'draft', slug: 'from-tools', lang: 'de', title: 'Aus Werkzeugen', bodyMd: 'Von einem Werkzeug.\n' } }));
    assert.equal(put.translation.created, true);
    assert.equal(s.git('log', '-1', '--format=%an|%s', 'main').trim(), 'writer|Add translation de/from-tools in draft');
    const rest = await s.request('GET', '/versions/draft/topics/from-tools?language=de');
    assert.equal(rest.status, 200, rest.text);
    assert.equal(rest.body.bodyMd, 'Von einem Werkzeug.\n');
    assert.equal(s.git('show', 'main:draft/de/from-tools.md').includes('Von einem Werkzeug.'), true);

    // expectedUpdatedAt works as in the REST body.
    const commits = s.commitCount();
    const stale = await client.callTool({ name: 'update_node', arguments: { version: 'draft', slug: 'from-tools', icon: 'rocket', expectedUpdatedAt: '2000-01-01T00:00:00.000Z' } });
    toolError(stale, 'stale_write', { currentUpdatedAt: put.translation.updatedAt });
    assert.equal(s.commitCount(), commits);
    const moved = content(await client.callTool({ name: 'update_node', arguments: { version: 'draft', slug: 'from-tools', icon: 'rocket', expectedUpdatedAt: put.translation.updatedAt } }));
    assert.equal(moved.icon, 'rocket');
    assert.equal(s.commitCount(), commits + 1);
  });

  test('every other write tool does what its REST route does', async () => {
    const client = await clients.connect(s.key);
    const version = content(await client.callTool({ name: 'create_version', arguments: { slug: 'tools', label: 'By tools', languages: ['en', 'DE'] } }));
    assert.deepEqual(version.languages, ['en', 'de']);
    const patched = content(await client.callTool({ name: 'update_version', arguments: { version: 'tools', label: 'Renamed', expectedUpdatedAt: version.updatedAt } }));
    assert.equal(patched.label, 'Renamed');
    toolError(await client.callTool({ name: 'update_version', arguments: { version: 'tools', label: 'Again', expectedUpdatedAt: version.updatedAt } }), 'stale_write');

    const imported = content(
      await client.callTool({
        name: 'import_version',
        arguments: { version: 'tools', mode: 'merge', nodes: [{ slug: 'a', translations: { en: { title: 'A' }, de: { title: 'A (de)' } } }, { slug: 'b', translations: { en: { title: 'B' } } }], dryRun: true },
      }),
    );
    assert.deepEqual([imported.dryRun, imported.diff.created], [true, ['a', 'b']]);
    assert.equal((await s.request('GET', '/versions/tools/nodes')).body.nodes.length, 0, 'a dry run writes nothing');
    const real = content(await client.callTool({ name: 'import_version', arguments: { version: 'tools', document: { nodes: [{ slug: 'a', translations: { en: { title: 'A' }, de: { title: 'A (de)' } } }, { slug: 'b', translations: { en: { title: 'B' } } }] } } }));
    assert.deepEqual([real.dryRun, real.mode, real.diff.created], [false, 'merge', ['a', 'b']]);
    toolError(await client.callTool({ name: 'import_version', arguments: { version: 'tools', nodes: [], document: { nodes: [] } } }), 'validation_failed');

    const reordered = content(await client.callTool({ name: 'reorder', arguments: { version: 'tools', items: [{ slug: 'a', parentSlug: 'b', sortOrder: 1 }] } }));
    assert.deepEqual(reordered.items, [{ slug: 'b', parentSlug: null, sortOrder: 1 }, { slug: 'a', parentSlug: 'b', sortOrder: 1 }]);
    const removedDe = content(await client.callTool({ name: 'delete_translation', arguments: { version: 'tools', slug: 'a', lang: 'de' } }));
    assert.deepEqual(removedDe, { ok: true, remainingLanguages: ['en'] });
    toolError(await client.callTool({ name: 'delete_translation', arguments: { version: 'tools', slug: 'a', lang: 'en' } }), 'primary_language_required');
    const copy = content(await client.callTool({ name: 'duplicate_version', arguments: { version: 'tools', slug: 'tools-copy' } }));
    assert.equal(copy.version.slug, 'tools-copy');
    const removed = content(await client.callTool({ name: 'delete_node', arguments: { version: 'tools', slug: 'b' } }));
    assert.deepEqual(removed, { ok: true, removed: ['b', 'a'] });
    assert.equal((await s.request('GET', '/versions/tools/nodes')).body.nodes.length, 0);
    assert.equal((await s.request('GET', '/versions/tools-copy/nodes')).body.nodes.length, 2);
    // Publishing through pull requests is off here: the working-copy tools answer as the API does.
    toolError(await client.callTool({ name: 'create_working_copy', arguments: { version: 'v1' } }), 'publishing_disabled');
    assert.equal(s.git('log', '-1', '--format=%an|%s', 'main').trim(), 'writer|Delete node b and 1 descendant(s) in tools');
  });

  test('a failing tool is a result with isError and the API\'s error body, naming the argument', async () => {
    const client = await clients.connect(s.key);
    toolError(await client.callTool({ name: 'get_tree', arguments: { version: 'nope' } }), 'not_found', { resource: 'version', version: 'nope' });
    toolError(await client.callTool({ name: 'get_topic', arguments: { version: 'v1', slug: 'Bad Slug' } }), 'validation_failed', { field: 'arguments/slug' });
    toolError(await client.callTool({ name: 'get_tree', arguments: {} }), 'validation_failed', { field: 'arguments/version' });
    toolError(await client.callTool({ name: 'get_tree', arguments: { version: 'v1', colour: 'red' } }), 'validation_failed', { field: 'arguments/colour' });
    toolError(await client.callTool({ name: 'get_translation', arguments: { version: 'v1', slug: 'welcome', language: 'not a language' } }), 'validation_failed', { field: 'arguments/language' });
    toolError(await client.callTool({ name: 'search', arguments: { version: 'v1' } }), 'validation_failed', { field: 'arguments/q' });
    toolError(await client.callTool({ name: 'get_pdf_bundle', arguments: { version: 'v1', limit: '500' } }), 'validation_failed', { field: 'arguments/limit' });
    const commits = s.commitCount();
    const err = toolError(await client.callTool({ name: 'create_node', arguments: { version: 'draft', slug: 'x', translations: { en: { title: '' } } } }), 'validation_failed');
    assert.equal(err.field, 'arguments/translations/en/title');
    // Fields the domain finds at fault are named as the tool's arguments, as the schema's are.
    toolError(await client.callTool({ name: 'create_node', arguments: { version: 'draft', slug: 'x', translations: { fr: { title: 'X' } } } }), 'language_not_enabled', { field: 'arguments/translations/fr' });
    toolError(await client.callTool({ name: 'put_translation', arguments: { version: 'draft', slug: 'secret', language: 'fr', title: 'X' } }), 'language_not_enabled', { field: 'arguments/language' });
    toolError(await client.callTool({ name: 'create_version', arguments: { slug: 'v1', label: 'Again', languages: ['en'] } }), 'conflict', { field: 'arguments/slug' });
    const pair = toolError(await client.callTool({ name: 'create_node', arguments: { version: 'draft', slug: 'x', translations: { en: { title: 'X' }, de: { bodyMd: 'Ohne Titel' } } } }), 'validation_failed');
    assert.equal(pair.field, 'arguments/translations/de/title');
    assert.match(pair.message, /^arguments\/translations\/de\/title /);
    toolError(await client.callTool({ name: 'put_translation', arguments: { version: 'draft', slug: 'secret', lang: 'en', title: 'T\ud800' } }), 'validation_failed', { field: 'arguments/title' });
    // A language the version lacks, given under the other name, is named as every tool names it.
    const misnamed = toolError(await client.callTool({ name: 'put_translation', arguments: { version: 'draft', slug: 'secret', lang: 'fr', title: 'X' } }), 'language_not_enabled', { field: 'arguments/language' });
    assert.doesNotMatch(misnamed.message, /arguments\/lang\b/);
    assert.equal(s.commitCount(), commits);
    // An unknown tool is a protocol error, as MCP asks.
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /no_such_tool/);
    // Its message says it once, without the SDK's "MCP error -32602:" inside it.
    const unknown = await clients.post(call('no_such_tool', {}, 9));
    assert.deepEqual(unknown.body.error, { code: -32602, message: 'No tool "no_such_tool"; tools/list names the tools' });
  });

  test('a write tool called without a credential is 401 with the challenge that starts sign-in', async () => {
    const anon = await clients.connect(null);
    const commits = s.commitCount();
    await assert.rejects(anon.callTool({ name: 'create_node', arguments: { version: 'draft', slug: 'anon', translations: { en: { title: 'Anon' } } } }), httpStatus(401));
    for (const message of [call('create_node', { version: 'draft', slug: 'anon', translations: { en: { title: 'Anon' } } }), [call('get_tree', { version: 'v1' }, 1), call('delete_node', { version: 'draft', slug: 'secret' }, 2)]]) {
      const res = await clients.post(message);
      assertError(res, 401, 'unauthorized');
      assert.deepEqual(challengeOf(res.headers), { resource_metadata: metadata, scope: 'help:read help:write' });
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    }
    assert.equal(s.commitCount(), commits);
    // Reads need no credential.
    const read = await clients.post(call('get_tree', { version: 'v1' }));
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.result.structuredContent.version.slug, 'v1');
  });

  test('a message that is not JSON-RPC, or whose params do not fit its method, gets the JSON-RPC code and a sentence naming what is wrong', async () => {
    const cases: Array<[unknown, number, number, RegExp]> = [
      [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_tree', arguments: 'x' } }, 200, -32602, /params\.arguments must be an object/],
      [{ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 5 } }, 200, -32602, /params\.name must be the name of a tool/],
      [{ jsonrpc: '2.0', id: 3, method: 'tools/call', params: null }, 200, -32602, /"params" must be an object/],
      [{ jsonrpc: '2.0', id: 4, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION } }, 200, -32602, /params\.capabilities/],
      [{ jsonrpc: '2.0', id: 8, method: 'tools/list', params: { cursor: [1] } }, 200, -32602, /params\.cursor must be the string/],
      // Methods named like properties every object has are unknown methods, like any other.
      ...['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf'].map((method, i): [unknown, number, number, RegExp] => [{ jsonrpc: '2.0', id: 20 + i, method }, 200, -32601, /not found/i]),
      [{ jsonrpc: '2.0', id: 30, method: 'resources/list' }, 200, -32601, /^Method not found: "resources\/list" \(this server answers initialize, ping, tools\/list, tools\/call\)$/],
      [{ jsonrpc: '2.0', id: 31, method: 'ping', extra: 1 }, 400, -32600, /"extra" is not a member of a JSON-RPC message \(it holds jsonrpc, id, method, params\)/],
      [{ jsonrpc: '2.0', id: 1.5, method: 'ping' }, 400, -32600, /"id" must be a string or an integer/],
      [{ jsonrpc: '2.0', id: 32, method: 'tools/list', params: { _meta: 'x' } }, 200, -32602, /params\._meta must be an object/],
      [{ jsonrpc: '2.0', id: 33, result: 5 }, 400, -32600, /"result" must be an object/],
      ['"initialize"', 400, -32600, /the body must be a JSON-RPC message/],
      [{}, 400, -32600, /"jsonrpc" must be "2\.0"/],
      [{ jsonrpc: '1.0', id: 5, method: 'tools/list' }, 400, -32600, /"jsonrpc" must be "2\.0"/],
      [{ jsonrpc: '2.0', id: 6 }, 400, -32600, /"method" must be a string/],
      [[], 400, -32600, /empty batch/],
      [`${'['.repeat(30_000)}${']'.repeat(30_000)}`, 400, -32600, /not other batches/],
    ];
    for (const [message, status, code, text] of cases) {
      const res = await clients.post(message);
      assert.equal(res.status, status, `${JSON.stringify(message)}: ${res.text}`);
      assert.equal(res.body.jsonrpc, '2.0');
      assert.equal(res.body.error.code, code, res.text);
      assert.match(res.body.error.message, text);
      assert.ok(res.body.error.message.length < 200, `a sentence, not a validator's dump: ${res.body.error.message}`);
      const id = (message as { id?: unknown })?.id;
      if (status === 200) assert.equal(res.body.id, id);
    }
    // Well-formed messages still go through.
    assert.equal((await clients.post(call('get_tree', { version: 'v1' }))).body.result.structuredContent.version.slug, 'v1');
    assert.equal((await clients.post(INITIALIZE)).body.result.serverInfo.name, 'help-content-service');
  });

  test('a key without help:write calling a write tool is 403 insufficient_scope', async () => {
    const client = await clients.connect(reader);
    assert.equal((await client.listTools()).tools.length, READ_TOOLS.length + WRITE_TOOLS.length);
    const commits = s.commitCount();
    await assert.rejects(client.callTool({ name: 'put_translation', arguments: { version: 'draft', slug: 'secret', lang: 'en', title: 'No' } }), httpStatus(403));
    const res = await clients.post(call('put_translation', { version: 'draft', slug: 'secret', lang: 'en', title: 'No' }), { authorization: `Bearer ${reader}` });
    assertError(res, 403, 'insufficient_scope', { required: 'help:write' });
    assert.deepEqual(challengeOf(res.headers), { error: 'insufficient_scope', resource_metadata: metadata, scope: 'help:read help:write' });
    assert.equal(s.commitCount(), commits);
  });

  test('an invalid credential is 401, also for reads', async () => {
    for (const authorization of ['Bearer hcs_neverIssuedToAnyone0123456789', 'Basic d3JpdGVyOnNlY3JldA==']) {
      const res = await clients.post(INITIALIZE, { authorization });
      assertError(res, 401, 'unauthorized');
      assert.deepEqual(challengeOf(res.headers), { error: 'invalid_token', resource_metadata: metadata, scope: 'help:read help:write' });
    }
    await assert.rejects(clients.connect('hcs_neverIssuedToAnyone0123456789'), httpStatus(401));
  });

  test('list_versions pages with limit and nextCursor, as GET /versions does with its Link header', async () => {
    const client = await clients.connect(s.key);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const page: { versions: Array<{ slug: string }>; nextCursor: string | null } = content(await client.callTool({ name: 'list_versions', arguments: { limit: '1', ...(cursor ? { cursor } : {}) } }));
      seen.push(...page.versions.map((v) => v.slug));
      cursor = page.nextCursor;
      if (cursor === null) break;
    }
    assert.deepEqual(seen, content(await client.callTool({ name: 'list_versions', arguments: {} })).versions.map((v: { slug: string }) => v.slug));
  });

  test('a page on an origin that is not allowed is 403; the own origin and allowed ones work', async () => {
    const refused = await clients.post(INITIALIZE, { origin: 'https://evil.example' });
    assertError(refused, 403, 'forbidden_origin', { origin: 'https://evil.example' });
    assertError(await clients.post(INITIALIZE, { origin: 'null' }), 403, 'forbidden_origin');
    for (const allowed of [origin, ALLOWED, CORS]) {
      const res = await clients.post(INITIALIZE, { origin: allowed });
      assert.equal(res.status, 200, `${allowed}: ${res.text}`);
      assert.equal(res.body.result.serverInfo.name, 'help-content-service');
    }
    const client = await clients.connect(s.key, { origin: ALLOWED });
    assert.equal(content(await client.callTool({ name: 'list_versions', arguments: {} })).versions.length > 0, true);
  });

  test('a page whose name was rebound to the service is refused, though its Origin and Host agree', async () => {
    const { port } = new URL(s.url);
    const send = (host: string) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { host, origin: `http://${host}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
          (res) => {
            let text = '';
            res.on('data', (chunk) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(INITIALIZE));
      });
    assertError(await send(`rebound.example:${port}`), 403, 'forbidden_origin');
    assert.equal((await send(`localhost:${port}`)).status, 200);
    assert.equal((await send(`127.0.0.1:${port}`)).status, 200);
  });

  test('pages on an allowed origin get the CORS grants of the tool endpoint, and of it only', async () => {
    const preflight = (path: string) =>
      fetch(new URL(path, s.url), { method: 'OPTIONS', headers: { origin: ALLOWED, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' } });
    const pre = await preflight('/mcp');
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), ALLOWED);
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /Authorization.*Mcp-Protocol-Version/);
    assert.doesNotMatch((await preflight('/help/v1/versions')).headers.get('access-control-allow-methods') ?? '', /POST/, 'the API keeps its own origins');
    const res = await clients.post(INITIALIZE, { origin: ALLOWED, authorization: `Bearer ${s.key}` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('access-control-allow-origin'), ALLOWED);
    assert.match(res.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
  });

  test('a client that accepts JSON, or says nothing of what it accepts, is answered; one that accepts neither JSON nor event streams is 406', async () => {
    const tools = { jsonrpc: '2.0', id: 7, method: 'tools/list' };
    for (const accept of [undefined, 'application/json', '*/*', 'text/html, application/json;q=0.9']) {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
      if (accept !== undefined) headers.accept = accept;
      const res = await fetch(clients.url(), { method: 'POST', headers, body: JSON.stringify(tools) });
      assert.equal(res.status, 200, `${accept}: ${res.status}`);
      const body = await res.json();
      assert.equal(body.id, 7);
      assert.ok(body.result.tools.some((t: { name: string }) => t.name === 'search'), accept);
    }
    const html = await fetch(clients.url(), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/html' }, body: JSON.stringify(tools) });
    assert.equal(html.status, 406);
  });

  test('GET and DELETE answer 405 as a stateless server does; bodies are JSON within the limit', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(clients.url(), { method, headers: { accept: 'text/event-stream' } });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
      assert.deepEqual(await res.json(), { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
    }
    const big = call('put_translation', { version: 'draft', slug: 'secret', lang: 'en', title: 'Big', bodyMd: 'x'.repeat(BODY_LIMIT) });
    assertError(await clients.post(big, { authorization: `Bearer ${s.key}` }), 413, 'payload_too_large', { limit: BODY_LIMIT });
    // JSON that does not parse is JSON-RPC's parse error, which a client's JSON-RPC layer reads.
    for (const text of ['{"jsonrpc":', '{"jsonrpc": "2.0", "__proto__": {}}']) {
      const bad = await clients.post(text, { authorization: `Bearer ${s.key}` });
      assert.equal(bad.status, 400, text);
      assert.equal(bad.body.jsonrpc, '2.0');
      assert.equal(bad.body.id, null);
      assert.equal(bad.body.error.code, -32700, text);
      assert.match(bad.body.error.message, /^Parse error: The request body (is not valid JSON: \S|holds a "__proto__" key)/, text);
    }
    assertError(await clients.post('method=initialize', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
  });
});

describe('Tool server (MCP) with publishing through pull requests', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let publisher: string;
  const clients = new Clients(() => s);

  before(async () => {
    gh = await new FakeGitHub().start();
    s = await startTestServer({
      env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url },
    });
    publisher = await s.createKey({ name: 'publisher', publisher: true });
    await waitForKey(s, publisher);
    await createVersion(s, 'live');
    await createNode(s, 'live', { slug: 'intro', translations: { en: { title: 'Intro', bodyMd: 'Live.\n' } } });
    const published = await s.request('PATCH', '/versions/live', { body: { status: 'published' }, key: publisher });
    assert.equal(published.status, 200, published.text);
  });
  after(async () => {
    await clients.closeAll();
    await s.close();
    await gh.stop();
  });

  test('published versions are locked over MCP as over REST; a publisher key writes them', async () => {
    const writer = await clients.connect(s.key);
    const commits = s.commitCount();
    const args = { version: 'live', slug: 'intro', lang: 'en', title: 'Intro', bodyMd: 'Changed.\n' };
    const locked = toolError(await writer.callTool({ name: 'put_translation', arguments: args }), 'published_read_only', { version: 'live' });
    // The way round, in the tool server's terms.
    assert.equal(locked.hint, 'create_working_copy with version "live", edit the copy ("live-wip"), then create_publish_request with version "live-wip"');
    assertError(await s.request('PUT', '/versions/live/topics/intro/translations/en', { body: { title: 'Intro', bodyMd: 'Changed.\n' } }), 403, 'published_read_only');
    toolError(await writer.callTool({ name: 'delete_node', arguments: { version: 'live', slug: 'intro' } }), 'published_read_only');
    assert.equal(s.commitCount(), commits);
    const pub = await clients.connect(publisher);
    assert.equal(content(await pub.callTool({ name: 'put_translation', arguments: args })).translation.bodyMd, 'Changed.\n');
    assert.equal(s.git('log', '-1', '--format=%an', 'main').trim(), 'publisher');
  });

  test('a working copy is edited and published with a pull request through the tools', async () => {
    const writer = await clients.connect(s.key);
    const opened = content(await writer.callTool({ name: 'create_working_copy', arguments: { version: 'live' } }));
    assert.deepEqual([opened.existed, opened.version.slug, opened.version.workingCopyOf], [false, 'live-wip', 'live']);
    assert.equal(content(await writer.callTool({ name: 'create_working_copy', arguments: { version: 'live' } })).existed, true);
    content(await writer.callTool({ name: 'put_translation', arguments: { version: 'live-wip', slug: 'intro', lang: 'en', title: 'Intro', bodyMd: 'Reviewed.\n' } }));
    const calls = gh.calls.length;
    const dry = content(await writer.callTool({ name: 'create_publish_request', arguments: { version: 'live-wip', dryRun: 'true' } }));
    assert.deepEqual([dry.dryRun, dry.targetSlug, dry.summary.slugs.updated], [true, 'live', ['intro']]);
    assert.equal(gh.calls.length, calls, 'a dry run does not call the repository host');
    const real = content(await writer.callTool({ name: 'create_publish_request', arguments: { version: 'live-wip' } }));
    assert.equal(real.dryRun, false);
    assert.equal(real.request.targetSlug, 'live');
    assert.equal(gh.pull(real.request.prNumber)?.title, 'Publish live');
    toolError(await writer.callTool({ name: 'create_publish_request', arguments: { version: 'live-wip' } }), 'request_open');
  });
});

describe('Tool server (MCP) settings', () => {
  test('HELP_MCP_PATH moves the endpoint, and HELP_PUBLIC_URL is the origin its challenge names', async () => {
    const s = await startTestServer({ env: { HELP_MCP_PATH: '/agents/mcp', HELP_PUBLIC_URL: 'https://help.example.com' } });
    try {
      const base = new URL(s.url).origin;
      const res = await fetch(`${base}/agents/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(call('create_version', { slug: 'x' })) });
      assert.equal(res.status, 401);
      assert.deepEqual(challengeOf(res.headers), { resource_metadata: 'https://help.example.com/.well-known/oauth-protected-resource/agents/mcp', scope: 'help:read help:write' });
      assert.equal((await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(INITIALIZE) })).status, 404);
      // The service's own origin is the public one: a page there may call.
      const own = await fetch(`${base}/agents/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'https://help.example.com' }, body: JSON.stringify(INITIALIZE) });
      assert.equal(own.status, 200, await own.text());
    } finally {
      await s.close();
    }
  });

  test('a tool-server request answers at most HELP_MCP_ANSWER_MCHARS million characters of text: larger exports, lists of bodies and bodies are 413, the rest answer', async () => {
    const s = await startTestServer({ env: { HELP_MCP_ANSWER_MCHARS: '1' } });
    const clients = new Clients(() => s);
    try {
      await createVersion(s, 'big', { status: 'published' });
      await createNode(s, 'big', { slug: 'long', translations: { en: { title: 'Long', bodyMd: 'word '.repeat(210_000) } } });
      const anon = await clients.connect(null);
      const refused = toolError(await anon.callTool({ name: 'export_version', arguments: { version: 'big' } }), 'limit_exceeded', { limit: 'mcp_answer_chars', max: 1_000_000 });
      assert.match(refused.message, /export_version of version "big" would answer 1\.1 M characters.*at most 1 M \(HELP_MCP_ANSWER_MCHARS\).*\/export/);
      const writer = await clients.connect(s.key);
      toolError(await writer.callTool({ name: 'list_nodes', arguments: { version: 'big', include: 'bodies' } }), 'limit_exceeded', { limit: 'mcp_answer_chars', max: 1_000_000 });
      assert.equal(content(await writer.callTool({ name: 'list_nodes', arguments: { version: 'big' } })).nodes[0].translations.en.bodyChars, 1_050_000);
      const body = toolError(await writer.callTool({ name: 'get_translation', arguments: { version: 'big', slug: 'long', language: 'en' } }), 'limit_exceeded', { limit: 'mcp_answer_chars', max: 1_000_000 });
      assert.match(body.message, /get_translation of version "big" would answer more than 1\.1 M characters.*at most 1 M \(HELP_MCP_ANSWER_MCHARS\).*GET the API's \/versions\/\{version\}\/topics\/\{slug\}\/translations\/\{language\}$/);
      // Just under the limit, the whole version is answered.
      await s.request('PUT', '/versions/big/topics/long/translations/en', { body: { title: 'Long', bodyMd: 'word '.repeat(190_000) } });
      assert.equal(content(await anon.callTool({ name: 'export_version', arguments: { version: 'big' } })).nodes.length, 1);
      assert.equal(content(await writer.callTool({ name: 'list_nodes', arguments: { version: 'big', include: 'bodies' } })).nodes[0].translations.en.bodyMd.length, 950_000);
      assert.equal(content(await writer.callTool({ name: 'get_translation', arguments: { version: 'big', slug: 'long', language: 'en' } })).bodyMd.length, 950_000);
    } finally {
      await clients.closeAll();
      await s.close();
    }
  });

  test('the settings are checked at start', () => {
    assert.equal(loadConfig({}).mcpPath, '/mcp');
    assert.equal(loadConfig({}).mcpAnswerChars, 4_000_000);
    assert.equal(loadConfig({ HELP_MCP_ANSWER_MCHARS: '64' }).mcpAnswerChars, 64_000_000);
    for (const bad of ['0', '-1', '1.5', 'lots', '1001']) assert.throws(() => loadConfig({ HELP_MCP_ANSWER_MCHARS: bad }), (err: unknown) => err instanceof ConfigError && /HELP_MCP_ANSWER_MCHARS/.test((err as Error).message), bad);
    assert.deepEqual([...loadConfig({ HELP_MCP_ALLOWED_ORIGINS: 'https://a.example/, http://localhost:6274' }).mcpAllowedOrigins], ['https://a.example', 'http://localhost:6274']);
    for (const path of ['mcp', '/mcp/', '/a/../b', '/help/v1/mcp', '/healthz', '/.well-known/mcp', '/m cp']) {
      assert.throws(() => loadConfig({ HELP_MCP_PATH: path }), (err: unknown) => err instanceof ConfigError && /HELP_MCP_PATH/.test((err as Error).message), path);
    }
    for (const value of ['*', 'https://a.example/path', 'not a url']) {
      assert.throws(() => loadConfig({ HELP_MCP_ALLOWED_ORIGINS: value }), (err: unknown) => err instanceof ConfigError && /HELP_MCP_ALLOWED_ORIGINS/.test((err as Error).message), value);
    }
  });
});
