import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { filePaths, readFileSet, readFileSetInSlices, renderFile, storedPaths } from '../src/content/file-set.ts';
import { ProblemList, type ContentProblem } from '../src/content/problems.ts';
import { jsonSyntaxError } from '../src/content/json-syntax.ts';
import fc from 'fast-check';
import { withTurns } from './helpers/turns.ts';

/** Problems as `path:line: message` (the line empty when there is none). */
const located = (problems: readonly ContentProblem[]) => problems.map((p) => `${p.path}:${p.line ?? ''}: ${p.message}`);

const read = (files: Record<string, string>) => {
  const problems = new ProblemList();
  let n = 0;
  const state = readFileSet(new Map(Object.entries(files)), { slug: 'v1', fallbackStamp: '2026-01-01T00:00:00.000Z', idFor: () => `id-${++n}` }, problems);
  return { state, problems };
};

const handWritten = {
  'version.json': JSON.stringify({
    label: 'Docs',
    languages: ['en', 'pt-br'],
    nav: [{ slug: 'start', icon: 'rocket', children: ['install', { slug: 'deep', kind: 'topic', children: ['leaf'] }] }, 'faq'],
  }),
  'en/start.md': '---\ntitle: Start\n---\n',
  'en/install.md': '---\ntitle: Install\nsummary: "Set up: fast"\n---\n## Steps\r\n\r\n1. Run\n',
  'en/deep.md': '---\ntitle: Deep\n---\n---\nnot frontmatter\n',
  'en/leaf.md': '---\ntitle: Leaf 🌿 葉\n---\nno newline at end',
  'en/faq.md': '---\ntitle: FAQ\n---\nQ&A\n',
  'pt-BR/faq.md': '---\ntitle: Perguntas\n---\nP&R\n',
};

