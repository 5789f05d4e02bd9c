import { documentTerms } from './document-terms.ts';
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

let primed = false;

/**
 * Indexes the sample once per thread, before a large amount of text is indexed from nothing (a
 * version read from git at start, an index worker's first build). V8 optimizes the hot loops of
 * indexing with what they have met so far; text that meets a branch for the first time later (the
 * first accented letter, the first table line) throws that optimized code away and runs slowly until
 * it is made again. On the realistic benchmark set, 35 such restarts made the first 4 M characters
 * index at about a third of the speed of the rest; after the sample, 11 remain, and indexing the set
 * from a fresh process takes 215-227 ms instead of 245-272 (the sample costs about 6 ms, once).
 */
export function primeIndexing(): void {
  if (primed) return;
  primed = true;
  const index = new TermIndex();
  index.add('a', documentTerms(index, { title: 'Title', summary: 'Summary', bodyMd: SAMPLE }));
  index.add('b', documentTerms(index, { title: 'タイトル', summary: 'Zusammenfassung', bodyMd: SAMPLE }));
}
