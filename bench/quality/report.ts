/** The search-quality figures of a shape as the quality script prints them, and as the suite's Q-rows read them. */
import { percentile } from '../lib/util.ts';
import { KINDS, type Kind } from './judged.ts';
import { CUTOFF, misses, scores, SYSTEMS, type Judged, type Measured, type Scores, type System } from './measure.ts';

export interface ShapeQuality {
  shape: string;
  /** Nodes of the (first) version. */
  nodes: number;
  versions: number;
  pages: number;
  languages: string[];
  readMs: number;
  indexMs: number;
  anchorMs: number;
  measured: Measured;
}

/** The goals of the ranking, the suite's targets: the script and the table judge alike. */
export const GOALS = { mrrOverAnchor: 0.05, typoHit: 0.6, zeroRate: 0.02 };

/** What the suite keeps of a shape: scores by kind and over all queries, per system. */
export interface QualitySummary {
  shape: string;
  nodes: number;
  pages: number;
  languages: string[];
  queries: number;
  byKind: Partial<Record<Kind, Record<System, Scores>>>;
  all: Record<System, Scores>;
  /** In-process time of one query, p50 and p95, ms. */
  ms: Record<System, { p50: number; p95: number }>;
  errors: number;
  firstError?: string;
  buildMs: { read: number; index: number; anchor: number };
}

const bySystem = (judged: readonly Judged[]) => Object.fromEntries(SYSTEMS.map((s) => [s, scores(judged, s)])) as Record<System, Scores>;
const r3 = (v: number) => Math.round(v * 1000) / 1000;

export function summary(q: ShapeQuality): QualitySummary {
  const { judged, errors, firstError } = q.measured;
  const byKind: QualitySummary['byKind'] = {};
  for (const kind of KINDS) {
    const of = judged.filter((j) => j.query.kind === kind);
    if (of.length > 0) byKind[kind] = bySystem(of);
  }
  const ms = Object.fromEntries(SYSTEMS.map((s) => [s, { p50: r3(percentile(judged.map((j) => j.ms[s]), 50)), p95: r3(percentile(judged.map((j) => j.ms[s]), 95)) }])) as QualitySummary['ms'];
  return { shape: q.shape, nodes: q.nodes, pages: q.pages, languages: q.languages, queries: judged.length, byKind, all: bySystem(judged), ms, errors, ...(firstError ? { firstError } : {}), buildMs: { read: Math.round(q.readMs), index: Math.round(q.indexMs), anchor: Math.round(q.anchorMs) } };
}

const f3 = (v: number) => (Number.isNaN(v) ? '  —  ' : v.toFixed(3));
const pct = (v: number) => (Number.isNaN(v) ? '  —' : `${(v * 100).toFixed(0)}%`.padStart(4));
const trio = (s: Record<System, Scores>, key: 'mrr' | 'hit' | 'zero') => SYSTEMS.map((sys) => (key === 'zero' ? pct(s[sys][key]).padStart(6) : f3(s[sys][key]).padStart(6))).join(' ');

function lines(judged: readonly Judged[], label: (kind: string) => string): string[] {
  const out: string[] = [];
  const row = (name: string, of: readonly Judged[]) => {
    const s = bySystem(of);
    out.push(`${label(name).padEnd(14)} ${String(of.length).padStart(4)}   ${trio(s, 'mrr')}   ${trio(s, 'hit')}   ${trio(s, 'zero')}`);
  };
  for (const kind of KINDS) {
    const of = judged.filter((j) => j.query.kind === kind);
    if (of.length > 0) row(kind, of);
  }
  row('all', judged);
  return out;
}

const HEADER = `${'kind'.padEnd(14)} ${'n'.padStart(4)}   ${'MRR@10: ours anchor   doc'.padStart(20)}   ${'hit@10: ours anchor   doc'.padStart(20)}   ${'zero: ours anchor   doc'.padStart(20)}`;

