/*
 * Long work done in slices, so that other requests are answered between them.
 */

import type { Hash } from 'node:crypto';

/**
 * How much of the plain work on text or bytes (encoding, escaping, hashing, deflating) one turn of
 * the event loop does: about 1–3 ms each on a 2-core machine. Work that costs more per character
 * (converting Markdown, indexing) takes slices of its own size.
 */
export const TURN_BYTES = 1 << 20;
/** Characters of text escaped and encoded into UTF-8 in one turn. */
export const TURN_CHARS = 512 * 1024;

/** Feeds the parts to `hash` TURN_BYTES at a time, with a turn of the event loop after each TURN_BYTES. */
export async function hashInSlices(hash: Hash, parts: readonly Uint8Array[]): Promise<void> {
  let sinceTurn = 0;
  for (const part of parts) {
    for (let at = 0; at < part.length; at += TURN_BYTES) {
      hash.update(part.subarray(at, at + TURN_BYTES));
      sinceTurn += Math.min(TURN_BYTES, part.length - at);
      if (sinceTurn >= TURN_BYTES) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
  }
}

/** Waits for the next turn of the event loop: what was queued meanwhile (requests, I/O) runs first. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs a generator of steps to its end, letting other work run every `sliceMs` milliseconds; its return value. */
export async function drainInSlices<T>(steps: Generator<unknown, T>, sliceMs: number): Promise<T> {
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since < sliceMs) continue;
    await nextTurn();
    since = performance.now();
  }
}

/**
 * Where a slice of `text` that starts at `from` and holds at most `size` characters ends: never
 * between the two halves of a surrogate pair, which encoded apart become two replacement characters
 * in UTF-8 and two escapes in JSON, not the character they make together.
 */
export function sliceEnd(text: string, from: number, size: number): number {
  const to = Math.min(text.length, from + size);
  if (to === text.length || to - from < 2) return to;
  const next = text.charCodeAt(to);
  const last = text.charCodeAt(to - 1);
  return next >= 0xdc00 && next <= 0xdfff && last >= 0xd800 && last <= 0xdbff ? to - 1 : to;
}
