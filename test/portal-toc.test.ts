import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { headingsOf } from '../src/content/headings.ts';
import { renderMarkdown } from '../src/portal/markdown.ts';
import { isPortalAddress } from '../src/portal/router.ts';
import { tocOf } from '../src/portal/toc.ts';

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
