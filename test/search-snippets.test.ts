import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { plainText } from '../src/content/plain-text.ts';
import type { NodeRec, Translation, VersionState } from '../src/domain/types.ts';
import { REALISTIC_LANGUAGES, SHAPES, summarize } from '../bench/lib/dataset.ts';
import { plainLines } from '../src/content/plain-text.ts';
import { rawMatcher } from '../src/index/raw-matcher.ts';
import { MAX_HITS, SearchIndex } from '../src/index/search.ts';
import { snippet } from '../src/index/snippets.ts';
import { fold, words, type Word } from '../src/index/words.ts';
import { makeBodyTexts } from '../src/index/body-text.ts';
import { generatedLine, random } from './helpers/hostile-markdown.ts';
import * as earlier from './helpers/snippets-reference.ts';

// What a search answers for the cases the cheap paths of the index and the snippets take apart:
// lines converted in one pass, excerpts that stop converting once full, the raw-text pattern and its
// word-start check, prefix lookups in a term buffer that was sorted by an earlier lookup.

const STAMP = '2026-01-01T00:00:00.000Z';

function stateOf(texts: Array<[string, Partial<Translation>]>, languages = ['en']): VersionState {
  const nodes = new Map<string, NodeRec>();
  for (const [slug] of texts) nodes.set(slug, { id: slug, slug, kind: 'topic', parentSlug: null, icon: null, sortOrder: 0, updatedAt: STAMP, children: [] });
  const translations = new Map(texts.map(([slug, t]) => [slug, new Map(languages.map((l) => [l, { title: slug, summary: '', bodyMd: '', updatedAt: STAMP, ...t }]))]));
  return {
    slug: 'v1',
    meta: { label: 'V1', status: 'published', languages, sortOrder: null, isLatest: true, hidden: false, workingCopyOf: null, createdAt: STAMP, updatedAt: STAMP },
    nodes,
    roots: texts.map(([slug]) => slug),
    translations,
  };
}

function searchIn(state: VersionState, q: string, language = 'en') {
  const index = new SearchIndex();
  index.update('v1', state);
  return index.search(state, language, q).hits;
}

describe('plain text of lines with syntax', () => {
  test('table rows lose their pipes and code markers', () => {
    assert.equal(plainText('| Setting | Value | `token` |'), 'Setting Value token');
    assert.equal(plainText('| --- | :---: |'), '');
  });

  test('list markers, task boxes, headings, emphasis and strike-through go; a lone tilde stays', () => {
    assert.equal(plainText('- [x] **Done** ~~old~~ item'), 'Done old item');
    assert.equal(plainText('## Install  the\tCLI '), 'Install the CLI');
    assert.equal(plainText('a ~~~ b'), 'a ~ b');
    assert.equal(plainText('12) step *one*'), 'step one');
  });

  test('underscores of emphasis go, those inside words stay', () => {
    assert.equal(plainText('1. snake_case and _emphasis_ | here'), 'snake_case and emphasis here');
  });

  test('white space of every kind collapses to single spaces', () => {
    assert.equal(plainText('x\u00a0\u3000y  *z*\u2028'), 'x y z');
  });

  test('a fenced block keeps its code and loses its fences', () => {
    assert.equal(plainText('~~~ sh\nhelp-cli `push`\n~~~'), 'help-cli push');
  });

  test('lines with links keep the link text', () => {
    assert.equal(plainText('| [Docs](https://example.com/docs) | `a` |'), 'Docs a');
  });

  test('images keep their alt text, HTML tags and comment markers go, escapes resolve', () => {
    assert.equal(plainText('[![Logo](logo.png)](https://example.com) <kbd>Ctrl</kbd>+<kbd>S</kbd> <!-- note --> \\#1 \\[not a link\\]'), 'Logo Ctrl + S note #1 [not a link]');
  });

  test('the plain text of one line of a body, asked for by its range, is that line alone', () => {
    const body = '# Title\n\n- First **step**\r\n| a | b |\nLast line.';
    const second = body.indexOf('- First');
    assert.equal(plainText(body, second, body.indexOf('\n', second)), 'First step');
    assert.equal(plainText(body, body.indexOf('|'), body.indexOf('\nLast')), 'a b');
    assert.equal(plainText(body, 0, body.length), 'Title First step a b Last line.');
  });
});

