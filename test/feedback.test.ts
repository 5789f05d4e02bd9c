import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FeedbackStore } from '../src/feedback/feedback-store.ts';
import { assertError } from './helpers/assertions.ts';
import { Clients, content, toolError } from './helpers/mcp.ts';
import { createNode, createVersion, startTestServer, waitForKey, type TestServer } from './helpers/server.ts';

// "Was this helpful?": the portal's form over plain HTTP (test/feedback-browser.test.ts posts it from
// Chromium), the API, the tool server; sizes and the limit per address; the listing and its
// summary; the file in the data directory across a restart.

/** Posts the portal's feedback form as a browser on the portal's own page would. */
async function postForm(s: TestServer, path: string, fields: Record<string, string> | string, headers: Record<string, string> = {}) {
  const origin = new URL(s.url).origin;
  const res = await fetch(`${origin}/support${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin, ...headers },
    body: typeof fields === 'string' ? fields : new URLSearchParams(fields).toString(),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function site(s: TestServer) {
  await createVersion(s, 'v1', { status: 'published', isLatest: true, languages: ['en', 'de'] });
  await createNode(s, 'v1', { slug: 'install', translations: { en: { title: 'Install', bodyMd: 'Get it.\n' }, de: { title: 'Installieren', bodyMd: 'Holen.\n' } } });
  await createNode(s, 'v1', { slug: 'configure', translations: { en: { title: 'Configure', bodyMd: 'Set it.\n' } } });
  await createVersion(s, 'next', { languages: ['en'] });
  await createNode(s, 'next', { slug: 'secret', translations: { en: { title: 'Secret' } } });
}

describe('Feedback on pages', () => {
  let s: TestServer;
  const clients = new Clients(() => s);
  before(async () => {
    s = await startTestServer({ env: { HELP_FEEDBACK_PER_HOUR: '1000' } });
    await site(s);
  });
  after(async () => {
    await clients.closeAll();
    await s.close();
  });

  test('the portal\'s form: 303 back to the page, at its thanks; kept as from the portal, in the page\'s language', async () => {
    const res = await postForm(s, '/v1/install/feedback', { helpful: 'no', comment: '  The download link is hard to find.  ', lang: 'de' });
    assert.equal(res.status, 303, res.text);
    assert.equal(res.headers.get('location'), '/support/v1/install?lang=de#feedback-sent');
    const latest = await postForm(s, '/latest/configure/feedback', { helpful: 'yes' });
    assert.equal(latest.headers.get('location'), '/support/latest/configure#feedback-sent');
    const listed = await s.request('GET', '/feedback?version=v1');
    assert.equal(listed.status, 200, listed.text);
    const [configure, install] = listed.body.entries;
    assert.deepEqual({ ...install, id: undefined, at: undefined }, { id: undefined, at: undefined, version: 'v1', slug: 'install', language: 'de', helpful: false, comment: 'The download link is hard to find.', source: 'portal' });
    assert.deepEqual([configure.slug, configure.helpful, configure.comment, configure.language], ['configure', true, null, 'en']);
  });

  test('the form refuses what a reader\'s browser would not send, each with a page that says why', async () => {
    const tooLong = await postForm(s, '/v1/install/feedback', { helpful: 'no', comment: 'x'.repeat(1001) });
    assert.equal(tooLong.status, 400);
    assert.match(tooLong.text, /form\/comment must be at most 1000 characters/);
    assert.match(tooLong.text, /<meta name="robots" content="noindex">/);
    // A browser counts a line break as one character for maxlength, and sends it as two.
    const lines = await postForm(s, '/v1/install/feedback', { helpful: 'no', comment: `${'a'.repeat(500)}\r\n${'b'.repeat(499)}` });
    assert.equal(lines.status, 303, lines.text.slice(0, 300));
    const noAnswer = await postForm(s, '/v1/install/feedback', { comment: 'hm' });
    assert.equal(noAnswer.status, 400);
    assert.match(noAnswer.text, /form\/helpful must be yes or no/);
    const huge = await postForm(s, '/v1/install/feedback', `helpful=no&comment=${'y'.repeat(20_000)}`);
    assert.equal(huge.status, 413);
    assert.match(huge.text, /larger than 16384 bytes/);
    assert.equal((await postForm(s, '/v1/nowhere/feedback', { helpful: 'no' })).status, 404);
    assert.equal((await postForm(s, '/next/secret/feedback', { helpful: 'no' })).status, 404, 'a draft is no page of the portal');
    const json = await postForm(s, '/v1/install/feedback', '{"helpful":false}', { 'content-type': 'application/json' });
    assert.equal(json.status, 415);
    const otherSite = await postForm(s, '/v1/install/feedback', { helpful: 'no', comment: 'spam' }, { origin: 'https://elsewhere.example' });
    assert.equal(otherSite.status, 403);
    assert.match(otherSite.text, /portal&#39;s own pages only/);
    const fetched = await postForm(s, '/v1/install/feedback', { helpful: 'no' }, { 'sec-fetch-site': 'cross-site' });
    assert.equal(fetched.status, 403);
    assert.equal(fetched.headers.get('content-security-policy')?.includes("default-src 'none'"), true);
    const entries = (await s.request('GET', '/feedback?version=v1&slug=install')).body.entries;
    assert.ok(!entries.some((e: { comment: string | null }) => e.comment === 'spam' || (e.comment ?? '').startsWith('x')), 'nothing refused was kept');
    assert.equal(entries.find((e: { comment: string | null }) => (e.comment ?? '').startsWith('aaa')).comment, `${'a'.repeat(500)}\n${'b'.repeat(499)}`);
  });

  test('the API takes feedback as JSON: up to 1,000 characters of comment, on a page the caller may read', async () => {
    const ok = await s.request('POST', '/versions/v1/topics/configure/feedback', { key: null, body: { helpful: false, comment: 'é'.repeat(1000), language: 'en' } });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual([ok.body.source, ok.body.comment.length, ok.body.language], ['api', 1000, 'en']);
    const long = await s.request('POST', '/versions/v1/topics/configure/feedback', { key: null, body: { helpful: false, comment: 'é'.repeat(1001) } });
    assertError(long, 400, 'validation_failed', { field: 'body/comment' });
    assertError(await s.request('POST', '/versions/v1/topics/configure/feedback', { key: null, body: { helpful: 'yes' } }), 400, 'validation_failed', { field: 'body/helpful' });
    assertError(await s.request('POST', '/versions/v1/topics/configure/feedback', { key: null, body: { helpful: true, language: 'fr' } }), 400, 'language_not_enabled', { field: 'body/language' });
    assertError(await s.request('POST', '/versions/next/topics/secret/feedback', { key: null, body: { helpful: true } }), 404, 'not_found', { resource: 'version' });
    // A writer may say something about a draft.
    assert.equal((await s.request('POST', '/versions/next/topics/secret/feedback', { body: { helpful: true } })).status, 200);
    const big = await s.request('POST', '/versions/v1/topics/configure/feedback', { key: null, body: { helpful: true, comment: 'z'.repeat(20_000) } });
    assertError(big, 413, 'payload_too_large');
  });

  test('agents send it through the tool server, anonymously too, and it is kept as from an agent', async () => {
    const anon = await clients.connect(null);
    const names = (await anon.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('submit_feedback') && names.includes('get_attention'), names.join(', '));
    const listed = (await anon.listTools()).tools.find((t) => t.name === 'submit_feedback')!;
    assert.equal(listed.annotations?.readOnlyHint, false, 'it changes something');
    const entry = content(await anon.callTool({ name: 'submit_feedback', arguments: { version: 'latest', slug: 'install', helpful: false, comment: 'No word on proxies.', language: 'de' } }));
    assert.deepEqual([entry.version, entry.source, entry.language, entry.comment], ['v1', 'agent', 'de', 'No word on proxies.']);
    toolError(await anon.callTool({ name: 'submit_feedback', arguments: { version: 'v1', slug: 'install', helpful: true, comment: 'c'.repeat(1001) } }), 'validation_failed', { field: 'arguments/comment' });
    toolError(await anon.callTool({ name: 'submit_feedback', arguments: { version: 'next', slug: 'secret', helpful: true } }), 'not_found');
    toolError(await anon.callTool({ name: 'get_attention', arguments: { version: 'v1' } }), 'unauthorized');
    const writer = await clients.connect(s.key);
    const attention = content(await writer.callTool({ name: 'get_attention', arguments: { version: 'latest', language: 'de' } }));
    assert.deepEqual([attention.version, attention.language], ['v1', 'de']);
  });

  test('GET /feedback: newest first, filtered, a page at a time, with votes per page; for callers who may read drafts', async () => {
    const fresh = await startTestServer({ env: { HELP_FEEDBACK_PER_HOUR: '1000' } });
    try {
      await site(fresh);
      const vote = (slug: string, helpful: boolean, comment?: string) => fresh.request('POST', `/versions/v1/topics/${slug}/feedback`, { key: null, body: { helpful, ...(comment ? { comment } : {}) } });
      for (const [slug, helpful, comment] of [['install', true], ['install', false, 'Too short'], ['install', false], ['configure', true, 'Nice'], ['install', true]] as const) {
        assert.equal((await vote(slug, helpful, comment)).status, 200);
      }
      const all = await fresh.request('GET', '/feedback');
      assert.deepEqual(all.body.entries.map((e: { slug: string; helpful: boolean }) => `${e.slug}:${e.helpful}`), ['install:true', 'configure:true', 'install:false', 'install:false', 'install:true']);
      assert.deepEqual(all.body.summary, [
        { version: 'v1', slug: 'install', yes: 2, no: 2, ratio: 0.5, comments: 1, lastAt: all.body.entries[0].at },
        { version: 'v1', slug: 'configure', yes: 1, no: 0, ratio: 1, comments: 1, lastAt: all.body.entries[1].at },
      ]);
      assert.equal(all.body.nextCursor, null);
      const first = await fresh.request('GET', '/feedback?version=v1&slug=install&limit=3');
      assert.deepEqual([first.body.entries.length, first.body.summary.length, first.body.summary[0].yes + first.body.summary[0].no], [3, 1, 4]);
      const second = await fresh.request('GET', `/feedback?version=v1&slug=install&limit=3&cursor=${first.body.nextCursor}`);
      assert.deepEqual([second.body.entries.length, second.body.nextCursor], [1, null]);
      assert.equal(new Set([...first.body.entries, ...second.body.entries].map((e: { id: string }) => e.id)).size, 4, 'no entry twice');
      const future = await fresh.request('GET', '/feedback?since=2999-01-01T00:00:00Z');
      assert.deepEqual([future.body.entries, future.body.summary], [[], []]);
      const since = await fresh.request('GET', `/feedback?since=${encodeURIComponent(all.body.entries[1].at)}`);
      assert.equal(since.body.entries.length, 2);
      assertError(await fresh.request('GET', '/feedback?since=yesterday'), 400, 'validation_failed', { field: 'query/since' });
      assertError(await fresh.request('GET', '/feedback?since=2026-12-31T23:59:60Z'), 400, 'validation_failed', { field: 'query/since' });
      assertError(await fresh.request('GET', '/feedback', { key: null }), 401, 'unauthorized');
      const writeOnly = await fresh.createKey({ name: 'write-only', scopes: 'help:write' });
      await waitForKey(fresh, writeOnly);
      assertError(await fresh.request('GET', '/feedback', { key: writeOnly }), 403, 'insufficient_scope', { required: 'help:read' });
    } finally {
      await fresh.close();
    }
  });
});

describe('Feedback is limited per address', () => {
  let s: TestServer;
  const clients = new Clients(() => s);
  before(async () => {
    s = await startTestServer({ env: { HELP_FEEDBACK_PER_HOUR: '3' } });
    await site(s);
  });
  after(async () => {
    await clients.closeAll();
    await s.close();
  });

  test('the portal, the API and the tool server draw on one allowance per address; beyond it, 429 with Retry-After', async () => {
    assert.equal((await postForm(s, '/v1/install/feedback', { helpful: 'yes' })).status, 303);
    assert.equal((await s.request('POST', '/versions/v1/topics/install/feedback', { key: null, body: { helpful: true } })).status, 200);
    const agent = await clients.connect(null);
    content(await agent.callTool({ name: 'submit_feedback', arguments: { version: 'v1', slug: 'install', helpful: true } }));
    const form = await postForm(s, '/v1/install/feedback', { helpful: 'no' });
    assert.equal(form.status, 429);
    assert.ok(Number(form.headers.get('retry-after')) > 0);
    assert.match(form.text, /sent 3 pieces of feedback within the hour/);
    // An address a client writes into X-Forwarded-For counts for nothing: no proxy is trusted.
    const api = await s.request('POST', '/versions/v1/topics/install/feedback', { key: null, body: { helpful: false }, headers: { 'x-forwarded-for': '203.0.113.9' } });
    assertError(api, 429, 'too_many_requests', { limit: 'HELP_FEEDBACK_PER_HOUR', max: 3 });
    assert.ok(Number(api.headers.get('retry-after')) > 0);
    // Refused before the body is looked at: a flood of malformed posts is limited too.
    assertError(await s.request('POST', '/versions/v1/topics/install/feedback', { key: null, body: { helpful: 'garbage' } }), 429, 'too_many_requests');
    toolError(await agent.callTool({ name: 'submit_feedback', arguments: { version: 'v1', slug: 'install', helpful: true } }), 'too_many_requests');
    assert.equal((await s.request('GET', '/feedback')).body.entries.length, 3);
  });
});

describe('Feedback is kept in the data directory', () => {
  test('it survives a restart, is never committed to the content repository, and new entries follow the old', async () => {
    let s = await startTestServer({ env: { HELP_FEEDBACK_PER_HOUR: '1000' } });
    try {
      await site(s);
      const commits = s.commitCount();
      for (const helpful of [true, false, false]) assert.equal((await s.request('POST', '/versions/v1/topics/install/feedback', { key: null, body: { helpful, comment: helpful ? undefined : 'Unclear' } })).status, 200);
      assert.equal(s.commitCount(), commits, 'no commit for feedback');
      const before = (await s.request('GET', '/feedback')).body;
      const file = join(s.dataDir, 'feedback.jsonl');
      assert.equal(readFileSync(file, 'utf8').trim().split('\n').length, 3);
      s = await s.restart();
      const after = (await s.request('GET', '/feedback')).body;
      assert.deepEqual(after, before);
      const next = await s.request('POST', '/versions/v1/topics/install/feedback', { key: null, body: { helpful: true } });
      assert.equal(Number(next.body.id), Math.max(...before.entries.map((e: { id: string }) => Number(e.id))) + 1);
      assert.ok(!s.git('ls-tree', '-r', '--name-only', 'main').includes('feedback'), 'nothing of it in the repository');
      assert.ok(existsSync(file));
    } finally {
      await s.close();
    }
  });
});

describe('The feedback file is bounded', () => {
  const unlimited = { take: () => 0 };
  const now = () => new Date().toISOString();

  test('past its size the oldest entries go, the newest stay, on disk as in memory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'help-test-'));
    try {
      const store = new FeedbackStore(dir, 20_000, unlimited, now);
      for (let i = 0; i < 200; i++) await store.add({ version: 'v1', slug: 'install', language: 'en', helpful: i % 2 === 0, comment: `comment ${i} ${'w'.repeat(400)}`, source: 'api' });
      const bytes = statSync(join(dir, 'feedback.jsonl')).size;
      assert.ok(bytes <= 20_000, `${bytes} bytes on disk`);
      const kept = store.page({}, 1000).entries;
      assert.ok(kept.length > 10 && kept.length < 200, `${kept.length} kept`);
      assert.equal(kept[0].id, '200', 'the newest is kept');
      assert.ok(kept[kept.length - 1].comment!.startsWith(`comment ${200 - kept.length} `), 'the oldest went first, none in between');
      const reloaded = new FeedbackStore(dir, 20_000, unlimited, now);
      assert.deepEqual(reloaded.page({}, 1000).entries, kept);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a line cut short by a crash is dropped at start, and the next entry starts on a line of its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'help-test-'));
    try {
      const store = new FeedbackStore(dir, 1_000_000, unlimited, now);
      await store.add({ version: 'v1', slug: 'install', language: null, helpful: true, comment: null, source: 'portal' });
      appendFileSync(join(dir, 'feedback.jsonl'), '{"id":"2","at":"2026-');
      const warnings: string[] = [];
      const again = new FeedbackStore(dir, 1_000_000, unlimited, now, (message) => warnings.push(message));
      assert.equal(warnings.length, 1);
      await again.add({ version: 'v1', slug: 'install', language: null, helpful: false, comment: 'after', source: 'portal' });
      const lines = readFileSync(join(dir, 'feedback.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual(lines.map((e) => [e.id, e.helpful]), [['1', true], ['2', false]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
