import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mainSet, realisticSet } from '../bench/lib/dataset.ts';
import { plainLines } from '../src/content/plain-text.ts';
import { documentTerms } from '../src/index/document-terms.ts';
import { RankDoc } from '../src/index/rank-doc.ts';
import { TermIndex } from '../src/index/term-index.ts';
import { DocTerms, indexTerms } from '../src/index/words.ts';
import { Random } from './helpers/generate.ts';
import { oracleTerms } from './helpers/index-terms-oracle.ts';

// What a search finds is decided by the terms each document is indexed under. indexTerms() cuts words
// with a loop over character codes, skips tokens a document already had and finds the terms its index
// has by number; the oracle is the implementation before that (one Unicode pattern over the text).
// For every text, in one piece or in several (as a large body is indexed a chunk at a time), and
// whether the index has its terms or not, both must give the same set of terms.

interface Terms {
  words: Set<string>;
  pairs: Set<number>;
}

/**
 * The terms indexTerms() gives `pieces`, read as one document of an index that has no terms yet, or
 * (`known`) of one that has those of the same pieces already, which finds most of them by number.
 */
function termsOf(pieces: readonly string[], known = false): Terms {
  let into = new DocTerms();
  if (known) {
    const index = new TermIndex();
    for (const piece of pieces) indexTerms(piece, into);
    index.add('before', into);
    into = index.docTerms();
  }
  for (const piece of pieces) indexTerms(piece, into);
  into.done();
  // A term the index has must be found by number as the text is read: as a string, it would be a second term.
  if (known) for (const word of into.words) assert.equal(into.table.idOf(word), -1, `${JSON.stringify(word)} is in the index but was not found`);
  return { words: new Set([...into.words, ...into.ids.map((id) => into.table.terms[id])]), pairs: new Set(into.pairs.subarray(0, into.pairCount)) };
}

function oracleOf(pieces: readonly string[]): Terms {
  const words = new Set<string>();
  const pairs = new Set<number>();
  for (const piece of pieces) {
    const t = oracleTerms(piece);
    for (const w of t.words) words.add(w);
    for (const p of t.pairs) pairs.add(p);
  }
  return { words, pairs };
}

/** The first difference, readable: a term one side has and the other lacks. */
function difference(actual: Terms, expected: Terms): string | null {
  const show = (s: string) => JSON.stringify(s) + ` [${Array.from(s, (ch) => ch.codePointAt(0)!.toString(16)).join(' ')}]`;
  const pair = (p: number) => show(String.fromCharCode(Math.floor(p / 65536), p % 65536));
  for (const w of expected.words) if (!actual.words.has(w)) return `missing word ${show(w)}`;
  for (const w of actual.words) if (!expected.words.has(w)) return `extra word ${show(w)}`;
  for (const p of expected.pairs) if (!actual.pairs.has(p)) return `missing pair ${pair(p)}`;
  for (const p of actual.pairs) if (!expected.pairs.has(p)) return `extra pair ${pair(p)}`;
  return null;
}

function assertSameTerms(pieces: readonly string[], what: string): void {
  const expected = oracleOf(pieces);
  for (const known of [false, true]) {
    const diff = difference(termsOf(pieces, known), expected);
    assert.equal(diff, null, `${what}${known ? ', terms known to the index' : ''}: ${diff}`);
  }
}

