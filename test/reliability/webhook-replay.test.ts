import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Clock } from '../../src/clock.ts';
import { DAY_MS, DeliveryLog } from '../../src/publishing/deliveries.ts';
import { FakeGitHub } from '../helpers/fake-github.ts';
import { createNode, createVersion, startTestServer, type TestResponse, type TestServer } from '../helpers/server.ts';

const SECRET = 'whsec-replay-test';

describe('DeliveryLog', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'help-deliveries-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  const fresh = (options: ConstructorParameters<typeof DeliveryLog>[1] = {}) => {
    rmSync(join(dataDir, 'github-deliveries.json'), { force: true });
    return new DeliveryLog(dataDir, options);
  };
  /** Runs a delivery through `log`; how many times it was acted on so far. */
  const counter = () => {
    let acted = 0;
    return { act: async () => ++acted, get acted() { return acted; } };
  };

  test('a delivery is acted on once: again under its id, or its body under another id (the id is not signed), it is a replay', async () => {
    const log = fresh();
    const c = counter();
    assert.deepEqual(await log.once('id-1', '{"a":1}', c.act), { replayed: false, result: 1 });
    assert.deepEqual(await log.once('id-1', '{"a":1}', c.act), { replayed: true });
    assert.deepEqual(await log.once('id-2', '{"a":1}', c.act), { replayed: true });
    assert.deepEqual(await log.once(undefined, '{"a":1}', c.act), { replayed: true });
    // Its id with another body (a body can be signed only by GitHub): a replay too.
    assert.deepEqual(await log.once('id-1', '{"a":2}', c.act), { replayed: true });
    assert.deepEqual(await log.once('id-3', '{"a":3}', c.act), { replayed: false, result: 2 });
    assert.equal(c.acted, 2);
  });

  test('without an id (or with one that is no GUID), the body alone tells a replay', async () => {
    const log = fresh();
    const c = counter();
    assert.equal((await log.once(undefined, '{"b":1}', c.act)).replayed, false);
    assert.equal((await log.once(undefined, '{"b":1}', c.act)).replayed, true);
    assert.equal((await log.once('x'.repeat(500), '{"b":2}', c.act)).replayed, false);
    assert.equal((await log.once('x'.repeat(500), '{"b":3}', c.act)).replayed, false, 'an id that is no GUID is not remembered');
    assert.equal(c.acted, 3);
  });

  test('a delivery whose handling failed is not remembered: its redelivery is acted on', async () => {
    const log = fresh();
    await assert.rejects(log.once('id-f', '{"f":1}', async () => Promise.reject(new Error('disk full'))), /disk full/);
    assert.deepEqual(await log.once('id-f', '{"f":1}', async () => 'done'), { replayed: false, result: 'done' });
  });

  test('a copy sent while the first is being acted on is a replay', async () => {
    const log = fresh();
    let release!: () => void;
    const first = log.once('id-c', '{"c":1}', () => new Promise<string>((r) => (release = () => r('first'))));
    assert.deepEqual(await log.once('id-c', '{"c":1}', async () => 'second'), { replayed: true });
    assert.deepEqual(await log.once('id-other', '{"c":1}', async () => 'third'), { replayed: true });
    release();
    assert.deepEqual(await first, { replayed: false, result: 'first' });
  });

  test('remembered for a day, across restarts; then forgotten', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const log = fresh({ now: () => now });
    await log.once('id-d', '{"d":1}', async () => 1);
    now += DAY_MS - 1000;
    const restarted = new DeliveryLog(dataDir, { now: () => now });
    assert.equal(restarted.damaged, null);
    assert.deepEqual(await restarted.once('id-d', '{"d":1}', async () => 2), { replayed: true });
    now += 2000;
    assert.equal(restarted.size, 0);
    assert.deepEqual(await new DeliveryLog(dataDir, { now: () => now }).once('id-d', '{"d":1}', async () => 3), { replayed: false, result: 3 });
  });

  test('bounded: beyond `max` deliveries the oldest are forgotten, in memory and in the file', async () => {
    const log = fresh({ max: 3 });
    for (let i = 1; i <= 5; i++) await log.once(`id-${i}`, `{"n":${i}}`, async () => i);
    assert.equal(log.size, 3);
    const stored = JSON.parse(readFileSync(join(dataDir, 'github-deliveries.json'), 'utf8')).deliveries.map((d: { id: string }) => d.id);
    assert.deepEqual(stored, ['id-3', 'id-4', 'id-5']);
    assert.equal((await log.once('id-1', '{"n":1}', async () => 1)).replayed, false, 'the oldest was forgotten');
    assert.equal((await log.once('id-5', '{"n":5}', async () => 5)).replayed, true);
  });

  test('a damaged file does not stop anything: the log starts anew and says why', async () => {
    writeFileSync(join(dataDir, 'github-deliveries.json'), '{ "deliveries": [ {"id": ');
    const log = new DeliveryLog(dataDir);
    assert.match(log.damaged ?? '', /JSON/);
    assert.equal((await log.once('id-x', '{"x":1}', async () => 1)).replayed, false);
    assert.equal(new DeliveryLog(dataDir).damaged, null, 'rewritten whole');
  });
});

