import { plainLines } from '../content/plain-text.ts';
import type { Translation } from '../domain/types.ts';
import { DocTerms, indexTerms } from './words.ts';

/**
 * The terms a translation is indexed under: its title, summary and the plain text of its body. The
 * main thread and the index workers both call this, so an index built on either holds the same terms.
 */
export function documentTerms(t: Pick<Translation, 'title' | 'summary' | 'bodyMd'>): DocTerms {
  const terms = new DocTerms();
  indexTerms(`${t.title}\n${t.summary}\n${plainLines(t.bodyMd).join('\n')}`, terms);
  return terms;
}
