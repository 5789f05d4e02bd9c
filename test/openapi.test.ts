import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { allSchemas, validator } from '../src/schemas/registry.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

/** The endpoints of the contract this service implements so far. */
const CONTRACT = [
  'get /versions',
  'post /versions',
  'patch /versions/{version}',
  'delete /versions/{version}',
  'post /versions/{version}/duplicate',
  'get /versions/{version}/tree',
  'get /versions/{version}/topics/{slug}',
  'get /versions/{version}/nodes',
  'get /versions/{version}/topics/{slug}/translations/{lang}',
  'post /versions/{version}/nodes',
  'patch /versions/{version}/nodes/{slug}',
  'delete /versions/{version}/nodes/{slug}',
  'put /versions/{version}/topics/{slug}/translations/{lang}',
  'delete /versions/{version}/topics/{slug}/translations/{lang}',
  'post /versions/{version}/reorder',
  'get /versions/{version}/search',
  'get /versions/{version}/export',
  'post /versions/{version}/import',
  'post /versions/{version}/import-files',
  'get /versions/{version}/pdf-bundle',
  'get /whoami',
  'get /versions/{version}/pdf',
  'post /versions/{version}/pdf',
];

describe('GET /help/v1/openapi.json', () => {
  let s: TestServer;
  let doc: any;
  before(async () => {
    s = await startTestServer();
    doc = (await s.request('GET', '/openapi.json', { key: null })).body;
  });
  after(() => s.close());

  test('is a valid OpenAPI 3.1 document', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  test('covers every endpoint of the contract', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`));
    for (const e of CONTRACT) assert.ok(documented.includes(e), `${e} is missing`);
  });

  test('request bodies are the schemas the server validates with', async () => {
    const schema = doc.components.schemas.TranslationPut;
    assert.equal(schema.properties.title.$ref, '#/components/schemas/Title');
    assert.equal(doc.components.schemas.Title.maxLength, 200);
    assert.equal(doc.paths['/versions/{version}/topics/{slug}/translations/{lang}'].put.requestBody.content['application/json'].schema.$ref, '#/components/schemas/TranslationPut');
    // The limit documented is the limit enforced.
    await createVersion(s, 'v1');
    await createNode(s, 'v1', { slug: 'a' });
    const res = await s.request('PUT', '/versions/v1/topics/a/translations/en', { body: { title: 'x'.repeat(201) } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.field, 'body/title');
  });

  test('answers match the documented response schemas', async () => {
    await createNode(s, 'v1', { slug: 'b', kind: 'section', icon: 'rocket' });
    await createNode(s, 'v1', { slug: 'c', parentSlug: 'b' });
    const checks: Array<[string, string, string, unknown?]> = [
      ['GET', '/versions', 'VersionList'],
      ['GET', '/versions/v1/tree', 'Tree'],
      ['GET', '/versions/v1/topics/c', 'Topic'],
      ['GET', '/versions/v1/nodes?include=bodies', 'NodeList'],
      ['GET', '/versions/v1/topics/c/translations/en', 'TranslationRead'],
      ['GET', '/whoami', 'Whoami'],
      ['PATCH', '/versions/v1/nodes/c', 'NodeWriteResult', { icon: 'star' }],
      ['PUT', '/versions/v1/topics/c/translations/de', 'TranslationPutResult', { title: 'C' }],
      ['POST', '/versions/v1/reorder', 'ReorderResult', { items: [{ slug: 'c', parentSlug: null, sortOrder: 0 }] }],
      ['DELETE', '/versions/v1/topics/c/translations/de', 'TranslationDeleteResult'],
      ['POST', '/versions/v1/duplicate', 'VersionEnvelope', { slug: 'v2' }],
      ['DELETE', '/versions/v1/nodes/b', 'NodeDeleteResult'],
      ['GET', '/versions/nope/tree', 'Error'],
    ];
    for (const [method, path, schema, body] of checks) {
      const res = await s.request(method, path, { body });
      const validate = validator(schema);
      assert.ok(validate(res.body), `${method} ${path} → ${schema}: ${JSON.stringify(validate.errors)}`);
    }
  });

  test('every operation lists what the request pipeline can answer: 401 for a wrong credential, 400 when it has parameters, 413 and 415 when it takes a body', () => {
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown; parameters: unknown[] }>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method} ${path}`;
        assert.ok(op.responses['401'], `${where} lists 401`);
        assert.ok(op.responses['503'], `${where} lists 503`);
        if (op.parameters.length > 0 || op.requestBody) assert.ok(op.responses['400'], `${where} lists 400`);
        if (op.requestBody) {
          assert.ok(op.responses['413'], `${where} lists 413`);
          assert.ok(op.responses['415'], `${where} lists 415`);
        }
      }
    }
  });

  test('what the document requires is what the service requires', async () => {
    const q = doc.paths['/versions/{version}/search'].get.parameters.find((p: { name: string }) => p.name === 'q');
    assert.equal(q.required, true, 'search q is required');
    const noQ = await s.request('GET', '/versions/v1/search', { key: null });
    assert.equal(noQ.status, 400);
    assert.equal(noQ.body.error.field, 'query/q');
    assert.equal(doc.components.schemas.ImportRequest.oneOf.length, 2, 'nodes or document, exactly one');
    for (const [body, which] of [[{}, 'neither'], [{ nodes: [], document: { nodes: [] } }, 'both']] as const) {
      const res = await s.request('POST', '/versions/v1/import', { body });
      assert.equal(res.status, 400);
      assert.match(res.body.error.message, new RegExp(`one way: as "nodes": \\[ … \\], or as an export document sent as it is in "document": \\{ "version", "nodes" \\} \\(this one has ${which}\\)$`));
    }
    // An export document posted as it is, without "document" around it: said so.
    const bare = await s.request('POST', '/versions/v1/import', { body: { version: { slug: 'v1' }, nodes: [] } });
    assert.equal(bare.status, 400);
    assert.equal(bare.body.error.field, 'body/version');
    assert.match(bare.body.error.message, /is not a field of an import: send an export document as it is inside "document"/);
  });

  test('a language code with a repeated variant is refused by the schema the document publishes, with the same message as content files', async () => {
    assert.equal(doc.components.schemas.LanguageCode.format, 'language-tag');
    const res = await s.request('PUT', '/versions/v1/topics/a/translations/aa-0000000-0000000', { body: { title: 'T' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.field, 'path/lang');
    assert.match(res.body.error.message, /not a valid language code \(BCP 47/);
  });

  test("security says what the service checks: help:write for writes, any valid key for whoami, none for public reads", async () => {
    assert.deepEqual(doc.paths['/whoami'].get.security, [{ apiKey: [] }, { oauth: [] }]);
    assert.deepEqual(doc.paths['/versions'].post.security, [{ apiKey: ['help:write'] }, { oauth: ['help:write'] }]);
    assert.deepEqual(doc.paths['/versions/{version}/tree'].get.security, [{}, { apiKey: [] }, { oauth: ['help:read'] }]);
    const origin = new URL(s.url).origin;
    const flow = doc.components.securitySchemes.oauth.flows.authorizationCode;
    assert.equal(flow.authorizationUrl, `${origin}/oauth/authorize`);
    assert.equal(flow.tokenUrl, `${origin}/oauth/token`);
    assert.deepEqual(Object.keys(flow.scopes), ['help:read', 'help:write']);
    const writeOnly = await s.createKey({ name: 'write-only', scopes: 'help:write' });
    assert.equal((await s.request('GET', '/whoami', { key: writeOnly })).status, 200, 'whoami with a key that has no help:read');
  });

  test("lists API operations only: not the reference page's own files; the retired /pdf routes are deprecated; no two tags read as one", async () => {
    const paths = Object.keys(doc.paths);
    for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'reference.js']) assert.ok(!paths.includes(`/docs/${file}`), `/docs/${file} is the page's, not the API's`);
    // Still served: the page needs them.
    assert.equal((await fetch(new URL('/help/v1/docs/swagger-ui.css', s.url))).status, 200);
    const pdf = doc.paths['/versions/{version}/pdf'];
    assert.equal(pdf.get.deprecated, true);
    assert.equal(pdf.post.deprecated, true);
    assert.equal(doc.paths['/versions/{version}/pdf-bundle'].get.deprecated, undefined, 'the bundle is live');
    const tags = [...new Set(Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).flatMap((op: any) => op.tags)))] as string[];
    const firstWord = (t: string) => t.split(' ')[0];
    assert.deepEqual(tags.filter((t, i) => tags.findIndex((o) => firstWord(o) === firstWord(t)) !== i), [], `tags: ${tags.join(', ')}`);
    assert.equal(doc.paths['/whoami'].get.tags[0], doc.paths['/versions/{version}/pdf-bundle'].get.tags[0]);
  });

  test('a wrong credential is 401 before anything else, a method the path does not take included', async () => {
    const res = await s.request('PUT', '/versions', { key: 'hcs_not-a-key', body: {} });
    assert.equal(res.status, 401);
    assert.equal((await s.request('PUT', '/versions', { body: {} })).status, 405, 'with a valid key, the method is refused');
  });
});

// The service skips this check at start (it cost 40 ms of every start): the schemas are fixed in the code.
test('every schema the service validates with and publishes is a valid JSON Schema', () => {
  const meta = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  const invalid = allSchemas.filter((s) => !meta.validateSchema(s)).map((s) => `${s.$id}: ${meta.errorsText(meta.errors)}`);
  assert.deepEqual(invalid, []);
});

