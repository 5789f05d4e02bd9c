/**
 * P8: the worst cases of search indexing, through the API on a service of their own. A write of one
 * huge translation: random CJK ideographs (nearly every character pair a distinct term) and a body
 * of distinct Latin words. Measured: the write's time per character, the longest time /healthz waited
 * meanwhile (indexing must not hold other requests), the server's RSS growth, and a restart from the
 * snapshots it wrote.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { KeyFile } from '../src/auth/key-file.ts';
import { createKey } from '../src/cli/keys.ts';
import type { VersionState } from '../src/domain/types.ts';
import { SearchIndex } from '../src/index/search.ts';
import { request } from './lib/http.ts';
import { startProbe } from './lib/probe.ts';
import { startService } from './lib/service.ts';
import type { Row } from './lib/table.ts';
import { now, round, sleep } from './lib/util.ts';
import { Random, type ContentFile } from '../test/helpers/generate.ts';
import { prepareDataDir } from './lib/dataset.ts';

const randomCjk = (chars: number) => {
  const r = new Random(11);
  const out: string[] = [];
  for (let i = 0; i < chars; i++) out.push(String.fromCharCode(0x4e00 + Math.floor(r.next() * 20000)));
  return out.join('');
};

/** `count` distinct lower-case words of 7 letters (base-26 numbers), one per line of 8 words. */
const distinctWords = (count: number) => {
  const lines: string[] = [];
  let line: string[] = [];
  for (let i = 0; i < count; i++) {
    let n = i * 7919 + 123457;
    let w = '';
    for (let k = 0; k < 7; k++) {
      w += String.fromCharCode(97 + (n % 26));
      n = Math.floor(n / 26);
    }
    line.push(w);
    if (line.length === 8) {
      lines.push(line.join(' '));
      line = [];
    }
  }
  return `${lines.join('\n')}\n`;
};

interface Case {
  id: string;
  /** The row of the longest /healthz wait during this case's write. */
  healthId: string;
  name: string;
  language: string;
  body: string;
}

/** SearchIndex.update() of one version holding `c`'s translation, timed in this process: the indexing alone. */
async function indexInProcess(c: Case): Promise<number> {
  const t = { title: c.id, summary: '', bodyMd: c.body, updatedAt: '2026-01-01T00:00:00.000Z' };
  const state = {
    slug: 'idx',
    meta: { label: 'Indexing', status: 'published', languages: [c.language], sortOrder: null, isLatest: false, hidden: false, workingCopyOf: null, createdAt: t.updatedAt, updatedAt: t.updatedAt },
    nodes: new Map([['doc', { id: 'doc', slug: 'doc', kind: 'topic', parentSlug: null, icon: null, updatedAt: t.updatedAt, children: [] }]]),
    roots: ['doc'],
    translations: new Map([['doc', new Map([[c.language, t]])]]),
  } as unknown as VersionState;
  const index = new SearchIndex();
  const t0 = now();
  await index.update('idx', state);
  return now() - t0;
}

/**
 * The longest event-loop delay the server's own monitor saw since the previous call, in ms (prom-client's
 * nodejs_eventloop_lag_max_seconds, reset at each scrape): what the server itself held, apart from
 * the machine's scheduling of the probe.
 */
async function serverLagMax(origin: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const seconds = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1];
  return seconds === undefined ? Number.NaN : Number(seconds) * 1000;
}

/**
 * `env`: more environment for the service; `beside`: a version written into the repository before the
 * service starts (the realistic shape's), so the worst cases are indexed while it is served.
 */
