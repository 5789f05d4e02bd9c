/**
 * The anchor the ranking is measured against: MiniSearch 7 configured as its README configures it for
 * documentation, one index per version and language, over the same translations (bench/README.md,
 * Search quality).
 */
import { Worker } from 'node:worker_threads';
import MiniSearch from 'minisearch';
import { plainText } from '../../src/content/plain-text.ts';
import type { Page } from './corpus.ts';

/** MiniSearch's own default tokenizer (its SPACE_OR_PUNCTUATION), for everything but runs of CJK characters. */
const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}]+/u;
/** Runs of the scripts written without spaces, cut into bigrams for the anchor (Japanese, Chinese). */
const CJK_RUN = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30fc\u3005]+/gu;

/** MiniSearch's tokenizer, with each run of CJK characters cut into overlapping pairs (a run of one stays one). */
export function bigramTokenize(text: string): string[] {
  const out: string[] = [];
  for (const token of text.split(SPACE_OR_PUNCTUATION)) {
    if (token === '') continue;
    let last = 0;
    for (const m of token.matchAll(CJK_RUN)) {
      if (m.index > last) out.push(token.slice(last, m.index));
      const run = Array.from(m[0]);
      if (run.length === 1) out.push(run[0]);
      for (let i = 0; i + 1 < run.length; i++) out.push(run[i] + run[i + 1]);
      last = m.index + m[0].length;
    }
    if (last < token.length) out.push(token.slice(last));
  }
  return out;
}

/** Languages whose text gets the bigram tokenizer. */
export const isCjkLanguage = (language: string) => /^(?:ja|zh)(?:-|$)/i.test(language);

interface AnchorDoc {
  id: string;
  title: string;
  summary: string;
  body: string;
}

/** One MiniSearch per version and language; search() answers the ids (node slugs), best first. */
export class Anchor {
  private readonly indexes = new Map<string, MiniSearch<AnchorDoc>>();
  /** Milliseconds spent indexing (the plain text of the bodies included). */
  readonly buildMs: number;

  constructor(pages: readonly Page[]) {
    const started = performance.now();
    const byKey = new Map<string, AnchorDoc[]>();
    for (const p of pages) {
      const key = `${p.version}\n${p.language}`;
      let docs = byKey.get(key);
      if (!docs) byKey.set(key, (docs = []));
      docs.push({ id: p.slug, title: p.title, summary: p.summary, body: plainText(p.bodyMd) });
    }
    for (const [key, docs] of byKey) {
      const language = key.slice(key.indexOf('\n') + 1);
      const index = new MiniSearch<AnchorDoc>({
        fields: ['title', 'summary', 'body'],
        searchOptions: { boost: { title: 3, summary: 2 }, prefix: true, fuzzy: 0.2 },
        ...(isCjkLanguage(language) ? { tokenize: bigramTokenize } : {}),
      });
      index.addAll(docs);
      this.indexes.set(key, index);
    }
    this.buildMs = performance.now() - started;
  }

  /** The slugs of every page that matches, best first. */
  search(version: string, language: string, q: string): string[] {
    const index = this.indexes.get(`${version}\n${language}`);
    return index ? index.search(q).map((r) => String(r.id)) : [];
  }
}

/** What anchorAnswers() hands its thread. */
export interface AnchorJob {
  pages: readonly Page[];
  queries: ReadonlyArray<{ version: string; language: string; q: string }>;
  /** Slugs kept of each answer. */
  cutoff: number;
}

/** The anchor's answer to one query: its first `cutoff` slugs, whether it found nothing, and the milliseconds it took. */
export interface AnchorAnswer {
  slugs: string[];
  empty: boolean;
  ms: number;
}

export interface AnchorResult {
  buildMs: number;
  answers: AnchorAnswer[];
}

/**
 * The anchor's answers to `queries`, built and asked on a worker thread: MiniSearch takes longer to
 * index the flat shape than our index does, and the two need not wait for each other.
 */
export function anchorAnswers(job: AnchorJob): Promise<AnchorResult> {
  const script = new URL('./anchor-worker.ts', import.meta.url);
  const tsx = import.meta.resolve('tsx/esm/api');
  const worker = new Worker(`import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(script.href)}); });`, { eval: true, workerData: job });
  return new Promise((resolve, reject) => {
    worker.once('message', (result: AnchorResult) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the anchor's thread exited with ${code} before it answered`)));
  });
}