describe('POST /webhooks/github: replays', () => {
  let gh: FakeGitHub;
  let s: TestServer;
  let now = Date.parse('2030-06-01T12:00:00Z');
  const clock = new Clock(() => now);

  const deliver = (d: { body: string; headers: Record<string, string> }, headers: Record<string, string> = {}): Promise<TestResponse> =>
    s.request('POST', '/webhooks/github', { key: null, raw: d.body, headers: { ...d.headers, ...headers } });
  const requestStatus = async (id: string) => ((await s.request('GET', '/publish-requests')).body.requests as Array<{ id: string; status: string }>).find((r) => r.id === id)?.status;
  /** Opens a publish request for a new draft; its pull request's number and the request's id. */
  const openRequest = async (slug: string) => {
    await createVersion(s, slug);
    await createNode(s, slug, { slug: 'a' });
    const res = await s.request('POST', `/versions/${slug}/publish-request`);
    assert.equal(res.status, 201, res.text);
    return { pr: res.body.request.prNumber as number, id: res.body.request.id as string };
  };

  before(async () => {
    gh = await new FakeGitHub().start();
    s = await startTestServer({
      clock,
      env: { HELP_PUBLISH_VIA_PR: 'on', HELP_GITHUB_REPO: `${gh.owner}/${gh.repo}`, HELP_GITHUB_TOKEN: gh.token, HELP_GITHUB_API_URL: gh.url, HELP_GITHUB_WEBHOOK_SECRET: SECRET },
    });
  });
  after(async () => {
    await s.close();
    await gh.stop();
  });

  test('a signed delivery sent again, under its id or under a new one, is answered 200 replayed and not acted on', async () => {
    const { pr, id } = await openRequest('d-replay');
    gh.merge(pr);
    const delivery = gh.webhookDelivery(pr, SECRET);
    const first = await deliver(delivery);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.handled, `request ${id} merged`);
    assert.equal(first.body.replayed, undefined);
    for (const headers of [{}, { 'x-github-delivery': randomUUID() }] as Array<Record<string, string>>) {
      const again = await deliver(delivery, headers);
      assert.equal(again.status, 200, again.text);
      assert.deepEqual({ ...again.body, ignored: undefined }, { ok: true, handled: null, replayed: true, ignored: undefined });
    }
    // A delivery without its id header (GitHub always sends one): known by its signed body.
    const { 'x-github-delivery': _, ...withoutId } = delivery.headers;
    assert.equal((await deliver({ body: delivery.body, headers: withoutId })).body.replayed, true);
    assert.equal(await requestStatus(id), 'merged');
  });

  test('a restart remembers the deliveries of the last day (github-deliveries.json); a day later they are forgotten', async () => {
    const { pr } = await openRequest('d-restart');
    gh.merge(pr);
    const delivery = gh.webhookDelivery(pr, SECRET);
    assert.equal((await deliver(delivery)).body.replayed, undefined);
    s = await s.restart();
    assert.equal((await deliver(delivery)).body.replayed, true);
    const stored = JSON.parse(readFileSync(join(s.dataDir, 'github-deliveries.json'), 'utf8')).deliveries as Array<{ id: string; digest: string }>;
    assert.ok(stored.some((d) => d.id === delivery.headers['x-github-delivery']));
    now += DAY_MS + 1000;
    const later = await deliver(delivery);
    assert.equal(later.status, 200, later.text);
    assert.equal(later.body.replayed, undefined, 'a day later it is handled (and, its request merged already, changes nothing)');
    assert.equal(later.body.handled, null);
  });

  test('deliveries that were refused (a bad signature) are not remembered: the real one is acted on', async () => {
    const { pr, id } = await openRequest('d-refused');
    gh.merge(pr);
    const real = gh.webhookDelivery(pr, SECRET);
    const forged = await deliver({ body: real.body, headers: { ...real.headers, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } });
    assert.equal(forged.status, 401);
    const res = await deliver(real);
    assert.equal(res.body.handled, `request ${id} merged`);
  });
});
