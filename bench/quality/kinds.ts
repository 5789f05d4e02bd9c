/**
 * How each kind of known-item query is made from a page: the whole title; three
 * consecutive words of the summary; a heading no other page of the language has; either of the first
 * with one transposed pair of letters; the title with its last word cut to four letters; a CJK phrase
 * of a Japanese summary. Text is compared as the index folds it (case, accents, punctuation aside).
 */
import { plainText } from '../../src/content/plain-text.ts';
import { words } from '../../src/index/words.ts';
import type { Random } from '../../test/helpers/generate.ts';
import type { Page } from './corpus.ts';

/** A query and the slugs judged relevant to it. */
export interface Made {
  q: string;
  relevant: string[];
}

/** The pages of one version and language, with what the kinds look up across them. */
export interface Group {
  version: string;
  language: string;
  pages: Page[];
  /** Folded title → the slugs of that title. */
  titles: Map<string, string[]>;
  /** Folded heading or title → the slugs that have it (as a heading or as their title). */
  headed: Map<string, Set<string>>;
  /** Slug → its headings as a reader sees them. */
  headings: Map<string, string[]>;
  /** Every folded summary, padded with spaces, to find a phrase's pages by words. */
  summaries: string[];
  /** Folded words of every title, heading and summary: a "typo" that makes one of them is not a typo. */
  vocabulary: Set<string>;
}

/** Text as the index folds it: its words, lower case, without accents, one space apart. */
export const folded = (text: string) => words(text).map((w) => w.text).join(' ');

const ATX = /^ {0,3}#{1,6}[ \t]+\S/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const CJK_RUN = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u30fc\u3005]+/gu;
const CJK_CHAR = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
const LATIN_WORD = /^\p{sc=Latin}+$/u;
const segmenters = new Map<string, Intl.Segmenter>();
const segmenter = (language: string) => {
  let s = segmenters.get(language);
  if (!s) segmenters.set(language, (s = new Intl.Segmenter(language, { granularity: 'word' })));
  return s;
};

