import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serialize } from 'node:v8';
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { notUtf8, utf8Text } from '../src/storage/blob-text.ts';
import { Random } from './helpers/generate.ts';

/** Whether V8 holds `s` one byte per character (the structured clone format tags such a string '"', a two-byte one 'c'). */
const oneByte = (s: string) => serialize(s)[2] === 0x22;

const decodesAsNode = (bytes: Buffer, what: string) => assert.equal(utf8Text(bytes), bytes.toString('utf8'), what);

test('files read from git decode to the same text as Node decodes them, in any script', () => {
  const texts: Array<[string, string]> = [
    ['ASCII', 'Configure the server, then restart it. '.repeat(40)],
    ['German', 'Die Einstellungen für Zugriffsschlüssel werden über das Menü geändert. '.repeat(40)],
    ['Japanese', '設定を変更するには、「管理」を開きます。Settings の画面で Server を選びます。'.repeat(40)],
    ['emoji and characters outside the BMP', '😀 𠀀𠀁 notes 🎉 '.repeat(60)],
    ['a byte-order mark first', `\ufeff# Title\n\n${'Text — with a dash. '.repeat(40)}`],
    ['a long Latin text with one wide character at its end', `${'plain text '.repeat(600)}— and then a dash, 設定`],
    ['German with a wide character near its start', `„Zitat“ ${'Die Einstellungen für Zugriffsschlüssel. '.repeat(40)}`],
    ['short', 'ü 設定'],
    ['empty', ''],
  ];
  for (const [what, text] of texts) decodesAsNode(Buffer.from(text, 'utf8'), what);
});

test('text without a character from U+0100 on stays one byte per character in memory', () => {
  for (const text of ['Configure the server. '.repeat(50), 'Menü, Straße, créer, ação. '.repeat(50), `Menü ${'text '.repeat(1000)}— and a dash at the end`]) {
    const decoded = utf8Text(Buffer.from(text, 'utf8'));
    assert.equal(decoded, text);
    assert.equal(oneByte(decoded), oneByte(Buffer.from(text, 'utf8').toString('utf8')), `as Node holds ${JSON.stringify(text.slice(0, 20))}`);
  }
  assert.ok(oneByte(utf8Text(Buffer.from('Menü, Straße, créer, ação. '.repeat(50)))), 'Latin-1 text is held one byte per character');
});

test('bytes that are not valid UTF-8 decode as Node decodes them: each bad sequence a replacement character', () => {
  const wide = Buffer.from('設定を変更するには '.repeat(40), 'utf8');
  const cases: Array<[string, Buffer]> = [
    ['a stray continuation byte', Buffer.concat([wide, Buffer.from([0x80]), wide])],
    ['a sequence cut short at the end', Buffer.concat([wide, Buffer.from([0xe8, 0xa8])])],
    ['an overlong encoding', Buffer.concat([wide, Buffer.from([0xc0, 0xaf]), wide])],
    ['an encoded surrogate', Buffer.concat([wide, Buffer.from([0xed, 0xa0, 0x80]), wide])],
    ['a byte that never occurs in UTF-8', Buffer.concat([Buffer.from([0xff]), wide])],
  ];
  for (const [what, bytes] of cases) {
    decodesAsNode(bytes, what);
    assert.ok(utf8Text(bytes).includes('\ufffd'), `${what}: a replacement character`);
  }
});

test('random texts and random bytes decode as Node decodes them', () => {
  const r = new Random(7);
  const pick = (n: number) => Math.floor(r.next() * n);
  // Code points from every range UTF-8 encodes in 1 to 4 bytes, surrogates left out.
  const codePoint = () => [() => pick(0x80), () => 0x80 + pick(0x780), () => 0x800 + pick(0xd000), () => 0xe000 + pick(0x2000), () => 0x10000 + pick(0x100000)][pick(5)]();
  for (let i = 0; i < 400; i++) {
    const chars = Array.from({ length: 100 + pick(3000) }, () => (r.next() < 0.6 ? 'abc def '[pick(8)] : String.fromCodePoint(codePoint())));
    const bytes = Buffer.from(chars.join(''), 'utf8');
    decodesAsNode(bytes, `text ${i}`);
    // The same bytes with some of them changed at random: mostly not UTF-8 any more.
    const damaged = Buffer.from(bytes);
    for (let k = 0; k < 3; k++) damaged[pick(damaged.length)] = pick(256);
    decodesAsNode(damaged, `damaged text ${i}`);
  }
});

test('bytes that are not UTF-8 are found at their first bad sequence, with its line', () => {
  const at = (bytes: number[]) => notUtf8(Buffer.from(bytes));
  assert.equal(at([...Buffer.from('plain\nMenü 設定 😀\n')]), null);
  assert.deepEqual(at([...Buffer.from('one\ntwo\nCaf'), 0xe9, 0x0a]), { byte: 11, value: 0xe9, line: 3 });
  // Overlong forms, surrogates, code points past U+10FFFF, a lone continuation byte, a sequence cut at the end.
  for (const [bytes, where] of [[[0x41, 0xc0, 0x80], 1], [[0xe0, 0x80, 0x80], 0], [[0xed, 0xa0, 0x80], 0], [[0xf4, 0x90, 0x80, 0x80], 0], [[0x41, 0x80], 1], [[0x41, 0xe6, 0x97], 1]] as const) {
    assert.equal(at([...bytes])?.byte, where, JSON.stringify(bytes));
  }
  // Against Node's validator: found exactly when it refuses, and everything before the place is UTF-8 while nothing after it makes the rest so.
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0x0a, 0x80, 0xbf, 0xc2, 0xe0, 0xed, 0xf0, 0xf4)), { maxLength: 40 }), (list) => {
      const bytes = Buffer.from(list);
      const found = notUtf8(bytes);
      assert.equal(found === null, isUtf8(bytes));
      if (found === null) return;
      assert.ok(isUtf8(bytes.subarray(0, found.byte)));
      assert.equal(found.value, bytes[found.byte]);
      assert.equal(found.line, 1 + bytes.subarray(0, found.byte).filter((b) => b === 0x0a).length);
    }),
    { numRuns: 2000 },
  );
});
