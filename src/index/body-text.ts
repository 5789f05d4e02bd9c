import { plainLines } from '../content/plain-text.ts';
import type { Translation } from '../domain/types.ts';

/**
 * The plain text of a body, as snippets are cut from it: its plain lines joined by \n (plain-text.ts
 * converts each Markdown line on its own, so the text of a body is the texts of its lines).
 *
 * Kept beside its translation once made, while that translation is current (keyed by the object: an
 * edit makes a new translation, and the old text goes with the old one). Converting the Markdown
 * lines around each match again for every search was four fifths of a snippet's cost; kept, a text
 * costs at most its body's size once more. A search makes the text of a body it shows the first time
 * (about 0.3 ms for 64 KB); longer bodies get theirs made ahead, in slices (makeBodyTexts), so that
 * no search has to convert megabytes while other requests wait (until then, a snippet from one is cut
 * from the lines around its match alone).
 */
const texts = new WeakMap<Translation, string>();

/** The plain text of `t`'s body, made now if it was not kept. */
export function bodyText(t: Translation): string {
  let text = texts.get(t);
  if (text === undefined) texts.set(t, (text = plainLines(t.bodyMd).join('\n')));
  return text;
}

/** Keeps `text`, the plain lines of `t`'s body joined by \n (made where the body was converted anyway). */
export const keepBodyText = (t: Translation, text: string): void => void texts.set(t, text);

/** The plain text of `t`'s body if it is kept. */
export const keptBodyText = (t: Translation): string | undefined => texts.get(t);

/** Whether the plain text of `t`'s body is kept. */
export const hasBodyText = (t: Translation): boolean => texts.has(t);

/** Bodies longer than this, in characters, get their text made ahead (makeBodyTexts). */
export const AHEAD_CHARS = 64 * 1024;

/**
 * Makes and keeps the texts of `translations` that have none yet, a range of whole lines of about
 * SLICE_CHARS at a time with `pause()` between them (a single line longer than that is converted at
 * once, as indexing converts it).
 */
export async function makeBodyTexts(translations: Iterable<Translation>, pause: () => Promise<void>): Promise<void> {
  for (const t of translations) {
    if (texts.has(t)) continue;
    const body = t.bodyMd;
    const lines: string[] = [];
    for (let from = 0; from < body.length; ) {
      let until = body.indexOf('\n', Math.min(body.length, from + SLICE_CHARS));
      if (until < 0) until = body.length;
      for (const line of plainLines(body, from, until)) lines.push(line);
      from = until + 1;
      await pause();
    }
    texts.set(t, lines.join('\n'));
  }
}

const SLICE_CHARS = 32 * 1024;
