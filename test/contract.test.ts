import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkContract } from './helpers/contract.ts';
import { createVersion, startTestServer, type TestServer } from './helpers/server.ts';

/**
 * Every request a test sends through the helpers is checked against openapi.json (test/helpers/contract.ts).
 * These cases show that the check bites: an answer the document does not promise fails.
 */
describe('The contract check on every answer the tests receive', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await createVersion(s, 'v1', { status: 'published' });
  });
  after(() => s.close());

  const json = new Headers({ 'content-type': 'application/json; charset=utf-8' });

  test('a status the operation does not list fails, naming the operation and the statuses it lists', async () => {
    await assert.rejects(checkContract(`${s.url}/versions/v1/tree`, 'GET', { status: 418, headers: json, body: {} }), /GET \/versions\/\{version\}\/tree answered 418, which its OpenAPI responses \(200, 304, 400, 401, 404, 503\) do not list/);
  });

  test('a body that its documented schema refuses fails', async () => {
    await assert.rejects(checkContract(`${s.url}/versions/v1/tree`, 'GET', { status: 200, headers: json, body: { tree: 'not a tree' } }), /with a body its schema refuses/);
    await assert.rejects(checkContract(`${s.url}/versions`, 'POST', { status: 409, headers: json, body: { error: { code: 7 } } }), /with a body its schema refuses/);
  });

  test('a path the document does not know may only be 404 (or 405 / 401)', async () => {
    await assert.rejects(checkContract(`${s.url}/nothing/here`, 'GET', { status: 200, headers: json, body: {} }), /has no such operation/);
    await checkContract(`${s.url}/nothing/here`, 'GET', { status: 404, headers: json, body: { error: { code: 'not_found', message: 'x' } } });
  });

  test('real answers pass: the request helper checks each one', async () => {
    const res = await s.request('GET', '/versions/v1/tree', { key: null });
    assert.equal(res.status, 200);
    await checkContract(`${s.url}/versions/v1/tree`, 'GET', res);
  });
});
