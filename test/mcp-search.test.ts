import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isIso } from './helpers/assertions.ts';
import { Clients, content, toolError } from './helpers/mcp.ts';
import { createNode, createVersion, startTestServer, waitForKey, type TestServer } from './helpers/server.ts';

const SAMPLE = fileURLToPath(new URL('../content-sample', import.meta.url));

interface Hit {
  id: string;
  url: string | null;
  slug: string;
  title: string;
  snippet: string;
  heading?: { text: string; anchor: string } | null;
}

describe('Tool server (MCP): search and fetch', () => {
  let s: TestServer;
  let reader: string;
  let anon: Client;
  let origin: string;
  const clients = new Clients(() => s);
  const search = async (args: Record<string, unknown>, client = anon) => content(await client.callTool({ name: 'search', arguments: args }));
  const fetchTopic = async (id: unknown, client = anon) => content(await client.callTool({ name: 'fetch', arguments: { id } }));

  before(async () => {
    s = await startTestServer({ sample: SAMPLE });
    await createVersion(s, 'draft');
    await createNode(s, 'draft', { slug: 'secret', translations: { en: { title: 'Secret plans', bodyMd: 'Not yet announced.\n' } } });
    reader = await s.createKey({ name: 'reader', scopes: 'help:read' });
    await waitForKey(s, reader);
    origin = new URL(s.url).origin;
    anon = await clients.connect(null);
  });
  after(async () => {
    await clients.closeAll();
    await s.close();
  });

  test('search ranks by default: "slack" answers the Slack integration topic first, with its id and page', async () => {
    const answer = await search({ q: 'slack' });
    assert.deepEqual([answer.version, answer.language, answer.order, answer.limit, answer.offset], ['v1', 'en', 'relevance', 10, 0]);
    assert.ok(answer.total >= 1, JSON.stringify(answer));
    const [first] = answer.hits as Hit[];
    assert.deepEqual([first?.slug, first?.title], ['slack-integration', 'Slack integration']);
    assert.equal(first.id, 'v1/en/slack-integration');
    assert.ok(first.url?.startsWith(`${origin}/support/v1/slack-integration`), first.url ?? 'null');
    assert.match(first.snippet, /slack/i);
    // Besides the id and the page, the API's answer.
    const rest = await fetch(`${s.url}/versions/v1/search?q=slack&order=relevance`);
    assert.equal(rest.status, 200);
    assert.deepEqual({ ...answer, hits: answer.hits.map(({ id: _id, url: _url, ...hit }: Hit) => hit) }, await rest.json());
  });

  test('order "document" answers as the API does, each hit with its id and page', async () => {
    const answer = await search({ version: 'v1', q: 'project', order: 'document' });
    const rest = await s.request('GET', '/versions/v1/search?q=project', { key: null });
    assert.equal(rest.status, 200, rest.text);
    assert.deepEqual(answer.hits.map(({ id: _id, url: _url, ...hit }: Hit) => hit), rest.body.hits);
    assert.deepEqual({ ...answer, hits: [] }, { ...rest.body, hits: [] });
    for (const hit of answer.hits as Hit[]) {
      assert.equal(hit.id, `v1/en/${hit.slug}`);
      assert.equal(hit.url, `${origin}/support/v1/${hit.slug}`);
    }
  });

  test('limit and offset page through the ranking without repeats', async () => {
    const all = await search({ q: 'task', limit: 50 });
    assert.ok(all.total > 6, `enough hits to page: ${all.total}`);
    const seen: string[] = [];
    for (let offset = 0; offset < Math.min(all.total, 50); offset += 4) {
      const page = await search({ q: 'task', limit: 4, offset });
      assert.deepEqual([page.limit, page.offset, page.total], [4, offset, all.total]);
      assert.ok(page.hits.length <= 4);
      seen.push(...page.hits.map((h: Hit) => h.id));
    }
    assert.equal(new Set(seen).size, seen.length, `no hit twice: ${seen.join(', ')}`);
    assert.deepEqual(seen, all.hits.map((h: Hit) => h.id), 'the pages together are the ranking');
    assert.deepEqual((await search({ q: 'task', offset: 9999 })).hits, []);
    // Digits as the API takes them are read too.
    assert.equal((await search({ q: 'task', limit: '2' })).hits.length, Math.min(2, all.total));
  });

  test('search arguments are checked, each error naming its argument', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'arguments/q'],
      [{ q: '' }, 'arguments/q'],
      [{ q: 'x', limit: 0 }, 'arguments/limit'],
      [{ q: 'x', limit: 51 }, 'arguments/limit'],
      [{ q: 'x', limit: 2.5 }, 'arguments/limit'],
      [{ q: 'x', limit: true }, 'arguments/limit'],
      [{ q: 'x', offset: -1 }, 'arguments/offset'],
      [{ q: 'x', offset: 10_000 }, 'arguments/offset'],
      [{ q: 'x', order: 'best' }, 'arguments/order'],
      [{ q: 'x', order: 'document', limit: 5 }, 'arguments/limit'],
      [{ q: 'x', version: 'V 1' }, 'arguments/version'],
      [{ q: 'x', language: 'not a language' }, 'arguments/language'],
      // The language under both its names, differently.
      [{ q: 'x', language: 'de', lang: 'en' }, 'arguments/language'],
    ];
    for (const [args, field] of cases) toolError(await anon.callTool({ name: 'search', arguments: args }), 'validation_failed', { field });
    const limit = toolError(await anon.callTool({ name: 'search', arguments: { q: 'x', limit: 51 } }), 'validation_failed');
    assert.equal(limit.message, 'arguments/limit must be a whole number from 1 to 50');
    const version = toolError(await anon.callTool({ name: 'search', arguments: { q: 'x', version: 'V 1' } }), 'validation_failed');
    assert.match(version.message, /^arguments\/version must be lowercase letters and digits/);
    // `lang` is the language too, named in errors as every tool names it.
    toolError(await anon.callTool({ name: 'search', arguments: { q: 'x', lang: 'fr' } }), 'language_not_enabled', { field: 'arguments/language' });
    toolError(await anon.callTool({ name: 'search', arguments: { q: 'x', version: 'draft' } }), 'not_found', { resource: 'version' });
  });

  test('version left out is the version marked latest, and every read tool takes "latest"', async () => {
    const client = await clients.connect(s.key);
    assert.deepEqual(await search({ q: 'slack', order: 'document' }), await search({ q: 'slack', order: 'document', version: 'v1' }));
    const latest = await search({ q: 'slack', version: 'latest', order: 'document' });
    assert.equal(latest.version, 'v1');
    assert.ok(latest.hits.every((h: Hit) => h.id.startsWith('v1/')), 'ids name the version by its slug');
    const reads: Array<[string, Record<string, unknown>]> = [
      ['get_tree', { language: 'de' }],
      ['get_topic', { slug: 'slack-integration' }],
      ['list_nodes', {}],
      ['get_translation', { slug: 'welcome', language: 'de' }],
      ['export_version', {}],
      ['get_pdf_bundle', { topics: 'integrations' }],
    ];
    for (const [name, args] of reads) {
      const byLatest = content(await client.callTool({ name, arguments: { ...args, version: 'latest' } }));
      const bySlug = content(await client.callTool({ name, arguments: { ...args, version: 'v1' } }));
      assert.deepEqual(byLatest, bySlug, name);
    }
    const listed = await client.listTools();
    for (const tool of listed.tools.filter((t) => t.annotations?.readOnlyHint && t.inputSchema.properties?.version)) {
      assert.match(JSON.stringify(tool.inputSchema.properties!.version), /latest/, `${tool.name} says it takes "latest"`);
    }
  });

  test('fetch answers a search hit as Markdown with its title, page and metadata', async () => {
    const hit = ((await search({ q: 'slack', order: 'document' })).hits as Hit[]).find((h) => h.slug === 'slack-integration')!;
    const doc = await fetchTopic(hit.id);
    assert.equal(doc.id, 'v1/en/slack-integration');
    assert.equal(doc.title, 'Slack integration');
    assert.ok(doc.text.startsWith('# Slack integration\n\nGet project updates in Slack channels and create tasks without leaving Slack.\n\n## Connect Slack\n'), doc.text.slice(0, 200));
    assert.ok(doc.text.includes('/tasklane add Fix login redirect'), 'the whole body');
    assert.equal(doc.url, `${origin}/support/v1/slack-integration`);
    const { updatedAt, ...metadata } = doc.metadata;
    assert.ok(isIso(updatedAt), updatedAt);
    assert.deepEqual(metadata, {
      version: 'v1',
      versionLabel: 'Tasklane 1.x',
      language: 'en',
      slug: 'slack-integration',
      kind: 'topic',
      summary: 'Get project updates in Slack channels and create tasks without leaving Slack.',
      availableLanguages: ['en', 'de'],
      breadcrumbs: [{ slug: 'integrations', kind: 'section', title: 'Integrations' }],
    });
    const rest = await s.request('GET', '/versions/v1/topics/slack-integration/translations/en', { key: null });
    assert.equal(updatedAt, rest.body.updatedAt);
    // Another language of availableLanguages, and "latest" for the version.
    const de = await fetchTopic('latest/de/slack-integration');
    assert.deepEqual([de.id, de.title, de.metadata.language], ['v1/de/slack-integration', 'Slack-Integration', 'de']);
    assert.equal(de.url, `${origin}/support/v1/slack-integration?lang=de`);
    assert.ok(de.text.startsWith('# Slack-Integration\n\n'));
  });

  test('the url of a hit is a page the portal serves, at the section that matched', async () => {
    const ranked = (await search({ q: 'slash commands' })).hits as Hit[];
    const [hit] = ranked;
    assert.equal(hit?.slug, 'slack-integration', JSON.stringify(ranked));
    assert.deepEqual(hit.heading, { text: 'Slash commands', anchor: 'slash-commands' });
    assert.equal(hit.url, `${origin}/support/v1/slack-integration#slash-commands`);
    const hits = [...ranked, ...(await search({ q: 'slack', lang: 'de' })).hits, ...(await search({ q: 'project', order: 'document' })).hits];
    assert.ok(hits.some((h) => h.url?.includes('?lang=de')), 'a German hit links to the German page');
    for (const { url, title, heading } of hits) {
      const page = await fetch(url!);
      const html = await page.text();
      assert.equal(page.status, 200, url!);
      assert.ok(html.includes(title.replace(/&/g, '&amp;')), `${url} shows ${title}`);
      if (heading) {
        assert.ok(url!.endsWith(`#${encodeURIComponent(heading.anchor)}`), url!);
        assert.ok(html.includes(`id="${heading.anchor}"`), `${url}: the page has the anchor`);
      }
    }
  });

  test('a bad or unknown id is a tool error naming arguments/id', async () => {
    const malformed = ['', 'v1', 'v1/en', 'v1/en/slack-integration/x', '../../etc/passwd', '../en/welcome', 'v1/../welcome', 'V1/en/welcome', 'v1/e_n/welcome', 'v1/en/Welcome', 'v1/en/', '/en/welcome', 'v1/en/slack-integration%2F..', 'x'.repeat(300), 42, null, ['v1', 'en', 'welcome']];
    for (const id of malformed) {
      const err = toolError(await anon.callTool({ name: 'fetch', arguments: { id } }), 'validation_failed', { field: 'arguments/id' });
      assert.match(err.message, /^arguments\/id /, JSON.stringify(id));
      assert.ok(err.message.length < 300, `a sentence, not the id again: ${err.message}`);
    }
    toolError(await anon.callTool({ name: 'fetch', arguments: {} }), 'validation_failed', { field: 'arguments/id' });
    toolError(await anon.callTool({ name: 'fetch', arguments: { id: 'v1/en/welcome', version: 'v1' } }), 'validation_failed', { field: 'arguments/version' });
    const unknown: Array<[string, string]> = [
      ['v9/en/welcome', 'version'],
      ['v1/en/no-such-topic', 'node'],
      ['v1/fr/welcome', 'translation'],
      ['v1/de/webhooks', 'translation'],
      // A draft does not exist for anonymous callers.
      ['draft/en/secret', 'version'],
    ];
    for (const [id, resource] of unknown) {
      const err = toolError(await anon.callTool({ name: 'fetch', arguments: { id } }), 'not_found', { field: 'arguments/id', resource });
      assert.match(err.message, /^arguments\/id "[^"]+" names no topic: /);
    }
  });

  test('with a credential, drafts are searched and fetched; their pages are not in the portal', async () => {
    const client = await clients.connect(reader);
    const [hit] = (await search({ version: 'draft', q: 'secret', order: 'document' }, client)).hits as Hit[];
    assert.deepEqual([hit.id, hit.url], ['draft/en/secret', null]);
    const doc = await fetchTopic(hit.id, client);
    assert.deepEqual([doc.title, doc.url, doc.text], ['Secret plans', null, '# Secret plans\n\nNot yet announced.\n']);
    assert.equal((await fetch(`${origin}/support/draft/secret`)).status, 404);
  });

  test('ids keep naming the version searched once another is marked latest', async () => {
    const slackIn = async () => ((await search({ q: 'slack', order: 'document' })).hits as Hit[]).find((h) => h.slug === 'slack-integration')!;
    const before = await slackIn();
    await createVersion(s, 'v2', { status: 'published' });
    await createNode(s, 'v2', { slug: 'slack-integration', translations: { en: { title: 'Slack, the new way', bodyMd: 'Slack in v2.\n' } } });
    const marked = await s.request('PATCH', '/versions/v2', { body: { isLatest: true } });
    assert.equal(marked.status, 200, marked.text);
    const now = await slackIn();
    assert.deepEqual([now.id, now.url], ['v2/en/slack-integration', `${origin}/support/v2/slack-integration`]);
    assert.equal((await fetchTopic(before.id)).title, 'Slack integration');
    assert.equal((await fetchTopic('latest/en/slack-integration')).title, 'Slack, the new way');
    assert.equal(content(await anon.callTool({ name: 'get_topic', arguments: { version: 'latest', slug: 'slack-integration' } })).version, 'v2');
  });
});

