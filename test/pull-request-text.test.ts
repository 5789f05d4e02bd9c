import assert from 'node:assert/strict';
import { test } from 'node:test';
import markdownIt from 'markdown-it';
import { literal } from '../src/publishing/pull-request.ts';

// GitHub renders a pull request's description as Markdown with HTML allowed; markdown-it with html on follows the same CommonMark rules for code spans.
const md = markdownIt({ html: true, linkify: true });
const decode = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

test('a title in a pull request description is shown as it is written, whatever it holds: nothing in it renders', () => {
  for (const title of [
    'Harmless fix <!-- hidden',
    '[Approved by security](https://evil.example) @acme/admins <img src=https://evil.example/t.png>',
    '**bold** _em_ # not a heading | a | table |',
    '`ticked` title with `` two `` runs',
    '``',
    ' spaced ',
    'line one\nline two',
    '<script>alert(1)</script>',
  ]) {
    const html = md.renderInline(literal(title));
    const shown = title.replace(/[\r\n]+/g, ' ');
    const m = /^<code>([\s\S]*)<\/code>$/.exec(html);
    assert.ok(m, `one code span for ${JSON.stringify(title)}: ${html}`);
    assert.equal(decode(m[1]), shown);
  }
});
