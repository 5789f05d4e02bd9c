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
    const texts = marked.map((m) => this.textNow(m));
    const splice = () => {
      const pieces: Buffer[] = [];
      for (let i = 0; i < marked.length; i++) pieces.push(Buffer.from(parts[i], 'utf8'), texts[i]!);
      pieces.push(Buffer.from(parts[marked.length], 'utf8'));
      return pieces;
    };
    if (!texts.includes(null)) return splice();
    // The long ones one after the other: their slices would otherwise share the same turns.
    return (async () => {
      for (let i = 0; i < marked.length; i++) texts[i] ??= this.keep(marked[i], await encodeInSlices(marked[i].value));
      return splice();
    })();
  }

  /** The JSON text of a marked string when it is kept or short (made, and kept when it has an owner); null for a long one to encode in slices. */
  private textNow(s: EncodedString): Buffer | null {
    const kept = s.owner === null ? undefined : this.memo?.get(s.owner);
    if (kept !== undefined && kept.value === s.value) return kept.bytes;
    if (s.value.length > SLICE_CHARS) return null;
    return this.keep(s, ownBytes(Buffer.from(JSON.stringify(s.value), 'utf8')));
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
    if (from < value.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return Buffer.concat(pieces);
}

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
