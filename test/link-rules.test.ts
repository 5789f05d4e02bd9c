import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resolveLink, type LinkScope } from '../src/content/link-rules.ts';
import { headingsOf } from '../src/content/headings.ts';
import { MAX_LINKS, scanBody } from '../src/content/link-scan.ts';
import { renderMarkdown } from '../src/portal/markdown.ts';

// Which destinations are links into the version (docs/content-format.md#links), where a body's links
// are, and which anchors a page has: the ids the portal renders.

const scope: LinkScope = { names: ['v2', 'latest'], languages: ['en', 'de', 'pt-BR'], portalPath: '/support' };
const to = (slug: string | null, extra: { anchor?: string; language?: string; file?: boolean } = {}) => ({ slug, anchor: extra.anchor ?? null, language: extra.language ?? null, file: extra.file ?? false });

describe('Internal link forms', () => {
  test('relative slugs, ../slug, slug.md and ../{lang}/slug.md name a node of the version', () => {
    assert.deepEqual(resolveLink('install', scope), to('install'));
    assert.deepEqual(resolveLink('./install', scope), to('install'));
    assert.deepEqual(resolveLink('../install', scope), to('install'));
    assert.deepEqual(resolveLink('install.md', scope), to('install'));
    assert.deepEqual(resolveLink('../install.md#download', scope), to('install', { anchor: 'download' }));
    assert.deepEqual(resolveLink('../de/install.md', scope), to('install', { language: 'de', file: true }));
    assert.deepEqual(resolveLink('../fr/install.md', scope), to('install', { language: 'fr', file: true }), 'a language the version lacks is still its link: broken');
    assert.deepEqual(resolveLink('install/', scope), to('install'));
  });

  test('portal URLs with the configured path and this version (or latest), with ?lang= and #anchor', () => {
    assert.deepEqual(resolveLink('/support/v2/install', scope), to('install'));
    assert.deepEqual(resolveLink('/support/latest/install.md?lang=de#herunterladen', scope), to('install', { anchor: 'herunterladen', language: 'de' }));
    assert.deepEqual(resolveLink('../v2/install', scope), to('install'));
    assert.deepEqual(resolveLink('install?lang=pt-br#über', scope), to('install', { anchor: 'über', language: 'pt-br' }));
    assert.deepEqual(resolveLink('#steps', scope), to(null, { anchor: 'steps' }));
    assert.deepEqual(resolveLink('?lang=de', scope), to(null, { language: 'de' }));
  });

  test('other sites, other paths, other versions, files and the portal\'s own pages are not the version\'s to check', () => {
    for (const d of ['https://example.com/install', 'mailto:a@example.com', '//example.com/x', '/docs/v2/install', '/support/v1/install', '../v1/install', '/support/v2', '/support/v2/search', 'search', 'images/shot.png', 'shot.png', 'a/b/c', '../../x', '', '?', '#']) {
      assert.equal(resolveLink(d, scope), null, d);
    }
    assert.equal(resolveLink('/help/v2/install', { ...scope, portalPath: '/help' })?.slug, 'install', 'the configured portal path');
  });
});

describe('Scanning a body', () => {
  test('each link with its line; code, images, bare URLs and autolinks are no links', () => {
    const body = [
      'Intro [a](one) and', // 0
      'more [b](two "title").', // 1
      '',
      '```',
      '[c](in-code)',
      '```',
      '    [d](indented-code)',
      '',
      '| x | y |', // 8
      '|---|---|',
      '| [e](three) | `[f](code-span)` |', // 10
      '',
      '> quoted', // 12
      '> [g](four)', // 13
      '',
      '- item', // 15
      '  [h][ref] ![i](pic.png) https://example.com <https://example.org>', // 16
      '',
      '[ref]: ../five', // 18
    ].join('\n');
    assert.deepEqual(
      scanBody(body).links.map((l) => `${l.line} ${l.destination}`),
      ['0 one', '1 two', '10 three', '13 four', '16 ../five', '16 https://example.org'],
    );
  });

  test('anchors are the ids the portal renders, setext headings and repeats included', () => {
    const body = '# Install\n\nSetup *now*\n-----------\n\n## Install\n\n## Main\n\n## Über `uns` [x](y)\n';
    const rendered = [...renderMarkdown(body).matchAll(/<h\d id="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(rendered, ['install', 'setup-now', 'install-1', 'main-1', 'über-uns-x']);
    assert.deepEqual([...scanBody(body).anchors], rendered);
  });

  test('underlined headings (setext) are headings of the page where the portal renders them, and code and rules are not', () => {
    const body = [
      'Getting started',
      '===============',
      '',
      'Two lines',
      'of *title*',
      '---',
      '',
      '```',
      'Not a heading',
      '---',
      '```',
      '',
      '    Indented code',
      '    ---',
      '',
      '- A list item',
      '---',
      '',
      'Text before a rule',
      '',
      '---',
      '',
      '## Getting started',
      '',
      'Last',
      '----  ',
    ].join('\n');
    const rendered = [...renderMarkdown(body).matchAll(/<h\d id="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(rendered, ['getting-started', 'two-linesof-title', 'getting-started-1', 'last']);
    assert.deepEqual(headingsOf(body).map((h) => [h.text, h.anchor, h.plain]), [
      ['Getting started', 'getting-started', 'Getting started'],
      ['Two linesof title', 'two-linesof-title', 'Two lines'],
      ['Getting started', 'getting-started-1', 'Getting started'],
      ['Last', 'last', 'Last'],
    ]);
    assert.deepEqual([...scanBody(`${body}\n\n[self](#last)`).anchors], rendered);
  });

  test('links in fenced code, in indented code and past a blank line are found where the portal renders them', () => {
    const body = ['[a](one)', '', '```', '[b](in-code)', '', 'still code', '[c](in-code)', '```', '', '- item', '', '  [d](two)', '', '    [e](still-the-item)', '', 'para', '', '    [f](indented-code)', '', '[g](three)'].join('\n');
    assert.deepEqual(
      scanBody(body).links.map((l) => `${l.line} ${l.destination}`),
      ['0 one', '11 two', '13 still-the-item', '19 three'],
    );
  });

  test('a body of more links than the limit stops at it and says so', () => {
    const scan = scanBody('[a](b) '.repeat(MAX_LINKS + 10));
    assert.equal(scan.links.length, MAX_LINKS);
    assert.equal(scan.complete, false);
    assert.equal(scanBody('[a](b) '.repeat(10)).complete, true);
  });
});
