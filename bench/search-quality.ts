/**
 * Search quality: the judged known-item queries of each shape through our ranking, the anchor
 * (MiniSearch as its README configures it for documentation) and document order, scored by MRR@10, hit@10 and the
 * zero-result rate, per kind of query. Quick enough to run after every change of the ranking:
 *
 *   npx tsx bench/search-quality.ts [--shape realistic,flat,sample,manual] [--dir PATH] [--nodes 2000] [--kind typo,prefix]
 *                                   [--lang en,ja] [--per-kind 60] [--show-misses 10] [--show-worst 10] [--by-language] [--json]
 *
 * `--json` prints one JSON object (the suite's Q-rows read it) instead of the tables. Exit status 0,
 * or 2 for a usage error.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { anchorAnswers } from './quality/anchor.ts';
import { CORPUS_NAMES, indexCorpus, readCorpus, type CorpusName } from './quality/corpus.ts';
import { judgedSet, KINDS, type Kind } from './quality/judged.ts';
import { CUTOFF, measure, type Measured } from './quality/measure.ts';
import { missLines, summary, table, worstLines, type ShapeQuality } from './quality/report.ts';

const USAGE = `usage: npx tsx bench/search-quality.ts [--shape ${CORPUS_NAMES.join(',')}] [--nodes 2000] [--kind ${KINDS.join(',')}]
  --shape LIST      shapes to judge on, one after the other (default ${CORPUS_NAMES.join(',')}); sample is content-sample/, manual is docs/
  --dir PATH        judge on this content instead of the shapes (repeat for more): a version folder
                    (version.json, {lang}/{slug}.md) or a folder of them, e.g. a docs-as-code checkout
  --nodes N         size of the flat shape (default 2000)
  --kind LIST       only these kinds of query (default all: ${KINDS.join(', ')})
  --lang LIST       only queries in these languages (default all the shape has)
  --per-kind N      most queries of each kind per shape (default 60), spread over the languages
  --seed N          seed of the judged set (default 1)
  --show-misses N   N queries where ours ranks the relevant page worse than the anchor, per shape
  --show-worst N    N queries where ours does not rank a relevant page first, the worst first, per shape
  --by-language     a table per language besides the shape's
  --json            print one JSON object instead of the tables`;

function options() {
  const { values } = parseArgs({
    options: {
      shape: { type: 'string' },
      dir: { type: 'string', multiple: true },
      nodes: { type: 'string', default: '2000' },
      kind: { type: 'string' },
      lang: { type: 'string' },
      'per-kind': { type: 'string', default: '60' },
      seed: { type: 'string', default: '1' },
      'show-misses': { type: 'string', default: '0' },
      'show-worst': { type: 'string', default: '0' },
      'by-language': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const list = (v: string | undefined) => (v === undefined ? null : v.split(',').map((s) => s.trim()).filter(Boolean));
  const whole = (name: string, v: string, min: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number ≥ ${min}, not ${JSON.stringify(v)}`);
    return n;
  };
  const dirs = values.dir ?? [];
  for (const d of dirs) if (!fs.existsSync(d) || !fs.statSync(d).isDirectory()) throw new Error(`--dir: ${d} is not a folder`);
  // The shapes when asked for, or when no folder is given.
  const shapes = list(values.shape) ?? (dirs.length > 0 ? [] : [...CORPUS_NAMES]);
  for (const s of shapes) if (!(CORPUS_NAMES as readonly string[]).includes(s)) throw new Error(`--shape: unknown shape ${s} (known: ${CORPUS_NAMES.join(', ')})`);
  const kinds = list(values.kind);
  for (const k of kinds ?? []) if (!(KINDS as readonly string[]).includes(k)) throw new Error(`--kind: unknown kind ${k} (known: ${KINDS.join(', ')})`);
  return {
    shapes: [...(shapes as CorpusName[]), ...dirs.map((d): CorpusName => `dir:${d}`)],
    nodes: whole('nodes', values.nodes!, 10),
    kinds: kinds as Kind[] | null,
    languages: list(values.lang),
    perKind: whole('per-kind', values['per-kind']!, 1),
    seed: whole('seed', values.seed!, 0),
    showMisses: whole('show-misses', values['show-misses']!, 0),
    showWorst: whole('show-worst', values['show-worst']!, 0),
    byLanguage: values['by-language']!,
    json: values.json!,
  };
}

let opts: ReturnType<typeof options>;
try {
  opts = options();
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}

const results: ShapeQuality[] = [];
for (const name of opts.shapes) {
  if (!opts.json) process.stderr.write(`${name}: reading and indexing…\n`);
  const corpus = readCorpus(name, opts.nodes);
  // The set is made whole, then filtered: a kind's or language's queries are the same with or without the others.
  const queries = judgedSet(corpus.pages, { perKind: opts.perKind, seed: opts.seed }).filter(
    (q) => (opts.kinds === null || opts.kinds.includes(q.kind)) && (opts.languages === null || opts.languages.includes(q.language)),
  );
  const anchor = anchorAnswers({ pages: corpus.pages, queries, cutoff: CUTOFF });
  await indexCorpus(corpus);
  const { buildMs: anchorMs, answers } = await anchor;
  const measured: Measured = measure(corpus, answers, queries);
  const quality: ShapeQuality = {
    shape: name,
    nodes: corpus.states.values().next().value!.nodes.size,
    versions: corpus.states.size,
    pages: corpus.pages.length,
    languages: corpus.languages,
    readMs: corpus.readMs,
    indexMs: corpus.indexMs,
    anchorMs,
    measured,
  };
  results.push(quality);
  if (opts.json) continue;
  console.log(table(quality, opts.byLanguage));
  if (opts.showMisses > 0) console.log(missLines(quality, opts.showMisses));
  if (opts.showWorst > 0) console.log(worstLines(quality, opts.showWorst));
  console.log('');
}
if (opts.json) console.log(JSON.stringify(results.map(summary)));
