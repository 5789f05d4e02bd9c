import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { startService, type RunningService } from '../src/service.ts';
import { generateDocSet } from './helpers/generate.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const VERSIONS = Array.from({ length: 9 }, (_, i) => `r${i + 1}`);

/**
 * A start without snapshots (the first start after an upgrade, or with snapshots/ deleted): versions
 * come in a few at a time, and the service answers meanwhile.
 */
describe('A start without snapshots serves each version as soon as it is loaded', () => {
  let s: TestServer;
  let dataDir: string;
  let service: RunningService | null = null;

  before(async () => {
    s = await startTestServer();
    dataDir = s.dataDir;
    for (const [i, slug] of VERSIONS.entries()) {
      const set = generateDocSet({ nodes: 250, seed: 100 + i, languages: ['en', 'de'], bodyBytes: { min: 2000, max: 12_000 }, label: slug, status: 'published' });
      const res = await s.request('POST', `/versions/${slug}/import-files`, { body: { files: set.files }, timeout: 60_000 });
      assert.equal(res.status, 200, res.text);
    }
    await s.service.close();
    rmSync(join(dataDir, 'snapshots'), { recursive: true, force: true });
  });
  after(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('/healthz lists the versions still loading; a loaded one answers, one not loaded yet is 503 with Retry-After; writes wait', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: null });
    service = await startService(config, pino({ level: 'silent' }));
    const origin = new URL(service.url).origin;
    const seen = { partly: 0, servedWhileLoading: false, loadingAnswer: null as null | { status: number; retryAfter: string | null; code: string } };
    let done = false;
    const ready = service.ready.then(() => (done = true));
    while (!done) {
      const health = await fetch(`${origin}/healthz`);
      const body = (await health.json()) as { ok: boolean; versions: { loaded: number; loading: number }; loading: string[] };
      if (body.ok) break;
      assert.equal(health.status, 503);
      if (body.versions.loading > 0 && body.versions.loaded > 0) {
        seen.partly++;
        const loading = body.loading[body.loading.length - 1];
        const loaded = VERSIONS.find((v) => !body.loading.includes(v))!;
        const [a, b, listed, posted]: Response[] = await Promise.all([
          fetch(`${service.url}/versions/${loaded}/tree`),
          fetch(`${service.url}/versions/${loading}/tree`),
          fetch(`${service.url}/versions`),
          fetch(`${service.url}/versions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"slug":"x"}' }),
        ]);
        if (a.status === 200) seen.servedWhileLoading = true;
        if (b.status === 503) seen.loadingAnswer ??= { status: b.status, retryAfter: b.headers.get('retry-after'), code: ((await b.json()) as { error: { code: string } }).error.code };
        if (!done) {
          assert.equal(listed.status, 503, 'the list of versions waits for all of them');
          assert.ok(Number(listed.headers.get('retry-after')) > 0);
          assert.equal(posted.status, 503, 'writes wait for the load');
        }
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    await ready;
    assert.ok(seen.partly > 0, 'the load was seen half done');
    assert.ok(seen.servedWhileLoading, 'a loaded version was served while others loaded');
    assert.deepEqual(seen.loadingAnswer && { ...seen.loadingAnswer, retryAfter: Number(seen.loadingAnswer.retryAfter) > 0 }, { status: 503, retryAfter: true, code: 'version_loading' });
    const health = (await (await fetch(`${origin}/healthz`)).json()) as { ok: boolean; versions: { loaded: number; loading: number }; loading: string[] };
    assert.deepEqual({ ok: health.ok, ...health.versions, loading: health.loading }, { ok: true, loaded: VERSIONS.length, broken: 0, loading: [] } as never);
    const list = await fetch(`${service.url}/versions`);
    assert.equal(((await list.json()) as unknown[]).length, VERSIONS.length);
  });
});
