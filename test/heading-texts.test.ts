import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { headingsOf, headingTexts } from '../src/content/headings.ts';
import { generateDocSet } from './helpers/generate.ts';
import { generatedLine, random } from './helpers/hostile-markdown.ts';

/** Ranking counts the headings' texts alone (headingTexts): the very texts of headingsOf(), in order. */
describe('the headings ranking counts', () => {
  test('generated help pages, plain and rich Markdown: the texts of headingsOf()', () => {
    const bodies = [
      ...generateDocSet({ nodes: 80, seed: 21, languages: ['en', 'de', 'ja'], bodyBytes: { min: 500, max: 9_000 } }).files,
      ...generateDocSet({ nodes: 80, seed: 22, languages: ['en', 'fr'], bodyBytes: { min: 200, max: 20_000 }, markdown: 'rich' }).files,
    ].map((f) => f.content);
    let headings = 0;
    for (const body of bodies) {
      const want = headingsOf(body).map((h) => h.text);
      headings += want.length;
      assert.deepEqual(headingTexts(body), want);
    }
    assert.ok(headings > 300, `the pages hold headings (${headings})`);
  });

  test('hostile lines, setext underlines, empty headings and more headings than are kept', () => {
    const next = random(29_112_026);
    const bodies: string[] = [];
    for (let b = 0; b < 300; b++) {
      const lines: string[] = [];
      for (let i = 0, n = 1 + Math.floor(next() * 30); i < n; i++) {
        const r = next();
        lines.push(r < 0.15 ? '' : r < 0.3 ? `${'#'.repeat(1 + Math.floor(next() * 7))} ${generatedLine(next)}` : r < 0.4 ? ['===', '---', ' - - -', '```', '~~~'][Math.floor(next() * 5)] : generatedLine(next));
      }
      bodies.push(lines.join('\n'));
    }
    // Past the most headings kept (empty ones count, as the portal gives them ids too).
    bodies.push(Array.from({ length: 700 }, (_, i) => (i % 3 === 0 ? '#' : `## Heading ${i}`)).join('\n'));
    bodies.push(Array.from({ length: 700 }, (_, i) => `Title ${i}\n===\n`).join('\n'));
    for (const body of bodies) assert.deepEqual(headingTexts(body), headingsOf(body).map((h) => h.text), JSON.stringify(body.slice(0, 300)));
    assert.ok(headingTexts(bodies.at(-2)!).length < 500, 'the limit holds');
  });
});
