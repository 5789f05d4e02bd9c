import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { md, versionJson } from './helpers/content.ts';
import { FakeGitHub } from './helpers/fake-github.ts';
import { Clients, content, toolError } from './helpers/mcp.ts';
import { createNode, createVersion, startTestServer, waitForKey, type TestServer } from './helpers/server.ts';

/** `{ code }` of an HTTP failure the SDK client raises (StreamableHTTPError). */
const httpStatus = (status: number) => (err: unknown) => (err as { code?: number }).code === status;

/** The value of one series in Prometheus' text format, or undefined when it is absent. */
function series(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)\{(.*)\} (\S+)$/.exec(line);
    if (m && m[1] === name && wanted.every((w) => m[2].split(/,(?=\w+=")/).includes(w))) return Number(m[3]);
  }
  return undefined;
}

const files = (label: string) => [
  { path: 'version.json', content: versionJson({ label, languages: ['en'], nav: ['intro'] }) },
  { path: 'en/intro.md', content: md('Intro', 'From files.\n') },
];

describe('Tool server (MCP): arguments as an agent writes them', () => {
  let s: TestServer;
  let reader: string;
  const clients = new Clients(() => s);
  let tools: Tool[];

  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'old', { status: 'published' });
    await createVersion(s, 'cur', { status: 'published', isLatest: true });
    await createVersion(s, 'draft');
    for (const v of ['old', 'cur', 'draft']) {
      await createNode(s, v, { slug: 'intro', translations: { en: { title: `Intro ${v}`, bodyMd: 'Hello.\n' }, de: { title: `Einführung ${v}`, bodyMd: 'Hallo.\n' } } });
      await createNode(s, v, { slug: 'more' });
    }
    reader = await s.createKey({ name: 'reader', scopes: 'help:read' });
    await waitForKey(s, reader);
    tools = (await (await clients.connect(s.key)).listTools()).tools as Tool[];
  });
  after(async () => {
    await clients.closeAll();
    await s.close();
  });

  test('every input schema asks for numbers and flags as JSON integers and booleans, and for the language as "language"', () => {
    const byName = new Map(tools.map((t) => [t.name, t]));
    const type = (tool: string, arg: string) => (byName.get(tool)!.inputSchema.properties![arg] as { type?: unknown }).type;
    assert.deepEqual([type('list_versions', 'limit'), type('list_versions', 'includeWorkingCopies')], ['integer', 'boolean']);
    assert.equal(type('get_pdf_bundle', 'limit'), 'integer');
    assert.equal(type('search', 'limit'), 'integer');
    for (const tool of ['create_publish_request', 'import_version', 'import_files']) assert.equal(type(tool, 'dryRun'), 'boolean', tool);
    for (const tool of tools) {
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {}) as Array<[string, { enum?: unknown[]; pattern?: string }]>) {
        assert.notDeepEqual(schema.enum, ['true', 'false'], `${tool.name}.${name} is a boolean`);
        assert.ok(!/^\^\(\?:\[1-9\]/.test(schema.pattern ?? ''), `${tool.name}.${name} is an integer`);
      }
      assert.ok(!('lang' in (tool.inputSchema.properties ?? {})), `${tool.name} calls the language "language"`);
      // Each says it takes "latest" for the version, but the one that deletes it.
      const version = tool.inputSchema.properties?.version;
      if (version !== undefined) assert.equal(/or \\"latest\\"/.test(JSON.stringify(version)), tool.name !== 'delete_version', tool.name);
    }
    for (const tool of ['get_tree', 'get_topic', 'get_translation', 'search', 'get_pdf_bundle', 'put_translation', 'delete_translation']) {
      assert.ok('language' in byName.get(tool)!.inputSchema.properties!, tool);
    }
  });

  test('what holds for every tool is said once, in the instructions, not in each description', async () => {
    const client = await clients.connect(null);
    const instructions = client.getInstructions() ?? '';
    for (const rule of ['Anonymous callers see published versions only', 'published_read_only', '"latest"', '"language"', 'JSON numbers and booleans']) {
      assert.ok(instructions.includes(rule), rule);
    }
    for (const tool of tools) {
      assert.doesNotMatch(tool.description!, /Anonymous callers|help:read|published_read_only/, tool.name);
      assert.ok(tool.description!.length <= 350, `${tool.name}: ${tool.description!.length} characters`);
    }
  });

  test('integers and booleans are taken as JSON and as the text the routes take; other values are refused naming the argument', async () => {
    const client = await clients.connect(s.key);
    const list = async (args: Record<string, unknown>) => content(await client.callTool({ name: 'list_versions', arguments: args }));
    assert.deepEqual(await list({ limit: 2 }), await list({ limit: '2' }));
    assert.equal((await list({ limit: 2 })).versions.length, 2);
    assert.deepEqual(await list({ includeWorkingCopies: true }), await list({ includeWorkingCopies: 'true' }));
    const pdf = async (limit: unknown) => content(await client.callTool({ name: 'get_pdf_bundle', arguments: { version: 'cur', limit } })).entries.length;
    assert.deepEqual([await pdf(1), await pdf('1')], [1, 1]);
    const search = async (limit: unknown) => content(await client.callTool({ name: 'search', arguments: { q: 'intro', version: 'cur', limit } })).limit;
    assert.deepEqual([await search(1), await search('1')], [1, 1]);
    // A body's numbers and flags given as text are read as such.
    const commits = s.commitCount();
    const dry = content(await client.callTool({ name: 'import_version', arguments: { version: 'draft', dryRun: 'true', nodes: [] } }));
    assert.equal(dry.dryRun, true);
    assert.equal(s.commitCount(), commits, 'a dry run given as "true" writes nothing');
    const node = content(await client.callTool({ name: 'create_node', arguments: { version: 'draft', slug: 'typed', sortOrder: '2.5', translations: { en: { title: 'Typed' } } } }));
    assert.equal(node.sortOrder, 2.5);
    const refusals: Array<[string, Record<string, unknown>, string, string]> = [
      ['list_versions', { limit: 0 }, 'arguments/limit', 'arguments/limit must be a whole number from 1 to 1000'],
      ['list_versions', { limit: 2.5 }, 'arguments/limit', 'arguments/limit must be a whole number from 1 to 1000'],
      ['list_versions', { limit: [2] }, 'arguments/limit', 'arguments/limit must be a whole number from 1 to 1000'],
      ['list_versions', { includeWorkingCopies: 1 }, 'arguments/includeWorkingCopies', 'arguments/includeWorkingCopies must be true or false'],
      ['create_publish_request', { version: 'draft', dryRun: 'yes' }, 'arguments/dryRun', 'arguments/dryRun must be true or false'],
      ['import_version', { version: 'draft', dryRun: 'yes', nodes: [] }, 'arguments/dryRun', 'arguments/dryRun must be true or false'],
      ['create_node', { version: 'draft', slug: 'x', sortOrder: 'first', translations: { en: { title: 'X' } } }, 'arguments/sortOrder', 'arguments/sortOrder must be a number'],
    ];
    for (const [name, args, field, message] of refusals) {
      const err = toolError(await client.callTool({ name, arguments: args }), 'validation_failed', { field });
      assert.equal(err.message, message, name);
    }
  });

  test('"latest" is the version marked latest in every tool that names a version; delete_version refuses it', async () => {
    const client = await clients.connect(s.key);
    const call = async (name: string, args: Record<string, unknown>) => content(await client.callTool({ name, arguments: args }));
    const reads: Array<[string, Record<string, unknown>]> = [
      ['get_tree', { language: 'de' }],
      ['get_topic', { slug: 'intro' }],
      ['list_nodes', {}],
      ['get_translation', { slug: 'intro', language: 'de' }],
      ['export_version', {}],
      ['get_pdf_bundle', {}],
      ['search', { q: 'intro' }],
    ];
    for (const [name, args] of reads) assert.deepEqual(await call(name, { ...args, version: 'latest' }), await call(name, { ...args, version: 'cur' }), name);
    assert.equal((await call('fetch', { id: 'latest/en/intro' })).id, 'cur/en/intro');
    // Writes to "latest" write the version marked latest, and answer it by its slug.
    assert.equal((await call('update_version', { version: 'latest', label: 'Current' })).slug, 'cur');
    assert.equal((await call('put_translation', { version: 'latest', slug: 'intro', language: 'en', title: 'Intro now' })).translation.title, 'Intro now');
    assert.equal((await s.request('GET', '/versions/cur/topics/intro/translations/en')).body.title, 'Intro now');
    assert.equal((await call('create_node', { version: 'latest', slug: 'added', translations: { en: { title: 'Added' } } })).slug, 'added');
    assert.equal((await call('update_node', { version: 'latest', slug: 'added', icon: 'rocket' })).icon, 'rocket');
    assert.deepEqual((await call('delete_translation', { version: 'latest', slug: 'intro', language: 'de' })).remainingLanguages, ['en']);
    assert.deepEqual((await call('delete_node', { version: 'latest', slug: 'added' })).removed, ['added']);
    assert.equal((await call('reorder', { version: 'latest', items: [{ slug: 'more', parentSlug: null, sortOrder: -1 }] })).version, 'cur');
    assert.equal((await call('import_version', { version: 'latest', dryRun: true, nodes: [] })).version.slug, 'cur');
    assert.equal((await call('import_files', { version: 'latest', files: files('Current') })).version.slug, 'cur');
    assert.equal((await call('duplicate_version', { version: 'latest', slug: 'cur-copy' })).version.slug, 'cur-copy');
    assert.equal((await s.request('GET', '/versions/cur-copy/topics/intro/translations/en')).body.title, 'Intro now');
    const refused = toolError(await client.callTool({ name: 'delete_version', arguments: { version: 'latest' } }), 'validation_failed', { field: 'arguments/version' });
    assert.match(refused.message, /not "latest"/);
    assert.equal((await s.request('GET', '/versions/cur')).status, 200);
  });

  test('the language is "language" in every tool; "lang" is taken as the same argument', async () => {
    const client = await clients.connect(s.key);
    const call = async (name: string, args: Record<string, unknown>) => content(await client.callTool({ name, arguments: args }));
    const pairs: Array<[string, Record<string, unknown>]> = [
      ['get_tree', { version: 'old' }],
      ['get_topic', { version: 'old', slug: 'intro' }],
      ['get_translation', { version: 'old', slug: 'intro' }],
      ['search', { version: 'old', q: 'einführung' }],
      ['get_pdf_bundle', { version: 'old' }],
    ];
    for (const [name, args] of pairs) {
      const byLanguage = await call(name, { ...args, language: 'de' });
      assert.deepEqual(await call(name, { ...args, lang: 'de' }), byLanguage, name);
      assert.deepEqual(await call(name, { ...args, lang: 'de', language: 'de' }), byLanguage, name);
      toolError(await client.callTool({ name, arguments: { ...args, lang: 'en', language: 'de' } }), 'validation_failed', { field: 'arguments/language' });
    }
    assert.equal((await call('put_translation', { version: 'draft', slug: 'more', lang: 'de', title: 'Mehr' })).translation.language, 'de');
    assert.equal((await call('put_translation', { version: 'draft', slug: 'more', language: 'de', title: 'Noch mehr' })).translation.title, 'Noch mehr');
    assert.deepEqual((await call('delete_translation', { version: 'draft', slug: 'more', lang: 'de' })).remainingLanguages, ['en']);
    // A tool without a language does not take one under either name.
    toolError(await client.callTool({ name: 'list_nodes', arguments: { version: 'old', lang: 'de' } }), 'validation_failed', { field: 'arguments/language' });
  });

  test('import_files is a dry run unless told otherwise; delete_version deletes as DELETE /versions/{version} does', async () => {
    const client = await clients.connect(s.key);
    const commits = s.commitCount();
    const dry = content(await client.callTool({ name: 'import_files', arguments: { version: 'from-files', files: files('From files') } }));
    assert.deepEqual([dry.dryRun, dry.version.exists, dry.summary.created], [true, false, 1]);
    assert.equal(s.commitCount(), commits);
    assert.equal((await s.request('GET', '/versions/from-files')).status, 404);
    const real = content(await client.callTool({ name: 'import_files', arguments: { version: 'from-files', files: files('From files'), dryRun: false } }));
    assert.deepEqual([real.dryRun, real.version.status], [false, 'published']);
    assert.equal(s.commitCount(), commits + 1);
    assert.equal((await s.request('GET', '/versions/from-files/topics/intro/translations/en')).body.bodyMd, 'From files.\n');
    // The route's checks and error codes.
    const bad = toolError(await client.callTool({ name: 'import_files', arguments: { version: 'from-files', files: [{ path: 'en/intro.md', content: md('Intro') }] } }), 'invalid_content');
    assert.deepEqual(bad.errors, [{ path: 'version.json', message: 'no version.json among the files' }]);
    assert.deepEqual(content(await client.callTool({ name: 'delete_version', arguments: { version: 'from-files' } })), { ok: true });
    assert.equal((await s.request('GET', '/versions/from-files')).status, 404);
    assert.equal(s.git('log', '-1', '--format=%an', 'main').trim(), 'writer');
    toolError(await client.callTool({ name: 'delete_version', arguments: { version: 'from-files' } }), 'not_found', { resource: 'version' });
  });

  test('the new tools need help:write: hidden from anonymous callers, 403 for a key that only reads', async () => {
    const anon = await clients.connect(null);
    const shown = (await anon.listTools()).tools.map((t) => t.name);
    const readOnly = await clients.connect(reader);
    const commits = s.commitCount();
    const cases: Array<[string, Record<string, unknown>]> = [
      ['delete_version', { version: 'old' }],
      ['import_files', { version: 'old', files: files('X'), dryRun: false }],
      ['list_publish_requests', {}],
      ['cancel_publish_request', { id: '00000000-0000-0000-0000-000000000000' }],
    ];
    for (const [name, args] of cases) {
      assert.ok(!shown.includes(name), name);
      await assert.rejects(anon.callTool({ name, arguments: args }), httpStatus(401), name);
      await assert.rejects(readOnly.callTool({ name, arguments: args }), httpStatus(403), name);
    }
    assert.equal(s.commitCount(), commits);
    // Without publishing through pull requests, as over REST: no requests to list, none to cancel.
    const writer = await clients.connect(s.key);
    assert.deepEqual(content(await writer.callTool({ name: 'list_publish_requests', arguments: {} })), { requests: [] });
    toolError(await writer.callTool({ name: 'cancel_publish_request', arguments: { id: '00000000-0000-0000-0000-000000000000' } }), 'publishing_disabled');
  });

  test('tool calls are counted by tool and outcome; the build is in help_build_info', async () => {
    const scrape = async () => (await fetch(new URL('/metrics', s.url))).text();
    const before = await scrape();
    const count = (text: string, tool: string, outcome: string) => series(text, 'help_mcp_tool_calls_total', { tool, outcome }) ?? 0;
    const client = await clients.connect(null);
    for (let i = 0; i < 2; i++) content(await client.callTool({ name: 'get_tree', arguments: { version: 'cur' } }));
    toolError(await client.callTool({ name: 'get_tree', arguments: { version: 'draft' } }), 'not_found');
    toolError(await client.callTool({ name: 'get_tree', arguments: { version: 'Bad slug' } }), 'validation_failed');
    const text = await scrape();
    assert.equal(count(text, 'get_tree', 'ok'), count(before, 'get_tree', 'ok') + 2);
    assert.equal(count(text, 'get_tree', 'not_found'), count(before, 'get_tree', 'not_found') + 1);
    assert.equal(count(text, 'get_tree', 'validation_failed'), count(before, 'get_tree', 'validation_failed') + 1);
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.equal(series(text, 'help_build_info', { version, node: process.versions.node }), 1);
  });
});

