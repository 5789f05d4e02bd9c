import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodedList, encodedString, encodedTree, encodeInSlices, JsonEncoder, longString } from '../src/http/encoded-json.ts';
import { withTurns } from './helpers/turns.ts';

/** The bytes of `value` as a plain JSON.stringify writes them. */
const plain = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');
const bytesOf = async (pieces: Buffer[] | Promise<Buffer[]>) => Buffer.concat(await pieces);

describe('Answers with memoized string text (encoded-json.ts)', () => {
  const bodies = [
    'Plain text\n',
    'Quotes " and \\ backslashes, tabs\tand\r\nnewlines, <tags> & U+2028 \u2028 and U+0000 \u0000',
    '日本語の本文です。「設定」を開きます。\n'.repeat(50),
    'Emoji 👩🏽‍💻 and Arabic مرحبا',
    '',
  ];

  test('an answer with marked strings is byte for byte what JSON.stringify writes, first and again', async () => {
    const encoder = new JsonEncoder(1 << 20);
    const owners = bodies.map(() => ({}));
    for (let round = 0; round < 2; round++) {
      for (const [i, body] of bodies.entries()) {
        const answer = { title: `T${i}`, bodyMd: encodedString(owners[i], body), list: [encodedString(owners[i], body), null], tail: 1 };
        const expected = plain({ title: `T${i}`, bodyMd: body, list: [body, null], tail: 1 });
        assert.deepEqual(await bytesOf(encoder.serialize(answer)), expected, `body ${i}, round ${round}`);
      }
    }
  });

  test('a new string under the same owner is not answered with the old text', async () => {
    const encoder = new JsonEncoder(1 << 20);
    const owner = {};
    assert.deepEqual(await bytesOf(encoder.serialize({ b: encodedString(owner, 'old') })), plain({ b: 'old' }));
    assert.deepEqual(await bytesOf(encoder.serialize({ b: encodedString(owner, 'new') })), plain({ b: 'new' }));
  });

  test('elsewhere (off, or serialized by anything else) a marked string is the plain string', async () => {
    const answer = { bodyMd: encodedString({}, 'Body "quoted"\n') };
    assert.equal(JSON.stringify(answer), JSON.stringify({ bodyMd: 'Body "quoted"\n' }));
    assert.deepEqual(await bytesOf(new JsonEncoder(0).serialize(answer)), plain({ bodyMd: 'Body "quoted"\n' }));
  });

  test('text that looks like the placeholder does not misplace anything', async () => {
    const encoder = new JsonEncoder(1 << 20);
    const tricky = { summary: '\u0000 not the mark "\\u0000"', bodyMd: encodedString({}, 'B') };
    assert.deepEqual(await bytesOf(encoder.serialize(tricky)), plain({ summary: '\u0000 not the mark "\\u0000"', bodyMd: 'B' }));
  });

  // Longer than a slice (512 K characters), with escapes, a character of 3 bytes and a surrogate pair
  // (4 bytes) placed across every slice boundary.
  const long = (() => {
    const unit = 'Zeile "eins"\n\tÄnderung 設定 👩🏽‍💻 \u2028 ';
    let text = 'x'.repeat(512 * 1024 - 1) + '😀' + 'y'.repeat(512 * 1024 - 2) + '😀';
    while (text.length < 1_700_000) text += unit;
    return text;
  })();

  test('a string longer than a slice is encoded byte for byte as JSON.stringify encodes it, marked either way, kept or not', async () => {
    const expected = plain({ a: 1, bodyMd: long, z: 'end' });
    for (const encoder of [new JsonEncoder(16 << 20), new JsonEncoder(0)]) {
      const owner = {};
      assert.deepEqual(await bytesOf(encoder.serialize({ a: 1, bodyMd: encodedString(owner, long), z: 'end' })), expected);
      assert.deepEqual(await bytesOf(encoder.serialize({ a: 1, bodyMd: encodedString(owner, long), z: 'end' })), expected, 'again (kept, when kept)');
      assert.deepEqual(await bytesOf(encoder.serialize({ a: 1, bodyMd: longString(long), z: 'end' })), expected);
      const two = { short: encodedString({}, 'short "one"'), first: longString(long), second: encodedString({}, `${long}2`), last: [longString('x')] };
      assert.deepEqual(await bytesOf(encoder.serialize(two)), plain({ short: 'short "one"', first: long, second: `${long}2`, last: ['x'] }), 'two long strings and short ones');
    }
    for (const cut of [1, 2, 3]) {
      const text = long.slice(cut);
      assert.deepEqual(await encodeInSlices(text), Buffer.from(JSON.stringify(text), 'utf8'), `cut ${cut}`);
    }
  });

  test('other work runs between the slices of a long string', async () => {
    const { turns } = await withTurns(async () => new JsonEncoder(0).serialize({ bodyMd: longString(long + long) }));
    assert.ok(turns >= 3, `${turns} turns of the event loop while 3.4 M characters were encoded`);
  });

  test('many marked strings, more text than one turn encodes: the same bytes, with other work between', async () => {
    const texts = Array.from({ length: 400 }, (_, i) => `Text ${i} "q" Ä 設 😀\n`.repeat(400 + i));
    const answer = { items: texts.map((t, i) => ({ i, body: i % 2 ? longString(t) : encodedString({}, t) })), tail: longString(long) };
    const { result: bytes, turns } = await withTurns(() => bytesOf(new JsonEncoder(1 << 20).serialize(answer)));
    assert.deepEqual(bytes, plain({ items: texts.map((t, i) => ({ i, body: t })), tail: long }));
    assert.ok(turns >= 6, `${turns} turns while ${texts.reduce((n, t) => n + t.length, 0) + long.length} characters were encoded`);
  });

  test('a long list is presented and serialized a slice of items at a time: the same bytes, marks within included', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const present = (i: number) => ({ i, title: `T${i} "q"`, body: i % 100 === 0 ? longString(`${long}${i}`) : encodedString({}, `b${i}\n`), tags: encodedList([i, i + 1], (n) => `#${n}`) });
    const plainItem = (i: number) => ({ i, title: `T${i} "q"`, body: i % 100 === 0 ? `${long}${i}` : `b${i}\n`, tags: [`#${i}`, `#${i + 1}`] });
    let presented = 0;
    const answer = { head: 1, nodes: encodedList(items, (i: number) => (presented++, present(i))), short: encodedList([1, 2], (n) => n * 2), empty: encodedList([], (n) => n), tail: 'end' };
    const { result: bytes, turns } = await withTurns(() => bytesOf(new JsonEncoder(1 << 20).serialize(answer)));
    assert.deepEqual(bytes, plain({ head: 1, nodes: items.map(plainItem), short: [2, 4], empty: [], tail: 'end' }));
    assert.equal(presented, 1000, 'each item presented once');
    assert.ok(turns >= 4, `${turns} turns while 1,000 items were presented`);
    assert.equal(JSON.stringify({ l: encodedList([1, 2, 3], (n) => n + 1) }), '{"l":[2,3,4]}', 'elsewhere, the array');
  });

  test('a large tree is presented and serialized a slice of nodes at a time: the same bytes as the nested arrays', async () => {
    // 3,000 nodes four levels deep, uneven: some with many children, some leaves, one node with no fields of its own.
    const children = new Map<string, string[]>();
    const roots: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const parent = i < 7 ? null : `n${(i * 7919) % Math.min(i, 400)}`;
      children.set(`n${i}`, []);
      (parent === null ? roots : children.get(parent)!).push(`n${i}`);
    }
    const present = (node: string): Record<string, unknown> => (node === 'n5' ? {} : { slug: node, title: `Title "${node}" 日本`, n: Number(node.slice(1)) });
    const childrenOf = (node: string) => children.get(node)!;
    const nested = (nodes: readonly string[]): unknown[] => nodes.map((node) => ({ ...present(node), children: nested(childrenOf(node)) }));
    const answer = { version: 'v1', tree: encodedTree(roots, children.size, childrenOf, present), tail: encodedString({}, 'end') };
    const { result: bytes, turns } = await withTurns(() => bytesOf(new JsonEncoder(1 << 20).serialize(answer)));
    assert.deepEqual(bytes, plain({ version: 'v1', tree: nested(roots), tail: 'end' }));
    assert.ok(turns >= 10, `${turns} turns while 3,000 nodes were presented`);
    // Elsewhere, and small, the nested arrays.
    assert.deepEqual(JSON.parse(JSON.stringify({ t: encodedTree(roots, children.size, childrenOf, present) })), JSON.parse(JSON.stringify({ t: nested(roots) })));
    const small = { t: encodedTree(['a'], 2, (n) => (n === 'a' ? ['b'] : []), (n) => ({ n })) };
    assert.deepEqual(await bytesOf(new JsonEncoder(0).serialize(small)), plain({ t: [{ n: 'a', children: [{ n: 'b', children: [] }] }] }));
    assert.deepEqual(await bytesOf(new JsonEncoder(0).serialize({ t: encodedTree([], 0, () => [], () => ({})) })), plain({ t: [] }));
  });
});
