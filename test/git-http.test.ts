import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { KeyFile } from '../src/auth/key-file.ts';
import { revokeKey } from '../src/cli/keys.ts';
import { assertError } from './helpers/assertions.ts';
import { gitClient } from './helpers/git-client.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

const basic = (key: string) => `Basic ${Buffer.from(`git:${key}`).toString('base64')}`;

/**
 * A request to the repository's URL. Not TestServer.request, which checks every answer against
 * openapi.json: content.git speaks git's protocol, not the JSON API, and is not in that document.
 */
async function gitRequest(s: TestServer, method: string, path: string, opts: { key?: string | null; raw?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  const key = opts.key === undefined ? s.key : opts.key;
  if (key !== null) headers.authorization ??= `Bearer ${key}`;
  const res = await fetch(`${s.url}${path}`, { method, headers, body: opts.raw, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: body as any };
}

/** The pids of upload-pack processes serving this repository. */
function uploadPacks(gitdir: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes('upload-pack') && l.includes(gitdir)).map((l) => Number(l.trim().split(/\s+/)[0]));
}

async function until(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A protocol-v2 fetch round whose body never ends: its upload-pack waits for the rest. */
function stalledFetch(s: TestServer, key: string): ClientRequest {
  const req = httpRequest(`${s.url}/content.git/git-upload-pack`, {
    method: 'POST',
    headers: { authorization: basic(key), 'content-type': 'application/x-git-upload-pack-request', 'git-protocol': 'version=2', 'transfer-encoding': 'chunked' },
  });
  req.on('error', () => undefined);
  req.write('0014command=ls-refs\n');
  return req;
}

describe('The repository over git\'s smart HTTP protocol', () => {
  let s: TestServer;
  let client: ReturnType<typeof gitClient>;
  let reader: string;
  let remote: string;
  before(async () => {
    s = await startTestServer();
    client = gitClient();
    await createVersion(s, 'v1');
    await createNode(s, 'v1', { slug: 'install' });
    reader = await s.createKey({ name: 'reader', scopes: 'help:read' });
    remote = `${s.url}/content.git`;
  });
  after(async () => {
    await s.close();
    client.close();
  });

  for (const version of ['2', '0']) {
    test(`git clone over HTTP (protocol v${version}) with a key in a credential helper gives the data repository's tree`, async () => {
      const dir = join(client.home, `clone-v${version}`);
      const res = await client.run(['clone', '-q', remote, dir], { config: { ...client.storeCredential(remote, reader), 'protocol.version': version }, env: { GIT_TRACE_PACKET: '1' } });
      assert.equal(res.code, 0, res.stderr);
      assert.equal(/git< version 2/.test(res.stderr), version === '2', 'the protocol version spoken');
      assert.equal((await client.run(['-C', dir, 'rev-parse', 'HEAD^{tree}'])).stdout.trim(), s.git('rev-parse', 'main^{tree}').trim());
      assert.equal((await client.run(['-C', dir, 'rev-parse', 'HEAD'])).stdout.trim(), s.git('rev-parse', 'main').trim());
    });
  }

  test('git fetch after a write brings the new commit', async () => {
    const dir = join(client.home, 'fetching');
    const config = client.storeCredential(remote, reader);
    assert.equal((await client.run(['clone', '-q', remote, dir], { config })).code, 0);
    await createNode(s, 'v1', { slug: 'upgrade' });
    const res = await client.run(['-C', dir, 'fetch', '-q', 'origin'], { config });
    assert.equal(res.code, 0, res.stderr);
    assert.equal((await client.run(['-C', dir, 'rev-parse', 'origin/main'])).stdout.trim(), s.git('rev-parse', 'main').trim());
    assert.match((await client.run(['-C', dir, 'ls-tree', '-r', '--name-only', 'origin/main'])).stdout, /^v1\/en\/upgrade\.md$/m);
  });

  test('clones made while writes go on each get a commit of main, whole', async () => {
    const config = client.storeCredential(remote, reader);
    const writes = Array.from({ length: 12 }, (_, i) => createNode(s, 'v1', { slug: `during-${i}` }));
    const clones = Array.from({ length: 3 }, (_, i) => client.run(['clone', '-q', '--bare', remote, join(client.home, `during-${i}.git`)], { config }));
    await Promise.all(writes);
    for (const [i, res] of (await Promise.all(clones)).entries()) {
      assert.equal(res.code, 0, res.stderr);
      const dir = join(client.home, `during-${i}.git`);
      const head = (await client.run(['--git-dir', dir, 'rev-parse', 'main'])).stdout.trim();
      assert.equal(s.git('merge-base', '--is-ancestor', head, 'main'), '');
      const fsck = await client.run(['--git-dir', dir, 'fsck', '--strict']);
      assert.equal(fsck.code, 0, fsck.stderr);
    }
  });

  test('Authorization: Bearer works too (http.extraHeader, from the environment)', async () => {
    const dir = join(client.home, 'bearer');
    const res = await client.run(['clone', '-q', remote, dir], { config: { 'http.extraHeader': `Authorization: Bearer ${reader}` } });
    assert.equal(res.code, 0, res.stderr);
  });

  test('without a credential: 401 with a Basic challenge, and git clone fails', async () => {
    const res = await gitRequest(s, 'GET', '/content.git/info/refs?service=git-upload-pack', { key: null });
    assertError(res, 401, 'unauthorized');
    assert.match(res.headers.get('www-authenticate') ?? '', /^Basic realm="[^"]+"/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const post = await gitRequest(s, 'POST', '/content.git/git-upload-pack', { key: null, raw: '0000', headers: { 'content-type': 'application/x-git-upload-pack-request' } });
    assertError(post, 401, 'unauthorized');
    const clone = await client.run(['clone', '-q', remote, join(client.home, 'anonymous')]);
    assert.notEqual(clone.code, 0);
    const wrong = await gitRequest(s, 'GET', '/content.git/info/refs?service=git-upload-pack', { key: null, headers: { authorization: basic('hcs_not-a-key') } });
    assertError(wrong, 401, 'unauthorized');
  });

  test('a key without help:read is 403; a key revoked between two requests is refused on the next', async () => {
    const writeOnly = await s.createKey({ name: 'write-only', scopes: 'help:write' });
    const res = await gitRequest(s, 'GET', '/content.git/info/refs?service=git-upload-pack', { key: null, headers: { authorization: basic(writeOnly) } });
    assertError(res, 403, 'insufficient_scope');
    const ok = await gitRequest(s, 'GET', '/content.git/info/refs?service=git-upload-pack', { key: null, headers: { authorization: basic(reader) } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('content-type'), 'application/x-git-upload-pack-advertisement');
    assert.match(ok.text, /^001e# service=git-upload-pack\n0000/);
    const shortLived = await s.createKey({ name: 'short-lived', scopes: 'help:read' });
    assert.equal((await gitRequest(s, 'GET', '/content.git/info/refs?service=git-upload-pack', { key: shortLived })).status, 200);
    await revokeKey(new KeyFile(s.dataDir), 'short-lived');
    assertError(await gitRequest(s, 'GET', '/content.git/info/refs?service=git-upload-pack', { key: null, headers: { authorization: basic(shortLived) } }), 401, 'unauthorized');
  });

  test('a round of the exchange sent gzip-compressed, as git sends large ones, is read decompressed', async () => {
    const res = await gitRequest(s, 'POST', '/content.git/git-upload-pack', {
      raw: gzipSync('0014command=ls-refs\n0000') as unknown as string,
      headers: { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip', 'git-protocol': 'version=2' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/x-git-upload-pack-result');
    assert.match(res.text, new RegExp(`${s.git('rev-parse', 'main').trim()} refs/heads/main`));
  });

  test('a push needs help:write: a read key is refused for its scope, and git shows why (pushes themselves: git-push.test.ts)', async () => {
    const dir = join(client.home, 'pushing');
    const head = s.git('rev-parse', 'main').trim();
    assert.equal((await client.run(['clone', '-q', remote, dir], { config: client.storeCredential(remote, reader) })).code, 0);
    writeFileSync(join(dir, 'v1', 'en', 'pushed.md'), '---\ntitle: Pushed\n---\nText\n');
    await client.run(['-C', dir, 'add', '-A']);
    const commit = await client.run(['-C', dir, '-c', 'user.name=w', '-c', 'user.email=w@example.org', 'commit', '-qm', 'pushed']);
    assert.equal(commit.code, 0, commit.stderr);
    const withReader = await client.run(['-C', dir, 'push', 'origin', 'HEAD:main'], { config: client.storeCredential(remote, reader) });
    assert.notEqual(withReader.code, 0);
    assert.match(withReader.stderr, /remote: .*lacks the scope help:write/);
    assertError(await gitRequest(s, 'GET', '/content.git/info/refs?service=git-receive-pack', { key: reader }), 403, 'insufficient_scope');
    // With a write key: main and only the capabilities the service's receive-pack handles.
    const advertised = await gitRequest(s, 'GET', '/content.git/info/refs?service=git-receive-pack');
    assert.equal(advertised.status, 200);
    assert.equal(advertised.headers.get('content-type'), 'application/x-git-receive-pack-advertisement');
    assert.match(advertised.text, new RegExp(`^001f# service=git-receive-pack\n0000[0-9a-f]{4}${head} refs/heads/main\0report-status side-band-64k quiet ofs-delta agent=\\S+\n0000$`));
    assert.doesNotMatch(advertised.text, /delete-refs|push-options|atomic/);
    // git's probe before a large push: a lone flush-pkt, answered with nothing.
    const probe = await gitRequest(s, 'POST', '/content.git/git-receive-pack', { raw: '0000', headers: { 'content-type': 'application/x-git-receive-pack-request' } });
    assert.equal(probe.status, 200);
    assert.equal(probe.text, '');
    assertError(await gitRequest(s, 'POST', '/content.git/git-receive-pack', { raw: 'zzzz', headers: { 'content-type': 'application/x-git-receive-pack-request' } }), 400, 'validation_failed', { field: 'body' });
    assertError(await gitRequest(s, 'POST', '/content.git/git-receive-pack', { raw: '0000', headers: { 'content-type': 'application/x-git-upload-pack-request' } }), 415, 'unsupported_media_type');
    assert.equal(s.git('rev-parse', 'main').trim(), head);
  });

  test('only git\'s smart-HTTP endpoints are served: no file and no other directory is reachable through the URL', async () => {
    for (const path of ['/content.git/HEAD', '/content.git/config', '/content.git/objects/info/packs', '/content.git/info/refs', '/content.git/info/refs?service=git-upload-archive', '/content.git/%2e%2e/keys.json', '/content.git/git-upload-pack/..%2f..%2fkeys.json', '/content.git']) {
      assertError(await gitRequest(s, 'GET', path), 404, 'not_found');
    }
    assertError(await gitRequest(s, 'POST', '/content.git/info/refs?service=git-upload-pack', { raw: '0000' }), 405, 'method_not_allowed');
    assertError(await gitRequest(s, 'GET', '/content.git/git-upload-pack'), 405, 'method_not_allowed');
    assertError(await gitRequest(s, 'POST', '/content.git/git-upload-pack', { raw: '0000', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
  });
});

describe('Limits on git processes', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_GIT_CONCURRENCY: '1' } });
    await createVersion(s, 'v1');
  });
  after(() => s.close());

  test('beyond the cap: 429 with Retry-After and the JSON error; a client that disconnects ends its git process', async () => {
    const held = stalledFetch(s, s.key);
    await until('an upload-pack serves the held request', () => uploadPacks(s.gitdir).length === 1);
    const refused = await gitRequest(s, 'GET', '/content.git/info/refs?service=git-upload-pack');
    assertError(refused, 429, 'too_many_requests', { limit: 'git_concurrency' });
    assert.equal(refused.headers.get('retry-after'), '1');
    held.destroy();
    await until('the upload-pack of the request whose client left has exited', () => uploadPacks(s.gitdir).length === 0);
    let again = await gitRequest(s, 'GET', '/content.git/info/refs?service=git-upload-pack');
    // The slot is freed once the process has exited and its pipes closed: a moment after ps stops listing it.
    for (let i = 0; again.status === 429 && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await gitRequest(s, 'GET', '/content.git/info/refs?service=git-upload-pack');
    }
    assert.equal(again.status, 200);
  });
});

describe('The time limit of a git request', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_GIT_TIMEOUT: '1' } });
    await createVersion(s, 'v1');
  });
  after(() => s.close());

  test('a request running past HELP_GIT_TIMEOUT has its git process ended', async () => {
    const held = stalledFetch(s, s.key);
    try {
      await until('an upload-pack serves the held request', () => uploadPacks(s.gitdir).length === 1);
      await until('the upload-pack past its time limit has exited', () => uploadPacks(s.gitdir).length === 0, 5000);
    } finally {
      held.destroy();
    }
  });

  test("a push whose commands stop coming is answered 408 request_timeout, and main stays where it was", async () => {
    const head = s.git('rev-parse', 'main').trim();
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${s.url}/content.git/git-receive-pack`, {
        method: 'POST',
        headers: { authorization: basic(s.key), 'content-type': 'application/x-git-receive-pack-request', 'transfer-encoding': 'chunked' },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      // The start of a command's pkt-line, then nothing.
      req.write(`0094${head}`);
    });
    assert.equal(answer.status, 408, answer.body);
    const error = JSON.parse(answer.body).error;
    assert.equal(error.code, 'request_timeout');
    assert.equal(error.timeoutSeconds, 1);
    assert.match(error.message, /HELP_GIT_TIMEOUT/);
    assert.equal(s.git('rev-parse', 'main').trim(), head);
  });
});

describe('Stopping while a git request runs', () => {
  test('ends its git process: a stalled clone does not hold the stop for its time limit', { timeout: 30_000 }, async () => {
    const s = await startTestServer({ env: { HELP_GIT_TIMEOUT: '600' } });
    const gitdir = s.gitdir;
    const held = stalledFetch(s, s.key);
    try {
      await until('an upload-pack serves the held request', () => uploadPacks(gitdir).length === 1);
      const started = Date.now();
      await s.close();
      assert.ok(Date.now() - started < 10_000, `the stop took ${Date.now() - started} ms`);
      await until('the upload-pack has exited', () => uploadPacks(gitdir).length === 0);
    } finally {
      held.destroy();
    }
  });
});

describe('Without the git command', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('a request is 503 component_unavailable naming git, and holds no slot', async () => {
    const path = process.env.PATH;
    const empty = mkdtempSync(join(tmpdir(), 'help-no-git-'));
    process.env.PATH = empty;
    try {
      for (let i = 0; i < 10; i++) {
        const res = await gitRequest(s, 'GET', '/content.git/info/refs?service=git-upload-pack');
        assertError(res, 503, 'component_unavailable', { component: 'git' });
        assert.equal(res.headers.get('retry-after'), '60');
      }
    } finally {
      process.env.PATH = path;
      rmSync(empty, { recursive: true, force: true });
    }
    assert.equal((await gitRequest(s, 'GET', '/content.git/info/refs?service=git-upload-pack')).status, 200);
  });
});
