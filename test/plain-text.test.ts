import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SHAPES } from '../bench/lib/dataset.ts';
import { plainLines, plainText } from '../src/content/plain-text.ts';
import { generatedLine, random } from './helpers/hostile-markdown.ts';
import * as earlier from './helpers/plain-text-reference.ts';

// The conversion to plain text is a set of scans tuned for speed; the earlier implementation, a
// regular expression per rule (test/helpers/plain-text-reference.ts), says what the text must be.
// Any difference would be a word the search index holds or a snippet shows differently.

const bodiesOf = (files: ReadonlyArray<{ path: string; content: string }>) =>
  files.filter((f) => f.path.endsWith('.md')).map((f) => f.content.slice(f.content.indexOf('\n---', 3) + 4));

/** Line starts and ends of `text` (as the snippets ask for them: without the LF). */
function lineRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let s = 0; s <= text.length; ) {
    let e = text.indexOf('\n', s);
    if (e < 0) e = text.length;
    ranges.push([s, e]);
    s = e + 1;
  }
  return ranges;
}

/** Asserts that plainLines() and plainText() give what the earlier implementation gives for `text` (and a range of it). */
function assertSame(text: string, from = 0, until = text.length): void {
  const want = earlier.plainLines(text, from, until);
  assert.deepEqual(plainLines(text, from, until), want, `plainLines of ${JSON.stringify(text.slice(from, until).slice(0, 300))}`);
  assert.equal(plainText(text, from, until), want.join(' '), `plainText of ${JSON.stringify(text.slice(from, until).slice(0, 300))}`);
}

describe('Plain text is what the earlier implementation gave', () => {
  test('for every body of the benchmark sets, whole, in pieces and line by line', () => {
    const flat = bodiesOf(SHAPES.flat.set(2000).files);
    const realistic = bodiesOf(SHAPES.realistic.set(0).files);
    assert.ok(flat.length >= 6000 && realistic.length >= 1000);
    for (const body of [...flat, ...realistic]) {
      assert.deepEqual(plainLines(body), earlier.plainLines(body));
      assertSame(body, body.length >> 2, body.length - (body.length >> 3));
    }
    for (const body of [...realistic, ...flat.slice(0, 300)]) for (const [s, e] of lineRanges(body)) assertSame(body, s, e);
  });

  test('for 20,000 generated lines mixing every syntax character, Unicode, white space and long runs', () => {
    const next = random(20260101);
    for (let i = 0; i < 20_000; i++) {
      const line = generatedLine(next);
      assertSame(line);
      const from = Math.floor(next() * (line.length + 1));
      assertSame(line, from, from + Math.floor(next() * (line.length + 1 - from)));
    }
  });

  test('for 400 texts of generated lines, with LF, CRLF and lone CR (texts past 1 KB are searched through many lines at once)', () => {
    const next = random(42);
    for (let i = 0; i < 400; i++) {
      const lines = Array.from({ length: 10 + Math.floor(next() * 200) }, () => generatedLine(next));
      const text = lines.join(['\n', '\n', '\r\n', '\r', '\n\n', '\n \n'][i % 6]);
      assertSame(text);
      const from = Math.floor(next() * text.length);
      assertSame(text, from, from + Math.floor(next() * (text.length - from)));
      for (const [s, e] of lineRanges(text).slice(0, 40)) assertSame(text, s, e);
    }
  });

  test('for lines where the order of the rules shows', () => {
    const lines = [
      '## \u2028> x', '# \u00a0>x', '##  -\u3000', '- [x](y) item', '- <b>[x] y', '-<b>x', '> -->x', '>-->', '--> x', '<a -->b>', '<a<!-- x>', '<!--->',
      '[a](b-->)', '[a <b> c](d)', '[x <a](u) >', '<[a](b)https://x>', '<[](x)https://a>', `<https://${'a'.repeat(600)}>`, `<https://${'a'.repeat(600)}-->`,
      '[![alt](img)](url) and ![b](c)', '[a][b](c)', '[x][y]![(z)](w)', '[a]![(x)](y)', '[a](x ![y)z](w)', '[[a](b)](c)', '[a ![b](c)](d)', '[a][b [c](d)]',
      '__init__', 'a__b', 'a___b', '\\_a_', '\\__(', '\\\\\\*', '`a`_b_', '*_a_*', 'a*_b', '~*~', '~~~', 'a ~~~ b', '_ a _', 'é_', '_é', '𝐀_𝐀', '😀_x',
      '| a | b |', '|a|b|', '| --- | :---: |', `---${'|    '.repeat(4)}x`, '- - -', '* * *', '_ _ _', '   ```js', '    ```', '\t```', '[a]: http://x', '[a]:  ', ' [a]: x',
      '1234567890. x', '123456789. x', '1) x', '- [ ] task', '* [X] task', '#1 tag', '####### seven', '#\tx', '> > > x', '>  x', ' \u00a0x\u00a0 ', 'a\r\nb\rc\n\rd',
    ];
    for (const line of lines) assertSame(line);
  });
});