/** Pieces of hostile text: every kind of character the cut, the case mapping or the folding treats specially. */
const PALETTE = [
  ' ', ' ', '\n', '.', ',', '-', '_', "'", '’', '—', '\u00a0', '\u00ad', '\u200d', '\t', '|', '@', '/', '0', '7', '42', 'x1', 'snake_case', 'Café', 'CAFE', 'café', 'cafe\u0301',
  'Über', 'GRÖSSE', 'Größe', 'straße', 'ẞ', 'naïve', 'Émile', 'ǅemal', 'ﬁne', 'ŉ', 'Ǆ', 'ı', 'İ', 'İstanbul', 'DİYARBAKIR', 'ΟΔΟΣ', 'ΣΑΣ.', 'ΑΣ\u0301 ', 'ΑΣ.Β', "ΟΔΟΣ'Α", 'ΑΣ\u0301Β', 'Σ', 'σς', 'ΌΣΟΣ',
  'ά', 'Ё', 'й', 'ЙОД', 'K', 'Ω', 'Å', 'Ⅻ', 'ⅻ', '½', '²', '①', '٣', 'हिन्दी', '한국어', 'العربية', 'Ａｂｃ', '０１２', 'ｶﾀｶﾅ', 'ｰ', 'ー', 'カー', 'バ', 'ハ\u3099',
  'ひらがな', '漢字', '日本語の文章です', '東京都', '豈', '\uf900\uf901', '𠀀', '𠀀𠀁', '漢𠀀字', '\u{2a6d6}', 'ภาษาไทย', 'ພາສາລາວ', 'ភាសាខ្មែរ', 'မြန်မာ', '\u0301', '\u0301\u0302',
  '漢\u0301', 'a\u20dd', '😀', '👩\u200d💻', '\ufe0f', '\u{e0100}', 'x\u{e0100}', '\ud800', '\udc00', '\udc00\ud800', 'a\ud800b', '漢\udc00', '\u0345', 'ᾼ', 'ǰ', 'ΐ', 'ﬀ', '\u0130\u0307',
];

function hostileText(r: Random, length: number): string {
  const out: string[] = [];
  const recent: string[] = [];
  while (out.length < length) {
    const roll = r.next();
    let piece: string;
    if (roll < 0.5) piece = r.pick(PALETTE);
    else if (roll < 0.6 && recent.length > 0) piece = r.pick(recent);
    else if (roll < 0.7) piece = String.fromCodePoint(r.int(0, 0x10ffff));
    else if (roll < 0.8) piece = String.fromCharCode(r.int(0x80, 0xffff));
    else if (roll < 0.97) {
      // A word of mixed pieces without separators.
      piece = '';
      for (let k = r.int(1, 6); k > 0; k--) piece += r.pick(PALETTE).trim();
      recent.push(piece);
    } else piece = r.pick(PALETTE).trim().repeat(r.int(50, 3000));
    out.push(piece);
  }
  return out.join('');
}

/** `text` cut at `count - 1` random places (a place may split a surrogate pair or a word). */
function cut(r: Random, text: string, count: number): string[] {
  const at = Array.from({ length: count - 1 }, () => r.int(0, text.length)).sort((a, b) => a - b);
  return [0, ...at].map((from, i) => text.slice(from, i < at.length ? at[i] : text.length));
}

describe('indexTerms', () => {
  test('indexes every document of the benchmark sets under the terms of the earlier implementation', () => {
    for (const [name, set] of [
      ['flat', mainSet(2000)],
      ['realistic', realisticSet()],
    ] as const) {
      for (const file of set.files) {
        if (!file.path.endsWith('.md')) continue;
        const body = plainLines(file.content).join('\n');
        assertSameTerms([body], `${name} ${file.path}`);
      }
    }
  });

  test('indexes seeded hostile text (mixed scripts, marks, surrogates, case mappings, long words) under the same terms, whole or in pieces', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const r = new Random(seed);
      const text = hostileText(r, r.int(1, 400));
      assertSameTerms([text], `seed ${seed}`);
      assertSameTerms(cut(r, text, r.int(2, 5)), `seed ${seed} in pieces`);
    }
  });

  test('a document with more distinct words and pairs than are remembered at once still gets all of them', () => {
    const r = new Random(99);
    const latin: string[] = [];
    for (let i = 0; i < 30_000; i++) latin.push(`w${(i * 7919).toString(36)}${r.pick(['', 'é', 'Σ', 'ß'])}`);
    // Each word again, later: after the remembered tokens were dropped.
    const words = [...latin, ...latin.slice(0, 5000)].join(' ');
    let cjk = '';
    for (let i = 0; i < 40_000; i++) cjk += String.fromCharCode(0x4e00 + r.int(0, 20_000));
    assertSameTerms([words, cjk, cjk.slice(0, 10_000)], 'many distinct terms');
  });

  test('words that differ only where their keys do not look (the same first letter, last eight letters and length) are all indexed', () => {
    // 2,048 distinct words with one hash: they must be told apart by their letters, in the document's and the index's tables.
    const colliding: string[] = [];
    for (let m = 0; m < 2048; m++) {
      let word = 'x';
      for (let b = 0; b < 11; b++) word += (m >> b) & 1 ? 'a' : 'b';
      colliding.push(`${word}zzzzzzzz`);
    }
    const text = [...colliding, ...colliding.reverse()].join(' ');
    assertSameTerms([text], 'colliding words');
    assert.equal(termsOf([text]).words.size, 2048);
  });
});

