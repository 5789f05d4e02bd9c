/**
 * Finds a key given twice in one object of JSON text. JSON.parse keeps the last one silently, while
 * other readers (a proxy, a log pipeline, the sender's own tests) may keep the first: a body whose
 * meaning depends on the reader is refused rather than guessed at.
 *
 * The text has been parsed already, so it is known to be JSON and nothing is validated here. One pass
 * with an explicit stack; strings are skipped with indexOf, so a body of long texts (an import of
 * 30 MB is mostly Markdown) costs little more than the search for its quotes. An object's keys are
 * kept only while the object is open.
 */

export interface DuplicateKey {
  key: string;
  /** Where the second one is: the keys and array indexes from the top, the duplicate key last. */
  path: Array<string | number>;
}

/**
 * One open container. Frames are kept per depth and reused, so a body of a million small objects
 * allocates no frame per object; a few keys are compared in a list, more go in a set.
 */
interface Frame {
  /** For an object: its current key; for an array: the index of its current item. */
  at: string | number;
  isObject: boolean;
  keys: string[];
  set: Set<string> | null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Keys an object holds before they go in a set: comparing a few strings is cheaper than hashing them. */
const LIST_KEYS = 8;

/** The first key given twice in one object of `text` (valid JSON), or null. */
export function duplicateKey(text: string): DuplicateKey | null {
  const frames: Frame[] = [];
  let depth = 0;
  let top: Frame | undefined;
  // In an object, a string is a key right after "{" or ",", and a value after ":".
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (expectKey && top !== undefined) {
        const raw = text.slice(i + 1, end);
        // "a" and "\u0061" are one key once read.
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (seen(top, key)) return { key, path: [...frames.slice(0, depth - 1).map((f) => f.at), key] };
        top.at = key;
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      // The path to a container is its parent's current key or index, kept in the parent's frame.
      top = frames[depth] ??= { at: 0, isObject: false, keys: [], set: null };
      top.at = 0;
      top.isObject = c === 0x7b;
      top.keys.length = 0;
      top.set = null;
      depth++;
      expectKey = top.isObject;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
      top = depth > 0 ? frames[depth - 1] : undefined;
      expectKey = false;
    } else if (c === 0x2c /* , */ && top !== undefined) {
      if (top.isObject) expectKey = true;
      else (top.at as number)++;
    }
  }
  return null;
}

/** Records `key` in the object's frame; true when it was there already. */
function seen(frame: Frame, key: string): boolean {
  if (frame.set !== null) {
    if (frame.set.has(key)) return true;
    frame.set.add(key);
    return false;
  }
  const keys = frame.keys;
  for (let k = 0; k < keys.length; k++) if (keys[k] === key) return true;
  keys.push(key);
  if (keys.length > LIST_KEYS) frame.set = new Set(keys);
  return false;
}

/** The offset of the quote that closes the string opening at `start` (one preceded by an even number of backslashes). */
function closingQuote(text: string, start: number): number {
  let at = text.indexOf('"', start + 1);
  for (;;) {
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
}