/** The ATX headings of a Markdown body outside fenced code, as plain text. */
export function headingsOf(bodyMd: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of bodyMd.split('\n')) {
    const f = FENCE.exec(line);
    if (f) {
      if (fence === null) fence = f[1][0];
      else if (f[1][0] === fence) fence = null;
      continue;
    }
    if (fence === null && ATX.test(line)) {
      const text = plainText(line.replace(/[ \t]+#+[ \t]*$/, '')).trim();
      if (text !== '') out.push(text);
    }
  }
  return out;
}

/** The pages grouped by version and language, in the order they come. */
export function pageGroups(pages: readonly Page[]): Group[] {
  const byKey = new Map<string, Group>();
  for (const p of pages) {
    const key = `${p.version}\n${p.language}`;
    let g = byKey.get(key);
    if (!g) byKey.set(key, (g = { version: p.version, language: p.language, pages: [], titles: new Map(), headed: new Map(), headings: new Map(), summaries: [], vocabulary: new Set() }));
    g.pages.push(p);
    const title = folded(p.title);
    g.titles.set(title, [...(g.titles.get(title) ?? []), p.slug]);
    const headings = headingsOf(p.bodyMd);
    g.headings.set(p.slug, headings);
    for (const text of [p.title, ...headings]) {
      const key = folded(text);
      let slugs = g.headed.get(key);
      if (!slugs) g.headed.set(key, (slugs = new Set()));
      slugs.add(p.slug);
      for (const w of key.split(' ')) g.vocabulary.add(w);
    }
    const summary = folded(p.summary);
    g.summaries.push(` ${summary} `);
    for (const w of summary.split(' ')) g.vocabulary.add(w);
  }
  return [...byKey.values()];
}

/** The whole title; every page of the same title is relevant. */
export function titleQuery(g: Group, p: Page): Made | null {
  const key = folded(p.title);
  return key === '' ? null : { q: p.title, relevant: g.titles.get(key)! };
}

/** A heading of the page that no other page of the group has as a heading or a title (nor is this page's title). */
export function headingQuery(g: Group, p: Page, r: Random): Made | null {
  const unique = (g.headings.get(p.slug) ?? []).filter((h) => {
    const key = folded(h);
    return key !== '' && key !== folded(p.title) && g.headed.get(key)!.size === 1;
  });
  return unique.length === 0 ? null : { q: r.pick(unique), relevant: [p.slug] };
}

/**
 * Three consecutive words of the summary that no other summary of the group has in that order, and
 * that are not a page's whole title (that page would be as good an answer); not for CJK text.
 */
export function summaryPhrase(g: Group, p: Page, r: Random): Made | null {
  if (CJK_CHAR.test(p.summary)) return null;
  const tokens = p.summary.match(WORD) ?? [];
  const starts = Array.from({ length: Math.max(0, tokens.length - 2) }, (_, i) => i);
  while (starts.length > 0) {
    const i = starts.splice(r.int(0, starts.length - 1), 1)[0];
    const q = tokens.slice(i, i + 3).join(' ');
    const needle = ` ${folded(q)} `;
    if (needle.trim() !== '' && !g.titles.has(needle.trim()) && g.summaries.filter((s) => s.includes(needle)).length === 1) return { q, relevant: [p.slug] };
  }
  return null;
}

/**
 * 4–8 characters of one CJK run of the summary that no other summary of the group holds and that are
 * not a page's whole title, starting and ending where a dictionary segmenter cuts words: what a
 * reader would copy or type, not a slice through the middle of a word.
 */
export function cjkPhrase(g: Group, p: Page, r: Random): Made | null {
  const candidates: string[] = [];
  for (const m of p.summary.matchAll(CJK_RUN)) {
    const cuts = [...segmenter(g.language).segment(m[0])].map((s) => Array.from(m[0].slice(0, s.index)).length);
    const run = Array.from(m[0]);
    cuts.push(run.length);
    for (const from of cuts) {
      for (const to of cuts) if (to - from >= 4 && to - from <= 8) candidates.push(run.slice(from, to).join(''));
    }
  }
  while (candidates.length > 0) {
    const q = candidates.splice(r.int(0, candidates.length - 1), 1)[0];
    if (!g.titles.has(folded(q)) && g.pages.filter((o) => o.summary.includes(q)).length === 1) return { q, relevant: [p.slug] };
  }
  return null;
}

/**
 * One transposition of two adjacent letters inside a Latin word of 5+ letters, not of its first
 * letter; the word made must not be a word of the group (that would be another query, not a typo).
 */
export function withTypo(g: Group, base: Made, r: Random): Made | null {
  const found = [...base.q.matchAll(/\p{L}+/gu)].filter((m) => LATIN_WORD.test(m[0]) && Array.from(m[0]).length >= 5);
  const candidates = found.flatMap((m) => {
    const chars = Array.from(m[0]);
    const at: Array<{ m: RegExpExecArray; chars: string[]; i: number }> = [];
    for (let i = 1; i + 1 < chars.length; i++) if (chars[i].toLowerCase() !== chars[i + 1].toLowerCase()) at.push({ m: m as RegExpExecArray, chars, i });
    return at;
  });
  while (candidates.length > 0) {
    const { m, chars, i } = candidates.splice(r.int(0, candidates.length - 1), 1)[0];
    const typo = [...chars.slice(0, i), chars[i + 1], chars[i], ...chars.slice(i + 2)].join('');
    if (g.vocabulary.has(folded(typo))) continue;
    return { q: base.q.slice(0, m.index) + typo + base.q.slice(m.index + m[0].length), relevant: base.relevant };
  }
  return null;
}

/** The title with its last word cut to its first four letters (a word longer than four, of a spaced script). */
export function withPrefix(base: Made | null): Made | null {
  if (!base) return null;
  const last = [...base.q.matchAll(WORD)].at(-1);
  if (!last || !/^\p{L}+$/u.test(last[0]) || CJK_CHAR.test(last[0])) return null;
  const chars = Array.from(last[0]);
  if (chars.length <= 4) return null;
  return { q: base.q.slice(0, last.index) + chars.slice(0, 4).join(''), relevant: base.relevant };
}