describe('Tool server (MCP): search and fetch with no version marked latest, within HELP_MCP_ANSWER_MCHARS', () => {
  let s: TestServer;
  let anon: Client;
  const clients = new Clients(() => s);

  before(async () => {
    s = await startTestServer({ env: { HELP_MCP_ANSWER_MCHARS: '1' } });
    await createVersion(s, 'big', { status: 'published' });
    await createNode(s, 'big', { slug: 'long', translations: { en: { title: 'Long', bodyMd: 'word '.repeat(210_000) } } });
    anon = await clients.connect(null);
  });
  after(async () => {
    await clients.closeAll();
    await s.close();
  });

  test('a search that names no version, with none marked latest, is not_found naming arguments/version', async () => {
    const none = toolError(await anon.callTool({ name: 'search', arguments: { q: 'word' } }), 'not_found', { resource: 'version', field: 'arguments/version' });
    assert.match(none.message, /list_versions/);
    assert.equal(content(await anon.callTool({ name: 'search', arguments: { q: 'word', version: 'big' } })).hits[0].id, 'big/en/long');
  });

  test('fetch of a topic larger than the answer budget is refused before it is built; a smaller one answers', async () => {
    const refused = toolError(await anon.callTool({ name: 'fetch', arguments: { id: 'big/en/long' } }), 'limit_exceeded', { limit: 'mcp_answer_chars', max: 1_000_000 });
    assert.match(refused.message, /^fetch of "big\/en\/long" would answer 1\.1 M characters.*at most 1 M \(HELP_MCP_ANSWER_MCHARS\).*GET the API's \/versions\/\{version\}\/topics\/\{slug\}\/translations\/\{language\}$/);
    await s.request('PUT', '/versions/big/topics/long/translations/en', { body: { title: 'Long', bodyMd: 'word '.repeat(190_000) } });
    assert.equal(content(await anon.callTool({ name: 'fetch', arguments: { id: 'big/en/long' } })).text.length, '# Long\n\n'.length + 950_000);
  });
});
