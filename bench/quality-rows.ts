/**
 * Q1–Q3: the search quality of a shape in the suite's table, from search-quality.ts run as a child
 * process (its indexes, ours and the anchor's, take memory the other figures should not see). The
 * figures do not depend on the machine, so the child may run while the suite sets up; it must be done
 * before anything is timed (see run.ts).
 */
import { spawn } from 'node:child_process';
import type { Kind } from './quality/judged.ts';
import { GOALS, type QualitySummary } from './quality/report.ts';
import type { Row } from './lib/table.ts';
import { PROJECT_ROOT } from './lib/util.ts';

export const QUALITY_SCENARIOS = ['Q1', 'Q2', 'Q3'];

/** Starts the child on one shape; resolves with its summary (rejects when it fails). */
export function runQuality(shape: string, nodes: number): { done: Promise<QualitySummary>; stop(): void } {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/search-quality.ts', '--shape', shape, '--nodes', String(nodes), '--json'], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-8192)));
  const done = new Promise<QualitySummary>((resolve, reject) => {
    proc.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`search-quality exited with ${code}: ${err.trim().split('\n').slice(-5).join(' / ')}`));
      try {
        resolve((JSON.parse(out.trim().split('\n').at(-1)!) as QualitySummary[])[0]);
      } catch {
        reject(new Error(`search-quality printed no result: ${out.slice(0, 300)}`));
      }
    });
  });
  done.catch(() => undefined);
  return { done, stop: () => void (proc.exitCode === null && proc.kill('SIGKILL')) };
}

const f2 = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '—' : v.toFixed(2));

/** The rows of `only` among Q1–Q3. */
export function qualityRows(q: QualitySummary, only: ReadonlySet<string>): Row[] {
  const { ours, anchor, document } = q.all;
  const perKind = (Object.entries(q.byKind) as Array<[Kind, QualitySummary['all']]>).map(([kind, s]) => `${kind} ${f2(s.ours.hit)}/${f2(s.anchor.hit)}/${f2(s.document.hit)} (${s.ours.n})`).join(', ');
  const errors = q.errors > 0 ? `; ranked() threw on ${q.errors} queries (counted as answering nothing): ${q.firstError?.split('\n')[0]}` : '';
  const typo = q.byKind.typo;
  const rows: Row[] = [
    {
      id: 'Q1',
      scenario: `search by relevance: MRR@10 of ${q.queries} judged known-item queries (${Object.keys(q.byKind).length} kinds, ${q.languages.join(', ')})`,
      measured: ours.mrr,
      unit: '',
      baseline: anchor.mrr,
      baselineLabel: 'MiniSearch, the anchor',
      ratio: anchor.mrr > 0 ? ours.mrr / anchor.mrr : null,
      target: `≥ anchor + ${GOALS.mrrOverAnchor}`,
      met: ours.mrr >= anchor.mrr + GOALS.mrrOverAnchor,
      note: `document order ${f2(document.mrr)}; hit@10 ours/anchor/document by kind: ${perKind}${errors}`,
    },
    {
      id: 'Q2',
      scenario: `search by relevance: hit@10 of the queries with a typo (${typo?.ours.n ?? 0})`,
      measured: typo?.ours.hit ?? null,
      unit: '',
      baseline: typo?.anchor.hit ?? null,
      baselineLabel: 'MiniSearch, the anchor',
      ratio: typo && typo.anchor.hit > 0 ? typo.ours.hit / typo.anchor.hit : null,
      target: `≥ ${GOALS.typoHit}`,
      met: typo ? typo.ours.hit >= GOALS.typoHit : null,
      note: typo ? `MRR@10 ours ${f2(typo.ours.mrr)}, anchor ${f2(typo.anchor.mrr)}, document order ${f2(typo.document.mrr)}` : 'no typo query could be made',
    },
    {
      id: 'Q3',
      scenario: `search by relevance: judged queries answered with no hit at all`,
      measured: ours.zero * 100,
      unit: '%',
      baseline: anchor.zero * 100,
      baselineLabel: 'MiniSearch, the anchor',
      ratio: null,
      target: `≤ ${GOALS.zeroRate * 100} %`,
      met: ours.zero <= GOALS.zeroRate,
      note: `document order ${round1(document.zero * 100)} %`,
    },
  ];
  return rows.filter((r) => only.has(r.id));
}

const round1 = (v: number) => Math.round(v * 10) / 10;
