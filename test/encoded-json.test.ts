import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodedString, JsonEncoder } from '../src/http/encoded-json.ts';

/** The bytes of `value` as a plain JSON.stringify writes them. */
const plain = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');
const bytesOf = (pieces: Buffer[]) => Buffer.concat(pieces);

describe('Answers with memoized string text (encoded-json.ts)', () => {
  const bodies = [
    'Plain text\n',
    'Quotes " and \\ backslashes, tabs\tand\r\nnewlines, <tags> & U+2028 \u2028 and U+0000 \u0000',
    '日本語の本文です。「設定」を開きます。\n'.repeat(50),
    'Emoji 👩🏽‍💻 and Arabic مرحبا',
    '',
  ];

  test('an answer with marked strings is byte for byte what JSON.stringify writes, first and again', () => {
    const encoder = new JsonEncoder(1 << 20);
    const owners = bodies.map(() => ({}));
    for (let round = 0; round < 2; round++) {
      for (const [i, body] of bodies.entries()) {
        const answer = { title: `T${i}`, bodyMd: encodedString(owners[i], body), list: [encodedString(owners[i], body), null], tail: 1 };
        const expected = plain({ title: `T${i}`, bodyMd: body, list: [body, null], tail: 1 });
        assert.deepEqual(bytesOf(encoder.serialize(answer)), expected, `body ${i}, round ${round}`);
      }
    }
  });

  test('a new string under the same owner is not answered with the old text', () => {
    const encoder = new JsonEncoder(1 << 20);
    const owner = {};
    assert.deepEqual(bytesOf(encoder.serialize({ b: encodedString(owner, 'old') })), plain({ b: 'old' }));
    assert.deepEqual(bytesOf(encoder.serialize({ b: encodedString(owner, 'new') })), plain({ b: 'new' }));
  });

  test('elsewhere (off, or serialized by anything else) a marked string is the plain string', () => {
    const answer = { bodyMd: encodedString({}, 'Body "quoted"\n') };
    assert.equal(JSON.stringify(answer), JSON.stringify({ bodyMd: 'Body "quoted"\n' }));
    assert.deepEqual(bytesOf(new JsonEncoder(0).serialize(answer)), plain({ bodyMd: 'Body "quoted"\n' }));
  });

  test('text that looks like the placeholder does not misplace anything', () => {
    const encoder = new JsonEncoder(1 << 20);
    const tricky = { summary: '\u0000 not the mark "\\u0000"', bodyMd: encodedString({}, 'B') };
    assert.deepEqual(bytesOf(encoder.serialize(tricky)), plain({ summary: '\u0000 not the mark "\\u0000"', bodyMd: 'B' }));
  });
});
