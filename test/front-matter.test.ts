import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import matter from 'gray-matter';
import yaml from 'js-yaml';
import { mainSet, realisticSet } from '../bench/lib/dataset.ts';
import { readFrontMatter, simpleFrontMatter, type Engine } from '../src/content/front-matter.ts';
import { parseMarkdownFile, renderMarkdownFile } from '../src/content/markdown-file.ts';
import { ProblemList } from '../src/content/problems.ts';

/**
 * Front matter of the common shape is read without gray-matter and js-yaml (front-matter.ts). For
 * every text it either gives what they give or declines, and the full parsers read it as before.
 */

/** What the full parsers give: the split gray-matter makes, with js-yaml for the YAML. */
function fullParse(text: string): { data: unknown; content: string } | Error {
  try {
    const file = matter(text, { excerpt: false, engines: { yaml: { parse: (t: string) => yaml.load(t) as object } } });
    return { data: file.data, content: file.content };
  } catch (err) {
    return err as Error;
  }
}

/** Asserts that the quick reading of `text` is the full parsers' one, when there is one; returns whether there was. */
function agrees(text: string): boolean {
  const fast = simpleFrontMatter(text);
  if (fast === null) return false;
  const full = fullParse(text);
  assert.ok(!(full instanceof Error), `read quickly, yet the full parser fails (${(full as Error).message}): ${JSON.stringify(text.slice(0, 300))}`);
  assert.deepEqual(fast, full, JSON.stringify(text.slice(0, 300)));
  return true;
}

/** What an unquoted title YAML cannot read is told to do. */
const QUOTE_HINT = ' (a title holding ": " or " #", or starting with [, {, ", \', &, *, !, |, >, % or @, must be put in quotes: title: "…")';

const parse = (text: string) => {
  const problems = new ProblemList();
  const parsed = parseMarkdownFile('en/a.md', text, problems);
  return { parsed, errors: problems.errors, warnings: problems.warnings };
};

function sampleFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.md')) out.push(fs.readFileSync(join(dir, e.name), 'utf8'));
    }
  };
  walk(join(import.meta.dirname, '..', 'content-sample'));
  return out;
}

