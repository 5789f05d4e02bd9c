import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TermIndex } from '../src/index/term-index.ts';
import { indexTerms } from '../src/index/words.ts';
import { Random } from './helpers/generate.ts';

// Character pairs of scripts without spaces are kept in an open-addressing table. Its hash multiplies
// each pair's code by a number drawn for each process: with the well-known Fibonacci constant, pairs
// picked to land in a few neighbouring slots made every insert walk all of them (quadratic time).

const FIBONACCI = 0x9e3779b1;

/** The multiplicative inverse of odd `a` modulo 2^32 (Newton's iteration). */
function inverse(a: number): number {
  let x = a;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x));
  return x;
}

/** `n` distinct pairs of CJK ideographs, one per word, whose Fibonacci hash for a table of 2^bits slots falls in its first 64 slots. */
function crowding(n: number, bits: number, r: Random): string {
  const back = inverse(FIBONACCI);
  const seen = new Set<number>();
  const words: string[] = [];
  while (words.length < n) {
    const hash = ((r.int(0, 63) << (32 - bits)) | r.int(0, 2 ** (32 - bits) - 1)) >>> 0;
    const code = Math.imul(hash, back) >>> 0;
    const a = code >>> 16;
    const b = code & 0xffff;
    if (a < 0x4e00 || a > 0x9fa5 || b < 0x4e00 || b > 0x9fa5 || seen.has(code)) continue;
    seen.add(code);
    words.push(String.fromCharCode(a, b));
  }
  return words.join(' ');
}

function randomPairs(n: number, r: Random): string {
  return Array.from({ length: n }, () => String.fromCharCode(r.int(0x4e00, 0x9fa5), r.int(0x4e00, 0x9fa5))).join(' ');
}

/** The median of three times to add `text` as a document to a fresh index, in ms; and the pairs it found. */
function timeToAdd(text: string): { ms: number; found: boolean } {
  const runs: number[] = [];
  let found = true;
  for (let run = 0; run < 3; run++) {
    const index = new TermIndex();
    const terms = index.docTerms();
    indexTerms(text, terms);
    terms.done();
    const started = performance.now();
    index.add('doc', terms);
    runs.push(performance.now() - started);
    found &&= index.match([text.slice(0, 2)]).bits[0] === 1 && index.match([text.slice(-2)]).bits[0] === 1;
  }
  return { ms: runs.sort((a, b) => a - b)[1], found };
}

test('character pairs picked to crowd a table under the Fibonacci hash are indexed about as fast as random ones', () => {
  const n = 20_000;
  let bits = 8;
  while (1 << bits < n * 2) bits++;
  const r = new Random(3);
  const crowded = timeToAdd(crowding(n, bits, r));
  const random = timeToAdd(randomPairs(n, r));
  assert.ok(crowded.found && random.found);
  assert.ok(crowded.ms < Math.max(4 * random.ms, 40), `${crowded.ms.toFixed(1)} ms against ${random.ms.toFixed(1)} ms for random pairs`);
});
