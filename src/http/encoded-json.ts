import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { sliceEnd } from '../text-slices.ts';

/**
 * Large strings of an answer (a topic's Markdown body) kept as the JSON text they serialize to, so
 * that an answer built again — the same page under another URL or language fallback, or after a
 * write elsewhere in its version moved the version's generation — does not escape and encode the
 * body once more: that was about a third of the server's work for a topic read.
 *
 * A route marks such a string with `encodedString(owner, value)`; the owner is the immutable object
 * the string belongs to (a translation: an edit makes a new one, and the old entry ages out). A
 * string that is not worth keeping but may be long (a write's answer echoing the body it stored) is
 * marked with `longString(value)`. `JsonEncoder.serialize` writes the answer with JSON.stringify, a
 * placeholder standing for each marked string, and returns the bytes around each placeholder and the
 * text of each marked string as pieces. A marked string longer than SLICE_CHARS is encoded a slice at a
 * time, with a turn of the event loop between slices: a 5 MB body escaped and encoded at once held
 * every other request for about 15 ms. Anywhere else a marked string serializes as the plain string
 * it holds.
 */

/** The placeholder: unguessable, so answer text cannot forge it (and if it ever did, see serialize). */
const MARK = `\u0000${randomBytes(12).toString('base64url')}`;
const QUOTED_MARK = JSON.stringify(MARK);

/** Characters of a marked string escaped and encoded in one turn of the event loop (about 1–3 ms). */
const SLICE_CHARS = 512 * 1024;

/** The marked strings met by the serialization running now, in the order they appear in its text. */
let collecting: EncodedString[] | null = null;

class EncodedString {
  constructor(
    /** What its memoized text is kept under; null: not kept. */
    readonly owner: object | null,
    readonly value: string,
  ) {}

  toJSON(): string {
    if (collecting === null) return this.value;
    collecting.push(this);
    return MARK;
  }
}

/** `value`, to be serialized from memoized JSON text kept under `owner` when a JsonEncoder writes it. */
export const encodedString = (owner: object, value: string): unknown => new EncodedString(owner, value);

/** `value`, serialized by a JsonEncoder without keeping its text (in slices when long). */
export const longString = (value: string): unknown => new EncodedString(null, value);

/** Serializes answers, splicing in the text of their marked strings (at most `maxBytes` of it kept). */
export class JsonEncoder {
  private readonly memo: LRUCache<object, { value: string; bytes: Buffer }> | null;

  constructor(maxBytes: number) {
    this.memo = maxBytes > 0 ? new LRUCache<object, { value: string; bytes: Buffer }>({ maxSize: maxBytes, sizeCalculation: (e) => e.bytes.length + 64 }) : null;
  }

  /**
   * The JSON text of `answer` as UTF-8, in pieces: the text of each marked string is one piece of
   * its own, not copied into a joined buffer (a topic body is most of a topic answer's bytes). A
   * promise only when a marked string is encoded in slices: the answers read most are not.
   */
  serialize(answer: unknown): Buffer[] | Promise<Buffer[]> {
    const marked: EncodedString[] = [];
    collecting = marked;
    let text: string;
    try {
      text = JSON.stringify(answer);
    } finally {
      collecting = null;
    }
    if (marked.length === 0) return [Buffer.from(text, 'utf8')];
    const parts = text.split(QUOTED_MARK);
    // Text that happened to hold the placeholder would misplace the splices: write it plainly.
    if (parts.length !== marked.length + 1) return [Buffer.from(JSON.stringify(answer), 'utf8')];
    // The text of every marked string, as long as SLICE_CHARS allow in this turn; the rest (null) after.
    const texts: Array<Buffer | null> = [];
    let chars = 0;
    let deferred = false;
    for (const m of marked) {
      const kept = this.kept(m);
      if (kept !== undefined) texts.push(kept);
      else if (deferred || chars + m.value.length > SLICE_CHARS) {
        texts.push(null);
        deferred = true;
      } else {
        texts.push(this.keep(m, encodeShort(m.value)));
        chars += m.value.length;
      }
    }
    const splice = () => {
      const pieces: Buffer[] = [];
      for (let i = 0; i < marked.length; i++) pieces.push(Buffer.from(parts[i], 'utf8'), texts[i]!);
      pieces.push(Buffer.from(parts[marked.length], 'utf8'));
      return pieces;
    };
    if (!deferred) return splice();
    // The rest SLICE_CHARS a turn (a list of every body of a version is hundreds of MB), a long one in slices of its own.
    return (async () => {
      for (let i = 0; i < marked.length; i++) {
        if (texts[i] !== null) continue;
        const m = marked[i];
        if (chars + Math.min(m.value.length, SLICE_CHARS) > SLICE_CHARS) {
          await nextTurn();
          chars = 0;
        }
        if (m.value.length > SLICE_CHARS) {
          texts[i] = this.keep(m, await encodeInSlices(m.value));
          chars = SLICE_CHARS;
        } else {
          texts[i] = this.keep(m, encodeShort(m.value));
          chars += m.value.length;
        }
      }
      return splice();
    })();
  }

  /** The kept JSON text of a marked string, if it is kept. */
  private kept(s: EncodedString): Buffer | undefined {
    const kept = s.owner === null ? undefined : this.memo?.get(s.owner);
    return kept !== undefined && kept.value === s.value ? kept.bytes : undefined;
  }

  private keep(s: EncodedString, bytes: Buffer): Buffer {
    if (s.owner !== null) this.memo?.set(s.owner, { value: s.value, bytes });
    return bytes;
  }
}

/**
 * What JSON.stringify(value) encodes to, byte for byte, escaped and encoded SLICE_CHARS at a time
 * with a turn of the event loop between slices (none ending inside a surrogate pair).
 */
export async function encodeInSlices(value: string): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for (let from = 0; from < value.length; ) {
    const to = sliceEnd(value, from, SLICE_CHARS);
    const json = Buffer.from(JSON.stringify(value.slice(from, to)), 'utf8');
    // The opening quote is the first slice's, the closing one the last's.
    pieces.push(json.subarray(from === 0 ? 0 : 1, to === value.length ? json.length : json.length - 1));
    from = to;
    if (from < value.length) await nextTurn();
  }
  return Buffer.concat(pieces);
}

const encodeShort = (value: string) => ownBytes(Buffer.from(JSON.stringify(value), 'utf8'));
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `bytes`, in memory of their own: Buffer.from() puts a small string's bytes in a shared 8 KB slab,
 * and a kept answer of 100 bytes would hold the whole slab while the cache counted 100.
 */
export function ownBytes(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}
