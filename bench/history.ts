/**
 * H1: one page of a node's history (`GET …/nodes/{slug}/history?limit=20`) on a node with 2,000
 * commits, p50 and p95 of one request at a time, first pages and pages deep in the history (by
 * cursor). The baseline is `git log -n 20 -- <file>` on the same repository: what walking the log for
 * each request would cost. `npx tsx bench/history.ts [--commits 2000]` runs it alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { KeyFile } from '../src/auth/key-file.ts';
import { createKey } from '../src/cli/keys.ts';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/service.ts';
import type { Row } from './lib/table.ts';
import { median, percentile, progress, round } from './lib/util.ts';

const PAGES = 300;

export async function historyRows(work: string, commits = 2000): Promise<Row[]> {
  const dataDir = mkdtempSync(join(work, 'history-'));
  const { key } = await createKey(new KeyFile(dataDir), { name: 'bench' });
  const config = loadConfig({ LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', dataDir, sampleContentDir: null });
  const service = await startService(config, pino({ level: 'silent' }));
  try {
    await service.ready;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${service.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<any>;
    };
    await call('POST', '/versions', { slug: 'v1', label: 'v1', languages: ['en', 'de'] });
    await call('POST', '/versions/v1/nodes', { slug: 'busy', kind: 'topic', translations: { en: { title: 'Busy', bodyMd: 'Edit 0\n' } } });
    progress(`  H1: ${commits} commits on one node`);
    for (let i = 1; i < commits; i++) await call('PUT', '/versions/v1/topics/busy/translations/en', { title: 'Busy', bodyMd: `Edit ${i}\n\nSome text that stays.\n` });
    // Cursors spread over the whole history, so deep pages are measured as well as the first.
    const cursors: Array<string | null> = [null];
    for (let next: string | null = (await call('GET', '/versions/v1/nodes/busy/history?limit=20')).next; next !== null && cursors.length < 100; ) {
      cursors.push(next);
      next = (await call('GET', `/versions/v1/nodes/busy/history?limit=20&cursor=${next}`)).next;
    }
    const times: number[] = [];
    for (let i = 0; i < PAGES; i++) {
      const cursor = cursors[i % cursors.length];
      const started = performance.now();
      await call('GET', `/versions/v1/nodes/busy/history?limit=20${cursor ? `&cursor=${cursor}` : ''}`);
      times.push(performance.now() - started);
    }
    const gitTimes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      execFileSync('git', ['--git-dir', join(dataDir, 'content.git'), 'log', '-n', '20', '--format=%H %an %at %s', 'main', '--', 'v1/en/busy.md']);
      gitTimes.push(performance.now() - started);
    }
    const p50 = median(times);
    const baseline = median(gitTimes);
    return [
      { id: 'H1', scenario: `node history page (20 of ${commits} commits), p50`, measured: round(p50, 2), unit: 'ms', baseline: round(baseline, 2), baselineLabel: 'git log -n 20 -- file', ratio: round(p50 / baseline, 3), target: '≤ 0.5× baseline', met: p50 <= baseline * 0.5 },
      { id: 'H1b', scenario: 'node history page, p95', measured: round(percentile(times, 95), 2), unit: 'ms', baseline: null, baselineLabel: '', ratio: null, target: '', met: null },
    ];
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { commits: { type: 'string', default: '2000' } } });
  const work = mkdtempSync(join(tmpdir(), 'bench-history-'));
  historyRows(work, Number(values.commits))
    .then((rows) => {
      for (const r of rows) console.log(`${r.id}  ${r.scenario}: ${r.measured} ${r.unit}${r.baseline !== null ? ` (baseline ${r.baseline} ${r.unit}, ${r.baselineLabel})` : ''}`);
    })
    .finally(() => rmSync(work, { recursive: true, force: true }));
}
