import { headingTexts } from '../content/headings.ts';
import { plainLines } from '../content/plain-text.ts';
import type { Translation } from '../domain/types.ts';
import { BODY, HEADINGS, RankDoc, SUMMARY, TITLE } from './rank-doc.ts';
import type { TermIndex } from './term-index.ts';
import { DocTerms, indexTerms } from './words.ts';

/**
 * What a translation is indexed under: in `index` (the term index), the terms of its title, summary
 * and the plain text of its body; for ranking, the same words counted per field, headings on their
 * own. The main thread and the index workers both call this, so an index built on either holds the
 * same terms. The body is converted to plain text once for both.
 */
export function documentTerms(index: TermIndex, t: Pick<Translation, 'title' | 'summary' | 'bodyMd'>): { terms: DocTerms; rank: RankDoc } {
  const terms = index.docTerms();
  const rank = new RankDoc();
  rankHead(rank, t);
  const body = plainLines(t.bodyMd).join('\n');
  rank.add(BODY, body);
  termsOf(rank, terms, t, [body]);
  return { terms, rank };
}

/**
 * The term index's terms of a document whose title, summary and body (`bodies`: its plain text, in
 * one piece or more) `rank` has counted: taken from the counts where they can be (RankDoc.termsInto:
 * a text of Latin-1 letters, most of the pages of languages written in Latin script, read once for
 * both indexes), else read again by indexTerms().
 */
export function termsOf(rank: RankDoc, terms: DocTerms, t: Pick<Translation, 'title' | 'summary'>, bodies: readonly string[]): void {
  if (!rank.termsInto(terms)) {
    indexTerms(`${t.title}\n${t.summary}`, terms);
    for (const body of bodies) indexTerms(body, terms);
  }
  terms.done();
}

/** Counts the title, summary and headings of `t` into `rank` (the body comes separately, in pieces when long). */
export function rankHead(rank: RankDoc, t: Pick<Translation, 'title' | 'summary' | 'bodyMd'>): void {
  rank.add(TITLE, t.title);
  rank.add(SUMMARY, t.summary);
  for (const text of headingTexts(t.bodyMd)) rank.add(HEADINGS, text);
}
