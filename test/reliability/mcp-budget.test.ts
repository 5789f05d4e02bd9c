import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { FakeGitHub } from '../helpers/fake-github.ts';
import { createNode, createVersion, startTestServer, waitForKey, type TestServer } from '../helpers/server.ts';

/**
 * What one request to the tool server may cost: a batch of exports sent anonymously in a few
 * kilobytes answered 200 with 198 MB, and four at once took a server down. Batches are refused or
 * share one answer budget, callers have a budget per minute, and requests answered at once are bounded.
 */

const NEW = '2025-11-25';
const OLD = '2025-03-26';
const TOPICS = 10;
/** 100 K characters a topic: the version is 1 M characters of text. */
const BODY = 'word '.repeat(20_000);
const MB = 1024 * 1024;

const exportCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'export_version', arguments: { version: 'big' } } });
const tools = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** Posts a JSON-RPC message or batch; `protocol` null sends no MCP-Protocol-Version. */
async function post(s: TestServer, message: unknown, opts: { protocol?: string | null; key?: string; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...opts.headers };
  const protocol = opts.protocol === undefined ? NEW : opts.protocol;
  if (protocol !== null) headers['mcp-protocol-version'] = protocol;
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const res = await fetch(new URL('/mcp', s.url), { method: 'POST', headers, body: JSON.stringify(message), signal: opts.signal ?? AbortSignal.timeout(30_000) });
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** The error body of a tool result with isError. */
const toolError = (result: { isError?: boolean; content: Array<{ text: string }> }) => {
  assert.equal(result.isError, true, JSON.stringify(result).slice(0, 300));
  return JSON.parse(result.content[0].text).error;
};

/** A published version of ten topics of 100 K characters each. */
async function bigVersion(s: TestServer): Promise<void> {
  await createVersion(s, 'big', { status: 'published' });
  for (let i = 0; i < TOPICS; i++) await createNode(s, 'big', { slug: `topic-${i}`, translations: { en: { title: `Topic ${i}`, bodyMd: BODY } } });
}

describe('Tool server answer budget', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_MCP_ANSWER_MCHARS: '4', HELP_MCP_CALLER_MCHARS: '1000' } });
    await bigVersion(s);
  });
  after(() => s.close());

  test('four anonymous requests at once, each a batch of 100 exports, are refused whatever protocol version the client speaks; memory stays flat and /healthz answers meanwhile', async () => {
    // The tool server loads on first use: loaded before memory is measured.
    assert.equal((await post(s, exportCall(1))).body.result.structuredContent.nodes.length, TOPICS);
    const batch = Array.from({ length: 100 }, (_, i) => exportCall(i + 1));
    assert.ok(JSON.stringify(batch).length < 12_000, 'one small request');
    const before = process.memoryUsage().rss;
    let peak = before;
    let slowest = 0;
    let done = false;
    const health = (async () => {
      while (!done) {
        const started = performance.now();
        const res = await fetch(new URL('/healthz', s.url), { signal: AbortSignal.timeout(30_000) });
        await res.arrayBuffer();
        assert.equal(res.status, 200);
        slowest = Math.max(slowest, performance.now() - started);
        peak = Math.max(peak, process.memoryUsage().rss);
        await sleep(20);
      }
    })();
    const answers = await Promise.all([NEW, '2025-06-18', OLD, null].map((protocol) => post(s, batch, { protocol })));
    peak = Math.max(peak, process.memoryUsage().rss);
    done = true;
    await health;
    assert.ok(peak - before < 100 * MB, `RSS grew by ${Math.round((peak - before) / MB)} MB`);
    assert.ok(slowest < 500, `/healthz took ${Math.round(slowest)} ms`);
    for (const [i, a] of answers.entries()) {
      assert.equal(a.status, 400, `request ${i}: ${a.status}, ${a.text.length} characters`);
      assert.equal(a.body.error.code, -32600);
      assert.equal(a.body.id, null);
    }
    assert.match(answers[0].body.error.message, /^Invalid Request: protocol version 2025-11-25 has no JSON-RPC batches \(MCP dropped them in 2025-06-18\); send each message in a request of its own$/);
    assert.match(answers[1].body.error.message, /protocol version 2025-06-18 has no JSON-RPC batches/);
    // Older clients (and those that say nothing, which the SDK takes as 2025-03-26) may batch, briefly.
    for (const a of answers.slice(2)) assert.match(a.body.error.message, /^Invalid Request: a batch holds at most 20 messages, this one 100/);
  });

  test('the calls of a batch from an older client share one answer budget: the answer stays within it, the calls past it are refused with limit_exceeded', async () => {
    const before = process.memoryUsage().rss;
    // Twenty messages: exports, and a notification, an answer to the server and a ping, which answer no text.
    const batch = [
      ...Array.from({ length: 17 }, (_, i) => exportCall(i + 1)),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'theirs', result: {} },
      { jsonrpc: '2.0', id: 99, method: 'ping' },
    ];
    const res = await post(s, batch, { protocol: OLD });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    // 4 M characters of text, each answered twice (text and structured content), and little else.
    assert.ok(res.text.length < 2.2 * 4_000_000, `${res.text.length} characters answered`);
    assert.ok(process.memoryUsage().rss - before < 150 * MB);
    const byId = new Map((res.body as Array<{ id: unknown; result?: any }>).map((a) => [a.id, a]));
    assert.deepEqual([...byId.keys()].sort(), [...Array.from({ length: 17 }, (_, i) => i + 1), 99].sort());
    assert.deepEqual(byId.get(99)!.result, {});
    const exports = Array.from({ length: 17 }, (_, i) => byId.get(i + 1)!.result);
    const answered = exports.filter((r) => r.isError !== true);
    // Each export is a little over 1 M characters: three fit in 4 M.
    assert.equal(answered.length, 3);
    for (const r of answered) assert.equal(r.structuredContent.nodes.length, TOPICS);
    for (const r of exports.filter((e) => e.isError === true)) {
      const error = toolError(r);
      assert.deepEqual([error.code, error.limit, error.max], ['limit_exceeded', 'mcp_answer_chars', 4_000_000]);
      assert.match(error.message, /^export_version of version "big" would answer 1 M characters of text, and the earlier calls of this request's batch took 3 M of the 4 M a tool-server request answers \(HELP_MCP_ANSWER_MCHARS\): send the call in a request of its own$/);
    }
    // Alone, each call is answered.
    assert.equal((await post(s, exportCall(1), { protocol: OLD })).body.result.structuredContent.nodes.length, TOPICS);
    // A batch longer than twenty is refused before anything runs; one of notifications only is taken (202).
    const long = await post(s, Array.from({ length: 21 }, (_, i) => tools(i + 1)), { protocol: OLD });
    assert.equal(long.status, 400);
    assert.match(long.body.error.message, /at most 20 messages, this one 21/);
    assert.equal((await post(s, Array.from({ length: 20 }, () => ({ jsonrpc: '2.0', method: 'notifications/initialized' })), { protocol: OLD })).status, 202);
    // Two requests with one id: the SDK would run both and answer one.
    const twice = await post(s, [exportCall(1), { jsonrpc: '2.0', id: 1, method: 'ping' }], { protocol: OLD });
    assert.equal(twice.status, 400);
    assert.match(twice.body.error.message, /^Invalid Request: the batch holds two requests with the id 1; give each its own$/);
  });

  test('an answer larger than the budget alone is refused whatever the tool, with the way round', async () => {
    const res = await post(s, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_pdf_bundle', arguments: { version: 'big' } } });
    assert.equal(res.status, 200);
    // get_pdf_bundle holds every body: the version's 1 M characters fit; make it 5 M and they do not.
    assert.notEqual(res.body.result.isError, true);
    for (let i = 0; i < TOPICS; i++) {
      const put = await s.request('PUT', `/versions/big/topics/topic-${i}/translations/de`, { body: { title: `Thema ${i}`, bodyMd: BODY.repeat(4) } });
      assert.equal(put.status, 200, put.text);
    }
    try {
      const bundle = await post(s, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_pdf_bundle', arguments: { version: 'big', lang: 'de' } } });
      const error = toolError(bundle.body.result);
      assert.deepEqual([error.code, error.limit, error.max], ['limit_exceeded', 'mcp_answer_chars', 4_000_000]);
      assert.match(error.message, /^get_pdf_bundle of version "big" would answer more than 4 M characters of text; a tool-server request answers at most 4 M \(HELP_MCP_ANSWER_MCHARS\), every call of a batch together: choose fewer topics/);
      const exported = toolError((await post(s, exportCall(3))).body.result);
      assert.match(exported.message, /^export_version of version "big" would answer 5 M characters of text; .*GET the API's \/export, which streams it/);
      // A write's answer is counted, never refused: the change is made, and the answer is its only record.
      const bodyMd = 'word '.repeat(900_000);
      const written = await post(s, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'put_translation', arguments: { version: 'big', slug: 'topic-0', lang: 'de', title: 'Thema 0', bodyMd } } }, { key: s.key });
      assert.equal(written.status, 200);
      assert.equal(written.body.result.structuredContent.translation.bodyMd.length, bodyMd.length);
    } finally {
      for (let i = 0; i < TOPICS; i++) await s.request('DELETE', `/versions/big/topics/topic-${i}/translations/de`);
    }
  });
});