describe('Content format: version.json and {lang}/{slug}.md', () => {
  test('a hand-written file set without ids or stamps is valid', () => {
    const { state, problems } = read(handWritten);
    assert.deepEqual(problems.errors, []);
    assert.ok(state);
    assert.deepEqual(state.meta.languages, ['en', 'pt-BR']);
    assert.deepEqual(state.roots, ['start', 'faq']);
    const start = state.nodes.get('start')!;
    assert.equal(start.kind, 'section'); // children make a section by default
    assert.equal(start.icon, 'rocket');
    assert.equal(state.nodes.get('deep')!.kind, 'topic'); // an explicit kind wins
    assert.equal(state.nodes.get('leaf')!.parentSlug, 'deep');
    assert.equal(state.translations.get('leaf')!.get('en')!.bodyMd, 'no newline at end');
    assert.equal(state.translations.get('deep')!.get('en')!.bodyMd, '---\nnot frontmatter\n');
    assert.equal(state.translations.get('install')!.get('en')!.summary, 'Set up: fast');
  });

  test('ids, kinds, parents, order, icons, titles, summaries, bodies and stamps survive a round trip', () => {
    const first = read(handWritten).state!;
    const files = Object.fromEntries([...storedPaths(first)].map((p) => [p, renderFile(first, p)!]));
    const { state: second, problems } = read(files);
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(second, first);
    assert.match(files['version.json'], /"id": "id-1"/);
    assert.match(files['en/leaf.md'], /^---\ntitle: Leaf 🌿 葉\n---\nno newline at end$/);
    assert.deepEqual(Object.keys(files).filter((p) => p.startsWith('.stamps/')), ['.stamps/nodes.json', '.stamps/en.json', '.stamps/pt-BR.json']);
  });

  test('content files carry no stamps; the .stamps/ files hold them, a line each, and win over stamps in the files', () => {
    const stamped = {
      ...handWritten,
      'version.json': JSON.stringify({ languages: ['en', 'pt-br'], createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-02-01T00:00:00Z', nav: [{ slug: 'start', updatedAt: '2025-03-01T00:00:00Z', children: ['install'] }, 'faq', 'deep', 'leaf'] }),
      'en/install.md': "---\ntitle: Install\nupdatedAt: '2025-04-01T00:00:00.000Z'\n---\nRun it.\n",
    };
    const old = read(stamped).state!;
    assert.equal(old.meta.createdAt, '2025-01-01T00:00:00.000Z', 'stamps in old files are read');
    assert.equal(old.nodes.get('start')!.updatedAt, '2025-03-01T00:00:00.000Z');
    assert.equal(old.translations.get('install')!.get('en')!.updatedAt, '2025-04-01T00:00:00.000Z');
    for (const path of filePaths(old)) assert.doesNotMatch(renderFile(old, path)!, /updatedAt|createdAt/, path);
    assert.equal(renderFile(old, '.stamps/en.json'), '{\n  "deep": "2026-01-01T00:00:00.000Z",\n  "faq": "2026-01-01T00:00:00.000Z",\n  "install": "2025-04-01T00:00:00.000Z",\n  "leaf": "2026-01-01T00:00:00.000Z",\n  "start": "2026-01-01T00:00:00.000Z"\n}\n');
    assert.equal(renderFile(old, '.stamps/de.json'), null, 'no file for a language without translations');
    // The .stamps/ files win over what the files say; an entry for no node is ignored.
    const withStamps = read({
      ...stamped,
      '.stamps/nodes.json': '{ "version": { "createdAt": "2026-05-01T00:00:00.001Z", "updatedAt": "2026-05-02T00:00:00.002Z" }, "nodes": { "start": "2026-05-03T00:00:00.003Z", "gone": "2026-05-03T00:00:00.000Z" } }',
      '.stamps/en.json': '{ "install": "2026-05-04T00:00:00.004Z" }',
    });
    assert.deepEqual(withStamps.problems.warnings, []);
    const s2 = withStamps.state!;
    assert.equal(s2.meta.createdAt, '2026-05-01T00:00:00.001Z');
    assert.equal(s2.meta.updatedAt, '2026-05-02T00:00:00.002Z');
    assert.equal(s2.nodes.get('start')!.updatedAt, '2026-05-03T00:00:00.003Z');
    assert.equal(s2.translations.get('install')!.get('en')!.updatedAt, '2026-05-04T00:00:00.004Z');
    assert.equal(s2.translations.get('faq')!.get('en')!.updatedAt, '2026-01-01T00:00:00.000Z');
    // Versions that share a parsed file and its stamp (copies made for each release) share one record.
    const parsed = { title: 'Install', summary: '', bodyMd: 'Run it.\n', updatedAt: '1970-01-01T00:00:00.000Z' };
    const copies = [1, 2].map(() => {
      const files = new Map<string, string | typeof parsed>(Object.entries({ ...stamped, '.stamps/en.json': '{ "install": "2026-05-04T00:00:00.004Z" }' }));
      files.set('en/install.md', parsed);
      return readFileSet(files, { slug: 'v1', fallbackStamp: '2026-01-01T00:00:00.000Z', idFor: (slug) => slug }, new ProblemList())!.translations.get('install')!.get('en')!;
    });
    assert.equal(copies[0], copies[1]);
    assert.equal(copies[0].updatedAt, '2026-05-04T00:00:00.004Z');
    assert.equal(parsed.updatedAt, '1970-01-01T00:00:00.000Z', 'the parsed record is not changed');
    // A damaged stamps file is a warning: the version is still read, with the files' stamps.
    const damaged = read({ ...stamped, '.stamps/en.json': '{ "install": ', '.stamps/en/x.json': '{}', '.stamps/pt-br.json': '{ "faq": 7, "start": "2026-02-31" }' });
    assert.deepEqual(located(damaged.problems.warnings), [
      ".stamps/en.json:: the service's stamps file is not JSON; its stamps are ignored",
      ".stamps/en/x.json:: the service's stamps file is not one the service writes (.stamps/nodes.json or .stamps/{lang}.json); its stamps are ignored",
      '.stamps/pt-br.json:: "faq" is not a timestamp and is ignored: write it as a string such as "2026-01-31T12:00:00Z"',
      '.stamps/pt-br.json:: "start" is not a timestamp and is ignored: February 2026 has no day 31',
    ]);
    // A language named in another case is the language (pt-br is pt-BR).
    assert.equal(read({ ...stamped, '.stamps/pt-br.json': '{ "faq": "2026-07-01T00:00:00.000Z" }' }).state!.translations.get('faq')!.get('pt-BR')!.updatedAt, '2026-07-01T00:00:00.000Z');
    assert.equal(damaged.state!.translations.get('install')!.get('en')!.updatedAt, '2025-04-01T00:00:00.000Z');
  });

  test('problems are reported with file and line, all at once', () => {
    const { state, problems } = read({
      'version.json': '{\n  "languages": ["en"],\n  "nav": [\n    { "slug": "a" },\n    { "slug": "a" },\n    { "slug": "Bad Slug" },\n    { "slug": "nul" },\n    { "slug": "b", "id": "line\\nbreak" }\n  ]\n}\n',
      'en/a.md': '---\ntitle: A\nsummary: [unclosed\n---\nbody\n',
      'en/orphan.md': '---\ntitle: Orphan\n---\n',
      'de/a.md': '---\ntitle: A\n---\n',
    });
    assert.equal(state, null);
    const text = located(problems.errors);
    assert.ok(text.some((t) => /^version\.json:5: nav\[1\]: duplicate slug "a"$/.test(t)), text.join('\n'));
    assert.ok(text.some((t) => /^version\.json:6: nav\[2\]\.slug "Bad Slug" is not a valid node slug/.test(t)), text.join('\n'));
    assert.ok(text.some((t) => /^version\.json:7: nav\[3\]\.slug "nul" is not a valid node slug \(a name Windows keeps for devices/.test(t)), text.join('\n'));
    assert.ok(text.some((t) => /^version\.json:8: nav\[4\]\.id must be 1 to 100 characters, without control characters/.test(t)), text.join('\n'));
  });

  test('a version.json that is not JSON is reported at the line and column of the mistake, in words; a byte order mark is read past', () => {
    const trailing = read({ 'version.json': '{\n  "languages": ["en"],\n  "nav": [\n    "a",\n  ]\n}\n', 'en/a.md': '---\ntitle: A\n---\nBody\n' });
    assert.equal(trailing.state, null);
    assert.deepEqual(trailing.problems.errors.map((p) => `${p.path}:${p.line}: ${p.message}`), ['version.json:4: invalid JSON at column 8: a comma before "]": JSON allows none after the last item']);
    const unquoted = read({ 'version.json': '{\n  languages: ["en"]\n}\n' });
    assert.deepEqual(unquoted.problems.errors.map((p) => `${p.path}:${p.line}: ${p.message}`), ['version.json:2: invalid JSON at column 3: expected a key in double quotes, found "l"']);
    const bom = read({ 'version.json': `\ufeff${JSON.stringify({ languages: ['en'], nav: ['a'] })}`, 'en/a.md': '---\ntitle: A\n---\nBody\n' });
    assert.deepEqual(bom.problems.errors, []);
    assert.ok(bom.state);
  });

  test('a hand-written label has the API\'s limits: at most 200 characters, whole characters only', () => {
    const withLabel = (label: string) => read({ 'version.json': `{\n  "languages": ["en"],\n  "label": ${JSON.stringify(label)},\n  "nav": ["a"]\n}\n`, 'en/a.md': '---\ntitle: A\n---\n' });
    const long = withLabel('L'.repeat(201));
    assert.equal(long.state, null);
    assert.ok(long.problems.errors.some((p) => p.path === 'version.json' && p.line === 3 && /"label" must be at most 200 characters/.test(p.message)), JSON.stringify(long.problems.errors));
    const half = read({ 'version.json': '{\n  "languages": ["en"],\n  "label": "A\\ud800",\n  "nav": ["a"]\n}\n', 'en/a.md': '---\ntitle: A\n---\n' });
    assert.equal(half.state, null);
    assert.ok(half.problems.errors.some((p) => p.line === 3 && /"label" holds a lone surrogate/.test(p.message)), JSON.stringify(half.problems.errors));
    assert.equal(withLabel('L'.repeat(200)).state?.meta.label, 'L'.repeat(200));
  });

  test('hand-written titles, summaries and labels hold no control characters but tabs and line breaks, as the API has them', () => {
    const { state, problems } = read({
      'version.json': '{\n  "languages": ["en"],\n  "label": "Docs\\u0007",\n  "nav": ["a", "b", "c"]\n}\n',
      'en/a.md': '---\ntitle: "Null\\0 here"\n---\nBody\n',
      'en/b.md': '---\ntitle: B\nsummary: "Escape \\e[31m here"\n---\nBody\n',
      'en/c.md': '---\ntitle: "Tab\\there"\nsummary: |\n  Two\n  lines\n---\nBody\n',
    });
    assert.equal(state, null);
    const text = located(problems.errors);
    assert.deepEqual(text, [
      'version.json:3: "label" must not hold control characters other than tabs and line breaks (it holds U+0007)',
      'en/a.md:2: frontmatter "title" must not hold control characters other than tabs and line breaks (it holds U+0000)',
      'en/b.md:3: frontmatter "summary" must not hold control characters other than tabs and line breaks (it holds U+001B)',
    ]);
  });

  test('hand-written stamps are read as written or reported and ignored, never moved to another day', () => {
    const { state, problems } = read({
      'version.json': '{\n  "languages": ["en"],\n  "createdAt": "2026-02-31",\n  "updatedAt": "March 7 2026",\n  "nav": [\n    { "slug": "a", "updatedAt": "2026-01-31T24:00:00Z" },\n    "b",\n    "c",\n    "d"\n  ]\n}\n',
      'en/a.md': '---\ntitle: A\nupdatedAt: 2026-13-45\n---\nBody\n',
      'en/b.md': '---\ntitle: B\nupdatedAt: 2024-02-29 12:30:00 +02:00\n---\nBody\n',
      'en/c.md': '---\ntitle: C\nupdatedAt: 1\n---\nBody\n',
      'en/d.md': "---\ntitle: 2026-01-31\nupdatedAt: '2026-01-31T12:00:00.5Z'\n---\nBody\n",
    });
    assert.deepEqual(problems.errors, []);
    const text = located(problems.warnings);
    const expected = [
      'version.json:3: "createdAt" is not a timestamp and is ignored: February 2026 has no day 31',
      'version.json:4: "updatedAt" is not a timestamp and is ignored: write it as 2026-01-31 or 2026-01-31T12:00:00Z',
      'version.json:6: nav[0].updatedAt is not a timestamp and is ignored: there is no hour 24 (00 to 23)',
      'en/a.md:3: frontmatter "updatedAt" is not a timestamp and is ignored: there is no month 13',
      'en/c.md:3: frontmatter "updatedAt" is not a timestamp and is ignored: it is a number; write it as 2026-01-31 or 2026-01-31T12:00:00Z',
    ];
    for (const line of expected) assert.ok(text.includes(line), `missing: ${line}\n${text.join('\n')}`);
    assert.equal(text.length, expected.length, text.join('\n'));
    const en = (slug: string) => state!.translations.get(slug)!.get('en')!;
    // Ignored stamps fall back as missing ones do; readable ones are kept as the moment they name.
    assert.equal(en('a').updatedAt, '2026-01-01T00:00:00.000Z');
    assert.equal(en('b').updatedAt, '2024-02-29T10:30:00.000Z');
    assert.equal(en('d').updatedAt, '2026-01-31T12:00:00.500Z');
    // An unquoted date is text where text is asked for.
    assert.equal(en('d').title, '2026-01-31');
    assert.equal(state!.meta.createdAt, '2026-01-01T00:00:00.000Z');
  });

  test('front matter never closed, closed by a longer line, or missing is named as such, not read as an empty page', () => {
    const { state, problems } = read({
      'version.json': JSON.stringify({ languages: ['en'], nav: ['a', 'b', 'c'] }),
      'en/a.md': '---\ntitle: Install\nsummary: x\n\n## Download\n\nNote: use the installer.\n',
      'en/b.md': '---\ntitle: B\n----\nBody\n',
      'en/c.md': '# Just Markdown\n',
    });
    assert.equal(state, null);
    const errors = located(problems.errors);
    assert.deepEqual(errors, [
      'en/a.md:1: the front matter opened on line 1 is never closed: add a line "---" after its last key, before the body',
      'en/c.md:1: the file has no front matter: it must start with a line "---", then "title: …" and any other keys, then a line "---" before the body',
    ]);
    const warnings = located(problems.warnings);
    assert.ok(warnings.includes('en/b.md:3: the front matter closes at "----": the line should be "---" alone, and what follows the "---" is now the start of the body'), warnings.join('\n'));
  });

  test('a file name that is no slug is said to be one, and a language folder in other case is read with a warning to rename it', () => {
    const { problems } = read({
      'version.json': JSON.stringify({ languages: ['en', 'pt-BR'], nav: ['faq'] }),
      'en/faq.md': '---\ntitle: FAQ\n---\nBody\n',
      'en/FAQ.md': '---\ntitle: FAQ\n---\nBody\n',
      'pt-br/faq.md': '---\ntitle: Perguntas\n---\nCorpo\n',
    });
    assert.deepEqual(problems.errors.map((p) => `${p.path}: ${p.message}`), ['en/FAQ.md: the file\'s name "FAQ" is not a node slug (lowercase letters and digits, separated by single - or _): rename the file, and its entry in version.json "nav"']);
    assert.ok(problems.warnings.some((p) => p.path === 'pt-br/faq.md' && p.message === 'the folder "pt-br" is read as language pt-BR, and the service writes it as pt-BR/: rename the folder to pt-BR'), JSON.stringify(problems.warnings));
  });

  test('a title YAML cannot read unquoted says to quote it; one a " #" cuts short is read, with a warning', () => {
    const { problems } = read({
      'version.json': JSON.stringify({ languages: ['en'], nav: ['a', 'b'] }),
      'en/a.md': '---\ntitle: Install: the desktop app\n---\nBody\n',
      'en/b.md': '---\ntitle: FAQ #1 questions\n---\nBody\n',
    });
    assert.match(problems.errors[0].message, /^invalid YAML frontmatter: bad indentation of a mapping entry \(a title holding ": " or " #", .* must be put in quotes: title: "…"\)$/);
    assert.equal(problems.errors[0].line, 2);
    const warning = problems.warnings.find((p) => p.path === 'en/b.md');
    assert.equal(warning?.message, 'frontmatter "title": " #" starts a YAML comment, so it is read as "FAQ"; put it in quotes to keep "#1 questions": title: "…"');
    assert.equal(warning?.line, 2);
  });

  test('markdown problems carry their line; a missing primary translation is named', () => {
    const { problems } = read({
      'version.json': JSON.stringify({ languages: ['en', 'de'], nav: ['a', 'b'] }),
      'en/a.md': '---\ntitle: A\nsummary: [unclosed\nextra: 1\n---\nbody\n',
      'de/b.md': '---\ntitle: B\n---\n',
      'en/orphan.md': '---\ntitle: Orphan\n---\n',
      'fr/a.md': '---\ntitle: A\n---\n',
    });
    const text = located(problems.errors);
    assert.ok(text.some((t) => /^en\/a\.md:\d+: invalid YAML frontmatter/.test(t)), text.join('\n'));
    assert.ok(text.some((t) => /^en\/orphan\.md:: no node "orphan"/.test(t)), text.join('\n'));
    // It says how to fix it: the entry to add, and where version.json lists the navigation.
    const orphan = problems.errors.find((p) => p.path === 'en/orphan.md')!;
    assert.equal(orphan.line, undefined, 'the problem is the file\'s, not a line of it');
    assert.match(orphan.message, /add \{ "slug": "orphan" \} to "nav" \(line 1 of version\.json\), or to the "children" of the section/);
    assert.match(orphan.message, /delete the file/);
    assert.ok(text.some((t) => /^fr\/a\.md:: language fr is not enabled/.test(t)), text.join('\n'));
    assert.ok(text.some((t) => /node "b" has no en\/b\.md/.test(t)), text.join('\n'));
  });
});

describe('Reading a large file set in slices', () => {
  /** A version of `nodes` topics in en and de, one of them with a problem when `broken`. */
  const largeSet = (nodes: number, broken: boolean) => {
    const slugs = Array.from({ length: nodes }, (_, i) => `topic-${i}`);
    const files = new Map<string, string>([['version.json', JSON.stringify({ label: 'Large', languages: ['en', 'de'], nav: slugs })]]);
    for (const slug of slugs) {
      files.set(`en/${slug}.md`, `---\ntitle: ${slug}\n---\nBody of ${slug}.\n`);
      files.set(`de/${slug}.md`, `---\ntitle: ${slug} (de)\n---\nText von ${slug}.\n`);
    }
    if (broken) files.set('de/no-such-node.md', '---\ntitle: Stray\n---\n');
    return files;
  };
  const options = () => {
    let n = 0;
    return { slug: 'v1', fallbackStamp: '2026-01-01T00:00:00.000Z', idFor: () => `id-${++n}` };
  };

  test('the state and the problems are those of readFileSet, and other work runs in between', async () => {
    for (const broken of [false, true]) {
      const files = largeSet(3000, broken);
      const whole = new ProblemList();
      const expected = readFileSet(files, options(), whole);
      const sliced = new ProblemList();
      const { result: state, turns } = await withTurns(() => readFileSetInSlices(files, options(), sliced, 0));
      assert.deepEqual(state, expected);
      assert.equal(state === null, broken);
      assert.deepEqual(sliced.errors, whole.errors);
      assert.deepEqual(sliced.warnings, whole.warnings);
      // 6,001 files (and, without errors, 3,000 nodes): a pause every 256 of them, each taken with a slice of 0 ms.
      assert.ok(turns >= (broken ? 23 : 35), `other work ran ${turns} times (broken: ${broken})`);
    }
  });
});

test('the JSON syntax check finds a mistake exactly where JSON.parse refuses the text, and none where it takes it', () => {
  const parses = (t: string) => {
    try {
      JSON.parse(t);
      return true;
    } catch {
      return false;
    }
  };
  const broken = fc.json().chain((j) => fc.tuple(fc.constant(j), fc.nat(j.length), fc.constantFrom('', ',', ']', '}', '"', ':', 'x', '\\', '\n', '1')).map(([text, at, piece]) => text.slice(0, at) + piece + text.slice(at + 1)));
  fc.assert(
    fc.property(fc.oneof(fc.json(), broken, fc.string()), (text) => {
      const error = jsonSyntaxError(text);
      assert.equal(error === null, parses(text), JSON.stringify(text));
      if (error) assert.ok(error.at >= 0 && error.at <= text.length);
    }),
    { numRuns: 3000 },
  );
  // Nesting costs no stack.
  assert.equal(jsonSyntaxError(`${'['.repeat(200_000)}${']'.repeat(200_000)}`), null);
});
