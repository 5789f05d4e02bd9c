import { documentTerms } from './document-terms.ts';
import { RankIndex } from './rank-index.ts';
import { TermIndex } from './term-index.ts';

/**
 * A few lines with every kind of character and Markdown line the indexing code branches on: Latin
 * with and without accents, Greek, Cyrillic, Japanese, Chinese, Korean, Thai, fullwidth forms,
 * characters outside the Basic Multilingual Plane, combining marks, odd spaces; headings, lists,
 * quotes, tables, code, HTML, links, images, entities, footnotes.
 */
const SAMPLE = `# Überschrift: Ärger und Straße

Some **bold** text, _emphasis_, \`code\`, [a link](https://example.com/path "title") and ![image](img.png).
Français : créer, gérer, œuvre, ça. Português: ação, opções, não. Ελληνικά λέξεις. Русский текст.

- item one
- item two with <b>html</b> &amp; entities &#x41;
  1. nested ordered
> a quote with ~~strike~~ and a footnote[^1]

| Col | Spalte |
|-----|--------|
| a   | ö      |

\`\`\`js
const x = 1; // code
\`\`\`

    indented code

---
***

日本語の文章です。設定を変更するには、「管理」を開きます。カタカナ　テスト、ｆｕｌｌｗｉｄｔｈ。
中文内容测试。한국어 텍스트입니다. ภาษาไทย 😀 𠀀𠀁 e\u0301 \u00a0nbsp\u2003em
<div>block html</div>

[^1]: the note
Setext heading
==============
`;

/**
 * Bodies longer than plain-text.ts's SMALL (1 KB, as most are) take another path through plainLines:
 * the sample again after lines of every kind long enough to be searched whole, prose and not, with
 * every ending a line may have.
 */
const LONG_SAMPLE = `${SAMPLE}
- A list item of plain prose that is long enough to be looked at whole by the engine.
* Another item of plain prose, with a second marker, long enough to be searched whole.
12. An ordered item of plain prose that is long enough to be looked at whole, too.
## A heading of plain prose that runs past the length of a short line, and on
> A quoted line of plain prose that runs past the length of a short line, and on.
   Indented prose that runs past the length of a short line, and on, and on again.
A line of prose that runs past the length of a short line and ends with a space 
A line of prose with  two spaces, past the length of a short line, and on and on.
A line of prose with a [link](https://example.com) past the length of a short line.
Une ligne de prose française, assez longue pour être cherchée d'un seul coup.\r
日本語の長い行です。検索エンジンが一度に探すのに十分な長さの文章をここに書きます。
| A table row | of plain prose | long enough to be looked at whole by the engine |
${SAMPLE}`;

let primed = false;

/**
 * Indexes the sample once per thread, before a large amount of text is indexed from nothing (a
 * version read from git at start, an index worker's first build). V8 optimizes the hot loops of
 * indexing with what they have met so far; text that meets a branch for the first time later (the
 * first accented letter, the first table line) throws that optimized code away and runs slowly until
 * it is made again. On the realistic benchmark set, 35 such restarts made the first 4 M characters
 * index at about a third of the speed of the rest; after the sample, 11 remain, and indexing the set
 * from a fresh process takes 215-227 ms instead of 245-272 (the sample costs about 6 ms, once). The
 * long sample takes bodies over 1 KB through their own path: 14 restarts became 8-10, for 2-3 ms more.
 */
export function primeIndexing(): void {
  if (primed) return;
  primed = true;
  const index = new TermIndex();
  // The ranking's index too (its counting and filing of terms), in a language with a stemmer.
  const ranked = new RankIndex('de');
  for (const [key, t] of [
    ['a', { title: 'Title', summary: 'Summary', bodyMd: SAMPLE }],
    ['b', { title: 'タイトル', summary: 'Zusammenfassung', bodyMd: SAMPLE }],
    ['c', { title: 'Long', summary: '', bodyMd: LONG_SAMPLE }],
  ] as const) {
    const { terms, rank } = documentTerms(index, t);
    index.add(key, terms);
    ranked.add(key, rank);
  }
}