describe('Tool server answers per caller and minute', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_MCP_CALLER_MCHARS: '3' } });
    await bigVersion(s);
  });
  after(() => s.close());

  test('past HELP_MCP_CALLER_MCHARS a call is refused with too_many_requests, then the caller is 429 with Retry-After until the minute ends; other callers are answered', async () => {
    for (const id of [1, 2]) assert.equal((await post(s, exportCall(id))).body.result.structuredContent.nodes.length, TOPICS);
    const third = toolError((await post(s, exportCall(3))).body.result);
    assert.deepEqual([third.code, third.limit, third.max], ['too_many_requests', 'mcp_caller_chars', 3_000_000]);
    assert.ok(third.retryAfter >= 1 && third.retryAfter <= 60, String(third.retryAfter));
    assert.match(third.message, /^export_version of version "big" would answer 1 M characters of text, and this caller was answered with 2 M of the 3 M the tool server answers one caller with per minute \(HELP_MCP_CALLER_MCHARS\): retry in \d+ s/);
    // Spent: anything else from this caller is refused before it is read.
    for (const message of [tools(4), exportCall(5)]) {
      const refused = await post(s, message);
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.body.error.code, 'too_many_requests');
      assert.equal(refused.body.error.limit, 'mcp_caller_chars');
      const retry = Number(refused.headers.get('retry-after'));
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    }
    // A key is a caller of its own.
    assert.equal((await post(s, exportCall(6), { key: s.key })).body.result.structuredContent.nodes.length, TOPICS);
    // Concurrent requests cannot all pass one check: of four at once, with room for two, two are answered.
    const reader = await s.createKey({ name: 'reader', scopes: 'help:read' });
    await waitForKey(s, reader);
    const four = await Promise.all([7, 8, 9, 10].map((id) => post(s, exportCall(id), { key: reader })));
    const results = four.filter((a) => a.status === 200).map((a) => a.body.result);
    assert.equal(results.filter((r) => r.isError !== true).length, 2, four.map((a) => a.text.slice(0, 120)).join('\n'));
  });
});

