import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.ts';
import { isValidHost } from '../../src/http/host.ts';
import { startService } from '../../src/service.ts';
import { commitWithGit } from '../helpers/git.ts';
import { createNode, createVersion, startTestServer, type TestServer } from '../helpers/server.ts';

/** An answer read off a raw socket. */
interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

const portOf = (s: TestServer) => Number(new URL(s.url).port);

/** Opens a connection to the test server (127.0.0.1). */
function open(s: TestServer): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(portOf(s), '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends `head` (the request line and headers, without the blank line) and an optional body; reads until the server closes. */
async function raw(s: TestServer, head: string, body = ''): Promise<RawAnswer> {
  const socket = await open(s);
  socket.write(`${head}\r\nConnection: close\r\n\r\n${body}`);
  return readAnswer(socket, 5_000);
}

/** The first answer on `socket`, once the server ended the connection (at most `ms`). */
function readAnswer(socket: Socket, ms: number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was not closed within ${ms} ms; read so far: ${text.slice(0, 500)}`));
    }, ms);
    socket.setEncoding('utf8');
    socket.on('data', (d) => (text += d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      if (text === '') return reject(new Error('closed without an answer'));
      resolve(parse(text));
    });
  });
}

function parse(text: string): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  const [status, ...lines] = text.slice(0, end).split('\r\n');
  const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  let body = text.slice(end + 4);
  // Chunked bodies (the portal's pages): the chunks joined.
  if (headers.get('transfer-encoding') === 'chunked') {
    let joined = '';
    for (let at = 0; ; ) {
      const eol = body.indexOf('\r\n', at);
      const size = parseInt(body.slice(at, eol), 16);
      if (!size) break;
      joined += body.slice(eol + 2, eol + 2 + size);
      at = eol + 2 + size + 2;
    }
    body = joined;
  }
  return { status: Number(status.split(' ')[1]), headers, body };
}

const get = (s: TestServer, path: string, host: string, extra = '') => raw(s, `GET ${path} HTTP/1.1\r\nHost: ${host}${extra}`);

describe('The Host header', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1', { status: 'published', isLatest: true, languages: ['en'] });
    await createNode(s, 'v1', { slug: 'intro' });
  });
  after(() => s.close());

  test('host[:port] forms: names, IPv4, bracketed IPv6, with a port; nothing else', () => {
    for (const good of ['help.example.com', 'help.example.com:8080', 'localhost', '127.0.0.1:80', '[::1]', '[2001:db8::1]:443', 'help_content:8080', 'example.com.']) assert.equal(isValidHost(good), true, good);
    for (const bad of ['', 'a b', 'evil.example/x', 'user@host', '"><script>', 'host:', 'host:0', 'host:99999', '::1', '[::1', '[nope]', 'a..b', '-.x', 'host:80:80', 'é.example', '999.0.0.1', '1.2.3.4.5', `${'a'.repeat(64)}.example`]) assert.equal(isValidHost(bad), false, bad);
  });

  const paths = ['/healthz', '/help/v1/versions', '/help/v1/versions/v1/pdf-bundle', '/support/v1/intro', '/robots.txt', '/support/sitemap.xml', '/oauth/authorize', '/.well-known/oauth-authorization-server', '/metrics', '/nothing-here'];

  test('a Host that is not host[:port] is refused on every path: 400 malformed_request naming the header', async () => {
    // 999.0.0.1 looks like a name but makes no URL: the authorization server's discovery answered 500 for it.
    for (const host of ['evil.example/x?', 'a b', '"><script>alert(1)</script>', 'user@evil.example', 'evil.example:99999', '999.0.0.1', '1.2.3.4.5']) {
      for (const path of paths) {
        const res = await get(s, path, host);
        assert.equal(res.status, 400, `${path} with Host ${host}: ${res.body}`);
        const { error } = JSON.parse(res.body);
        assert.equal(error.code, 'malformed_request');
        assert.equal(error.field, 'header/host');
        assert.match(error.message, /Host header/);
        // The request id is random hex and may hold "999" by chance: only the rest of the answer is checked.
        const { requestId, ...rest } = error;
        assert.match(requestId, /^[0-9a-f-]+$/);
        assert.doesNotMatch(JSON.stringify(rest), /evil|script|999|1\.2\.3/, 'the value is not echoed');
      }
    }
  });

  test('two Host headers, or none in HTTP/1.1, are refused the same way; HTTP/1.0 without one is answered', async () => {
    const twice = await get(s, '/healthz', 'a.example', '\r\nHost: b.example');
    assert.equal(twice.status, 400);
    assert.equal(JSON.parse(twice.body).error.field, 'header/host');
    const none = await raw(s, 'GET /robots.txt HTTP/1.1');
    assert.equal(none.status, 400);
    assert.equal(JSON.parse(none.body).error.code, 'malformed_request');
    assert.equal((await raw(s, 'GET /healthz HTTP/1.0')).status, 200);
  });

  test('valid Hosts are answered, and what is built from one says Vary: Host', async () => {
    for (const host of ['docs.example.com', 'docs.example.com:8443', '[::1]:8080', 'help_content']) {
      const robots = await get(s, '/robots.txt', host);
      assert.equal(robots.status, 200, host);
      assert.match(robots.body, new RegExp(`Sitemap: http://${host.replace(/[[\].]/g, '\\$&')}/support/sitemap.xml`));
      assert.match(robots.headers.get('vary') ?? '', /\bHost\b/);
    }
    const sitemap = await get(s, '/support/sitemap.xml', 'docs.example.com');
    assert.match(sitemap.body, /<loc>http:\/\/docs\.example\.com\/support\/v1/);
    assert.match(sitemap.headers.get('vary') ?? '', /\bHost\b/);
    const page = await get(s, '/support/v1/intro', 'docs.example.com');
    assert.equal(page.status, 200);
    assert.match(page.body, /<link rel="canonical" href="http:\/\/docs\.example\.com\/support\/v1\/intro"/);
    assert.match(page.headers.get('vary') ?? '', /\bHost\b/);
    // A 304 says it too: a cache updates what it keeps from a 304's headers.
    const again = await get(s, '/support/v1/intro', 'docs.example.com', `\r\nIf-None-Match: ${page.headers.get('etag')}`);
    assert.equal(again.status, 304);
    assert.match(again.headers.get('vary') ?? '', /\bHost\b/);
  });

  test("the PDF bundle, kept by the answer cache, is never one host's for another: keyed and varied by Host", async () => {
    const fonts = (res: RawAnswer) => [...new Set([...res.body.matchAll(/"(https?:\/\/[^/"]+)\/help\/v1\/fonts\//g)].map((m) => m[1]))];
    // Asked twice, so that the answer is kept; then from another host.
    for (let i = 0; i < 3; i++) assert.deepEqual(fonts(await get(s, '/help/v1/versions/v1/pdf-bundle', 'a.example')), ['http://a.example']);
    const other = await get(s, '/help/v1/versions/v1/pdf-bundle', 'b.example');
    assert.deepEqual(fonts(other), ['http://b.example']);
    assert.match(other.headers.get('vary') ?? '', /^Authorization, Host$/);
    assert.match(other.headers.get('cache-control') ?? '', /public/);
  });

  test('with HELP_PUBLIC_URL the Host is not used, and answers do not vary by it', async () => {
    const fixed = await startTestServer({ env: { HELP_PUBLIC_URL: 'https://help.example.com' } });
    try {
      await createVersion(fixed, 'v1', { status: 'published', languages: ['en'] });
      await createNode(fixed, 'v1', { slug: 'intro' });
      const robots = await get(fixed, '/robots.txt', 'other.example');
      assert.match(robots.body, /Sitemap: https:\/\/help\.example\.com\/support\/sitemap\.xml/);
      assert.equal(robots.headers.get('vary'), undefined);
      const bundle = await get(fixed, '/help/v1/versions/v1/pdf-bundle', 'other.example');
      assert.match(bundle.body, /"https:\/\/help\.example\.com\/help\/v1\/fonts\//);
      assert.equal(bundle.headers.get('vary'), 'Authorization');
    } finally {
      await fixed.close();
    }
  });
});

describe('/healthz', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'secret-draft');
    await createVersion(s, 'v1', { status: 'published' });
  });
  after(() => s.close());

  const health = (key?: string) => fetch(new URL('/healthz', s.url), { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });

  test('without a credential: the status, the counts and the revision served (as every answer\'s X-Content-Revision), no version named', async () => {
    const res = await health();
    assert.equal(res.status, 200);
    const text = await res.text();
    const revision = s.git('rev-parse', 'main').trim();
    assert.deepEqual(JSON.parse(text), { ok: true, replication: { role: 'primary', revision }, versions: { loaded: 2, loading: 0, broken: 0, indexing: 0 } });
    assert.equal(res.headers.get('x-content-revision'), revision);
    assert.doesNotMatch(text, /secret-draft/);
  });

  test('with a key of any scope: the lists and the head commit as well; a wrong key is 401', async () => {
    const reader = await s.createKey({ name: 'monitor', scopes: 'help:read' });
    const body = await (await health(reader)).json();
    assert.deepEqual({ ...body, head: typeof body.head, replication: body.replication.role }, { ok: true, head: 'string', replication: 'primary', versions: { loaded: 2, loading: 0, broken: 0, indexing: 0 }, loading: [], broken: [], indexing: [] });
    assert.equal(body.head, s.git('rev-parse', 'main').trim());
    const wrong = await health('hcs_not-a-key');
    assert.equal(wrong.status, 401);
    assert.equal((await wrong.json()).error.code, 'unauthorized');
  });
});

