import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { controlProblem } from '../src/domain/names.ts';
import { comparable } from './helpers/content.ts';
import { startTestServer, type TestResponse, type TestServer } from './helpers/server.ts';

/**
 * Property: any document of random trees and random Unicode text survives
 *   import (replace) → export → import (replace) into another version → export, and
 *   export?format=files → import-files into another version → export,
 * with the same nodes (ids and stamps aside).
 */

const ALL_LANGUAGES = ['en', 'de', 'pt-BR', 'ja'] as const;
const ICONS = ['rocket', 'book-open', 'credit-card', 'users'] as const;
const SLUG_WORDS = ['intro', 'setup', 'faq', 'billing', 'api', 'guide', 'notes', 'x'] as const;
const MAX_DEPTH = 4;

/** Pieces of text that trip up YAML frontmatter, Markdown and line handling. */
const TRICKY = [
  'a: b', '---', '--- ', '...', 'title: x', 'key: value\nother: y', '- item', '# heading', '> quote', '| a | b |',
  ' lead', 'trail ', '  ', '\n', '\n\n', '\r\n', '\r', '\t', '\u00a0', '"', "'", '`code`', '```\nfence\n```', '{x: 1}', '[1, 2]',
  '&anchor', '*alias', '!tag', '%TAG', '@at', '|', '>', 'null', 'true', 'no', '~', '0x1F', '1e3', '2026-01-01', ' # comment',
  '😀', '👩‍👩‍👧', '🇯🇵', '日本語のテキスト', 'テスト', '中文', '한국어', 'Ünïcödé', 'ß', 'é', 'ﬁ', '\u200b', '\\', '\\n', '<b>html</b>',
  // Characters YAML and JSON treat specially: NEL, line and paragraph separators, BOM, NUL, ESC, DEL.
  '\u0085', '\u2028', '\u2029', '\ufeff', '\u0000', '\u001b', '\u007f',
];

const fragment = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...TRICKY) }, { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) });
const text = (maxPieces: number) => fc.array(fragment, { maxLength: maxPieces }).map((parts) => parts.join(''));
/** A title: 1–200 characters with something other than white space, no control characters but tabs and line breaks (the API's rule). */
const title = fc
  .array(fragment, { minLength: 1, maxLength: 8 })
  .map((parts) => parts.join(''))
  .filter((t) => /\S/u.test(t) && controlProblem(t) === null && [...t].length <= 200);
/** A summary: no control characters but tabs and line breaks. */
const summary = text(10).filter((t) => controlProblem(t) === null && [...t].length <= 2000);
const body = text(40);

interface TranslationDoc {
  title: string;
  summary: string;
  bodyMd: string;
}

interface NodeDoc {
  slug: string;
  kind: 'section' | 'topic';
  parentSlug: string | null;
  icon: string | null;
  sortOrder: number;
  translations: Record<string, TranslationDoc>;
}

interface Doc {
  languages: string[];
  nodes: NodeDoc[];
}

const translationArb = fc.record({ title, summary, bodyMd: body }, { noNullPrototype: true });