/** The shape's table (and one per language with `byLanguage`), then the goals and the time per query. */
export function table(q: ShapeQuality, byLanguage: boolean): string {
  const s = summary(q);
  const out = [
    `${q.shape}: ${q.nodes.toLocaleString('en-US')} nodes${q.versions > 1 ? ` in ${q.versions} versions` : ''}, ${q.pages.toLocaleString('en-US')} pages in ${q.languages.join(', ')}; ${s.queries} judged queries (read ${s.buildMs.read} ms, our index ${s.buildMs.index} ms, anchor ${s.buildMs.anchor} ms)`,
    HEADER,
    ...lines(q.measured.judged, (k) => k),
  ];
  if (byLanguage) {
    for (const language of q.languages) {
      const of = q.measured.judged.filter((j) => j.query.language === language);
      if (of.length > 0) out.push(...lines(of, (k) => `${language} ${k}`));
    }
  }
  const gap = s.all.ours.mrr - s.all.anchor.mrr;
  const typo = s.byKind.typo?.ours.hit;
  out.push(
    `goals: MRR@10 ours − anchor ${gap >= 0 ? '+' : ''}${gap.toFixed(3)} (≥ +${GOALS.mrrOverAnchor}) ${gap >= GOALS.mrrOverAnchor ? 'met' : 'NOT met'}; ` +
      `typo hit@10 ${typo === undefined ? '—' : typo.toFixed(2)} (≥ ${GOALS.typoHit}) ${typo === undefined ? '' : typo >= GOALS.typoHit ? 'met' : 'NOT met'}; ` +
      `zero results ${(s.all.ours.zero * 100).toFixed(1)} % (≤ ${GOALS.zeroRate * 100} %) ${s.all.ours.zero <= GOALS.zeroRate ? 'met' : 'NOT met'}`,
    `time per query in process, p50/p95: ours ${s.ms.ours.p50}/${s.ms.ours.p95} ms, anchor ${s.ms.anchor.p50}/${s.ms.anchor.p95} ms, document order ${s.ms.document.p50}/${s.ms.document.p95} ms`,
  );
  if (q.measured.judged.length > 0 && q.measured.judged.every((j) => j.empty.ours)) out.push('note: ranked() answered nothing to every query');
  if (s.errors > 0) out.push(`ranked() threw on ${s.errors} queries; the first: ${s.firstError}`);
  return out.join('\n');
}

/** Up to `n` queries where ours ranks the relevant page worse than the anchor, with both ranks and our first three titles. */
export function missLines(q: ShapeQuality, n: number): string {
  const worse = misses(q.measured.judged);
  return queryLines(q, worse.slice(0, n), `${worse.length} queries where ours ranks the relevant page worse than the anchor${worse.length > n ? ` (the ${n} largest losses)` : ''}`);
}

/** Up to `n` queries where ours does not rank a relevant page first, the worst first, whatever the anchor did. */
export function worstLines(q: ShapeQuality, n: number): string {
  const rr = (r: number | null) => (r === null ? 0 : 1 / r);
  const worst = q.measured.judged.map((j, i) => ({ j, i })).filter(({ j }) => j.rank.ours !== 1).sort((a, b) => rr(a.j.rank.ours) - rr(b.j.rank.ours) || a.i - b.i).map(({ j }) => j);
  return queryLines(q, worst.slice(0, n), `${worst.length} queries where ours does not rank a relevant page first${worst.length > n ? ` (the ${n} worst)` : ''}`);
}

function queryLines(q: ShapeQuality, judged: readonly Judged[], heading: string): string {
  const rank = (r: number | null) => (r === null ? `>${CUTOFF}` : String(r));
  const out = [`${q.shape}: ${heading}`];
  for (const j of judged) {
    const { kind, language, version, q: text, relevant } = j.query;
    out.push(`  [${kind} ${language}${q.versions > 1 ? ` ${version}` : ''}] ${JSON.stringify(text)}: ours ${rank(j.rank.ours)}, anchor ${rank(j.rank.anchor)}, document ${rank(j.rank.document)}; relevant ${relevant.slice(0, 3).join(', ')}${relevant.length > 3 ? ` (+${relevant.length - 3})` : ''}`);
    out.push(`      ours: ${j.oursTop.length ? j.oursTop.map((t) => JSON.stringify(t)).join(', ') : '(nothing)'}`);
  }
  return out.join('\n');
}
