import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import markdownIt, { type StateInline, type Token } from 'markdown-it';
import { scanBody } from '../src/content/link-scan.ts';
import { generateDocSet } from './helpers/generate.ts';
import { generatedLine, random } from './helpers/hostile-markdown.ts';

/**
 * The link scan of import's check reads only the pieces of a body that may hold a link, with the
 * inline rules that do not change where a link is (emphasis, strikethrough) left out. Its links must
 * be those of markdown-it reading the whole body with every inline rule, on the same lines.
 */

// The reference: the whole body, every inline rule, tables read as paragraphs as the scan reads them.
const md = markdownIt({ html: false, linkify: false, typographer: false });
md.block.ruler.disable(['table']);
// Where each link starts in its block's text (autolinks, `<https://…>`, are links too).
for (const name of ['link', 'autolink']) {
  const rule = md.inline.ruler.__rules__.find((r) => r.name === name)!.fn;
  md.inline.ruler.at(name, (state: StateInline, silent: boolean) => {
    const start = state.pos;
    const from = state.tokens.length;
    if (!rule(state, silent)) return false;
    if (!silent) {
      const open = state.tokens.slice(from).find((t) => t.type === 'link_open');
      if (open) open.meta = { at: start };
    }
    return true;
  });
}

function referenceLinks(body: string): string[] {
  const out: string[] = [];
  for (const block of md.parse(body, {}) as Token[]) {
    if (block.type !== 'inline' || !block.map) continue;
    for (const t of block.children ?? []) {
      if (t.type !== 'link_open') continue;
      const at = (t.meta as { at: number }).at;
      let line = block.map[0];
      for (let i = 0; i < at; i++) if (block.content.charCodeAt(i) === 10) line++;
      out.push(`${line} ${md.normalizeLinkText(String(t.attrGet('href') ?? ''))}`);
    }
  }
  return out;
}

const scanned = (body: string) => scanBody(body).links.map((l) => `${l.line} ${l.destination}`);

/**
 * Without the destinations that have a scheme (other sites: never checked). Autolinks (`<https://…>`)
 * always have one, and the scan skips the text of a block without a `]`, where only they can be.
 */
const checked = (links: string[]) => links.filter((l) => !/^\d+ [a-z][a-z0-9+.-]*:/i.test(l));

describe('the link scan against a whole-body parse', () => {
  test('generated help pages, plain and rich Markdown: the same links on the same lines', () => {
    const bodies = [
      ...generateDocSet({ nodes: 120, seed: 11, languages: ['en', 'de', 'ja'], bodyBytes: { min: 500, max: 9_000 } }).files,
      ...generateDocSet({ nodes: 120, seed: 12, languages: ['en', 'fr'], bodyBytes: { min: 200, max: 20_000 }, markdown: 'rich' }).files,
    ]
      .filter((f) => f.path.endsWith('.md'))
      .map((f) => f.content);
    let links = 0;
    for (const body of bodies) {
      const want = referenceLinks(body);
      links += want.length;
      assert.deepEqual(scanned(body), want, body.slice(0, 300));
    }
    assert.ok(links > 500, `the pages hold links (${links})`);
  });

  test('emphasis, strikethrough and code around and inside links change nothing', () => {
    const body = [
      '*[a](one)* and **[b](two)** and ~~[c](three)~~', // 0
      '_x [d](four_five) y_ and *unclosed [e](six)', // 1
      '[**bold** label](seven) [*a*b*](eight)', // 2
      '`[f](code)` *`[g](code)`* [`h`](nine)', // 3
      '***[i](ten)*** ___[j](eleven)___ ~[k](twelve)~', // 4
      '[l *m](thirteen)* [n](no link *)', // 5
    ].join('\n');
    const want = referenceLinks(body);
    assert.deepEqual(want, ['0 one', '0 two', '0 three', '1 four_five', '1 six', '2 seven', '2 eight', '3 nine', '4 ten', '4 eleven', '4 twelve', '5 thirteen']);
    assert.deepEqual(scanned(body), want);
  });

  test('hostile lines mixing every syntax character: the same links on the same lines', () => {
    const next = random(20_261_129);
    let links = 0;
    for (let b = 0; b < 400; b++) {
      const lines: string[] = [];
      for (let i = 0, n = 1 + Math.floor(next() * 30); i < n; i++) lines.push(next() < 0.2 ? '' : generatedLine(next));
      // A lone carriage return is a line break to markdown-it, and no line to the scan's count (lines end at \n).
      const body = lines.join('\n').replace(/\r(?!\n)/g, ' ');
      const want = checked(referenceLinks(body));
      const scan = scanBody(body);
      const got = checked(scan.links.map((l) => `${l.line} ${l.destination}`));
      links += got.length;
      // Past its budget the scan stops and says so: what it found is then the start of the links.
      assert.deepEqual(got, scan.complete ? want : want.slice(0, got.length), JSON.stringify(body.slice(0, 400)));
    }
    assert.ok(links > 100, `the bodies hold links (${links})`);
  });
});
