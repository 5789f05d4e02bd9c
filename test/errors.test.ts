import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { brotliCompressSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { ERROR_CATALOGUE } from '../src/errors.ts';
import { answerClientErrors } from '../src/http/client-errors.ts';
import { assertError } from './helpers/assertions.ts';
import { createVersion, startTestServer, type TestServer } from './helpers/server.ts';

describe('Errors and bad input', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { HELP_BODY_LIMIT: '4096' } });
    await createVersion(s, 'v1');
  });
  after(() => s.close());

  test('an unknown route is a JSON 404', async () => {
    const res = await s.request('GET', '/nothing-here', { key: null });
    assertError(res, 404, 'not_found');
    assert.equal(res.body.error.resource, 'route');
    assertError(await s.request('GET', '/versions/v1/nothing-here', { key: null }), 404, 'not_found');
  });

  test('a known path with another method is 405 with Allow', async () => {
    const res = await s.request('PUT', '/versions', { body: {} });
    assertError(res, 405, 'method_not_allowed');
    assert.match(res.headers.get('allow') ?? '', /GET/);
  });

  test('malformed JSON is 400 invalid_json', async () => {
    const res = await s.request('POST', '/versions', { raw: '{"slug": "x",', headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 'invalid_json');
  });

  test('a body that is JSON but no object is refused as the wrong shape, naming what it is', async () => {
    for (const [raw, what] of [['"v9"', 'a string'], ['null', 'null'], ['12', 'a number'], ['true', 'true or false']]) {
      const res = await s.request('POST', '/versions', { raw, headers: { 'content-type': 'application/json' } });
      assertError(res, 400, 'validation_failed', { field: 'body' });
      assert.equal(res.body.error.message, `body must be a JSON object ({ … }), not ${what}`);
    }
    const list = await s.request('POST', '/versions', { raw: '[]', headers: { 'content-type': 'application/json' } });
    assertError(list, 400, 'validation_failed', { field: 'body' });
  });

  test('a body that is not UTF-8 is refused naming the byte, not stored with U+FFFD in place of it', async () => {
    const raw = Buffer.concat([Buffer.from('{"slug":"latin","label":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const res = await s.request('POST', '/versions', { raw, headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 'invalid_json', { field: 'body', offset: 28 });
    assert.equal(res.body.error.message, 'The request body is not UTF-8: byte 0xE9 at offset 28 (line 1) starts no UTF-8 character; send the body encoded as UTF-8');
    assert.equal((await s.request('GET', '/versions/latin')).status === 200, false);
    assert.equal(s.git('ls-tree', '--name-only', 'main').includes('latin'), false);
    // A byte order mark before UTF-8 JSON is read past, as before.
    const bom = await s.request('POST', '/versions', { raw: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"slug":"with-bom","label":"Café"}')]), headers: { 'content-type': 'application/json' } });
    assert.equal(bom.status, 200, bom.text);
    assert.equal(bom.body.label, 'Café');
  });

  test('a query parameter whose %-escapes are no UTF-8 is refused naming it, not read with U+FFFD', async () => {
    for (const q of ['%ED%A0%80', 'caf%E9', '%FF']) {
      const res = await s.request('GET', `/versions/v1/search?q=${q}`);
      assertError(res, 400, 'validation_failed', { field: 'query/q' });
      assert.match(res.body.error.message, /^query\/q is not UTF-8 once its %-escapes are decoded/);
    }
    assert.equal((await s.request('GET', '/versions/v1/search?q=caf%C3%A9')).status, 200);
  });

  test('messages say what happened: a node placed too deep when created, a stamp for a translation that was never made', async () => {
    await createVersion(s, 'deep-msg');
    let parent: string | null = null;
    for (let i = 1; i <= 32; i++) {
      const res = await s.request('POST', '/versions/deep-msg/nodes', { body: { slug: `d${i}`, kind: 'section', parentSlug: parent, translations: { en: { title: `D${i}` } } } });
      assert.equal(res.status, 200, res.text);
      parent = `d${i}`;
    }
    const deep = await s.request('POST', '/versions/deep-msg/nodes', { body: { slug: 'd33', parentSlug: 'd32', translations: { en: { title: 'D33' } } } });
    assertError(deep, 400, 'too_deep', { field: 'body/parentSlug' });
    assert.match(deep.body.error.message, /^Placing "d33" there would nest the tree 33 levels deep/);
    const never = await s.request('PUT', '/versions/deep-msg/topics/d1/translations/de', { body: { title: 'D', expectedUpdatedAt: '2026-01-01T00:00:00.000Z' } });
    assertError(never, 409, 'stale_write');
    assert.match(never.body.error.message, /does not exist: it was deleted since, or never made \(expectedUpdatedAt was 2026-01-01T00:00:00\.000Z\)$/);
  });

  test('a parameter of the endpoint given twice with different values is refused; the same value twice, or an unknown one, is not', async () => {
    const twice = await s.request('GET', '/versions/v1/tree?language=en&language=de');
    assertError(twice, 400, 'validation_failed', { field: 'query/language' });
    assert.equal(twice.body.error.message, 'query/language is given twice, with different values; send it once');
    assert.equal((await s.request('GET', '/versions/v1/tree?language=de&language=de')).status, 200);
    assert.equal((await s.request('GET', '/versions/v1/tree?utm=a&utm=b')).status, 200);
  });

  test('a body in a compression the service does not read is 415 naming the header and the ones it reads', async () => {
    const res = await s.request('POST', '/versions', { raw: '{"slug":"z1"}', headers: { 'content-type': 'application/json', 'content-encoding': 'zstd' } });
    assertError(res, 415, 'unsupported_media_type', { field: 'header/content-encoding' });
    assert.match(res.body.error.message, /zstd.*\(send it gzip, deflate or br compressed, or as it is\)$/);
  });

  test('a "__proto__" key is refused saying why', async () => {
    const res = await s.request('POST', '/versions', { raw: '{"slug":"p1","__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 'invalid_json', { field: 'body' });
    assert.match(res.body.error.message, /holds a "__proto__" key .*which is not accepted/);
  });

  test('a wrong content type is 415', async () => {
    const res = await s.request('POST', '/versions', { raw: 'slug=v9', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assertError(res, 415, 'unsupported_media_type');
    assert.equal(s.git('ls-tree', '--name-only', 'main').includes('v9'), false);
  });

  test('a JSON body in another charset than UTF-8 is 415 saying so, not invalid JSON', async () => {
    const json = JSON.stringify({ slug: 'v7', label: 'Seven' });
    const res = await fetch(`${s.service.url}/versions`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-16le', authorization: `Bearer ${s.key}` }, body: Buffer.from(json, 'utf16le') });
    const body = (await res.json()) as any;
    assertError({ status: res.status, body }, 415, 'unsupported_media_type');
    assert.match(body.error.message, /UTF-8.*utf-16le/);
    // UTF-8 named in any spelling is read.
    const ok = await s.request('POST', '/versions', { raw: json, headers: { 'content-type': 'application/json; charset=UTF-8' } });
    assert.equal(ok.status, 200, ok.text);
  });

  test('a body that does not decompress as its Content-Encoding says is 400 naming the header, whichever the encoding', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      for (const raw of [JSON.stringify({ slug: 'v6' }), 'hello world, this is not compressed at all']) {
        const res = await s.request('POST', '/versions', { raw, headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
        assertError(res, 400, 'invalid_json', { field: 'header/content-encoding' });
        assert.match(res.body.error.message, /decompress/, `${encoding}: ${res.body.error.message}`);
      }
    }
    // Compressed as it says, it is read.
    const ok = await fetch(`${s.service.url}/versions`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'br', authorization: `Bearer ${s.key}` }, body: brotliCompressSync(JSON.stringify({ slug: 'v6br' })) });
    assert.equal(ok.status, 200, await ok.text());
  });

  test('what Node.js\'s HTTP parser refuses is answered with the JSON envelope too, and the connection closed', async () => {
    const port = Number(new URL(s.service.url).port);
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(request));
        let text = '';
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
        socket.setTimeout(5000, () => reject(new Error(`no answer to ${JSON.stringify(request.slice(0, 40))}`)));
      });
    const cases: Array<[string, number, string]> = [
      ['FOO /help/v1/versions HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'malformed_request'],
      ['GET /help/v1/versions/\u00fc/tree HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'malformed_request'],
      ['POST /help/v1/versions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}', 400, 'malformed_request'],
      [`GET /help/v1/versions HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
    ];
    for (const [request, status, code] of cases) {
      const answer = await raw(request);
      const [head, body] = answer.split('\r\n\r\n');
      assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), answer.slice(0, 200));
      assert.match(head, /content-type: application\/json/i);
      assert.match(head, /connection: close/i);
      const error = JSON.parse(body).error;
      assert.equal(error.code, code, body);
      assert.ok(error.message.length > 20, body);
      // Like every error: a request id, sent as X-Request-Id too.
      assert.match(error.requestId ?? '', /^[0-9a-f-]{36}$/, body);
      assert.match(head, new RegExp(`\\r\\nX-Request-Id: ${error.requestId}\\r\\n`, 'i'));
    }
    // The server goes on answering.
    assert.equal((await s.request('GET', '/versions', { key: null })).status, 200);
  });

  test('a body of a +json type is read as JSON, not as an empty body', async () => {
    const res = await s.request('POST', '/versions', { raw: JSON.stringify({ slug: 'v8', label: 'Eight', languages: ['en'] }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.slug, 'v8');
  });

  test('a body over the limit is 413 naming the limit', async () => {
    const res = await s.request('PUT', '/versions/v1/topics/x/translations/en', { body: { title: 'x', bodyMd: 'y'.repeat(10_000) } });
    assertError(res, 413, 'payload_too_large');
    assert.equal(res.body.error.limit, 4096);
    // The rest of the body may be left unread on the connection: the client is told not to send another request on it.
    assert.equal(res.headers.get('connection'), 'close');
  });

  test('an unknown body field is refused, naming it', async () => {
    const res = await s.request('POST', '/versions', { body: { slug: 'v2', colour: 'red' } });
    assertError(res, 400, 'validation_failed');
    assert.equal(res.body.error.field, 'body/colour');
  });

  test('validation names every field at fault', async () => {
    const res = await s.request('POST', '/versions', { body: { slug: 'Bad Slug', status: 'live', languages: [] } });
    assertError(res, 400, 'validation_failed');
    const fields = res.body.error.errors.map((e: { field: string }) => e.field);
    assert.ok(fields.includes('body/slug'));
    assert.ok(fields.includes('body/status'));
    assert.ok(fields.includes('body/languages'));
  });

  test('validation messages read as English: types and allowed values spelled out', async () => {
    const res = await s.request('POST', '/versions', { body: { slug: 'v9', label: 7, status: 'live', sortOrder: 'first' } });
    assertError(res, 400, 'validation_failed');
    const byField = Object.fromEntries(res.body.error.errors.map((e: { field: string; message: string }) => [e.field, e.message]));
    assert.equal(byField['body/label'], 'must be a string');
    assert.equal(byField['body/status'], 'must be one of "draft", "published", "archived"');
    assert.match(byField['body/sortOrder'], /^must be a number( or null)?$/);
  });

  test('one mistake is one problem, said as what to change', async () => {
    const only = async (method: string, path: string, body: unknown, field: string, message: RegExp) => {
      const res = await s.request(method, path, { body, key: method === 'GET' ? null : undefined });
      assertError(res, 400, 'validation_failed', { field });
      assert.equal(res.body.error.errors.length, 1, JSON.stringify(res.body.error.errors));
      assert.match(res.body.error.errors[0].message, message);
      return res.body.error.errors[0].message as string;
    };
    // An empty title breaks its minimum length and its pattern; a made-up language code its format and its pattern.
    await only('POST', '/versions/v1/nodes', { slug: 'a', translations: { en: { title: '' } } }, 'body/translations/en/title', /^must not be empty$/);
    await only('POST', '/versions/v1/nodes', { slug: 'a', translations: { en: { title: '  ' } } }, 'body/translations/en/title', /^must not be only white space$/);
    // Text holds no control characters but tabs and line breaks.
    await only('POST', '/versions/v1/nodes', { slug: 'a', translations: { en: { title: 'Install\u0000now' } } }, 'body/translations/en/title', /^must not hold control characters other than tabs and line breaks \(it holds U\+0000\)$/);
    await only('PUT', '/versions/v1/topics/install/translations/en', { title: 'Install', summary: 'Two\nlines,\ta tab, then \u001b[31m' }, 'body/summary', /^must not hold control characters other than tabs and line breaks \(it holds U\+001B\)$/);
    await only('PATCH', '/versions/v1', { label: 'Version\u0007one' }, 'body/label', /^must not hold control characters other than tabs and line breaks \(it holds U\+0007\)$/);
    await only('GET', '/versions/v1/tree?language=klingon', undefined, 'query/language', /^is not a valid language code/);
    await only('POST', '/versions', { slug: 'v'.repeat(65) }, 'body/slug', /^must be at most 64 characters$/);
    // Descriptions written for the reference are not error messages: no "unique within the version" for a slug's letters.
    const slug = await only('GET', '/versions/v1/topics/Install', undefined, 'path/slug', /lowercase letters and digits/);
    assert.doesNotMatch(slug, /unique/);
    // Query parameters and icons say what they take, not their reference description.
    await only('GET', '/versions?limit=0', undefined, 'query/limit', /^must be a whole number from 1 to 1000$/);
    await only('GET', '/versions/v1/pdf-bundle?limit=500', undefined, 'query/limit', /^must be a whole number from 1 to 200$/);
    await only('GET', '/versions/v1/pdf-bundle?topics=install,,faq', undefined, 'query/topics', /^must be topic or section slugs separated by single commas, without spaces/);
    await only('POST', '/versions/v1/nodes', { slug: 'a', icon: 'Rocket Ship', translations: { en: { title: 'A' } } }, 'body/icon', /^must be an icon name such as rocket or book-open/);
    // A bad key is named where it is, like any field.
    await only('POST', '/versions/v1/nodes', { slug: 'a', translations: { en: { title: 'A' }, 'not a lang': { title: 'B' } } }, 'body/translations/not a lang', /^is not a valid language code/);
    // The validator's own words ("must NOT have fewer than 1 items") are not shown.
    await only('POST', '/versions', { slug: 'v8', languages: [] }, 'body/languages', /^must not be empty$/);
    await only('POST', '/versions', { slug: 'v8', languages: ['en', 'en'] }, 'body/languages', /^must not hold the same value twice \(items 0 and 1 are the same\)$/);
    await only('PATCH', '/versions/v1', { label: 'x', expectedUpdatedAt: 'yesterday' }, 'body/expectedUpdatedAt', /^must be an ISO timestamp such as 2026-01-31T12:00:00\.000Z/);
    const huge = await s.request('POST', '/versions/v1/nodes', { raw: '{"slug":"n1","sortOrder":1e400,"translations":{"en":{"title":"N"}}}', headers: { 'content-type': 'application/json' } });
    assertError(huge, 400, 'validation_failed', { field: 'body/sortOrder' });
    assert.equal(huge.body.error.errors[0].message, 'must be a finite number (this one is too large to hold)');
    // Creating a version called latest: the name is taken, said as such.
    await only('POST', '/versions', { slug: 'latest' }, 'body/slug', /^must not be "latest": that name stands for the version marked latest .*choose another$/);
    // `latest` stands for a version only in pdf-bundle: said so, not "an invalid format".
    await only('GET', '/versions/latest/tree', undefined, 'path/version', /only in pdf-bundle.*slug/);
  });

  test('names Windows keeps for devices are refused as slugs, saying why: such a file cannot be checked out there', async () => {
    const commits = s.commitCount();
    for (const slug of ['con', 'nul', 'com1', 'lpt9']) {
      const res = await s.request('POST', '/versions/v1/nodes', { body: { slug, translations: { en: { title: 'T' } } } });
      assertError(res, 400, 'validation_failed', { field: 'body/slug' });
      assert.match(res.body.error.message, /Windows/);
    }
    for (const slug of ['aux', 'prn.2']) assertError(await s.request('POST', '/versions', { body: { slug } }), 400, 'validation_failed', { field: 'body/slug' });
    assert.equal(s.commitCount(), commits);
    // Names that only start like one are ordinary.
    assert.equal((await s.request('POST', '/versions/v1/nodes', { body: { slug: 'console', translations: { en: { title: 'Console' } } } })).status, 200);
    assert.equal((await s.request('POST', '/versions', { body: { slug: 'com10' } })).status, 200);
  });

  test('a body with thousands of invalid elements lists the first 100 problems and counts the rest', async () => {
    const items = Array.from({ length: 300 }, () => 1);
    const res = await s.request('POST', '/versions/v1/reorder', { body: { items } });
    assertError(res, 400, 'validation_failed');
    assert.equal(res.body.error.errors.length, 100);
    assert.equal(res.body.error.omittedErrors, 200);
    assert.match(res.body.error.message, /; and 290 more$/);
    assert.equal(res.body.error.field, 'body/items/0');
    assert.equal(res.body.error.errors[99].message, 'must be an object');
  });

  test('an invalid path parameter is 400 naming it, and never reaches the file system', async () => {
    for (const path of ['/versions/..%2F..%2Fetc/tree', '/versions/v1/topics/..%2Fversion/translations/en', '/versions/v1/topics/a/translations/not a lang']) {
      const res = await s.request('GET', path);
      assertError(res, 400, 'validation_failed');
      assert.match(res.body.error.field, /^path\//);
    }
  });

  test('a field the rules of the domain refuse is named where the request holds it, like a field the schema refuses', async () => {
    await createVersion(s, 'fields', { languages: ['en', 'de'] });
    assertError(await s.request('POST', '/versions', { body: { slug: 'fields', label: 'Again', languages: ['en'] } }), 409, 'conflict', { field: 'body/slug' });
    assertError(await s.request('PATCH', '/versions/fields', { body: { isLatest: true } }), 409, 'invalid_state', { field: 'body/isLatest' });
    const node = { slug: 'page', parentSlug: null, kind: 'topic', translations: { en: { title: 'Page', bodyMd: 'Text.\n' } } };
    assertError(await s.request('POST', '/versions/fields/nodes', { body: { ...node, translations: { ...node.translations, fr: { title: 'Page' } } } }), 400, 'language_not_enabled', { field: 'body/translations/fr' });
    assertError(await s.request('POST', '/versions/fields/nodes', { body: { ...node, translations: { de: { title: 'Seite' } } } }), 400, 'primary_language_required', { field: 'body/translations/en' });
    assert.equal((await s.request('POST', '/versions/fields/nodes', { body: node })).status, 200);
    assertError(await s.request('POST', '/versions/fields/nodes', { body: node }), 409, 'conflict', { field: 'body/slug' });
    assertError(await s.request('PUT', '/versions/fields/topics/page/translations/fr', { body: { title: 'Page' } }), 400, 'language_not_enabled', { field: 'path/lang' });
    assertError(await s.request('PATCH', '/versions/fields', { body: { languages: ['de'] } }), 409, 'language_in_use', { field: 'body/languages' });
    assertError(await s.request('DELETE', '/versions/fields/topics/page/translations/en'), 400, 'primary_language_required', { field: 'path/lang' });
  });

  test("an import's problems name their fields where the request holds the nodes: body/nodes/… or body/document/nodes/…", async () => {
    await createVersion(s, 'imports', { languages: ['en', 'de'] });
    const nodes = [{ slug: 'ok', translations: { en: { title: 'OK' } } }, { slug: 'lost', parentSlug: 'nowhere', translations: { en: { title: 'Lost' }, fr: { title: 'Perdu' } } }];
    const listed = assertError(await s.request('POST', '/versions/imports/import', { body: { nodes } }), 400, 'invalid_document');
    assert.deepEqual(listed.offending.map((o: { field: string }) => o.field).sort(), ['body/nodes/1/parentSlug', 'body/nodes/1/translations/fr']);
    const wrapped = assertError(await s.request('POST', '/versions/imports/import', { body: { document: { nodes } } }), 400, 'invalid_document');
    assert.deepEqual(wrapped.offending.map((o: { field: string }) => o.field).sort(), ['body/document/nodes/1/parentSlug', 'body/document/nodes/1/translations/fr']);
    // A placement refused once the document is checked names the node where the document has it too.
    const deep = Array.from({ length: 40 }, (_, i) => ({ slug: `d${i}`, parentSlug: i === 0 ? null : `d${i - 1}`, kind: 'section', translations: { en: { title: `D${i}` } } }));
    const tooDeep = await s.request('POST', '/versions/imports/import', { body: { document: { nodes: deep } } });
    assert.equal(tooDeep.status, 400, tooDeep.text);
    assert.match(tooDeep.body.error.field, /^body\/document\/nodes\/\d+\/parentSlug$/, tooDeep.text);
  });

  test('an unknown query parameter is ignored, but not the language under the name another endpoint gives it', async () => {
    const res = await s.request('GET', '/versions?cacheBuster=1');
    assert.equal(res.status, 200);
    // Search and PDFs take `lang`, the tree and topics `language`: the other name would answer in English without a word.
    const tree = await s.request('GET', '/versions/v1/tree?lang=de', { key: null });
    assertError(tree, 400, 'validation_failed', { field: 'query/lang' });
    assert.equal(tree.body.error.message, 'query/lang is not a parameter here: this endpoint takes the language as "language"');
    const search = await s.request('GET', '/versions/v1/search?q=x&language=de', { key: null });
    assertError(search, 400, 'validation_failed', { field: 'query/language' });
    assert.match(search.body.error.message, /takes the language as "lang"$/);
    // Both given: the right one is used (a client that sends both everywhere is not refused).
    assert.equal((await s.request('GET', '/versions/v1/tree?lang=de&language=de')).status, 200);
  });

  test('an invalid If-Unmodified-Since header is 400 naming the header', async () => {
    const res = await s.request('PATCH', '/versions/v1', { body: { label: 'x' }, headers: { 'if-unmodified-since': 'yesterday-ish' } });
    assertError(res, 400, 'validation_failed');
    assert.equal(res.body.error.field, 'header/if-unmodified-since');
  });

  test('a write with If-Match or If-None-Match is 412 and writes nothing: the service does not evaluate them, and would otherwise lose the update they guard', async () => {
    const commits = s.commitCount();
    const tree = await s.request('GET', '/versions/v1/tree');
    assert.equal(tree.status, 200);
    for (const [method, path, body, header, value] of [
      ['PATCH', '/versions/v1', { label: 'Guarded' }, 'if-match', tree.headers.get('etag')!],
      ['PATCH', '/versions/v1', { label: 'Guarded' }, 'if-match', '*'],
      ['POST', '/versions', { slug: 'v12' }, 'if-none-match', '*'],
    ] as const) {
      const res = await s.request(method, path, { body, headers: { [header]: value } });
      assertError(res, 412, 'precondition_failed', { field: `header/${header}` });
      assert.match(res.body.error.message, /If-Unmodified-Since/);
    }
    assert.equal(s.commitCount(), commits);
    // Reads still answer If-None-Match with 304.
    assert.equal((await s.request('GET', '/versions/v1/tree', { headers: { 'if-none-match': tree.headers.get('etag')! } })).status, 304);
  });

  test('GET and POST /versions/{version}/pdf are 410 gone', async () => {
    for (const method of ['GET', 'POST']) {
      const res = await s.request(method, '/versions/v1/pdf', { key: null });
      assertError(res, 410, 'gone');
      assert.equal(res.body.error.use, '/help/v1/versions/v1/pdf-bundle');
    }
  });

  test('every error carries the request id that the response header names', async () => {
    const res = await s.request('GET', '/versions/nope/tree', { headers: { 'x-request-id': 'trace-123' } });
    assertError(res, 404, 'not_found');
    assert.equal(res.body.error.requestId, 'trace-123');
    assert.equal(res.headers.get('x-request-id'), 'trace-123');
  });

  test('answers say nosniff, the cached ones too: a JSON answer holding <script> is never read as a page', async () => {
    await createVersion(s, 'sniff', { status: 'published' });
    await s.request('POST', '/versions/sniff/nodes', { body: { slug: 'x', translations: { en: { title: '<script>alert(1)</script>' } } } });
    for (let i = 0; i < 2; i++) {
      const res = await s.request('GET', '/versions/sniff/tree', { key: null });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `answer ${i + 1}`);
    }
    assert.equal((await s.request('GET', '/versions/nope/tree', { key: null })).headers.get('x-content-type-options'), 'nosniff');
  });

  test('docs/error-codes.md lists exactly the codes of the error catalogue, with their statuses', () => {
    const page = readFileSync(new URL('../docs/error-codes.md', import.meta.url), 'utf8');
    const rows = [...page.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map(([, status, code]) => `${code}:${status}`);
    const catalogue = Object.entries(ERROR_CATALOGUE).map(([code, e]) => `${code}:${e.status}`);
    assert.deepEqual(rows.sort(), catalogue.sort());
  });
});

test('a request whose body stops arriving is answered 408 request_timeout in JSON, naming the timeout', async () => {
  // The service's handler on a server of Node's with a one-second request timeout, checked every 100 ms;
  // the application waits for the body, as the body parser does.
  const server = createServer({ requestTimeout: 1000, connectionsCheckingInterval: 100 }, () => undefined);
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  server.on('clientError', answerClientErrors(log));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('POST /help/v1/versions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"slug":'));
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      setTimeout(() => reject(new Error(`no answer: ${text}`)), 10_000).unref();
    });
    assert.match(answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.match(answer, /\r\nConnection: close\r\n/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    const { requestId, ...error } = body.error;
    assert.deepEqual(error, { code: 'request_timeout', message: 'The whole request did not arrive within 1 s (its body stopped coming, or came too slowly); send it again', timeoutSeconds: 1 });
    assert.ok(lines.some((l) => l.requestId === requestId && l.status === 408), 'the answer is in the log, under its request id');
  } finally {
    server.close();
  }
});