describe('snippets', () => {
  test('a match in a table shows the rows around it as plain text, cut with … on both sides', () => {
    const rows = Array.from({ length: 40 }, (_, i) => `| row${i} | ${i === 20 ? 'narwhal' : 'value'} | \`code${i}\` |`);
    const [hit] = searchIn(stateOf([['t', { bodyMd: `Intro line.\n\n| a | b | c |\n| --- | --- | --- |\n${rows.join('\n')}\n` }]]), 'narwhal');
    assert.equal(hit.snippet, '…code17 row18 value code18 row19 value code19 row20 narwhal code20 row21 value code21 row22 value code22 row23 value code23 row24 value code24 row25 value code25…');
  });

  test('an accent written as a combining mark is found and shown', () => {
    const filler = 'Some words here to fill the line. '.repeat(8);
    const hits = searchIn(stateOf([['t', { bodyMd: `${filler}\n\nLe re\u0301sume\u0301 est pret.` }]]), 'résumé');
    assert.deepEqual(hits.map((h) => h.slug), ['t']);
    assert.match(hits[0].snippet, /^….* Le re\u0301sume\u0301 est pret\.$/);
  });

  test('the snippet centres on the word, not on the same letters inside another word', () => {
    const filler = 'Some words here to fill the line. '.repeat(8);
    const [hit] = searchIn(stateOf([['t', { bodyMd: `The xnarwhal prefix.\n\n${filler}\n\nA narwhal swims.` }]]), 'narwhal');
    assert.match(hit.snippet, /A narwhal swims\.$/);
    assert.ok(!hit.snippet.includes('xnarwhal'), hit.snippet);
  });

  test('a word of a cased script outside the BMP is found in either case and shown', () => {
    // Deseret: 𐐀 is the capital of 𐐨.
    const filler = 'Some words here to fill the line. '.repeat(8);
    const [hit] = searchIn(stateOf([['t', { bodyMd: `${filler}\n\nBefore 𐐨𐐯𐑊 after.` }]]), '𐐀𐐯');
    assert.match(hit.snippet, /^….* Before 𐐨𐐯𐑊 after\.$/);
  });

  test('a prefix finds the word and the snippet shows it', () => {
    const [hit] = searchIn(stateOf([['t', { bodyMd: 'Intro.\n\nSet up the integration first.' }]]), 'integ');
    assert.equal(hit.snippet, 'Intro. Set up the integration first.');
  });

  test('Japanese: a two-character word and a single character inside a run', () => {
    const state = stateOf([['t', { bodyMd: '保存すると履歴のアカウントのテンプレートを作成します。' }]], ['ja']);
    for (const q of ['履歴', '歴', 'テンプレート']) {
      const [hit] = searchIn(state, q, 'ja');
      assert.ok(hit?.snippet.includes(q), `${q}: ${hit?.snippet}`);
    }
  });

  test('a query that matches more than 50 nodes: the first 50 in document order, each snippet showing the word', () => {
    const texts: Array<[string, Partial<Translation>]> = Array.from({ length: 120 }, (_, i) => [`n${String(i).padStart(3, '0')}`, { bodyMd: `| a | b |\n| --- | --- |\n| x${i} | common${i % 7} |\n\nText ${i}.` }]);
    const hits = searchIn(stateOf(texts), 'common');
    assert.equal(hits.length, MAX_HITS);
    assert.deepEqual(hits.map((h) => h.slug), texts.slice(0, MAX_HITS).map(([slug]) => slug));
    for (const [i, h] of hits.entries()) assert.equal(h.snippet, `a b x${i} common${i % 7} Text ${i}.`);
  });
});