export async function indexingRows(work: string, nodeArgs: string[] = [], env: Record<string, string> = {}, beside?: { slug: string; files: readonly ContentFile[] }): Promise<Row[]> {
  const dataDir = join(work, 'indexing');
  fs.mkdirSync(dataDir, { recursive: true });
  const { key } = beside ? await prepareDataDir(dataDir, beside.slug, beside.files) : await createKey(new KeyFile(dataDir), { name: 'bench' });
  const cases: Case[] = [
    { id: 'P8', healthId: 'P8c', name: 'index 1 MB of random CJK (one translation, ~1M distinct pairs)', language: 'zh', body: randomCjk(1_000_000) },
    { id: 'P8b', healthId: 'P8d', name: 'index 5 MB of 600,000 distinct Latin words (one translation)', language: 'en', body: distinctWords(600_000) },
  ];
  const serviceEnv = { ...env, HELP_BODY_LIMIT: String(16 * 1024 * 1024) };
  const svc = await startService({ dataDir, env: serviceEnv, nodeArgs });
  const rows: Row[] = [];
  try {
    const api = `${svc.api}/versions/idx`;
    const write = async (method: string, url: string, body: unknown) => {
      const res = await request(method, url, { key, body: typeof body === 'string' ? body : JSON.stringify(body) });
      if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${res.text.slice(0, 300)}`);
    };
    await write('POST', `${svc.api}/versions`, { slug: 'idx', label: 'Indexing', status: 'published', languages: ['en', 'zh'] });
    for (const c of cases) await write('POST', `${api}/nodes`, { slug: c.id.toLowerCase(), kind: 'topic', translations: { en: { title: c.id } } });
    for (const c of cases) {
      await sleep(500);
      // Serialized before the probes start: this process's own work must not count as the server's.
      const payload = JSON.stringify({ title: c.id, bodyMd: c.body });
      const rssBefore = svc.rss();
      await serverLagMax(svc.origin);
      const probe = await startProbe(`${svc.origin}/healthz`);
      const t0 = now();
      await write('PUT', `${api}/topics/${c.id.toLowerCase()}/translations/${c.language}`, payload);
      const ms = now() - t0;
      const { worst, probes } = await probe.stop();
      const serverLag = await serverLagMax(svc.origin);
      const rssAfter = svc.rss();
      const indexMs = await indexInProcess(c);
      const usPerChar = (indexMs * 1000) / c.body.length;
      rows.push({ id: c.id, scenario: c.name, measured: round(usPerChar, 2), unit: 'µs/char', baseline: null, baselineLabel: '', ratio: null, target: '≤ 1 µs/char', met: usPerChar <= 1, note: `indexing alone (SearchIndex.update in process): ${round(indexMs)} ms for ${c.body.length.toLocaleString('en-US')} characters; the whole write through the API (parse, commit with fsync, index) took ${round(ms)} ms, searchable when answered; server RSS +${round((rssAfter - rssBefore) / 1048576)} MB` });
      rows.push({ id: c.healthId, scenario: `${c.id}: longest /healthz wait during the write`, measured: round(worst, 1), unit: 'ms', baseline: null, baselineLabel: '', ratio: null, target: '≤ 50 ms', met: worst <= 50, note: `${probes} probes, one every 5 ms; the server's own longest event-loop delay meanwhile (its monitor, in /metrics): ${round(serverLag, 1)} ms` });
    }
    // The snapshots are written once writes have been quiet for 5 s: probe /healthz through that too.
    {
      const probe = await startProbe(`${svc.origin}/healthz`);
      await sleep(9000);
      const { worst, probes } = await probe.stop();
      rows.push({ id: 'P8f', scenario: 'longest /healthz wait while these versions are snapshotted (after 5 s of quiet)', measured: round(worst, 1), unit: 'ms', baseline: null, baselineLabel: '', ratio: null, target: '≤ 50 ms', met: worst <= 50, note: `${probes} probes over 9 s` });
    }
    const stopped = await svc.stop();
    if (stopped !== 0) throw new Error(`the indexing server exited with ${stopped}`);
    const again = await startService({ dataDir, env: serviceEnv, nodeArgs });
    rows.push({ id: 'P8e', scenario: `restart with both translations${beside ? ` and version ${beside.slug} (${beside.files.length} files)` : ''} (from snapshots)`, measured: round(again.readyMs), unit: 'ms', baseline: null, baselineLabel: '', ratio: null, target: '≤ 1,500 ms', met: again.readyMs <= 1500 });
    await again.stop();
  } finally {
    await svc.stop().catch(() => undefined);
  }
  return rows;
}
