import { IMPACTS_BYTES, keepImpactsWithin, keptImpactsBytes } from './impacts.ts';
import { keepMatchesWithin, keptMatchesBytes, MATCHES_BYTES } from './passages.ts';

/** What the caches of search by relevance may hold by default, in all (`HELP_SEARCH_CACHE_MB`): 80 MB. */
export const SEARCH_CACHE_BYTES = IMPACTS_BYTES + MATCHES_BYTES;

/**
 * Sizes the process's caches of search by relevance to `bytes` in all, in the default's proportions:
 * four fifths for each page's score per word searched (impacts.ts), a fifth for where the words
 * occur in the bodies shown (passages.ts). 0 keeps nothing: every search makes what it needs.
 * Answers are the same whatever the size; only their cost changes.
 */
export function sizeSearchCaches(bytes: number): void {
  const impacts = Math.floor((bytes * IMPACTS_BYTES) / SEARCH_CACHE_BYTES);
  keepImpactsWithin(impacts);
  keepMatchesWithin(bytes - impacts);
}

/** About how many bytes the caches hold now. */
export const searchCachesBytes = (): number => keptImpactsBytes() + keptMatchesBytes();