describe('Plain text of hostile lines takes time linear in their size', () => {
  const SIZE = 1 << 20;
  const fill = (unit: string, prefix = '', suffix = '') => prefix + unit.repeat(Math.ceil((SIZE - prefix.length - suffix.length) / unit.length)) + suffix;
  /** The median of three runs, in ms. */
  // The fastest of five: a run the machine interrupted says nothing of the cost (the median of three missed by 4 % once).
  const time = (text: string) => {
    const runs = [0, 1, 2, 3, 4].map(() => {
      const started = performance.now();
      plainLines(text);
      return performance.now() - started;
    });
    return Math.min(...runs);
  };
  const hostile: Record<string, string> = {
    '[[[[': fill('['),
    '<<<<': fill('<'),
    '\\\\\\\\': fill('\\'),
    '****': fill('*'),
    _a_a_a: fill('_a'),
    '<a<a<a': fill('<a'),
    '<a <a …>': fill('<a ', '', '>'),
    '![![': fill('!['),
    '[a](': fill('[a]('),
    '<!--': fill('<!--'),
    '-->': fill('-->'),
    '____': fill('_'),
    '####': fill('#'),
    '> > >': fill('> '),
    '- - -x': fill('- ', '', 'x'),
    'spaces then x': fill(' ', '', 'x'),
    'tabs then x': fill('\t', '', 'x'),
    '||||': fill('|'),
    'a table rule with blank cells and then text': fill('|    ', '---', 'x'),
    'an autolink too long': fill('a', '<https://'),
    'a link text too long': fill('a', '[', ']('),
    'every syntax character': fill('[<*_`~\\|>-!#'),
  };
  /** Hostile texts of many lines, against as many lines of prose (each line costs a few searches). */
  const hostileLines: Record<string, string> = {
    'lines of [': fill('[\n'),
    'lines of <a': fill('<a\n'),
    'lines of table rows': fill('| a |\n'),
    'lines of list markers': fill('- \n'),
    'lines ending in CR': fill('a\r'),
    'empty lines': fill('\n'),
  };

  test('each takes less than 20 times as long as ordinary Markdown of the same size', () => {
    const ordinary = fill('Some *emphasis*, `code` and a [link](https://example.com/x) in text. ');
    const prose = fill('a\n');
    time(ordinary);
    time(prose);
    const base = time(ordinary);
    for (const [name, text] of Object.entries(hostile)) {
      const ms = time(text);
      assert.ok(ms < 20 * base + 5, `${name}: ${ms.toFixed(1)} ms, an ordinary line ${base.toFixed(1)} ms`);
    }
    const baseLines = time(prose);
    for (const [name, text] of Object.entries(hostileLines)) {
      const ms = time(text);
      assert.ok(ms < 20 * baseLines + 5, `${name}: ${ms.toFixed(1)} ms, as many lines of prose ${baseLines.toFixed(1)} ms`);
    }
  });

  test('a line of many small pieces grows in proportion to its size: four times the text, well under eight times the time', () => {
    // Each of these keeps a piece of a few characters at a time (text between tags, markers,
    // pipes, underscores or escapes); a string built of a million such pieces grew faster than the
    // line (the collector walked every piece each time it ran).
    const line = (unit: string, size: number) => Buffer.from(unit.repeat(Math.ceil(size / unit.length))).toString();
    for (const unit of ['<a ', '<b>x', '[a](b) ', 'a*', 'x |', 'a  ', 'a_ ', '\\*a', '`a`']) {
      const small = line(unit, 1 << 19);
      const large = line(unit, 1 << 21);
      time(small);
      const [a, b] = [time(small), time(large)];
      assert.ok(b < 8 * a + 10, `${JSON.stringify(unit)}: ${a.toFixed(1)} ms at 512 KB, ${b.toFixed(1)} ms at 2 MB`);
    }
  });

  test('and is what the earlier implementation gave for the same lines at 20 KB', () => {
    for (const [name, text] of [...Object.entries(hostile), ...Object.entries(hostileLines)]) {
      if (name.startsWith('a table rule')) continue; // the earlier expression takes exponential time on it
      const short = text.slice(0, 20_000);
      assert.deepEqual(plainLines(short), earlier.plainLines(short), name);
    }
  });
});