describe('TermIndex with terms found by number', () => {
  /** The keys of the documents holding a term that starts with every prefix. */
  const found = (index: TermIndex, ...prefixes: string[]) => {
    const { bits } = index.match(prefixes);
    const keys: string[] = [];
    for (let n = 0; n < bits.length * 32; n++) if (bits[n >>> 5] & (1 << (n & 31)) && index.keyAt(n) !== undefined) keys.push(index.keyAt(n)!);
    return keys.sort();
  };
  /** The terms of `text` as a document of `index` (read against its terms). */
  const termsIn = (index: TermIndex, text: string) => {
    const terms = index.docTerms();
    indexTerms(text, terms);
    terms.done();
    return terms;
  };

  test('a large document of pairs added in slices pauses while the grown table is written page by page, and every pair is found', async () => {
    const index = new TermIndex();
    const read = (text: string) => termsIn(index, text);
    index.add('small', read('日本語の文書'));
    const r = new Random(5);
    let cjk = '';
    for (let i = 0; i < 300_000; i++) cjk += String.fromCharCode(0x4e00 + r.int(0, 20_000));
    const terms = read(cjk);
    let pauses = 0;
    await index.addInSlices('large', terms, async () => {
      pauses++;
    });
    // 16,384 pairs are posted between pauses; before them, the table grown for 300,000 pairs (three arrays of
    // 2^20 slots) is written 256 pages at a time.
    const postingSlices = Math.ceil(terms.pairCount / 16_384);
    assert.equal(pauses, postingSlices - 1 + 4);
    assert.deepEqual(found(index, '日本'), ['small']);
    for (let i = 0; i < cjk.length - 1; i += 9973) assert.ok(found(index, cjk.slice(i, i + 2)).includes('large'), cjk.slice(i, i + 2));
    assert.deepEqual(found(index, cjk.slice(0, 2), cjk.slice(-2)), ['large']);
  });

  test('a document read before the index renumbered its terms (it dropped many) is indexed under its own terms', async () => {
    const index = new TermIndex();
    const read = (text: string) => termsIn(index, text);
    index.add('other', read('gamma delta'));
    // Each rewrite leaves a gone document number; past 1,024 the index renumbers, and its terms with them.
    for (let i = 0; i < 1100; i++) index.add('doc', read(`alpha beta w${i} gamma`));
    // Read, then the index renumbers (documents went), then added in slices.
    const terms = read('alpha delta omega');
    for (let i = 0; i < 1030; i++) index.add(`gone${i}`, read(`epsilon${i}`));
    for (let i = 0; i < 1030; i++) index.remove(`gone${i}`);
    await index.addInSlices('late', terms, async () => {});
    assert.deepEqual(found(index, 'alpha'), ['doc', 'late']);
    assert.deepEqual(found(index, 'gamma'), ['doc', 'other']);
    assert.deepEqual(found(index, 'delta'), ['late', 'other']);
    assert.deepEqual(found(index, 'omega'), ['late']);
    assert.deepEqual(found(index, 'w1099'), ['doc']);
    assert.deepEqual(found(index, 'w5'), []);
    assert.deepEqual(found(index, 'epsilon'), []);
  });
});

