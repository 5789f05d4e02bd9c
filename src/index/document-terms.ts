import { plainLines } from '../content/plain-text.ts';
import type { Translation } from '../domain/types.ts';
import type { TermIndex } from './term-index.ts';
import { DocTerms, indexTerms } from './words.ts';

/**
 * The terms a translation is indexed under in `index`: its title, summary and the plain text of its
 * body. The main thread and the index workers both call this, so an index built on either holds the
 * same terms.
 */
export function documentTerms(index: TermIndex, t: Pick<Translation, 'title' | 'summary' | 'bodyMd'>): DocTerms {
  const terms = index.docTerms();
  indexTerms(`${t.title}\n${t.summary}`, terms);
  indexTerms(plainLines(t.bodyMd).join('\n'), terms);
  terms.done();
  return terms;
}