describe('Front matter of the common shape', () => {
  test('every Markdown file of the benchmark sets and of the sample, and each as the service writes it, is read quickly and as the full parser reads it', () => {
    const sets = { flat: mainSet(2000).files.map((f) => f.content), realistic: realisticSet().files.map((f) => f.content), sample: sampleFiles() };
    for (const [name, texts] of Object.entries(sets)) {
      const markdown = texts.filter((t) => t.startsWith('---\n'));
      assert.ok(markdown.length > 40, name);
      for (const text of markdown) {
        assert.ok(agrees(text), `${name}: not read quickly: ${JSON.stringify(text.slice(0, 200))}`);
        const { parsed } = parse(text);
        assert.ok(parsed, name);
        // As the service writes it after an edit: yaml.dump's styles, and a stamp in quotes.
        const written = renderMarkdownFile({ ...parsed, updatedAt: '2026-03-04T05:06:07.089Z' });
        assert.ok(agrees(written), `${name}: as written, not read quickly: ${JSON.stringify(written.slice(0, 200))}`);
      }
    }
  });

  test('random front matter made of pieces YAML treats specially is read quickly only where the full parser reads it the same', () => {
    const key = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('title', 'summary', 'updatedAt') },
      { weight: 1, arbitrary: fc.constantFrom('author', 'Title', ' title', 'title ', '"title"', 'excerpt_separator', '__proto__') },
    );
    const colon = fc.oneof({ weight: 12, arbitrary: fc.constant(': ') }, { weight: 1, arbitrary: fc.constantFrom(':  ', ':', ':\t', ' : ') });
    const tricky = fc.constantFrom(
      ...[' ', '  ', '#', ' #', ':', ': ', 'a:b', "'", "''", '"', '\\', '\\n', '\\t', '\\u00e9', '\\x41', '\\U0001F600', '\\UFFFFFFFF', '\\q', '\\ ', '\\N'],
      ...['\\_', '\\L', '\\/', '-', '?', '&a', '*a', '!', '!!str', '!!js/function', '[', ']', '{', '}', ',', '|', '>', '%', '@', '`', '~', 'null', 'Null', 'true'],
      ...['FALSE', 'yes', '0', '12', '1e3', '.inf', '2024-05-06', '2024-05-06T07:08:09Z', '<<', '\t', '\r', '\u0085', '\u2028', '\u2029', '\ufeff', '\u00a0', '\u0000'],
      ...['\u001b', '\u007f', '\ud800', '\udc00', '\ufffe', '---', '...'],
    );
    const benign = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('Hello', 'world', ' ', 'Ünïcödé', '日本語', '🌿', '👩‍👩‍👧', 'C#', 'a, b', '(x)', 'it is', 'ok.') }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) });
    const value = fc.array(fc.oneof({ weight: 12, arbitrary: benign }, { weight: 1, arbitrary: tricky }), { minLength: 1, maxLength: 5 }).map((p) => p.join(''));
    const quoted = fc.oneof(value, value.map((v) => `"${v}"`), value.map((v) => `'${v}'`), value.map((v) => JSON.stringify(v)));
    const line = fc.oneof({ weight: 12, arbitrary: fc.tuple(key, colon, quoted).map(([k, c, v]) => `${k}${c}${v}`) }, { weight: 1, arbitrary: fc.constantFrom('', ' ', '# note', '  more', '- item', '---x') });
    const usually = <T>(common: T, others: T[]) => fc.oneof({ weight: 12, arbitrary: fc.constant(common) }, { weight: 1, arbitrary: fc.constantFrom(...others) });
    const eol = usually('\n', ['\r\n', '\n\n', '\n \n']);
    const opening = usually('---\n', ['---\r\n', '\ufeff---\n', '--- \n', '---yaml\n', '']);
    const closing = usually('---\n', ['---', '----\n', '--- x\n', '---\r\n', '...\n', '']);
    const body = fc.constantFrom('', 'body', '\nbody\n', '\r\nbody', '---\nmore\n', '# Heading\n');
    const text = fc.tuple(opening, fc.array(fc.tuple(line, eol), { maxLength: 4 }), closing, body).map(([o, lines, c, b]) => `${o}${lines.map(([l, e]) => l + e).join('')}${c}${b}`);

    fc.assert(
      fc.property(text, (t) => {
        agrees(t);
      }),
      { numRuns: 3000 },
    );
    // The generator reaches both ways, or the property above would say little.
    const quick = fc.sample(text, { numRuns: 3000, seed: 1 }).filter((t) => simpleFrontMatter(t) !== null).length;
    assert.ok(quick > 300 && quick < 2700, `${quick} of 3000 read quickly`);
  });

  test('hostile front matter is read as before: the same values, the same problems at the same lines', () => {
    const cases: Array<[string, string, { error?: [number, string]; title?: string; summary?: string; body?: string }]> = [
      ['duplicate key', '---\ntitle: A\nsummary: S\ntitle: B\n---\nbody', { error: [4, 'invalid YAML frontmatter: duplicated mapping key'] }],
      ['duplicate key, quoted', '---\ntitle: "A"\ntitle: \'B\'\n---\nbody', { error: [3, 'invalid YAML frontmatter: duplicated mapping key'] }],
      ['anchor and alias', '---\ntitle: &t Hello\nsummary: *t\n---\nbody', { title: 'Hello', summary: 'Hello' }],
      ['JavaScript function tag', '---\ntitle: !!js/function "function () { return 1 }"\n---\nbody', { error: [2, 'invalid YAML frontmatter: unknown tag !<tag:yaml.org,2002:js/function>'] }],
      ['string tag', '---\ntitle: !!str 123\n---\nbody', { title: '123' }],
      ['deep flow nesting', `---\ntitle: ${'['.repeat(5000)}${']'.repeat(5000)}\n---\nbody`, { error: [2, 'invalid YAML frontmatter: nesting exceeded maxDepth (100)'] }],
      ['deep block nesting', `---\ntitle:\n${Array.from({ length: 300 }, (_, i) => `${' '.repeat(i + 1)}a:`).join('\n')}\n---\n`, { error: [101, 'invalid YAML frontmatter: nesting exceeded maxDepth (100)'] }],
      ['huge title', `---\ntitle: ${'x'.repeat(2_000_000)}\n---\nbody`, { error: [2, 'frontmatter "title" must be at most 200 characters'] }],
      ['number title', '---\nsummary: S\ntitle: 12\n---\nbody', { error: [3, 'frontmatter "title" must be text, not a number (put it in quotes to keep it as written)'] }],
      ['list title', '---\ntitle: [a, b]\n---\nbody', { error: [2, 'frontmatter "title" must be text, not a list (put it in quotes to keep it as written)'] }],
      ['mapping title', '---\ntitle:\n  a: 1\n---\nbody', { error: [2, 'frontmatter "title" must be text, not a mapping (put it in quotes to keep it as written)'] }],
      ['yes is text, as YAML 1.2 reads it', '---\ntitle: T\nsummary: yes\n---\nbody', { title: 'T', summary: 'yes' }],
      ['huge summary', `---\ntitle: T\nsummary: "${'é'.repeat(1_000_000)}"\n---\nbody`, { error: [3, 'frontmatter "summary" must be at most 2000 characters'] }],
      ['summary at its limit', `---\ntitle: T\nsummary: "${'é'.repeat(2000)}"\n---\nbody`, { title: 'T', summary: 'é'.repeat(2000) }],
      ['half a character in the title', '---\ntitle: "A\\ud800B"\n---\nbody', { error: [2, 'frontmatter "title" holds a lone surrogate (an escape such as "\\ud800" that is no character)'] }],
      ['half a character in the summary', '---\ntitle: T\nsummary: "\\udc00"\n---\nbody', { error: [3, 'frontmatter "summary" holds a lone surrogate (an escape such as "\\ud800" that is no character)'] }],
      ['a whole character written as two escapes', '---\ntitle: "\\ud83d\\ude00"\n---\nbody', { title: '😀' }],
      ['CRLF', '---\r\ntitle: A\r\nsummary: B\r\n---\r\nbody\r\n', { title: 'A', summary: 'B', body: 'body\r\n' }],
      ['byte order mark', '\ufeff---\ntitle: A\n---\nbody', { title: 'A', body: 'body' }],
      ['byte order mark before another language', '\ufeff---js\n{ title: "x" }\n---\nbody', { error: [1, 'only YAML front matter is read, not javascript'] }],
      ['null byte', '---\ntitle: A\u0000B\n---\nbody', { error: [1, 'invalid YAML frontmatter: null byte is not allowed in input'] }],
      ['lone surrogate', '---\ntitle: A\ud800B\n---\nbody', { error: [2, 'invalid YAML frontmatter: the stream contains non-printable characters'] }],
      ['boolean title', '---\ntitle: true\n---\nbody', { error: [2, 'frontmatter "title" must be text, not true or false (put it in quotes to keep it as written)'] }],
      ['boolean summary', '---\ntitle: T\nsummary: FALSE\n---\nbody', { error: [3, 'frontmatter "summary" must be text, not true or false (put it in quotes to keep it as written)'] }],
      ['null summary', '---\ntitle: T\nsummary: Null\n---\nbody', { title: 'T', summary: '' }],
      ['number summary', '---\ntitle: T\nsummary: 12\n---\nbody', { error: [3, 'frontmatter "summary" must be text, not a number (put it in quotes to keep it as written)'] }],
      ['unknown escape', '---\ntitle: "a\\qb"\n---\nbody', { error: [2, 'invalid YAML frontmatter: unknown escape sequence'] }],
      ['colon at the end', '---\ntitle: A:\n---\nbody', { error: [2, `invalid YAML frontmatter: bad indentation of a mapping entry${QUOTE_HINT}`] }],
      ['comment after the value', '---\ntitle: A # note\n---\nbody', { title: 'A', body: 'body' }],
      // Said as what it is, not as the YAML error of reading the body as front matter (which named line 4 of a 3-line file).
      ['no closing line', '---\ntitle: A\nbody', { error: [1, 'the front matter opened on line 1 is never closed: add a line "---" after its last key, before the body'] }],
    ];
    for (const [name, text, want] of cases) {
      agrees(text);
      const { parsed, errors } = parse(text);
      if (want.error) {
        assert.equal(parsed, null, name);
        assert.deepEqual(errors, [{ path: 'en/a.md', line: want.error[0], message: want.error[1] }], name);
      } else {
        assert.deepEqual(errors, [], name);
        assert.equal(parsed?.title, want.title, name);
        assert.equal(parsed?.summary, want.summary ?? '', name);
        if (want.body !== undefined) assert.equal(parsed?.bodyMd, want.body, name);
      }
    }
  });

  test('quoted strings with escapes, quotes in quotes and odd closing lines are read as the full parser reads them', () => {
    const texts = [
      "---\ntitle: 'it''s'\nsummary: 'a: b # c'\n---\nbody",
      '---\ntitle: "tab\\tnl\\n\\u00e9\\U0001F600\\x41\\N\\_\\/\\"\\\\"\n---\nbody',
      '---\ntitle: A\u00a0#B\n---\nbody',
      '---\ntitle: Setup: fast\n---\nbody',
      '---\ntitle: C# and F#\nsummary: a:b, [c] {d}\n---\nbody',
      '---\ntitle: A\n----\nbody',
      '---\ntitle: A\n--- tail\nbody',
      '---\ntitle: A\n---\r\nbody',
      '---\n\ntitle: A\n\nsummary: B\n\n---\nbody',
      "---\ntitle: T\nupdatedAt: '2024-05-06T07:08:09.000Z'\n---\n",
      '---\ntitle: Leaf 🌿 葉   \n---\nno newline at end',
    ];
    const quick = texts.filter(agrees);
    // All but the plain value holding ": ", which the full parser refuses.
    assert.deepEqual(
      texts.filter((t) => !quick.includes(t)),
      ['---\ntitle: Setup: fast\n---\nbody'],
    );
    assert.deepEqual(parse(texts[0]).parsed, { title: "it's", summary: 'a: b # c', bodyMd: 'body', updatedAt: null });
    assert.equal(parse(texts[1]).parsed?.title, 'tab\tnl\né😀A\x85\xa0/"\\');
    assert.equal(parse(texts[9]).parsed?.updatedAt, '2024-05-06T07:08:09.000Z');
    assert.deepEqual(parse(texts[3]).errors, [{ path: 'en/a.md', line: 2, message: `invalid YAML frontmatter: bad indentation of a mapping entry${QUOTE_HINT}` }]);
  });
});

