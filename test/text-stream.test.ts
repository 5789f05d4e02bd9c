import assert from 'node:assert/strict';
import { test } from 'node:test';
import { textStream } from '../src/http/stream.ts';
import { withTurns } from './helpers/turns.ts';

test('a text stream gives the text whole, in chunks of about 8 KB, and other work runs while a fast reader takes it', async () => {
  const pieces = Array.from({ length: 20_000 }, (_, i) => `{"n":${i},"t":"${'Zeile ü 設定 😀 '.repeat(12)}"},`);
  const { result: chunks, turns } = await withTurns(async () => {
    const out: string[] = [];
    for await (const chunk of textStream(pieces)) out.push(chunk as string);
    return out;
  });
  assert.equal(chunks.join(''), pieces.join(''));
  assert.ok(chunks.slice(0, -1).every((c) => c.length >= 8 * 1024 && c.length < 8 * 1024 + 400), 'chunks of about 8 KB');
  // About 4 M characters: a turn of the event loop every 512 K of them.
  assert.ok(turns >= 6, `${turns} turns of the event loop while the stream was read`);
});