/** A random document: languages (primary first), a tree of at most 30 nodes and depth ≤ 4, translations that always include the primary. */
const documentArb: fc.Arbitrary<Doc> = fc.shuffledSubarray([...ALL_LANGUAGES], { minLength: 1 }).chain((languages) => {
  const nodeSpec = fc.record(
    {
    word: fc.constantFrom(...SLUG_WORDS),
    kind: fc.constantFrom('section' as const, 'topic' as const),
    icon: fc.option(fc.constantFrom(...ICONS), { nil: null }),
    atRoot: fc.boolean(),
    parentPick: fc.nat(),
    others: fc.subarray(languages.slice(1)),
    texts: fc.array(translationArb, { minLength: languages.length, maxLength: languages.length }),
    // Sort keys as clients send them: the first child's key, then steps that keep siblings in order
    // (0 gives equal keys; fractions, negatives and large gaps included).
    firstKey: fc.constantFrom(0, 0, -3, 2.25, 10, 1e6),
    keyStep: fc.constantFrom(0, 0.1, 0.5, 1, 1, 1, 7, 1000),
  });
  return fc.array(nodeSpec, { minLength: 1, maxLength: 30 }).map((specs) => {
    type Draft = { slug: string; spec: (typeof specs)[number]; depth: number; children: Draft[] };
    const roots: Draft[] = [];
    const all: Draft[] = [];
    specs.forEach((spec, i) => {
      const candidates = all.filter((d) => d.depth < MAX_DEPTH);
      const parent = i === 0 || spec.atRoot || candidates.length === 0 ? null : candidates[spec.parentPick % candidates.length];
      const draft: Draft = { slug: `${spec.word}-${i}`, spec, depth: parent ? parent.depth + 1 : 1, children: [] };
      all.push(draft);
      (parent ? parent.children : roots).push(draft);
    });
    const nodes: NodeDoc[] = [];
    const walk = (list: Draft[], parentSlug: string | null) => {
      let sortOrder = 0;
      list.forEach((d, i) => {
        sortOrder = i === 0 ? d.spec.firstKey : sortOrder + d.spec.keyStep;
        const translations: Record<string, TranslationDoc> = {};
        for (const language of [languages[0], ...d.spec.others]) translations[language] = d.spec.texts[languages.indexOf(language)];
        nodes.push({ slug: d.slug, kind: d.spec.kind, parentSlug, icon: d.spec.icon, sortOrder, translations });
        walk(d.children, d.slug);
      });
    };
    walk(roots, null);
    return { languages, nodes };
  });
});

describe('round trips (property)', () => {
  let s: TestServer;
  let run = 0;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  test('any document survives JSON export/import and content-file export/import unchanged (ids and stamps aside)', async () => {
    const details = await fc.check(
      fc.asyncProperty(documentArb, async (doc) => {
        run++;
        const [a, b, c] = ['a', 'b', 'c'].map((x) => `p${run}-${x}`);
        for (const v of [a, b]) ok(await s.request('POST', '/versions', { body: { slug: v, label: `Property ${v}`, languages: doc.languages } }), `create ${v}`);

        ok(await s.request('POST', `/versions/${a}/import`, { body: { mode: 'replace', nodes: doc.nodes } }), `import into ${a}`);
        const exportA = ok(await s.request('GET', `/versions/${a}/export`), `export ${a}`).body;
        assert.deepEqual(exportA.version.languages, doc.languages);
        assert.deepEqual(exportA.nodes.map(comparable), doc.nodes, 'the export gives back the imported document');

        ok(await s.request('POST', `/versions/${b}/import`, { body: { mode: 'replace', document: exportA } }), `import into ${b}`);
        const exportB = ok(await s.request('GET', `/versions/${b}/export`), `export ${b}`).body;
        assert.deepEqual(exportB.nodes.map(comparable), exportA.nodes.map(comparable), 'JSON round trip');

        const files = ok(await s.request('GET', `/versions/${a}/export?format=files`), `export ${a} as files`).body.files;
        ok(await s.request('POST', `/versions/${c}/import-files`, { body: { files } }), `import-files into ${c}`);
        const exportC = ok(await s.request('GET', `/versions/${c}/export`), `export ${c}`).body;
        assert.deepEqual(exportC.version.languages, doc.languages);
        assert.deepEqual(exportC.nodes.map(comparable), exportA.nodes.map(comparable), 'content-file round trip');
      }),
      { numRuns: 25, seed: 20_240_611 },
    );
    // The report names the seed, the path and the shrunk counterexample; the error shows the difference.
    if (details.failed) assert.fail(`${fc.defaultReportMessage(details)}\n\n${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`);
  });
});

/** Asserts a 200 and returns the response. */
function ok(res: TestResponse, what: string): TestResponse {
  assert.equal(res.status, 200, `${what}: ${res.status} ${res.text.slice(0, 1500)}`);
  return res;
}
