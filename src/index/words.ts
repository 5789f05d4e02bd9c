/**
 * Words for search: split with Intl.Segmenter, so languages written without spaces (Japanese,
 * Chinese) are cut into words too, and folded so matching ignores case and diacritics.
 */
const segmenters = new Map<string, Intl.Segmenter>();

function segmenter(language: string): Intl.Segmenter {
  let s = segmenters.get(language);
  if (!s) segmenters.set(language, (s = new Intl.Segmenter(language, { granularity: 'word' })));
  return s;
}

/** Segmenting one long string costs time quadratic in its length in V8, so text is cut into pieces first. */
const PIECE = 1000;

export function words(text: string, language: string): string[] {
  const out: string[] = [];
  const s = segmenter(language);
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + PIECE);
    // Cut at white space where there is some nearby, so no word is split (scripts without spaces may be).
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start + PIECE / 2) end = space;
    }
    for (const part of s.segment(text.slice(start, end))) if (part.isWordLike) out.push(part.segment);
    start = end;
  }
  return out;
}

/** Lower case, without accents: `Éclair` → `eclair`. */
// Only the combining marks of Latin, Greek and Cyrillic accents go: the voicing marks of Japanese
// kana (バ vs ハ) make different words.
export const fold = (term: string) => term.normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC').toLowerCase();

/** The folded text with, for each of its characters, the index of the character it came from. */
export function foldWithMap(text: string): { folded: string; source: number[] } {
  let folded = '';
  const source: number[] = [];
  let i = 0;
  for (const ch of text) {
    const f = fold(ch);
    for (let k = 0; k < f.length; k++) source.push(i);
    folded += f;
    i += ch.length;
  }
  source.push(i);
  return { folded, source };
}
