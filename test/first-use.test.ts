import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Koa, { type Middleware } from 'koa';
import { pino } from 'pino';
import { builtOnFirstRequest } from '../src/http/first-request.ts';
import { errorBoundary } from '../src/http/errors.ts';
import { requestLogging } from '../src/http/logging.ts';

/**
 * Parts of the service that load on first use (the authorization server, the tool server, the
 * portal): the first requests that need one share a single load, a failed load answers a JSON 503
 * that says which part and when to retry, and the next request loads it again.
 */
describe('a part loaded on first use', () => {
  let server: Server;
  let base: string;
  let builds = 0;
  let failNext = true;
  let release: () => void = () => undefined;
  let gate = Promise.resolve();

  before(async () => {
    const app = new Koa();
    app.use(requestLogging(pino({ level: 'silent' })));
    app.use(errorBoundary(1024));
    app.use(
      builtOnFirstRequest('tool server', (ctx) => ctx.path === '/part', async (): Promise<Middleware> => {
        builds++;
        await gate;
        if (failNext) {
          failNext = false;
          throw new Error('chunk file missing');
        }
        return (ctx) => {
          ctx.body = { served: true };
        };
      }),
    );
    app.use((ctx) => {
      ctx.body = { other: true };
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('requests for other paths pass by without loading it', async () => {
    const res = await fetch(`${base}/elsewhere`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { other: true });
    assert.equal(builds, 0);
  });

  test('a failed load answers 503 component_unavailable with Retry-After, to every request that waited for it', async () => {
    gate = new Promise<void>((resolve) => (release = resolve));
    const waiting = [fetch(`${base}/part`), fetch(`${base}/part`), fetch(`${base}/part`)];
    await new Promise((r) => setTimeout(r, 50));
    release();
    const answers = await Promise.all(waiting);
    assert.equal(builds, 1, 'concurrent first requests share one load');
    for (const res of answers) {
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '5');
      const body = (await res.json()) as { error: { code: string; component: string; message: string } };
      assert.equal(body.error.code, 'component_unavailable');
      assert.equal(body.error.component, 'tool server');
      assert.match(body.error.message, /tool server could not be loaded/);
      assert.doesNotMatch(body.error.message, /chunk file missing/, 'the cause stays in the log');
    }
  });

  test('the next request loads it again, and later ones use what was loaded', async () => {
    const first = await fetch(`${base}/part`);
    assert.equal(first.status, 200);
    assert.deepEqual(await first.json(), { served: true });
    const again = await Promise.all([fetch(`${base}/part`), fetch(`${base}/part`)]);
    for (const res of again) assert.deepEqual(await res.json(), { served: true });
    assert.equal(builds, 2, 'one failed load, one that worked');
  });
});
