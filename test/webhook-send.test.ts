import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { AllowList, resolveTarget, TargetRefused, urlProblem } from '../src/webhooks/addresses.ts';
import { ANSWER_CAP, send } from '../src/webhooks/send.ts';

describe('One delivery attempt (webhooks/send.ts) against a receiver on 127.0.0.1', () => {
  let server: Server;
  let base = '';
  const hits: string[] = [];
  before(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `${base}/elsewhere` }).end();
      } else if (req.url === '/flood') {
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let sent = 0;
        const more = () => {
          while (sent < 200 && res.write(chunk)) sent++;
          if (sent < 200) res.once('drain', more);
          else res.end();
        };
        more();
      } else if (req.url === '/silent') {
        // Never answers: the attempt's timeout ends it.
      } else res.end('fine');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const allow = new AllowList(['127.0.0.1']);

  test('a 2xx is delivered', async () => {
    const r = await send(`${base}/ok`, {}, '{}', allow, 2000);
    assert.deepEqual([r.status, r.ok, r.error, r.answer], [200, true, null, 'fine']);
  });

  test('a redirect is not followed, and counts as a failure', async () => {
    const r = await send(`${base}/redirect`, {}, '{}', allow, 2000);
    assert.deepEqual([r.status, r.ok], [302, false]);
    assert.match(r.error!, /redirect, not followed/);
    assert.ok(!hits.includes('/elsewhere'));
  });

  test('of a large answer only the first 4 KB are read', async () => {
    const started = Date.now();
    const r = await send(`${base}/flood`, {}, '{}', allow, 5000);
    assert.equal(r.status, 200);
    assert.ok(r.answer.length <= ANSWER_CAP);
    assert.ok(Date.now() - started < 3000);
  });

  test('no answer within the timeout is a failure without a status', async () => {
    const r = await send(`${base}/silent`, {}, '{}', allow, 300);
    assert.deepEqual([r.status, r.ok, r.error], [null, false, 'no answer within 0.3 s']);
    assert.ok(r.ms >= 290 && r.ms < 2000, `${r.ms} ms`);
  });

  test('without the allow-list the same receiver is refused before any connection', async () => {
    const before = hits.length;
    const r = await send(`${base}/ok`, {}, '{}', new AllowList([]), 2000);
    assert.deepEqual([r.status, r.ok], [null, false]);
    assert.match(r.error!, /^refused: 127\.0\.0\.1 is a loopback address/);
    assert.equal(hits.length, before);
  });
});

describe('The address rules (webhooks/addresses.ts)', () => {
  test('forbidden ranges, IPv4 written as IPv6 included; the allow-list by address, range or host name', () => {
    const none = new AllowList([]);
    for (const a of ['127.0.0.1', '10.0.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.1.1.1', '224.0.0.1']) {
      assert.notEqual(none.refusal('h', a), null, a);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '172.32.0.1']) assert.equal(none.refusal('h', a), null, a);
    assert.equal(new AllowList(['10.20.0.0/16']).refusal('h', '10.20.3.4'), null);
    assert.notEqual(new AllowList(['10.20.0.0/16']).refusal('h', '10.21.3.4'), null);
    assert.equal(new AllowList(['hooks.internal']).refusal('Hooks.Internal', '10.0.0.4'), null);
    assert.notEqual(new AllowList(['hooks.internal']).refusal('other.internal', '10.0.0.4'), null);
  });

  test('a host name is judged by every address it resolves to', async () => {
    await assert.rejects(resolveTarget('localhost', new AllowList([])), (err: Error) => err instanceof TargetRefused && /^localhost resolves to/.test(err.message));
    const allowed = await resolveTarget('localhost', new AllowList(['localhost']));
    assert.ok(['127.0.0.1', '::1'].includes(allowed.address));
  });

  test('URLs as written: the scheme, credentials and address literals', () => {
    const none = new AllowList([]);
    assert.equal(urlProblem('https://hooks.example.com/x', none), null);
    assert.equal(urlProblem('http://localhost:9/x', none), null, 'a name is checked where it resolves, at delivery');
    assert.match(urlProblem('file:///etc/passwd', none)!, /http or https/);
    assert.match(urlProblem('https://a:b@hooks.example.com/', none)!, /user name or password/);
    assert.match(urlProblem('http://[::1]/', none)!, /loopback/);
    assert.match(urlProblem('http://2130706433/', none)!, /loopback/, 'an IPv4 address written as one number is read as the URL parser reads it');
  });
});
