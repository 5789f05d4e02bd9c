import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { createNode, createVersion, startTestServer, type TestServer } from '../helpers/server.ts';

type Schema = Record<string, any>;

/** Strings a hostile client sends: traversal, control and invisible characters, markup, huge and odd Unicode. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '../../etc/passwd',
  '..%2F..%2Fetc',
  'a/../../b',
  '\u0000',
  '\ud800',
  '<script>alert(1)</script>',
  '---js\n{ x: 1 }\n---\n',
  '__proto__',
  'constructor',
  'x'.repeat(5000),
  '設定'.repeat(300),
  '😀'.repeat(100),
  'latest',
  'EN',
  'aa-0000000-0000000',
];
const HOSTILE_VALUES: unknown[] = [null, true, 0, -1, 0.5, 1e308, -1e308, 2 ** 53 + 1, [], {}, [[[[[[[[[[[]]]]]]]]]]], { __proto__: { polluted: true } }, ...HOSTILE_STRINGS];

const hostile = fc.constantFrom(...HOSTILE_VALUES);

/**
 * Values for a JSON Schema, mostly valid-looking (so requests get past the first checks and reach
 * deeper code) and now and then hostile in any position.
 */
function arbitraryFor(schema: Schema, components: Record<string, Schema>, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 6) return hostile;
  if (schema.$ref) return arbitraryFor(components[String(schema.$ref).split('/').pop()!], components, depth + 1);
  const own = ((): fc.Arbitrary<unknown> => {
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
    const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
    if (alternatives) return fc.oneof(...alternatives.map((s) => arbitraryFor({ ...schema, oneOf: undefined, anyOf: undefined, ...s }, components, depth + 1)));
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case 'string':
        return fc.oneof(fc.constantFrom('topic', 'pub', 'en', 'de', 'v9', 'new-node', 'A title', '2026-01-01T00:00:00.000Z'), fc.string({ maxLength: 40 }));
      case 'integer':
        return fc.integer({ min: -5, max: 300 });
      case 'number':
        return fc.oneof(fc.integer({ min: -5, max: 300 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(arbitraryFor(schema.items ?? {}, components, depth + 1), { maxLength: 3 });
      case 'object':
      case undefined: {
        const props = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
        if (props.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), hostile, { maxKeys: 3 });
        const record = fc.record(Object.fromEntries(props.map(([k, s]) => [k, arbitraryFor(s, components, depth + 1)])), { requiredKeys: [] });
        // Sometimes a key the schema does not know.
        return fc.tuple(record, fc.option(fc.constantFrom('unknown', '__proto__', 'constructor'), { nil: undefined }), hostile).map(([r, extra, v]) => (extra === undefined ? r : { ...r, [extra]: v }));
      }
      default:
        return hostile;
    }
  })();
  return fc.oneof({ weight: 9, arbitrary: own }, { weight: 1, arbitrary: hostile });
}

interface Operation {
  method: string;
  path: string;
  params: Array<{ name: string; in: string; schema: Schema }>;
  body: Schema | null;
}

/**
 * Requests generated from the OpenAPI document the server serves, valid and hostile, to every
 * operation, anonymously and with a key: never a 5xx, every error the JSON envelope, every status
 * one the document lists (the request helper checks each answer against openapi.json), and a
 * refused write leaves the repository exactly as it was.
 */
describe('Property-based requests generated from openapi.json', () => {
  let s: TestServer;
  let operations: Operation[];
  let components: Record<string, Schema>;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'pub', { status: 'published', languages: ['en', 'de'] });
    await createNode(s, 'pub', { slug: 'topic' });
    await createVersion(s, 'draft', { languages: ['en'] });
    const doc = (await s.request('GET', '/openapi.json', { key: null })).body;
    components = doc.components.schemas;
    operations = Object.entries(doc.paths as Record<string, Record<string, { parameters?: Operation['params']; requestBody?: { content: Record<string, { schema: Schema }> } }>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, params: op.parameters ?? [], body: op.requestBody?.content['application/json']?.schema ?? null })),
    );
  });
  after(() => s.close());

  const head = () => s.git('rev-parse', 'main').trim();
  /** A URL component; text that is not valid Unicode goes as the bytes a broken client would send (invalid UTF-8). */
  const encode = (text: string) => ((text as unknown as { isWellFormed(): boolean }).isWellFormed() ? encodeURIComponent(text) : '%ED%A0%80%FF');

  test('no request, valid or hostile, answers 5xx or leaves a refused write behind', async () => {
    const requests = fc.record({
      op: fc.constantFrom(...operations),
      withKey: fc.boolean(),
      seed: fc.integer(),
    });
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(requests, async ({ op, withKey, seed }) => {
        const values = fc.sample(fc.record(Object.fromEntries(op.params.map((p) => [p.name, arbitraryFor(p.schema, components)]))), { numRuns: 1, seed })[0] as Record<string, unknown>;
        const body = op.body ? fc.sample(arbitraryFor(op.body, components), { numRuns: 1, seed })[0] : undefined;
        let path = op.path;
        const query: string[] = [];
        for (const p of op.params) {
          const v = values[p.name];
          const text = typeof v === 'string' ? v : JSON.stringify(v) ?? '';
          if (p.in === 'path') path = path.replace(`{${p.name}}`, encode(text === '' ? 'x' : text));
          else if (p.in === 'query' && v !== undefined) query.push(`${encode(p.name)}=${encode(text)}`);
        }
        const url = `${path}${query.length ? `?${query.join('&')}` : ''}`;
        const before = head();
        const res = await s.request(op.method, url, { key: withKey ? s.key : null, body, timeout: 20_000 });
        sent++;
        const where = `${op.method} ${url} ${JSON.stringify(body)?.slice(0, 200)}`;
        assert.ok(res.status < 500, `${where} → ${res.status} ${res.text.slice(0, 300)}`);
        if (res.status >= 400) {
          assert.equal(typeof res.body?.error?.code, 'string', `${where}: no error envelope`);
          assert.equal(typeof res.body?.error?.message, 'string', `${where}: no message`);
          assert.equal(head(), before, `${where}: refused with ${res.status}, yet main moved`);
        }
      }),
      { numRuns: 300, seed: Number(process.env.FUZZ_SEED ?? 20261124), endOnFailure: true, includeErrorInReport: true },
    );
    assert.equal(sent, 300);
    // The service is still whole after all of it (the valid writes among the requests may have changed or deleted the fixtures).
    assert.equal((await fetch(new URL('/healthz', s.url))).status, 200);
    assert.equal((await s.request('GET', '/versions')).status, 200);
    s.git('fsck', '--strict', '--no-progress');
  });
});
