/**
 * The oracle of the differential test of indexing (test/index-terms.test.ts): a copy of indexTerms()
 * and what it used as they were before words were cut with a loop over character codes (one Unicode
 * pattern over the whole text, each distinct word folded on its own). Kept unchanged on purpose: the
 * terms a document is indexed under decide what a search finds, so the faster cut must give exactly
 * these. Do not "fix" or speed it up; change src/index/words.ts instead.
 */

const UNSPACED = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30FC\uFF70`;
const TOKEN = new RegExp(String.raw`[${UNSPACED}][${UNSPACED}\p{M}]*|[[\p{L}\p{N}]--[${UNSPACED}]][[\p{L}\p{N}\p{M}]--[${UNSPACED}]]*`, 'gv');
const UNSPACED_START = new RegExp(`^[${UNSPACED}]`, 'v');
const ASCII = /^[\x00-\x7f]*$/;
const FIRST_UNSPACED = 0x0e00;
const NON_ASCII = /[^\x00-\x7f]/;
const MAY_DECOMPOSE = /[\u00c0-\u04ff\u1e00-\u1fff\u2100-\u214f\uf900-\ufaff\ud800-\udfff]/;

function fold(term: string): string {
  if (ASCII.test(term)) return term.toLowerCase();
  return term.normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC').toLowerCase();
}

const pairCode = (a: number, b: number) => a * 65536 + b;
const tokens = (text: string): string[] => text.toLowerCase().match(TOKEN) ?? [];
const foldToken = (token: string) => (MAY_DECOMPOSE.test(token) ? fold(token) : token);
const isUnspaced = (w: string) => w.charCodeAt(0) >= FIRST_UNSPACED && UNSPACED_START.test(w);

/** The words and character-pair codes `text` is indexed under, each once. */
export function oracleTerms(text: string): { words: Set<string>; pairs: Set<number> } {
  const words = new Set<string>();
  const pairs = new Set<number>();
  const found = tokens(text);
  if (!NON_ASCII.test(text)) {
    for (const token of found) words.add(token);
    return { words, pairs };
  }
  for (const token of new Set(found)) {
    const w = foldToken(token);
    if (w === '') continue;
    if (!isUnspaced(w)) {
      words.add(w);
      continue;
    }
    let start = 0;
    let code = w.codePointAt(0)!;
    for (let i = code > 0xffff ? 2 : 1; i < w.length; ) {
      const nextCode = w.codePointAt(i)!;
      const size = nextCode > 0xffff ? 2 : 1;
      if (code <= 0xffff && nextCode <= 0xffff) pairs.add(pairCode(code, nextCode));
      else words.add(w.slice(start, i + size));
      start = i;
      code = nextCode;
      i += size;
    }
    words.add(w.slice(start));
  }
  return { words, pairs };
}
