import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { plainLines } from '../src/content/plain-text.ts';
import type { NodeRec, Translation, VersionState } from '../src/domain/types.ts';
import { AHEAD_CHARS, bodyText, hasBodyText, keptBodyText, makeBodyTexts } from '../src/index/body-text.ts';
import { rawMatcher } from '../src/index/raw-matcher.ts';
import { SearchIndex } from '../src/index/search.ts';
import { snippet } from '../src/index/snippets.ts';
import { words } from '../src/index/words.ts';
import { generatedLine, random } from './helpers/hostile-markdown.ts';

// Snippets are cut from the plain text of a body, kept beside its translation. A search makes the text of
// a body it shows the first time; the texts of long bodies are made ahead, a slice at a time, so that no
// search converts megabytes of Markdown while other requests wait.

const STAMP = '2026-01-01T00:00:00.000Z';
const translation = (bodyMd: string, title = 'T'): Translation => ({ title, summary: 'S', bodyMd, updatedAt: STAMP });

function stateOf(bodies: Record<string, string>): VersionState {
  const nodes = new Map<string, NodeRec>();
  for (const slug of Object.keys(bodies)) nodes.set(slug, { id: slug, slug, kind: 'topic', parentSlug: null, icon: null, sortOrder: 0, updatedAt: STAMP, children: [] });
  return {
    slug: 'v1',
    meta: { label: 'V1', status: 'published', languages: ['en'], sortOrder: null, isLatest: true, hidden: false, workingCopyOf: null, createdAt: STAMP, updatedAt: STAMP },
    nodes,
    roots: Object.keys(bodies),
    translations: new Map(Object.entries(bodies).map(([slug, body]) => [slug, new Map([['en', translation(body, slug)]])])),
  };
}

/** A long body of generated Markdown lines (every syntax character, Unicode, white space), with `separator` between lines. */
function longBody(seed: number, chars: number, separator: string): string {
  const next = random(seed);
  const lines: string[] = [];
  for (let length = 0; length < chars; ) {
    const line = `${generatedLine(next)} narwhal ${generatedLine(next)}`;
    lines.push(line);
    length += line.length + separator.length;
  }
  return lines.join(separator);
}

describe('plain text of bodies for snippets', () => {
  test('made in slices, it is the text of the whole body converted at once (LF, CRLF, lone CR, lines longer than a slice)', async () => {
    const bodies = [longBody(1, 200_000, '\n'), longBody(2, 200_000, '\r\n'), longBody(3, 100_000, '\r'), `${'word '.repeat(20_000)}\n${'x'.repeat(70_000)}\nend`, ''];
    for (const bodyMd of bodies) {
      const t = translation(bodyMd);
      let pauses = 0;
      await makeBodyTexts([t], async () => {
        pauses++;
      });
      assert.ok(hasBodyText(t));
      assert.equal(bodyText(t), plainLines(bodyMd).join('\n'));
      // About one pause per 32 K characters of whole lines.
      assert.ok(pauses >= Math.floor(bodyMd.length / 70_000) && pauses <= Math.ceil(bodyMd.length / 32_768) + 1, `${pauses} pauses for ${bodyMd.length} characters`);
    }
  });

  test('a long body has its text made once it is indexed, before any search; a short one when a search first shows it', async () => {
    const state = stateOf({ long: longBody(4, AHEAD_CHARS * 3, '\n'), short: 'A narwhal swims.' });
    const index = new SearchIndex();
    await index.update('v1', state);
    await index.textsMade();
    const [long, short] = ['long', 'short'].map((slug) => state.translations.get(slug)!.get('en')!);
    assert.equal(hasBodyText(long), true);
    assert.equal(keptBodyText(long), plainLines(long.bodyMd).join('\n'));
    assert.equal(hasBodyText(short), false);
    const hits = index.search(state, 'en', 'narwhal').hits;
    assert.deepEqual(hits.map((h) => h.slug), ['long', 'short']);
    assert.equal(hasBodyText(short), true);
    assert.match(hits[1].snippet, /^A narwhal swims\.$/);
  });

  test('an index restored from its saved bytes has the texts of long bodies made too', async () => {
    const state = stateOf({ long: longBody(5, AHEAD_CHARS * 2, '\n'), short: 'A narwhal swims.' });
    const built = new SearchIndex();
    await built.update('v1', state);
    const pieces = (await built.savePieces('v1'))!;
    // The same files loaded again: new translation objects, nothing kept for them.
    const again = stateOf({ long: state.translations.get('long')!.get('en')!.bodyMd, short: 'A narwhal swims.' });
    const restored = new SearchIndex();
    assert.ok(restored.restore('v1', again, Buffer.concat(pieces)));
    await restored.textsMade();
    assert.equal(hasBodyText(again.translations.get('long')!.get('en')!), true);
    assert.equal(hasBodyText(again.translations.get('short')!.get('en')!), false);
    assert.equal(restored.search(again, 'en', 'narwhal').hits.length, 2);
  });

  test('a snippet from a long body whose text is not made yet is cut from the lines around the match, and makes no text', async () => {
    const filler = 'Plain words to fill a line of the body. '.repeat(4);
    const lines = Array.from({ length: 3000 }, (_, i) => (i === 1800 ? `The *narwhal* swims here. ${filler}` : `${filler}${i}`));
    // The first place the Markdown may hold the word is a link target; the word itself is far past it.
    lines[10] = `See [the dashboard](https://example.com/narwhal-facts). ${filler}`;
    const t = translation(lines.join('\n'));
    assert.ok(t.bodyMd.length > AHEAD_CHARS);
    const query = words('narwhal');
    const before = snippet(t, query, rawMatcher(query));
    assert.equal(hasBodyText(t), false);
    await makeBodyTexts([t], async () => {});
    assert.equal(before, snippet(t, query, rawMatcher(query)));
    assert.match(before, /^….* The narwhal swims here\. Plain words.*…$/);
    // No match in the lines looked at: the start of the body, with … where it goes on.
    const other = translation(lines.join('\n').replace(/narwhal/g, 'walrus'));
    assert.match(snippet(other, query, rawMatcher(query)), /^Plain words to fill a line of the body\..*…$/);
    assert.equal(hasBodyText(other), false);
  });

  test('the texts of a version gone before their turn are not made', async () => {
    const state = stateOf({ long: longBody(6, AHEAD_CHARS * 2, '\n') });
    const built = new SearchIndex();
    await built.update('v1', state);
    const bytes = Buffer.concat((await built.savePieces('v1'))!);
    const again = stateOf({ long: state.translations.get('long')!.get('en')!.bodyMd });
    const index = new SearchIndex();
    assert.ok(index.restore('v1', again, bytes));
    index.update('v1', null);
    await index.textsMade();
    assert.equal(hasBodyText(again.translations.get('long')!.get('en')!), false);
  });
});
