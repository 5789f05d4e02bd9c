/*
 * Long work done in slices, so that other requests are answered between them.
 */

/** Waits for the next turn of the event loop: what was queued meanwhile (requests, I/O) runs first. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

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
