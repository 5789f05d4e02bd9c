import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { hashInSlices, sliceEnd, TURN_BYTES } from '../src/slices.ts';

test('hashInSlices gives the digest of the whole, across parts and slice boundaries, and lets other work run between slices', async () => {
  const parts = [Buffer.from('blob 12\0'), randomBytes(TURN_BYTES + 17), Buffer.alloc(0), randomBytes(2 * TURN_BYTES - 5)];
  const hash = createHash('sha1');
  let turns = 0;
  const count = () => {
    turns++;
    timer = setImmediate(count);
  };
  let timer = setImmediate(count);
  await hashInSlices(hash, parts);
  clearImmediate(timer);
  const whole = createHash('sha1');
  for (const part of parts) whole.update(part);
  assert.equal(hash.digest('hex'), whole.digest('hex'));
  // Three megabytes: the other work got a turn after each of the first two.
  assert.ok(turns >= 2, `other work ran ${turns} times while three slices were hashed`);
});

test('sliceEnd never ends a slice between the halves of a surrogate pair', () => {
  const text = 'ab😀cd';
  assert.equal(sliceEnd(text, 0, 3), 2);
  assert.equal(sliceEnd(text, 0, 4), 4);
  assert.equal(sliceEnd(text, 2, 10), text.length);
  assert.equal(sliceEnd(text, 1, 2), 2);
  assert.equal(sliceEnd(text, 2, 2), 4);
});
