import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Clock } from '../src/clock.ts';
import { createVersion, startTestServer, type TestServer } from './helpers/server.ts';

/**
 * Stamps, dates and ids come from the clock and id source the service is given, on every path that
 * makes them: writes, dry runs, commits and the PDF bundle's date.
 */
describe('Clock and ids', () => {
  const T0 = Date.parse('2031-05-06T07:08:09.000Z');
  let s: TestServer;
  let ids = 0;
  before(async () => {
    s = await startTestServer({ clock: new Clock(() => T0), newId: () => `fixed-id-${++ids}` });
  });
  after(() => s.close());

  test('writes are stamped by the clock, strictly increasing, and new nodes get ids from the id source', async () => {
    const version = await createVersion(s, 'v1', { status: 'published' });
    assert.equal(version.createdAt, '2031-05-06T07:08:09.000Z');
    const node = await s.request('POST', '/versions/v1/nodes', { body: { slug: 'intro', translations: { en: { title: 'Intro' } } } });
    assert.equal(node.status, 200, node.text);
    assert.equal(node.body.id, 'fixed-id-1');
    assert.equal(node.body.updatedAt, '2031-05-06T07:08:09.001Z', 'one millisecond after the previous stamp: the clock stands still, stamps do not');
  });

  test("the commit's date is the write's stamp", () => {
    assert.equal(s.git('log', '-1', '--format=%cI').trim(), '2031-05-06T07:08:09+00:00');
  });

  test('a dry run uses the same clock and ids as a write, and writes nothing', async () => {
    const commits = s.commitCount();
    const res = await s.request('POST', '/versions/v1/import', { body: { dryRun: true, nodes: [{ slug: 'faq', translations: { en: { title: 'FAQ' } } }] } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.diff.created, ['faq']);
    assert.equal(res.body.version.updatedAt, '2031-05-06T07:08:09.000Z', "the version's own fields did not change");
    assert.equal(ids, 2, 'the dry run drew its id from the id source');
    assert.equal(s.commitCount(), commits);
  });

  test("the PDF bundle is dated by the clock", async () => {
    const res = await s.request('GET', '/versions/v1/pdf-bundle?lang=en', { key: null });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.template.date, '2031-05-06');
  });
});

describe('Clock.observe', () => {
  const later = (clock: Clock) => Date.parse(clock.stamp());

  test('after any mix of stamps, the next stamp is after the latest of them, however written', () => {
    const T0 = Date.parse('2020-01-01T00:00:00.000Z');
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 50; round++) {
      const clock = new Clock(() => T0);
      let latest = T0;
      for (let i = 0; i < 200; i++) {
        const ms = Date.parse('2026-01-01T00:00:00.000Z') + Math.floor(next() * 400 * 86_400_000);
        const iso = new Date(ms).toISOString();
        // Most in the service's own form; some as people write them, some that are no date at all.
        const r = next();
        const written = r < 0.8 ? iso : r < 0.9 ? iso.replace('.000Z', 'Z').replace('Z', '+00:00') : r < 0.95 ? iso.slice(0, 10) : 'not a date';
        const parsed = Date.parse(written);
        if (Number.isFinite(parsed)) latest = Math.max(latest, parsed);
        clock.observe(written);
      }
      assert.equal(later(clock), latest + 1, `round ${round}`);
    }
  });

  test('a day a month does not have is read as the parser reads it, even after a later stamp in the same form', () => {
    const clock = new Clock(() => 0);
    clock.observe('2026-03-01T00:00:00.000Z');
    // Date.parse reads February 31 as March 3: after the stamp above, although it sorts before it.
    clock.observe('2026-02-31T00:00:00.000Z');
    assert.equal(clock.stamp(), '2026-03-03T00:00:00.001Z');
  });
});