describe("Front matter of any shape: gray-matter's split, in linear time", () => {
  /** Engines shaped like the service's: YAML read by js-yaml, every other language refused. */
  const refuse = (language: string) => () => {
    throw new Error(`refused ${language}`);
  };
  const engines: Record<string, Engine> = {
    yaml: { parse: (t: string) => yaml.load(t) },
    javascript: { parse: refuse('javascript') },
    json: { parse: refuse('json') },
    coffee: { parse: refuse('coffee') },
    toml: { parse: refuse('toml') },
  };
  const outcome = (read: () => { data: unknown; content: string }) => {
    try {
      const { data, content } = read();
      return { data, content };
    } catch (err) {
      const e = err as Error & { mark?: { line?: number } };
      return { error: `${e.constructor.name}: ${e.message}`, line: e.mark?.line };
    }
  };
  const same = (text: string) =>
    assert.deepEqual(
      outcome(() => readFrontMatter(text, engines)),
      outcome(() => matter(text, { excerpt: false, engines: engines as Record<string, { parse: (t: string) => object }> })),
      JSON.stringify(text.slice(0, 300)),
    );

  test('random files built from openings, languages, comments, blank lines and line breaks of every kind give what gray-matter gives', () => {
    const opening = fc.constantFrom('---', '--- ', '----', '---js', '---yaml', '---YAML', '--- yml ', '---toml', '---constructor', '---toString', '---valueOf', '---__proto__', '---hasOwnProperty', '---nope', '', '--');
    const piece = fc.constantFrom(
      ...['\n', '\n', '\n', '\r\n', '\r', '\u2028', '\u2029', '\u0085', ' ', '  ', '\t', '\u00a0', '\ufeff', '\v', '\f', '#', '# c', ' # c', '#\n', '##', '---', '\n---', '\n--- x'],
      ...['title: A', 'summary: "B"', 'title: [x', 'a: 1', '- x', 'title: &a A', 'summary: *a', 'parse', 'x', ':', '...', '\u0000'],
    );
    const text = fc
      .tuple(fc.constantFrom('', '', '\ufeff'), opening, fc.array(piece, { maxLength: 14 }), fc.constantFrom('', 'body', '\nbody'))
      .map(([bom, o, pieces, body]) => `${bom}${o}${pieces.join('')}${body}`);
    fc.assert(fc.property(text, same), { numRuns: 5000 });
  });

  test('every file of the benchmark sets and the sample, and the hostile cases, give what gray-matter gives', () => {
    const texts = [...realisticSet().files.map((f) => f.content), ...sampleFiles()];
    for (const text of texts) same(text);
    for (const text of ['', '\ufeff', '---', '---\n', '---\n---', '---\n#\n---\n', '---\n # x\n\n#y\n---\nbody', '---\n\u2028#x\n---\n', '---js\n# only a comment\n---\n']) same(text);
  });

  test('front matter of a million blank lines is read in linear time', () => {
    // gray-matter takes time quadratic in the blank lines: this file would hold it for minutes.
    const text = `---\n${' \n'.repeat(1_000_000)}title: A\n---\nbody`;
    assert.equal(simpleFrontMatter(text), null);
    const started = performance.now();
    const { parsed, errors } = parse(text);
    assert.deepEqual(errors, []);
    assert.equal(parsed?.title, 'A');
    assert.ok(performance.now() - started < 3000, `${Math.round(performance.now() - started)} ms`);
  });

  test('an excerpt_separator naming a nest of aliases is an unknown key, read in the time its text takes', () => {
    // gray-matter would turn the value into a string: ten to the tenth power "lol"s.
    const lines = ['---', 'title: T', `a0: &a0 [${Array(10).fill('lol').join(', ')}]`];
    for (let i = 1; i <= 9; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]`);
    lines.push('excerpt_separator: *a9', '---', 'body');
    const started = performance.now();
    const { parsed, errors, warnings } = parse(lines.join('\n'));
    assert.deepEqual(errors, []);
    assert.equal(parsed?.title, 'T');
    assert.ok(warnings.some((w) => w.message === 'unknown frontmatter key "excerpt_separator" is ignored' && w.line === 13));
    assert.ok(performance.now() - started < 3000, `${Math.round(performance.now() - started)} ms`);
  });
});

