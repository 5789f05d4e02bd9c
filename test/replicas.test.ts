import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { KeyFile } from '../src/auth/key-file.ts';
import { revokeKey } from '../src/cli/keys.ts';
import { assertError } from './helpers/assertions.ts';
import { createNode, createVersion, putTranslation, startTestServer, waitForKey, type TestResponse, type TestServer } from './helpers/server.ts';

/**
 * Read replicas (docs/replicas.md): a primary and two replicas on loopback, each with its own data
 * directory, the replicas following the primary over its revision endpoint and content.git.
 */

/** Generous: the machine running the tests may be loaded; the benchmark measures the real lag. */
const WITHIN_MS = 5000;

const TOPIC = '/versions/v1/topics/intro?language=en';

function startReplica(primary: TestServer, key: string, env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ env: { HELP_REPLICA_OF: primary.url, HELP_REPLICA_KEY: key, HELP_REPLICA_POLL_MS: '100', HELP_REPLICA_KEY_CACHE_MS: '500', ...env } });
}

/** Polls `read` until `ok` holds of its answer; the milliseconds it took. */
async function until(read: () => Promise<TestResponse>, ok: (res: TestResponse) => boolean, within = WITHIN_MS): Promise<number> {
  const started = performance.now();
  for (;;) {
    const res = await read();
    if (ok(res)) return performance.now() - started;
    if (performance.now() - started > within) assert.fail(`not within ${within} ms; last answer ${res.status} ${res.text.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const revisionOf = (res: TestResponse) => res.headers.get('x-content-revision');

/** A GET as a browser behind the load balancer sends it: every replica is reached under the one public host name. */
function publicGet(s: TestServer, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(path.startsWith('/help/') || path.startsWith('/support') ? `${new URL(s.url).origin}${path}` : `${s.url}${path}`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host: 'help.example.com', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Polls a replica's /healthz until `ok` holds of its replication part. */
async function untilHealth(s: TestServer, key: string, ok: (r: Record<string, any>) => boolean, within: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const r = ((await (await rootGet(s, '/healthz', key)).json()) as { replication: Record<string, any> }).replication;
    if (ok(r)) return;
    if (Date.now() - started > within) assert.fail(`/healthz still says ${JSON.stringify(r)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The service's own GET (outside the API's base path, as /healthz). */
const rootGet = (s: TestServer, path: string, key?: string) => fetch(`${new URL(s.url).origin}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

describe('Read replicas', () => {
  let primary: TestServer;
  let one: TestServer;
  let two: TestServer;
  let readKey: string;
  let replicaKey: string;

  before(async () => {
    primary = await startTestServer();
    readKey = await primary.createKey({ name: 'reader', scopes: 'help:read' });
    replicaKey = await primary.createKey({ name: 'replica', scopes: 'help:read' });
    await waitForKey(primary, replicaKey);
    await createVersion(primary, 'v1', { status: 'published' });
    await createNode(primary, 'v1', { slug: 'intro', translations: { en: { title: 'Intro', bodyMd: 'First words\n' } } });
    await createVersion(primary, 'draft');
    await createNode(primary, 'draft', { slug: 'secret', translations: { en: { title: 'Not yet', bodyMd: 'Draft\n' } } });
    // One waits long for a revision asked for (the machine may be loaded), the other briefly (to see the 503 soon).
    [one, two] = await Promise.all([startReplica(primary, replicaKey, { HELP_REPLICA_MIN_REVISION_WAIT: '20' }), startReplica(primary, replicaKey, { HELP_REPLICA_MIN_REVISION_WAIT: '1' })]);
  });
  after(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await primary?.close();
  });

  test('a replica started from nothing clones the primary\'s repository and serves its content at its revision', async () => {
    // The replica's own repository is a clone: the same commit on main, the same tree.
    assert.equal(one.git('rev-parse', 'main').trim(), primary.git('rev-parse', 'main').trim());
    assert.equal(one.git('rev-parse', 'main^{tree}').trim(), primary.git('rev-parse', 'main^{tree}').trim());
    const [p, r] = await Promise.all([primary.request('GET', TOPIC, { key: null }), one.request('GET', TOPIC, { key: null })]);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, p.body);
    assert.match(revisionOf(p) ?? '', /^[0-9a-f]{40}$/);
    assert.equal(revisionOf(r), revisionOf(p));
    // Credentialed reads too, with the primary's key: the draft is there.
    const draft = await one.request('GET', '/versions/draft/topics/secret?language=en', { key: readKey });
    assert.equal(draft.status, 200, draft.text);
    assert.equal(draft.body.title, 'Not yet');
    // And not to anonymous callers, as on the primary.
    assert.equal((await one.request('GET', '/versions/draft/topics/secret', { key: null })).status, 404);
  });

  test('the same page has the same ETag and cache headers on the primary and on a replica', async () => {
    for (const path of [TOPIC, '/versions/v1/tree', '/versions', '/versions/v1/export', '/support/v1/intro']) {
      const [p, r] = await Promise.all([publicGet(primary, path), publicGet(two, path)]);
      assert.equal(p.status, 200, `${path}: ${p.body}`);
      assert.equal(r.status, 200, `${path}: ${r.body}`);
      assert.equal(r.body, p.body, path);
      for (const header of ['etag', 'cache-control', 'vary', 'x-content-revision']) assert.equal(r.headers[header], p.headers[header], `${path}: ${header}`);
      // A validator from the primary is good on the replica (a CDN in front of both sees one).
      const again = await publicGet(two, path, { 'if-none-match': String(p.headers.etag) });
      assert.equal(again.status, 304, path);
    }
  });

  test('a write on the primary is readable on both replicas within a second or so', async (t) => {
    const put = await putTranslation(primary, 'v1', 'intro', 'en', { title: 'Intro, changed', bodyMd: 'Second words\n' });
    assert.equal(put.status, 200, put.text);
    const revision = revisionOf(put)!;
    assert.equal(revision, primary.git('rev-parse', 'main').trim(), 'a write answers with the revision that holds it');
    const seen = await Promise.all(
      [one, two].map((replica) => until(() => replica.request('GET', TOPIC, { key: null }), (res) => res.status === 200 && res.body.title === 'Intro, changed' && revisionOf(res) === revision)),
    );
    t.diagnostic(`served by the replicas after ${seen.map((ms) => Math.round(ms)).join(' and ')} ms`);
    for (const ms of seen) assert.ok(ms < WITHIN_MS, `${ms} ms`);
    assert.equal(one.git('rev-parse', 'main').trim(), revision);
  });

  test('a replica\'s history lists the commits it fetched, as the primary\'s does', async () => {
    const put = await putTranslation(primary, 'v1', 'intro', 'en', { title: 'Intro, with history', bodyMd: 'Words for the history\n' });
    assert.equal(put.status, 200, put.text);
    const path = '/versions/v1/nodes/intro/history?language=en';
    const expected = (await primary.request('GET', path, { key: readKey })).body.history;
    assert.equal(expected[0].revision, revisionOf(put));
    for (const replica of [one, two]) {
      await until(() => replica.request('GET', path, { key: readKey }), (res) => res.status === 200 && JSON.stringify(res.body.history) === JSON.stringify(expected));
    }
    const versionLog = '/versions/v1/history?limit=50';
    assert.deepEqual((await one.request('GET', versionLog, { key: readKey })).body, (await primary.request('GET', versionLog, { key: readKey })).body);
  });

  test("a version the primary deletes takes its search report with it on a replica: one re-created under its slug starts with none", async () => {
    await createVersion(primary, 'short-lived');
    await createNode(primary, 'short-lived', { slug: 'page', translations: { en: { title: 'Zebra page', bodyMd: 'Stripes.\n' } } });
    const report = async () => (await one.request('GET', '/versions/short-lived/search-report', { key: primary.key })).body;
    await until(() => one.request('GET', '/versions/short-lived/search?q=zebra', { key: readKey }), (res) => res.status === 200 && res.body.hits.length === 1);
    assert.ok((await report()).searches >= 1, 'the replica counted the search it answered');

    assert.equal((await primary.request('DELETE', '/versions/short-lived')).status, 200);
    await until(() => one.request('GET', '/versions/short-lived', { key: readKey }), (res) => res.status === 404);
    await createVersion(primary, 'short-lived');
    await until(() => one.request('GET', '/versions/short-lived', { key: readKey }), (res) => res.status === 200);
    const fresh = await report();
    assert.deepEqual([fresh.searches, fresh.distinctQueries, fresh.top], [0, 0, []]);
  });

  test('X-Min-Revision reads your own write: the replica waits for it, then answers it; one it never gets is 503 with Retry-After', async () => {
    const put = await putTranslation(primary, 'v1', 'intro', 'en', { title: 'Read your write', bodyMd: 'Third words\n' });
    const revision = revisionOf(put)!;
    // At once, without polling: the read waits until the replica serves the write.
    const read = await one.request('GET', TOPIC, { key: null, headers: { 'x-min-revision': revision }, timeout: 30_000 });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.title, 'Read your write');
    assert.equal(revisionOf(read), revision);
    // The query parameter works alike, and the answer is the plain URL's (the same validator).
    const put2 = await putTranslation(primary, 'v1', 'intro', 'en', { title: 'Read it again', bodyMd: 'Fourth words\n' });
    const viaQuery = await one.request('GET', `${TOPIC}&minRevision=${revisionOf(put2)}`, { key: null, timeout: 30_000 });
    assert.equal(viaQuery.body.title, 'Read it again');
    assert.equal(viaQuery.headers.get('etag'), (await one.request('GET', TOPIC, { key: null })).headers.get('etag'));
    // An older revision (in the history of the one served) is satisfied at once.
    assert.equal((await one.request('GET', TOPIC, { key: null, headers: { 'x-min-revision': revision } })).status, 200);
    // A revision the replica never gets: 503 after the wait (1 s here), with Retry-After.
    const unknown = await two.request('GET', TOPIC, { key: null, headers: { 'x-min-revision': 'f'.repeat(40) } });
    assertError(unknown, 503, 'revision_not_available', { revision: 'f'.repeat(40) });
    assert.equal(unknown.headers.get('retry-after'), '1');
    // Something that is no commit id is named as the field at fault.
    assertError(await one.request('GET', TOPIC, { key: null, headers: { 'x-min-revision': 'main' } }), 400, 'validation_failed', { field: 'header/x-min-revision' });
    assertError(await one.request('GET', `${TOPIC}&minRevision=HEAD`, { key: null }), 400, 'validation_failed', { field: 'query/minRevision' });
  });

  test('a write sent to a replica is redirected (307) to the same URL on the primary, and sent there it lands', async () => {
    const path = '/versions/v1/topics/intro/translations/en';
    const res = await fetch(`${one.url}${path}?dryRun=false`, { method: 'PUT', redirect: 'manual', headers: { authorization: `Bearer ${primary.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Via a replica', bodyMd: 'Fifth\n' }) });
    assert.equal(res.status, 307);
    const location = res.headers.get('location')!;
    assert.equal(location, `${primary.url}${path}?dryRun=false`);
    await res.body?.cancel();
    // Followed as 307 asks: the same method and body, to the primary (credentials are sent again: clients drop them across origins).
    const landed = await fetch(location, { method: 'PUT', headers: { authorization: `Bearer ${primary.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Via a replica', bodyMd: 'Fifth\n' }) });
    assert.equal(landed.status, 200, await landed.clone().text());
    assert.equal((await primary.request('GET', TOPIC, { key: null })).body.title, 'Via a replica');
    await until(() => one.request('GET', TOPIC, { key: null }), (r) => r.body?.title === 'Via a replica');
    // Nothing was committed by the replica itself: its main is the primary's.
    assert.equal(one.git('rev-parse', 'main').trim(), primary.git('rev-parse', 'main').trim());
    // The tool server and sign-in are the primary's too.
    const mcp = await fetch(`${new URL(one.url).origin}/mcp`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(mcp.status, 307);
    assert.equal(mcp.headers.get('location'), `${new URL(primary.url).origin}/mcp`);
    await mcp.body?.cancel();
  });

  test('a key revoked on the primary stops working on the replicas within a few seconds', async (t) => {
    const key = await primary.createKey({ name: 'short-lived', scopes: 'help:read' });
    await waitForKey(primary, key);
    assert.equal((await one.request('GET', '/versions/draft/topics/secret', { key })).status, 200);
    assert.equal((await two.request('GET', '/whoami', { key })).body.keyName, 'short-lived');
    await revokeKey(new KeyFile(primary.dataDir), 'short-lived');
    const gone = await Promise.all([one, two].map((replica) => until(() => replica.request('GET', '/versions/draft/topics/secret', { key }), (res) => res.status === 401)));
    t.diagnostic(`refused by the replicas ${gone.map((ms) => Math.round(ms)).join(' and ')} ms after the revocation`);
    // A key of the replica's own data directory is not one of the primary's.
    assertError(await one.request('GET', '/whoami', { key: one.key }), 401, 'unauthorized');
  });

  test('/healthz on a replica reports its role, revision, lag and last contact', async () => {
    const health = await rootGet(one, '/healthz');
    assert.equal(health.status, 200);
    const r = ((await health.json()) as { replication: Record<string, any> }).replication;
    assert.equal(r.role, 'replica');
    assert.equal(r.revision, primary.git('rev-parse', 'main').trim());
    assert.equal(typeof r.lagSeconds, 'number');
    assert.ok(r.lastContact !== null && Date.now() - Date.parse(r.lastContact) < 60_000);
    assert.equal(r.primary, undefined, 'the primary\'s address is for callers with a credential');
    assert.equal(((await (await rootGet(one, '/healthz', readKey)).json()) as any).replication.primary, primary.url);
    assert.deepEqual(((await (await rootGet(primary, '/healthz')).json()) as any).replication, { role: 'primary', revision: r.revision });
  });

  test('with the primary stopped the replicas keep answering; when it is back they catch up', async () => {
    const before = await one.request('GET', TOPIC, { key: null });
    await primary.service.close();
    // Reads go on, from the last content loaded; health says the primary is out of reach.
    await untilHealth(one, readKey, (r) => r.problem !== null && r.lagSeconds > 0, WITHIN_MS);
    for (const replica of [one, two]) {
      const res = await replica.request('GET', TOPIC, { key: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, before.body);
    }
    // Writes cannot be made there meanwhile (they go to the primary, which is down); the replica says where.
    const refused = await fetch(`${one.url}/versions/v1/topics/intro/translations/en`, { method: 'PUT', redirect: 'manual', body: '{}' });
    assert.equal(refused.status, 307);
    await refused.body?.cancel();

    primary = await startTestServer({ dataDir: primary.dataDir, port: Number(new URL(primary.url).port) });
    const put = await putTranslation(primary, 'v1', 'intro', 'en', { title: 'After the outage', bodyMd: 'Sixth\n' });
    assert.equal(put.status, 200, put.text);
    for (const replica of [one, two]) await until(() => replica.request('GET', TOPIC, { key: null }), (res) => res.body?.title === 'After the outage', 15_000);
    await untilHealth(one, readKey, (r) => r.problem === null && r.lagSeconds === 0, 30_000);
    // The replica's repository holds the primary's history, commit for commit.
    const log = (s: TestServer) => execFileSync('git', ['log', '--format=%H %s', 'main'], { cwd: s.gitdir, encoding: 'utf8' });
    assert.equal(log(one), log(primary));
  });
});

/**
 * A proxy in front of the primary that answers 404 to its revision endpoint, as an older primary
 * or a proxy that cuts long requests would: the replica polls the primary's repository instead.
 */
interface Proxy {
  url: string;
  server: Server;
  /** Requests seen: the refused revision endpoint, and the repository's ref listings (a clone, a fetch, an ls-remote). */
  seen: { revision: number; refListings: number };
}

function withoutRevisionEndpoint(primary: TestServer): Promise<Proxy> {
  const target = new URL(primary.url);
  const seen = { revision: 0, refListings: 0 };
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname.endsWith('/content.git/info/refs')) seen.refListings++;
    if (url.pathname.endsWith('/revision')) {
      seen.revision++;
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"No such endpoint"}}');
      return;
    }
    const forwarded = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`, server, seen })));
}

describe('A replica of a primary without the revision endpoint', () => {
  let primary: TestServer;
  let replica: TestServer;
  let proxy: Proxy;

  before(async () => {
    primary = await startTestServer();
    await createVersion(primary, 'v1', { status: 'published' });
    await createNode(primary, 'v1', { slug: 'intro', translations: { en: { title: 'Intro', bodyMd: 'First words\n' } } });
    const key = await primary.createKey({ name: 'replica', scopes: 'help:read' });
    await waitForKey(primary, key);
    proxy = await withoutRevisionEndpoint(primary);
    replica = await startTestServer({ env: { HELP_REPLICA_OF: proxy.url, HELP_REPLICA_KEY: key, HELP_REPLICA_POLL_MS: '100', HELP_REPLICA_KEY_CACHE_MS: '500' } });
  });
  after(async () => {
    await replica?.close();
    proxy?.server.closeAllConnections();
    await new Promise((resolve) => proxy?.server.close(resolve));
    await primary?.close();
  });

  test('follows it by polling its repository (git ls-remote)', async () => {
    assert.equal((await replica.request('GET', TOPIC, { key: null })).body.title, 'Intro');
    const put = await putTranslation(primary, 'v1', 'intro', 'en', { title: 'Polled', bodyMd: 'Second words\n' });
    assert.equal(put.status, 200, put.text);
    await until(() => replica.request('GET', TOPIC, { key: null }), (res) => res.body?.title === 'Polled' && revisionOf(res) === revisionOf(put));
    // Asked once, refused, never again; the repository's refs are listed every poll (100 ms here) instead.
    const listings = proxy.seen.refListings;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(proxy.seen.revision, 1);
    assert.ok(proxy.seen.refListings >= listings + 2, `${proxy.seen.refListings - listings} ref listings in a second`);
    assert.equal(replica.git('rev-parse', 'main').trim(), revisionOf(put));
  });
});