describe('the index after writes', () => {
  test('after an edit the new body is found with its snippet and the old word is not', () => {
    const index = new SearchIndex();
    const before = stateOf([['t', { bodyMd: 'The walrus sleeps.' }]]);
    index.update('v1', before);
    assert.equal(index.search(before, 'en', 'walrus').hits.length, 1);
    const after = stateOf([['t', { bodyMd: 'The narwhal swims.' }]]);
    index.update('v1', after);
    assert.deepEqual(index.search(after, 'en', 'walrus').hits, []);
    assert.deepEqual(index.search(after, 'en', 'narw').hits.map((h) => h.snippet), ['The narwhal swims.']);
  });

  test('words added after a lookup are found by prefix beside the earlier ones', () => {
    const index = new SearchIndex();
    const texts: Array<[string, Partial<Translation>]> = Array.from({ length: 100 }, (_, i) => [`n${i}`, { bodyMd: `word${i} plain` }]);
    let state = stateOf(texts);
    index.update('v1', state);
    // More distinct terms than a lookup scans unsorted: the first lookup sorts them.
    assert.equal(index.search(state, 'en', 'word1').hits.length, 11);
    state = stateOf([...texts, ['late', { bodyMd: 'word1late' }], ['other', { bodyMd: 'unrelated' }]]);
    index.update('v1', state);
    assert.deepEqual(index.search(state, 'en', 'word1').hits.map((h) => h.slug), ['n1', 'n10', 'n11', 'n12', 'n13', 'n14', 'n15', 'n16', 'n17', 'n18', 'n19', 'late']);
    assert.deepEqual(index.search(state, 'en', 'unrel').hits.map((h) => h.slug), ['other']);
  });
});

// Snippets are cut from the plain text of the whole body, kept beside its translation; the earlier
// snippets (test/helpers/snippets-reference.ts) converted the Markdown lines around the first place
// where the raw Markdown might hold a match. They must agree, except where the earlier code missed
// the match: a possible match in Markdown syntax (a link target) made it show the word's letters
// inside another word of that line ("board" in "dashboard"), and a word split by inline Markdown
// (`**nar**whal`) was no match in the raw text, so it showed the start of the body.
/** Display columns of `text`: two for a character of the East Asian wide and fullwidth ranges or outside the BMP, else one. */
function columnsOf(text: string): number {
  let columns = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    const wide = c > 0xffff || (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6);
    columns += wide ? 2 : 1;
  }
  return columns;
}

