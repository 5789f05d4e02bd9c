/**
 * The judged query set (bench/README.md, Search quality): known-item queries, each made from one page and
 * judged relevant to that page, plus every page of the same title for the kinds made from a title.
 * Deterministic: the pages are visited in an order drawn from a seeded PRNG, one per kind, version and
 * language, so a kind's queries do not change when another kind's rules do.
 */
import { Random } from '../../test/helpers/generate.ts';
import { words } from '../../src/index/words.ts';
import type { Page } from './corpus.ts';
import { cjkPhrase, pageGroups, summaryPhrase, titleQuery, headingQuery, withTypo, withPrefix, type Group, type Made } from './kinds.ts';

export const KINDS = ['title', 'summary', 'heading', 'typo', 'prefix', 'cjk'] as const;
export type Kind = (typeof KINDS)[number];

export interface JudgedQuery {
  kind: Kind;
  version: string;
  language: string;
  q: string;
  /** The page it was made from. */
  from: string;
  /** Slugs of the pages judged relevant (the page, and for title kinds the pages of the same title). */
  relevant: string[];
}

export interface JudgedOptions {
  /** Most queries of each kind, spread evenly over the versions and languages that can make it. */
  perKind: number;
  seed: number;
}

/** What makes one query of a kind from a page (null: this page cannot make one). */
const MAKERS: Record<Kind, (g: Group, p: Page, r: Random) => Made | null> = {
  title: (g, p) => titleQuery(g, p),
  summary: summaryPhrase,
  heading: headingQuery,
  // A title or a heading, chosen by the draw, with one transposition in it.
  typo: (g, p, r) => {
    const base = r.chance(0.5) ? (headingQuery(g, p, r) ?? titleQuery(g, p)) : titleQuery(g, p);
    return base && withTypo(g, base, r);
  },
  prefix: (g, p) => withPrefix(titleQuery(g, p)),
  cjk: cjkPhrase,
};

/** FNV-1a of a string: a seed per kind, version and language. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function shuffled<T>(items: readonly T[], r: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** The judged set of `pages`: up to `perKind` queries of each kind, the groups (version, language) taking turns. */
export function judgedSet(pages: readonly Page[], opts: JudgedOptions): JudgedQuery[] {
  const groups = pageGroups(pages);
  const out: JudgedQuery[] = [];
  for (const kind of KINDS) {
    const makers = groups.map((g) => {
      const r = new Random(hash(`${opts.seed}|${kind}|${g.version}|${g.language}`));
      const order = shuffled(g.pages, r);
      const seen = new Set<string>();
      let next = 0;
      return (): JudgedQuery | undefined => {
        while (next < order.length) {
          const page = order[next++];
          const made = MAKERS[kind](g, page, r);
          if (!made) continue;
          const key = words(made.q).map((w) => w.text).join(' ');
          if (key === '' || seen.has(key)) continue;
          seen.add(key);
          return { kind, version: g.version, language: g.language, q: made.q, from: page.slug, relevant: made.relevant };
        }
        return undefined;
      };
    });
    let made = 0;
    for (let live = makers.length; live > 0 && made < opts.perKind; ) {
      live = 0;
      for (const make of makers) {
        if (made >= opts.perKind) break;
        const q = make();
        if (q === undefined) continue;
        live++;
        out.push(q);
        made++;
      }
    }
  }
  return out;
}
