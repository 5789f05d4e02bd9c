import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { duplicateKey } from '../src/http/duplicate-keys.ts';
import { assertError } from './helpers/assertions.ts';
import { createNode, createVersion, startTestServer, type TestServer } from './helpers/server.ts';

describe('A key given twice in one object of a JSON body', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1');
    await createNode(s, 'v1', { slug: 'a' });
  });
  after(() => s.close());

  const raw = (method: string, path: string, text: string) => s.request(method, path, { raw: text, headers: { 'content-type': 'application/json' } });

  test('is 400 invalid_json naming the key and where it is, at any depth; nothing is written', async () => {
    const commits = s.commitCount();
    const nested = '{"slug":"b","kind":"topic","translations":{"en":{"title":"One","bodyMd":"x","title":"Two"}}}';
    const err = assertError(await raw('POST', '/versions/v1/nodes', nested), 400, 'invalid_json', { field: 'body/translations/en/title', key: 'title' });
    assert.match(err.message, /"title" twice .*body\/translations\/en\/title/);
    assertError(await raw('POST', '/versions', '{"slug":"v2","label":"Two","slug":"v3","languages":["en"]}'), 400, 'invalid_json', { field: 'body/slug', key: 'slug' });
    // In an array: the item's index is part of the path.
    const imported = '{"mode":"merge","nodes":[{"slug":"a"},{"slug":"c","translations":{"en":{"title":"C"}},"slug":"d"}]}';
    assertError(await raw('POST', '/versions/v1/import', imported), 400, 'invalid_json', { field: 'body/nodes/1/slug' });
    // Two spellings of one key are one key once read.
    assertError(await raw('PUT', '/versions/v1/topics/a/translations/de', '{"title":"A","\\u0074itle":"B"}'), 400, 'invalid_json', { field: 'body/title', key: 'title' });
    assert.equal(s.commitCount(), commits, 'no commit');
    assert.equal((await s.request('GET', '/versions/v1/topics/b')).status, 404);
  });

  test('the same key in different objects, or inside a string, is no duplicate', async () => {
    const body = '{"slug":"e","kind":"topic","translations":{"en":{"title":"E \\"title\\": 1, \\"title\\"","bodyMd":"{\\"x\\":1,\\"x\\":2}"},"de":{"title":"E"}}}';
    const res = await raw('POST', '/versions/v1/nodes', body);
    assert.equal(res.status, 200, res.text);
  });

  test('the tool server answers it as JSON-RPC\'s parse error, naming the key and its path', async () => {
    const message = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"version":"v1","q":"a","q":"b"}}}';
    const res = await fetch(new URL('/mcp', s.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${s.key}` },
      body: message,
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: number; message: string } };
    assert.equal(body.error.code, -32700);
    assert.match(body.error.message, /^Parse error: .*"q" twice .*body\/params\/arguments\/q/);
  });
});

describe('duplicateKey', () => {
  test('finds the first repeat, with its path; sibling objects and string contents are not mixed up', () => {
    assert.deepEqual(duplicateKey('{"a":{"b":[1,{"c":1,"d":2,"c":3}]}}'), { key: 'c', path: ['a', 'b', 1, 'c'] });
    assert.equal(duplicateKey('[{"a":1},{"a":2},[{"a":3}]]'), null);
    assert.equal(duplicateKey('{"a\\\\":1,"b":"\\\\","a":2}'), null, 'a\\ is not a');
    assert.deepEqual(duplicateKey('{"x":"\\"a\\"","a":1,"\\u0061":2}'), { key: 'a', path: ['a'] });
    // Past the keys compared in a list: the set takes over.
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    assert.equal(duplicateKey(JSON.stringify(many)), null);
    assert.deepEqual(duplicateKey(`${JSON.stringify(many).slice(0, -1)},"k17":0}`), { key: 'k17', path: ['k17'] });
    assert.equal(duplicateKey('{"a":{"b":1},"b":{"a":1}}'), null);
  });

  test('costs time linear in the text: an object of 50,000 keys, a string of 200,000 backslashes and one of escaped quotes stay within a small multiple of JSON.parse', () => {
    const fastest = (fn: () => unknown) => {
      let best = Infinity;
      for (let r = 0; r < 5; r++) {
        const t = performance.now();
        fn();
        best = Math.min(best, performance.now() - t);
      }
      return best;
    };
    for (const text of [
      JSON.stringify(Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`key-${i}`, i]))),
      JSON.stringify({ a: '\\'.repeat(200_000), b: '"'.repeat(50_000), c: 1 }),
    ]) {
      const parse = fastest(() => JSON.parse(text));
      const scan = fastest(() => duplicateKey(text));
      assert.ok(scan < 10 * parse + 25, `scan ${scan.toFixed(1)} ms, JSON.parse ${parse.toFixed(1)} ms`);
    }
  });
});