describe('snippets', () => {
  /** Whether `shown` has a word of the query where a word starts (anywhere, for scripts without spaces). */
  const showsWord = (shown: string, query: Word[]) => {
    const folded = fold(shown);
    return query.some((w) => {
      for (let i = folded.indexOf(w.text); i >= 0; i = folded.indexOf(w.text, i + 1)) if (w.unspaced || i === 0 || !/[\p{L}\p{N}]/u.test(folded[i - 1])) return true;
      return false;
    });
  };
  const snippetOf = (t: Translation, query: Word[]) => snippet(t, query, rawMatcher(query));
  const earlierOf = (t: Translation, query: Word[]) => earlier.snippet(t, query, rawMatcher(query));
  /** Each query of the benchmark's set, its words alone and together, against every translation in its language. */
  function* cases(set: ReturnType<typeof SHAPES.flat.set>, languages: string[], perLanguage: number): Generator<[Translation, Word[]]> {
    for (const { language, q } of summarize(set, languages, perLanguage).queries) {
      const both = words(q);
      for (const query of [both, both.slice(0, 1), both.slice(1)]) {
        for (const node of set.nodes) {
          const t = node.translations[language];
          if (t) yield [{ ...t, updatedAt: STAMP }, query];
        }
      }
    }
  }

  test('are the earlier ones for every translation of the realistic set and the benchmark queries', () => {
    let compared = 0;
    for (const [t, query] of cases(SHAPES.realistic.set(0), REALISTIC_LANGUAGES, 12)) {
      assert.equal(snippetOf(t, query), earlierOf(t, query), `${JSON.stringify(query.map((w) => w.text))} in ${JSON.stringify(t.bodyMd.slice(0, 200))}`);
      compared++;
    }
    assert.ok(compared > 30_000, `${compared}`);
  });

  test('are the earlier ones on the flat set, or show the word where the earlier ones showed letters inside another word', () => {
    const outcomes = { same: 0, 'word found': 0 };
    for (const [t, query] of cases(SHAPES.flat.set(300), ['en', 'de', 'ja'], 12)) {
      const now = snippetOf(t, query);
      const before = earlierOf(t, query);
      if (now === before) outcomes.same++;
      else {
        assert.ok(showsWord(now, query) && !showsWord(before, query), `${JSON.stringify(query.map((w) => w.text))}: ${JSON.stringify(now)}, earlier ${JSON.stringify(before)}`);
        outcomes['word found']++;
      }
    }
    assert.ok(outcomes.same > 20_000, JSON.stringify(outcomes));
  });

  test('show a word split by inline Markdown, and the word itself where a link target holds its letters', () => {
    const filler = 'Some words here to fill the line. '.repeat(8);
    const split = { title: 't', summary: 'S', bodyMd: `${filler}\n\nThe **nar**whal swims.\n\n${filler}`, updatedAt: STAMP };
    assert.match(snippetOf(split, words('narwhal')), /^….* The narwhal swims\. Some words.*…$/);
    assert.match(earlierOf(split, words('narwhal')), /^Some words/);
    const link = { title: 't', summary: 'S', bodyMd: `${filler}\n\nSee [the dashboard](https://example.com/board).\n\n${filler}\n\nThe board moves.`, updatedAt: STAMP };
    assert.match(snippetOf(link, words('board')), /^….* The board moves\.$/);
    assert.match(earlierOf(link, words('board')), /See the dashboard/);
  });

  test('show a word of the query where it starts, before letters of another inside a longer word', () => {
    const filler = 'Some words here to fill the line. '.repeat(8);
    const t = { title: 't', summary: 'S', bodyMd: `${filler}\n\nDas Benutzerkonto ${filler} kann man teilen. ${filler}`, updatedAt: STAMP };
    assert.match(snippetOf(t, words('konto teilen')), /^….* kann man teilen\. Some.*…$/);
    // Letters inside a word alone are no match to show: the snippet is the start of the body.
    assert.match(snippetOf(t, words('konto')), /^Some words/);
  });

  test('of 3,000 generated bodies mixing every syntax character, Unicode and white space show a word of the query where the text has one, in at most 160 columns', () => {
    const next = random(7);
    for (let i = 0; i < 3000; i++) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 30) }, () => generatedLine(next));
      const bodyMd = lines.join(['\n', '\r\n', '\n\n', '\r'][i % 4]);
      const plain = plainLines(bodyMd).join(' ');
      const found = words(plain);
      const pick = () => found[Math.floor(next() * found.length)];
      // (Prefixes of up to 40 characters: a longer word may not fit in a snippet.)
      const query = found.length === 0 ? words('word') : [pick(), pick()].map((w) => ({ ...w, text: Array.from(w.text).slice(0, 1 + Math.floor(next() * 40)).join('') }));
      const shown = snippetOf({ title: 't', summary: 'Summary', bodyMd, updatedAt: STAMP }, query);
      const about = `${JSON.stringify(query.map((w) => w.text))} in ${JSON.stringify(bodyMd.slice(0, 300))}: ${JSON.stringify(shown)}`;
      assert.equal(showsWord(shown, query), showsWord(plain, query) || (plain === '' && showsWord('Summary', query)), about);
      const columns = columnsOf(shown.replace(/^…|…$/g, ''));
      assert.ok(columns <= 160, `${columns} columns: ${about}`);
    }
  });

  test('of a hostile body cost about what a body of prose of the same size costs', async () => {
    const SIZE = 1 << 20;
    const timed = (bodyMd: string, q: string) => {
      const t = { title: 't', summary: 'S', bodyMd, updatedAt: STAMP };
      return async () => {
        await makeBodyTexts([t], async () => {});
        // The fastest of five: a run the machine interrupted says nothing of the cost.
        const runs = [0, 1, 2, 3, 4].map(() => {
          const started = performance.now();
          snippetOf(t, words(q));
          return performance.now() - started;
        });
        return Math.min(...runs);
      };
    };
    const prose = await timed('Some words here to fill the line. '.repeat(SIZE / 34), 'absent')();
    // One word of a million characters made of the query repeated: no place in it starts a word.
    const oneWord = await timed('xab'.repeat(SIZE / 3), 'ab')();
    // A scan that went back over the word at each place would take minutes here; a linear one takes
    // a few to ten times what prose takes (it walks a million characters for a word start, where prose finds one at once).
    assert.ok(oneWord < Math.max(20 * prose, 25), `${oneWord.toFixed(1)} ms against ${prose.toFixed(1)} ms of prose`);
  });

  test('of a body with a long run of lone low surrogates stay within 160 columns', () => {
    const bodyMd = `Start word ${'\udc00'.repeat(5000)} end`;
    const shown = snippetOf({ title: 't', summary: 'S', bodyMd, updatedAt: STAMP }, words('word'));
    assert.equal(shown, `Start word ${'\udc00'.repeat(149)}…`);
  });
});