describe('Tool server (MCP): publish requests', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let publisher: string;
  const clients = new Clients(() => s);

  before(async () => {
    gh = await new FakeGitHub().start();
    s = await startTestServer({ env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url } });
    publisher = await s.createKey({ name: 'publisher', publisher: true });
    await waitForKey(s, publisher);
    await createVersion(s, 'live');
    await createNode(s, 'live', { slug: 'intro' });
    const published = await s.request('PATCH', '/versions/live', { body: { status: 'published', isLatest: true }, key: publisher });
    assert.equal(published.status, 200, published.text);
  });
  after(async () => {
    await clients.closeAll();
    await s.close();
    await gh.stop();
  });

  test('a request is opened with a boolean dryRun, listed, refuses deleting its source, and is cancelled as over REST', async () => {
    const client = await clients.connect(s.key);
    const call = async (name: string, args: Record<string, unknown>) => content(await client.callTool({ name, arguments: args }));
    // The working copy of the version marked latest.
    assert.equal((await call('create_working_copy', { version: 'latest' })).version.slug, 'live-wip');
    await call('put_translation', { version: 'live-wip', slug: 'intro', language: 'en', title: 'Reviewed' });
    const calls = gh.calls.length;
    assert.equal((await call('create_publish_request', { version: 'live-wip', dryRun: true })).dryRun, true);
    assert.equal((await call('create_publish_request', { version: 'live-wip', dryRun: 'true' })).dryRun, true);
    assert.equal(gh.calls.length, calls, 'a dry run does not call the repository host');
    const { request } = await call('create_publish_request', { version: 'live-wip', dryRun: false });
    const listed = await call('list_publish_requests', {});
    assert.deepEqual(listed, (await s.request('GET', '/publish-requests')).body);
    assert.deepEqual(listed.requests.map((r: { id: string }) => r.id), [request.id]);
    assert.deepEqual((await call('list_publish_requests', { target: 'latest' })).requests.map((r: { id: string }) => r.id), [request.id]);
    assert.deepEqual((await call('list_publish_requests', { target: 'other' })).requests, []);
    // The version a request is open from is not deleted, as over REST.
    toolError(await client.callTool({ name: 'delete_version', arguments: { version: 'live-wip' } }), 'request_open');
    const cancelled = await call('cancel_publish_request', { id: request.id });
    assert.deepEqual([cancelled.request.id, cancelled.request.status], [request.id, 'closed']);
    assert.equal(gh.pull(request.prNumber)?.state, 'closed');
    toolError(await client.callTool({ name: 'cancel_publish_request', arguments: { id: request.id } }), 'request_not_open');
    toolError(await client.callTool({ name: 'cancel_publish_request', arguments: { id: 'not-an-id' } }), 'validation_failed', { field: 'arguments/id' });
    toolError(await client.callTool({ name: 'cancel_publish_request', arguments: { id: '00000000-0000-0000-0000-000000000000' } }), 'not_found');
    assert.deepEqual(content(await client.callTool({ name: 'delete_version', arguments: { version: 'live-wip' } })), { ok: true });
  });
});
