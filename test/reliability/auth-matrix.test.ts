import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createNode, createVersion, startTestServer, type TestResponse, type TestServer } from '../helpers/server.ts';

interface Operation {
  method: string;
  path: string;
  security: Array<Record<string, string[]>>;
  hasBody: boolean;
  /** Answers 410 whatever is asked (a retired endpoint). */
  retired: boolean;
}

/** What the document says an operation needs: nothing (public), any credential, or help:write. */
function accessOf(op: Operation): 'public' | 'credential' | 'write' {
  if (op.security.some((s) => Object.keys(s).length === 0)) return 'public';
  return op.security.some((s) => s.apiKey?.includes('help:write')) ? 'write' : 'credential';
}

/**
 * The access rules of every operation, generated from the OpenAPI document the server serves: a
 * route added without a fixture for its parameters fails here, and so does one whose behaviour and
 * documented security disagree. Each operation is called without a credential, with a malformed and
 * an unknown key, with a read-only key and with a writer key, on a published and on a draft version.
 */
describe('The access matrix of every operation in openapi.json', () => {
  let s: TestServer;
  let reader: string;
  let operations: Operation[];
  const values: Record<string, string> = { slug: 'topic', lang: 'en', id: 'no-such-request' };

  before(async () => {
    s = await startTestServer();
    reader = await s.createKey({ name: 'reader', scopes: 'help:read' });
    for (const [slug, status] of [['pub', 'published'], ['draft', 'draft']] as const) {
      await createVersion(s, slug, { status, languages: ['en'] });
      await createNode(s, slug, { slug: 'topic', translations: { en: { title: `Secret of ${slug}`, bodyMd: `Body of ${slug}\n` } } });
    }
    // A commit that changed the topic, for the history routes' {revision}.
    values.revision = s.git('rev-parse', 'main').trim();
    const bundle = (await s.request('GET', '/versions/pub/pdf-bundle', { key: null })).body;
    values.file = new URL(bundle.fonts[0].url).pathname.split('/').pop()!;
    const doc = (await s.request('GET', '/openapi.json', { key: null })).body;
    operations = Object.entries(doc.paths as Record<string, Record<string, { security: Operation['security']; requestBody?: unknown; responses: Record<string, unknown> }>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, security: op.security, hasBody: op.requestBody !== undefined, retired: '410' in op.responses })),
    );
  });
  after(() => s.close());

  /** The operation's path on `version`, every parameter filled; a parameter without a fixture fails the test. */
  const pathFor = (op: Operation, version: string) =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (name === 'version') return version;
      assert.ok(values[name] !== undefined, `${op.method} ${op.path}: the access matrix has no value for {${name}}; add one`);
      return values[name];
    });

  /** Required query parameters, so that a read is refused for who asks, not for how. */
  const QUERY: Record<string, string> = { '/versions/{version}/search': '?q=secret&lang=en' };

  const call = (op: Operation, version: string, key: string | null): Promise<TestResponse> =>
    s.request(op.method, pathFor(op, version) + (QUERY[op.path] ?? ''), { key, ...(op.hasBody ? { body: {} } : {}) });

  const assertSound = (res: TestResponse, where: string) => {
    assert.ok(res.status < 500, `${where}: ${res.status} ${res.text.slice(0, 200)}`);
    if (res.status >= 400) assert.equal(typeof res.body?.error?.code, 'string', `${where}: an error answers the JSON envelope`);
  };

  test('the document has operations of every kind to check', () => {
    const kinds = new Set(operations.map(accessOf));
    assert.deepEqual([...kinds].sort(), ['credential', 'public', 'write']);
    assert.ok(operations.length >= 30, `${operations.length} operations`);
  });

  test('a malformed or unknown key is 401 on every operation, public ones included', async () => {
    for (const op of operations) {
      for (const key of ['not-a-key', 'hcs_unknownunknownunknownunknownun']) {
        const res = await call(op, 'pub', key);
        assert.equal(res.status, 401, `${op.method} ${op.path} with ${key}: ${res.status}`);
        assert.equal(res.body.error.code, 'unauthorized');
      }
    }
  });

  test('without a credential: writes and credential operations are 401; public reads never show a draft', async () => {
    for (const op of operations) {
      const access = accessOf(op);
      for (const version of ['pub', 'draft']) {
        const where = `${op.method} ${op.path} on ${version}, anonymous`;
        const res = await call(op, version, null);
        assertSound(res, where);
        if (access !== 'public') {
          assert.equal(res.status, 401, where);
          continue;
        }
        assert.doesNotMatch(res.text, /Secret of draft|Body of draft/, `${where}: a draft's content leaked`);
        if (version === 'draft' && op.path.includes('{version}') && op.method === 'GET' && !op.retired) assert.equal(res.status, 404, where);
      }
    }
  });

  test('a read-only key: every write is 403 insufficient_scope; everything else is let through', async () => {
    for (const op of operations) {
      const where = `${op.method} ${op.path}, help:read key`;
      const res = await call(op, 'draft', reader);
      assertSound(res, where);
      if (accessOf(op) === 'write') {
        assert.equal(res.status, 403, where);
        assert.equal(res.body.error.code, 'insufficient_scope', where);
      } else assert.ok(![401, 403].includes(res.status), `${where}: ${res.status}`);
    }
  });

  test('the writer key gets past authentication everywhere, and no operation answers 5xx', async () => {
    // Last: these calls may change or delete the fixtures.
    for (const op of operations) {
      const where = `${op.method} ${op.path}, writer key`;
      const res = await call(op, 'draft', s.key);
      assertSound(res, where);
      assert.ok(![401, 403].includes(res.status), `${where}: ${res.status} ${res.text.slice(0, 200)}`);
    }
  });
});