describe('A version whose stored data is broken, to anonymous readers', () => {
  let s: TestServer;
  before(async () => {
    const s0 = await startTestServer();
    await createVersion(s0, 'v1', { status: 'published' });
    await s0.service.close();
    // A draft broken by hand: its status cannot be read with the rest of it.
    commitWithGit(s0.gitdir, { 'hidden-draft/version.json': '{ "label": "Hidden", "status": "draft", "languages": ["en"], ' }, 'Break a draft by hand');
    s = await startTestServer({ dataDir: s0.dataDir });
  });
  after(() => s.close());

  test('is answered 404 as a slug no version has, on every read; a key that may see drafts gets the 503 with the reason', async () => {
    for (const path of ['', '/tree', '/nodes', '/export', '/pdf-bundle', '/search?q=x&lang=en', '/topics/a']) {
      const broken = await s.request('GET', `/versions/hidden-draft${path}`, { key: null });
      const none = await s.request('GET', `/versions/no-such${path}`, { key: null });
      assert.equal(broken.status, 404, `${path}: ${broken.text}`);
      assert.deepEqual({ ...broken.body.error, requestId: null }, { ...none.body.error, message: none.body.error.message.replace('no-such', 'hidden-draft'), version: 'hidden-draft', requestId: null }, path);
    }
    assert.equal((await s.request('GET', '/versions/no-such/pdf-bundle', { key: null })).status, 404);
    const keyed = await s.request('GET', '/versions/hidden-draft/tree');
    assert.equal(keyed.status, 503);
    assert.equal(keyed.body.error.code, 'version_unavailable');
    assert.match(keyed.body.error.reason, /version\.json/);
    const portal = await fetch(new URL('/support/hidden-draft', s.url));
    assert.equal(portal.status, 404);
  });
});

