import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { githubAliases, githubSlug, headingScan, headingsOf } from '../src/content/headings.ts';
import { renderMarkdown } from '../src/portal/markdown.ts';
import { isPortalAddress } from '../src/portal/router.ts';
import { tocOf } from '../src/portal/toc.ts';
import { random } from './helpers/hostile-markdown.ts';

// "On this page" is read from the rendered body, so its links are the ids the page has; those must be
// the anchors the link checker and search's section links use (content/headings.ts).

const BODY = `# Title in the body

## Install \`npm\` *now*

Text.

### Options

## Install npm now

Setup
-----

#### Deep heading

## [Linked](https://example.com) heading

\`\`\`md
## Not a heading (in code)
\`\`\`

## Main
`;

describe('"On this page"', () => {
  test('lists the ## and ### headings with the ids the page gives them, unique within the page', () => {
    const html = renderMarkdown(BODY, undefined, 'Link to this section');
    const toc = tocOf(html);
    assert.deepEqual(
      toc.map((e) => [e.level, e.id, e.text]),
      [
        [2, 'install-npm-now', 'Install npm now'],
        [3, 'options', 'Options'],
        [2, 'install-npm-now-1', 'Install npm now'],
        [2, 'setup', 'Setup'],
        [2, 'linked-heading', 'Linked heading'],
        [2, 'main-1', 'Main'],
      ],
    );
    for (const entry of toc) assert.match(html, new RegExp(`<h${entry.level} id="${entry.id}">`), `${entry.id} is on the page`);
    // The link checker's anchors are the same ids.
    const anchors = new Set(headingsOf(BODY).map((h) => h.anchor));
    for (const entry of toc) assert.ok(anchors.has(entry.id), `${entry.id} in ${[...anchors].join(', ')}`);
  });

  test("headings' anchor links are named in the page's language", () => {
    assert.match(renderMarkdown('## Réglages\n', undefined, 'Lien vers cette section'), /<a class="anchor" href="#réglages" aria-label="Lien vers cette section: Réglages">#<\/a><\/h2>/);
  });

  test('a heading holding markup shows as text in the list, escaped', () => {
    const toc = tocOf(renderMarkdown('## A <script> & "b"\n\n## Two\n'));
    assert.equal(toc[0].text, 'A &lt;script&gt; &amp; &quot;b&quot;');
  });
});

describe('The switches without JavaScript (/support/_go)', () => {
  test('go only to addresses below the portal', () => {
    for (const to of ['/support/v1', '/support/v1/install?lang=de', '/support/latest/a-b']) assert.equal(isPortalAddress(to, '/support'), true, to);
    for (const to of ['https://evil.example/support/', '//evil.example', '/support//evil.example', '/support/../admin', '/support/%2e%2e/admin', '/support/.', '/supportx/v1', '/support\\evil', '/support/v1 x', '']) {
      assert.equal(isPortalAddress(to, '/support'), false, to);
    }
  });
});

describe("GitHub's ids of headings", () => {
  test('are made as GitHub makes them: punctuation and symbols dropped but `-` and `_`, each space a `-`, letters of every script kept', () => {
    const cases: Array<[string, string]> = [
      ['Billing & invoices', 'billing--invoices'],
      ['--ignore-lock', '--ignore-lock'],
      ['<Image />', 'image-'],
      ['Über uns', 'über-uns'],
      ['客户端 <-> 服务器通信', '客户端---服务器通信'],
      ['v2.0 — what’s new?', 'v20--whats-new'],
      ['snake_case names', 'snake_case-names'],
    ];
    assert.deepEqual(
      cases.map(([text]) => [text, githubSlug(text)]),
      cases,
    );
  });

  test('name a heading whose id here differs, repeats counted as GitHub counts them; an id the page uses is never taken over', () => {
    const body = '## Billing & invoices\n\n## Billing & invoices\n\n## `--force`\n\n## Main\n\n## Plain\n\n## a--b\n\n## A & B\n';
    const scan = headingScan(body);
    assert.deepEqual(scan.anchors, ['billing-invoices', 'billing-invoices-1', '-force', 'main-1', 'plain', 'a-b', 'a-b-1']);
    // "Main" is `main` on GitHub but the page's own region here: no alias. "a--b" and "A & B" are `a--b`
    // and `a--b-1` on GitHub (counted apart from the ids here), `a-b` and `a-b-1` here.
    assert.deepEqual(Object.fromEntries(githubAliases(scan.texts, scan.anchors)), {
      'billing--invoices': 'billing-invoices',
      'billing--invoices-1': 'billing-invoices-1',
      '--force': '-force',
      'a--b': 'a-b',
      'a--b-1': 'a-b-1',
    });
    const html = renderMarkdown(body, undefined, 'Link to this section');
    for (const [alias, id] of githubAliases(scan.texts, scan.anchors)) {
      assert.match(html, new RegExp(`<h2 id="${id}"><span class="heading-alias" id="${alias}"></span>`), alias);
    }
    assert.equal((html.match(/ id="main"/g) ?? []).length, 0, 'no heading takes the id of the layout\'s main region');
    assert.equal((html.match(/ id="/g) ?? []).length, 7 + 5, 'seven headings, five of them with a GitHub id of their own');
  });
});

describe('Headings after code inside a list item', () => {
  test('are found by the link checker and search as the portal renders them: a fence in a step closes where CommonMark closes it', () => {
    const body = [
      '## Set up',
      '',
      '1. Create the file:',
      '',
      '   ```js',
      '   # not a heading: code',
      '    ```',
      '',
      '2. Run it:',
      '',
      '     ```sh',
      '     npm start',
      '    ```',
      '',
      '## After the steps',
      '',
      '```md',
      '    ```',
      '## Still code: a closer 4 columns in does not close a fence opened at the margin',
      '```',
      '',
      '## The end',
      '',
    ].join('\n');
    const rendered = [...renderMarkdown(body).matchAll(/<h2 id="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(rendered, ['set-up', 'after-the-steps', 'the-end']);
    assert.deepEqual(
      headingsOf(body).map((h) => h.anchor),
      rendered,
    );
  });
});

describe('Headings in and after list items and quotes', () => {
  const rendered = (body: string) => [...renderMarkdown(body).matchAll(/<h[1-6] id="([^"]+)"/g)].map((m) => m[1]);

  test('a fence left open in a step ends with the step: the headings after it are found', () => {
    const body = ['## Install', '', '1. Run:', '', '   ```sh', '   npm install', '', '2. Then start it.', '', '## Configure', '', 'Text.', ''].join('\n');
    assert.deepEqual(rendered(body), ['install', 'configure']);
    assert.deepEqual(
      headingsOf(body).map((h) => h.anchor),
      ['install', 'configure'],
    );
  });

  test('a heading or a fence on the marker line, nested items, code indented within an item, quotes', () => {
    const body = [
      '- ## Step one',
      '  text',
      '1. ```md',
      '   ## Not a heading (code)',
      '   ```',
      '- a',
      '  - b',
      '',
      '      ```',
      '      ## code of the nested item',
      '      ```',
      '    ### In b',
      '- Title in an item',
      '  ---',
      '- not a heading',
      '---',
      '> ## A note',
      '> ```',
      '> ## code in the note',
      '',
      '> - an item in a quote',
      '>   ## In the quoted item',
      '## The end',
    ].join('\n');
    const want = rendered(body);
    assert.deepEqual(want, ['step-one', 'in-b', 'title-in-an-item', 'a-note', 'in-the-quoted-item', 'the-end']);
    assert.deepEqual(
      headingScan(body).anchors,
      want,
    );
  });

  // Bodies of seeded random lines of the block syntax a help page has (headings, fences, list
  // markers of every kind, quote markers, underlines, rules, blank lines, text, at every indent): the
  // scan finds the headings markdown-it renders, id for id.
  test('seeded random bodies of list items, quotes, fences and headings: the ids markdown-it renders', () => {
    const next = random(1_122_026);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
    const words = ['Setup', 'Run it', 'alpha', 'beta'];
    const kinds: Array<() => string> = [
      () => `${'#'.repeat(1 + Math.floor(next() * 3))} ${pick(words)} ${Math.floor(next() * 5)}`,
      () => pick(['```', '```sh', '~~~', '````']),
      () => '',
      () => '',
      () => `${pick(words)} text`,
      () => pick(['===', '---', '***']),
    ];
    const indents = ['', '', '', ' ', '  ', '   ', '    ', '     ', '\t'];
    let headings = 0;
    for (let d = 0; d < 3000; d++) {
      const lines = Array.from({ length: 3 + Math.floor(next() * 14) }, () => {
        const kind = Math.floor(next() * (kinds.length + 1));
        // List markers stand 0–3 columns in (nested ones so within their item): where one stands 4 or
        // more columns in but left of an item's text, markdown-it and CommonMark part ways.
        if (kind === kinds.length) return pick(['', '', ' ', '  ', '   ']) + pick(['- ', '* ', '1. ', '2) ', '> ', '>', '> > ', '> - ']) + pick(['', pick(words), `## ${pick(words)}`, '```']);
        return pick(indents) + kinds[kind]();
      });
      const body = `${lines.join('\n')}\n`;
      const want = rendered(body);
      headings += want.length;
      assert.deepEqual(headingScan(body).anchors, want, JSON.stringify(body));
    }
    assert.ok(headings > 2000, `the bodies hold headings (${headings})`);
  });
});

describe('The heading scan of hostile list items and quotes', () => {
  test('items nested past what the portal renders: no heading from there on, as the portal shows none', () => {
    for (const depth of [10, 49, 50, 200]) {
      const body = `${'- '.repeat(depth)}## Deep\n\n## After\n`;
      const rendered = [...renderMarkdown(body).matchAll(/<h[1-6] id="([^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(headingScan(body).anchors, rendered, `${depth} items deep`);
      assert.equal(rendered.length, depth < 50 ? 2 : 0);
    }
  });

  test('bodies of chained and nested list and quote markers take time linear in their size (within 20 times ordinary Markdown)', () => {
    const SIZE = 1 << 20;
    const fill = (unit: string, suffix = '') => unit.repeat(Math.ceil((SIZE - suffix.length) / unit.length)) + suffix;
    // The fastest of five: a run the machine interrupted says nothing of the cost.
    const time = (text: string) =>
      Math.min(
        ...[0, 1, 2, 3, 4].map(() => {
          const started = performance.now();
          headingScan(text);
          return performance.now() - started;
        }),
      );
    const hostile: Record<string, string> = {
      'one line of "- "': fill('- ', '## x'),
      'one line of "- - " then text': fill('- - ', 'x'),
      'one line of "1. "': fill('1. ', '## x'),
      'one line of "* - "': fill('* - ', 'x'),
      'lines of "- x", each a step deeper': Array.from({ length: 40_000 }, (_, i) => `${' '.repeat(2 * (i % 48))}- x`).join('\n'),
      'lines of "> x", each a quote deeper': Array.from({ length: 20_000 }, (_, i) => `${'> '.repeat(i % 98)}x`).join('\n'),
      'lines of "> "': fill('> \n'),
      'steps with open fences': fill('1. a\n   ```\n   x\nb\n'),
      'one item, then lazy lines': `- a\n${fill('lazy line\n')}`,
      'one quote, then lazy lines': `> a\n${fill('lazy line\n')}`,
    };
    // Without headings: the scan stops at the 500th.
    const ordinary = fill('Some *emphasis*, `code` and a [link](https://example.com/x) in text.\n\n- an item\n- another\n\n```sh\nnpm start\n```\n\n');
    time(ordinary);
    const base = time(ordinary);
    for (const [name, text] of Object.entries(hostile)) {
      const ms = time(text);
      assert.ok(ms < 20 * base + 5, `${name}: ${ms.toFixed(1)} ms, ordinary Markdown ${base.toFixed(1)} ms`);
    }
  });
});