// A page of Latin-1 text (most pages of languages written in Latin script), with or without runs of
// Chinese or Japanese, is read once for both indexes: the term index takes the words and character
// pairs the ranking counts (RankDoc.termsInto) instead of reading the text again. Those must be
// exactly the terms indexTerms() gives; any other page is read again.
describe('The ranking counts stand in for indexTerms()', () => {
  type Page = { title: string; summary: string; bodyMd: string };

  /** The terms indexTerms() gives the page's title, summary and plain body. */
  function readAgain(page: Page): Terms {
    const read = new DocTerms();
    indexTerms(`${page.title}\n${page.summary}`, read);
    indexTerms(plainLines(page.bodyMd).join('\n'), read);
    read.done();
    return { words: new Set(read.words), pairs: new Set(read.pairs.subarray(0, read.pairCount)) };
  }

  /** Whether RankDoc.termsInto() gives the terms of the page (what documentTerms() decides by). */
  function countsStandIn(page: Page): boolean {
    const rank = new RankDoc();
    rank.add(0, page.title);
    rank.add(2, page.summary);
    rank.add(3, plainLines(page.bodyMd).join('\n'));
    return rank.termsInto(new DocTerms());
  }

  /** Asserts that documentTerms(), as the service indexes a page, gives the terms of readAgain(); returns whether the counts stood in. */
  function assertSame(page: Page, what: string): boolean {
    const { terms } = documentTerms(new TermIndex(), page);
    const got = { words: new Set([...terms.words, ...terms.ids.map((id) => terms.table.terms[id])]), pairs: new Set(terms.pairs.subarray(0, terms.pairCount)) };
    const diff = difference(got, readAgain(page));
    assert.equal(diff, null, `${what}: ${diff}`);
    return countsStandIn(page);
  }

  test('every page of the benchmark sets: the same words; the English, Japanese and most German pages are counted once', () => {
    for (const [name, set] of [
      ['flat', mainSet(600)],
      ['realistic', realisticSet()],
    ] as const) {
      const stood: Record<string, number> = {};
      const pages: Record<string, number> = {};
      for (const node of set.nodes) {
        for (const [language, t] of Object.entries(node.translations)) {
          pages[language] = (pages[language] ?? 0) + 1;
          if (assertSame(t, `${name} ${language}/${node.slug}`)) stood[language] = (stood[language] ?? 0) + 1;
        }
      }
      assert.equal(stood.en, pages.en, `${name}: every English page counted once`);
      assert.ok((stood.de ?? 0) > pages.de / 2, `${name}: most German pages counted once (${stood.de} of ${pages.de})`);
      assert.equal(stood.ja, pages.ja, `${name}: every Japanese page counted once`);
    }
  });

  test('seeded Latin-1 text with Markdown (accents, sharp s, digits, NBSP, soft hyphens, headings, entities, links): the same words', () => {
    const narrow = PALETTE.filter((piece) => [...piece].every((ch) => ch.charCodeAt(0) < 0x100));
    const markdown = ['# ', '## ', '\n\n', '\n- ', '`', '**', '[', '](https://example.com/a_b)', '&eacute;', '&amp;', '&#233;', '<b>', '\n> ', '\n| a | b |\n|---|---|\n| '];
    let counted = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = new Random(seed);
      const text = (n: number) => Array.from({ length: n }, () => (r.next() < 0.25 ? r.pick(markdown) : r.pick(narrow))).join(r.pick([' ', '', '\n']));
      if (assertSame({ title: text(r.int(1, 6)), summary: text(r.int(0, 12)), bodyMd: text(r.int(0, 400)) }, `seed ${seed}`)) counted++;
    }
    assert.ok(counted > 250, `${counted} of 300 pages counted once`);
  });

  test('seeded text of Latin-1 words, Japanese and Chinese runs, punctuation from U+0100 on and Markdown: the same terms', () => {
    const narrow = PALETTE.filter((piece) => [...piece].every((ch) => ch.charCodeAt(0) < 0x100));
    const unspaced = ['ひらがな', '漢字', '日本語の文章です', '東京都', '豈', '京', 'カー', 'ー', 'データを書き出す', '中文的句子', '、', '。', '「', '」', '—', '’', '…', '・'];
    const markdown = ['# ', '## ', '\n\n', '\n- ', '`', '**', '[', '](https://example.com/a_b)', '&eacute;', '\n| a | b |\n|---|---|\n| '];
    let counted = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = new Random(seed);
      const text = (n: number) => Array.from({ length: n }, () => (r.next() < 0.2 ? r.pick(markdown) : r.next() < 0.5 ? r.pick(unspaced) : r.pick(narrow))).join(r.pick([' ', '', '\n']));
      if (assertSame({ title: text(r.int(1, 6)), summary: text(r.int(0, 12)), bodyMd: text(r.int(0, 400)) }, `seed ${seed}`)) counted++;
    }
    assert.ok(counted > 250, `${counted} of 300 pages counted once`);
  });

  test('seeded hostile text (every piece of the palette, in any order): the same terms, whichever way they are found', () => {
    let counted = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const r = new Random(1000 + seed);
      // Mostly pieces the counts account for, so a hostile piece lands among them, beside a run or inside a word.
      const safe = PALETTE.filter((piece) => /^[\x00-\xff\u3040-\u30ff\u4e00-\u9fff]*$/.test(piece));
      const text = (n: number) => Array.from({ length: n }, () => r.pick(r.next() < 0.04 ? PALETTE : safe)).join(r.pick([' ', '', '', '\n']));
      if (assertSame({ title: text(r.int(1, 6)), summary: text(r.int(0, 10)), bodyMd: text(r.int(0, 40)) }, `seed ${1000 + seed}`)) counted++;
    }
    assert.ok(counted > 20 && counted < 380, `${counted} of 400 counted once: both ways are taken`);
  });

  test('a page with a letter or mark from U+0100 on in a word, a run that folding changes or outside the BMP, or more distinct words than are counted, is read again', () => {
    for (const page of [
      { title: 'Łódź', summary: '', bodyMd: 'plain' },
      { title: 'plain', summary: 'Σ', bodyMd: 'plain' },
      { title: 'plain', summary: '', bodyMd: 'A word in Cyrillic: слово' },
      { title: 'plain', summary: '', bodyMd: 'cafe\u0301' },
      { title: 'plain', summary: '', bodyMd: '## 日本語\n\nＡｂｃ' },
      { title: 'plain', summary: '', bodyMd: 'ハ\u3099' },
      { title: 'plain', summary: '', bodyMd: '漢𠀀字' },
      { title: 'plain', summary: '', bodyMd: 'a 😀 b' },
    ]) {
      assert.equal(assertSame(page, JSON.stringify(page)), false, `${JSON.stringify(page)} is read again`);
    }
    for (const page of [
      { title: 'Ünïcode — dash', summary: '', bodyMd: 'plain' },
      { title: 'plain', summary: '', bodyMd: '## 日本語\n\ntext、東京。' },
    ]) {
      assert.equal(assertSame(page, JSON.stringify(page)), true, `${JSON.stringify(page)} is counted once`);
    }
    const many = { title: 'Many', summary: '', bodyMd: Array.from({ length: 25_000 }, (_, i) => `w${i.toString(36)}`).join(' ') };
    assert.equal(assertSame(many, 'many distinct words'), false, 'read again');
    assert.equal(readAgain(many).words.size, 25_001, 'every word is a term all the same');
  });
});