describe('Bodies that arrive slowly', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('the server takes a whole request within HELP_REQUEST_TIMEOUT (60 s), its headers within 30 s, and keeps an idle connection 5 s', () => {
    const server = s.service.server;
    assert.deepEqual({ request: server.requestTimeout, headers: server.headersTimeout, keepAlive: server.keepAliveTimeout }, { request: 60_000, headers: 30_000, keepAlive: 5_000 });
  });

  test('a request refused before its body was read (401) closes its connection once answered, while the body still trickles in', async () => {
    const socket = await open(s);
    socket.write('POST /help/v1/versions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"slug":"');
    // A byte every 50 ms: the body would take over eight minutes.
    const trickle = setInterval(() => socket.writable && socket.write('a'), 50);
    try {
      const answer = await readAnswer(socket, 3_000);
      assert.equal(answer.status, 401);
      assert.equal(answer.headers.get('connection'), 'close');
      assert.equal(JSON.parse(answer.body).error.code, 'unauthorized');
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  test('a request whose body was read keeps its connection for the next one', async () => {
    const socket = await open(s);
    try {
      const answers: string[] = [];
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => answers.push(d));
      const body = '{"slug":"kept","label":"Kept"}';
      socket.write(`POST /help/v1/versions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const deadline = Date.now() + 5_000;
      // The second answer follows the first one's body directly.
      while ((answers.join('').match(/HTTP\/1\.1 \d{3} /g) ?? []).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const text = answers.join('');
      assert.deepEqual([...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]), ['401', '200']);
      assert.doesNotMatch(text, /Connection: close/i);
    } finally {
      socket.destroy();
    }
  });

  test('with HELP_REQUEST_TIMEOUT=1, a body that stops coming is answered 408 naming 1 s, within two seconds', async () => {
    const quick = await startTestServer({ env: { HELP_REQUEST_TIMEOUT: '1' } });
    try {
      const socket = await open(quick);
      const started = Date.now();
      socket.write(`POST /help/v1/versions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${quick.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"slug":`);
      const answer = await readAnswer(socket, 5_000);
      assert.equal(answer.status, 408);
      assert.ok(Date.now() - started < 2_500, `answered after ${Date.now() - started} ms`);
      const { requestId, ...error } = JSON.parse(answer.body).error;
      assert.deepEqual(error, { code: 'request_timeout', message: 'The whole request did not arrive within 1 s (its body stopped coming, or came too slowly); send it again', timeoutSeconds: 1 });
      assert.equal(answer.headers.get('x-request-id'), requestId);
    } finally {
      await quick.close();
    }
  });
});

describe('Connections per client address', () => {
  /** Waits for `socket`'s first answer to a GET /healthz. */
  const healthOver = async (socket: Socket) => {
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    return readAnswer(socket, 5_000);
  };

  test('beyond HELP_CONNECTIONS_PER_ADDRESS, a connection is answered 429 at once and closed; once one closes, a new one is served', async () => {
    const s = await startTestServer({ env: { HELP_CONNECTIONS_PER_ADDRESS: '3' } });
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 3; i++) held.push(await open(s));
      const extra = await open(s);
      // Nothing sent: the answer comes from the connection alone.
      const refused = await readAnswer(extra, 3_000);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('retry-after'), '1');
      const { error } = JSON.parse(refused.body);
      assert.deepEqual({ code: error.code, limit: error.limit, max: error.max }, { code: 'too_many_requests', limit: 'connections_per_address', max: 3 });
      assert.match(error.message, /HELP_CONNECTIONS_PER_ADDRESS/);
      // Answered before any request was read, yet with a request id, like every error.
      assert.match(error.requestId ?? '', /^[0-9a-f-]{36}$/);
      assert.equal(refused.headers.get('x-request-id'), error.requestId);
      // The held ones are served.
      assert.equal((await healthOver(held.pop()!)).status, 200);
      // That one is closed now: room for one more.
      let next: RawAnswer | null = null;
      for (const deadline = Date.now() + 3_000; Date.now() < deadline; ) {
        next = await healthOver(await open(s)).catch(() => null);
        if (next?.status === 200) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(next?.status, 200);
    } finally {
      for (const socket of held) socket.destroy();
      await s.close();
    }
  });

  test('a trusted proxy (HELP_TRUSTED_PROXIES) is not capped: its clients share its address', async () => {
    const s = await startTestServer({ env: { HELP_CONNECTIONS_PER_ADDRESS: '2', HELP_TRUSTED_PROXIES: '127.0.0.1' } });
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 5; i++) held.push(await open(s));
      const answers = await Promise.all(held.map(healthOver));
      assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200]);
    } finally {
      for (const socket of held) socket.destroy();
      await s.close();
    }
  });
});

describe('The warning at start about HELP_PUBLIC_URL', () => {
  /** The log lines of a start (and stop) on `host` with `env`. */
  async function startLog(host: string, env: Record<string, string> = {}): Promise<string> {
    const dataDir = mkdtempSync(join(tmpdir(), 'help-test-'));
    let log = '';
    const sink = new Writable({ write: (chunk, _enc, done) => ((log += chunk), done()) });
    try {
      const config = loadConfig({ LOG_LEVEL: 'warn', ...env }, { port: 0, host, dataDir, sampleContentDir: null });
      const service = await startService(config, pino({ level: 'warn' }, sink));
      await service.ready;
      await service.close();
      return log;
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  test('is logged when the service listens beyond loopback without HELP_PUBLIC_URL, and only then', async () => {
    // Listening on every interface for an instant; nothing is sent to it.
    assert.match(await startLog('0.0.0.0'), /"msg":"HELP_PUBLIC_URL is not set and the service listens beyond this machine/);
    assert.doesNotMatch(await startLog('0.0.0.0', { HELP_PUBLIC_URL: 'https://help.example.com' }), /HELP_PUBLIC_URL/);
    assert.doesNotMatch(await startLog('127.0.0.1'), /HELP_PUBLIC_URL/);
  });
});