/** A service that publishes through the fake GitHub, with a publisher key, and `env` besides. */
async function publishingServer(gh: FakeGitHub, env: Record<string, string>): Promise<{ s: TestServer; publisher: string }> {
  const s = await startTestServer({ env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url, ...env } });
  const publisher = await s.createKey({ name: 'publisher', publisher: true });
  await waitForKey(s, publisher);
  return { s, publisher };
}

/** A published version of one topic with a working copy that changes it: what a publish request is made from. */
async function publishedWithCopy(s: TestServer, slug: string, publisher: string): Promise<void> {
  await createVersion(s, slug);
  await createNode(s, slug, { slug: 'intro', translations: { en: { title: 'Intro', bodyMd: 'Live.\n' } } });
  assert.equal((await s.request('PATCH', `/versions/${slug}`, { body: { status: 'published' }, key: publisher })).status, 200);
  assert.equal((await s.request('POST', `/versions/${slug}/working-copy`)).status, 201);
  assert.equal((await s.request('PUT', `/versions/${slug}-wip/topics/intro/translations/en`, { body: { title: 'Intro', bodyMd: 'Reviewed.\n' } })).status, 200);
}

describe('Tool-server requests answered at once', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  before(async () => {
    gh = await new FakeGitHub().start();
    // The test's requests stand for several clients' through a proxy of its own.
    const started = await publishingServer(gh, { HELP_MCP_CONCURRENCY: '2', HELP_MCP_CONCURRENCY_PER_ADDRESS: '1', HELP_TRUSTED_PROXIES: '127.0.0.1' });
    s = started.s;
    for (const slug of ['one', 'two']) await publishedWithCopy(s, slug, started.publisher);
  });
  after(async () => {
    await s.close();
    await gh.stop();
  });

  const from = (address: string) => ({ 'x-forwarded-for': address });
  const publish = (id: number, version: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_publish_request', arguments: { version } } });
  /** Posts until the answer has `status` (a slot is taken or released a moment after the client sees it). */
  async function until(status: number, send: () => Promise<Answer>): Promise<Answer> {
    let last: Answer | undefined;
    for (let i = 0; i < 100; i++) {
      last = await send();
      if (last.status === status) return last;
      await sleep(20);
    }
    assert.fail(`never ${status}: last ${last?.status} ${last?.text.slice(0, 200)}`);
  }
  const pullsOpened = () => gh.calls.filter((c) => c.method === 'POST' && /\/pulls$/.test(c.path)).length;

  test('beyond HELP_MCP_CONCURRENCY_PER_ADDRESS and HELP_MCP_CONCURRENCY requests are 429 with Retry-After; a slot comes back when its answer is sent, fails or its client leaves', async () => {
    // A slow repository host holds two requests in flight, from two addresses.
    gh.delayNext('GET', /\/git\/ref\//, 3_000);
    gh.delayNext('GET', /\/git\/ref\//, 3_000);
    const held = post(s, publish(1, 'one-wip'), { key: s.key, headers: from('10.0.0.1') });
    const leaving = new AbortController();
    const left = post(s, publish(2, 'two-wip'), { key: s.key, headers: from('10.0.0.2'), signal: leaving.signal }).catch((err: unknown) => err);
    // Per address: one at once.
    const perAddress = await until(429, () => post(s, tools(3), { headers: from('10.0.0.1') }));
    assert.equal(perAddress.body.error.code, 'too_many_requests');
    assert.equal(perAddress.body.error.limit, 'mcp_concurrency_per_address');
    assert.equal(perAddress.headers.get('retry-after'), '1');
    // In all: two at once, whatever the address.
    const total = await until(429, () => post(s, tools(4), { headers: from('10.0.0.3') }));
    assert.deepEqual([total.body.error.code, total.body.error.limit, total.body.error.max], ['too_many_requests', 'mcp_concurrency', 2]);
    assert.equal(total.headers.get('retry-after'), '1');
    // A client that leaves gives its slot back, though its call still runs.
    leaving.abort();
    assert.ok((await left) instanceof Error);
    assert.equal((await until(200, () => post(s, tools(5), { headers: from('10.0.0.3') }))).body.result.tools.length > 0, true);
    const answered = await held;
    assert.equal(answered.status, 200, answered.text);
    assert.equal(answered.body.result.structuredContent.request.targetSlug, 'one');
    // Answered: the address may send again, also after an answer that failed.
    assert.equal((await post(s, tools(6), { headers: from('10.0.0.1'), protocol: '1999-01-01' })).status, 400);
    assert.equal((await post(s, tools(7), { headers: from('10.0.0.1') })).status, 200);
    // The call whose client left finishes on its own.
    for (let i = 0; i < 200 && pullsOpened() < 2; i++) await sleep(25);
    assert.equal(pullsOpened(), 2);
  });
});

describe('Answers held at once by every tool-server request together', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  const HELD = 4;
  before(async () => {
    gh = await new FakeGitHub().start();
    // One request answers at most 1 M characters; all of them together at most 4 M.
    const started = await publishingServer(gh, { HELP_MCP_ANSWER_MCHARS: '1', HELP_MCP_CALLER_MCHARS: '1000', HELP_MCP_CONCURRENCY_PER_ADDRESS: '10' });
    s = started.s;
    const publisher = started.publisher;
    // 0.9 M characters: one export fits a request's budget.
    await createVersion(s, 'big');
    for (let i = 0; i < 9; i++) await createNode(s, 'big', { slug: `topic-${i}`, translations: { en: { title: `Topic ${i}`, bodyMd: BODY } } });
    assert.equal((await s.request('PATCH', '/versions/big', { body: { status: 'published' }, key: publisher })).status, 200);
    for (let i = 1; i <= HELD; i++) await publishedWithCopy(s, `p${i}`, publisher);
  });
  after(async () => {
    await s.close();
    await gh.stop();
  });

  test('answers built but not yet sent count against a bound for all requests together: past it a call is refused with too_many_requests, and the characters come back once those answers are sent', async () => {
    // Four batches each hold an export's 0.9 M characters while their other call waits on a slow repository host.
    for (let i = 0; i < HELD; i++) gh.delayNext('GET', /\/git\/ref\//, 3_000);
    const held = Array.from({ length: HELD }, (_, i) =>
      post(s, [exportCall(1), { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_publish_request', arguments: { version: `p${i + 1}-wip` } } }], { protocol: OLD, key: s.key }),
    );
    // The fifth export would bring what is held to 4.5 M.
    let refused: any;
    for (let i = 0; i < 100 && refused === undefined; i++) {
      const answer = await post(s, exportCall(3), { key: s.key });
      assert.equal(answer.status, 200, answer.text.slice(0, 200));
      if (answer.body.result.isError) refused = toolError(answer.body.result);
      else await sleep(20);
    }
    assert.ok(refused, 'an export was answered while four were held');
    assert.equal(refused.code, 'too_many_requests');
    assert.equal(refused.limit, 'mcp_answer_pool');
    assert.equal(refused.max, 4_000_000);
    assert.match(refused.message, /four times HELP_MCP_ANSWER_MCHARS/);
    for (const answer of await Promise.all(held)) {
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body.map((r: any) => r.result.isError ?? false), [false, false], answer.text.slice(0, 300));
    }
    // Sent: their characters are free again.
    const again = await post(s, exportCall(4), { key: s.key });
    assert.equal(again.body.result.isError ?? false, false, again.text.slice(0, 300));
    assert.equal(again.body.result.structuredContent.nodes.length, 9);
  });
});
