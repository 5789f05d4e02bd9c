import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * Large strings of an answer (a topic's Markdown body) kept as the JSON text they serialize to, so
 * that an answer built again — the same page under another URL or language fallback, or after a
 * write elsewhere in its version moved the version's generation — does not escape and encode the
 * body once more: that was about a third of the server's work for a topic read.
 *
 * A route marks such a string with `encodedString(owner, value)`; the owner is the immutable object
 * the string belongs to (a translation: an edit makes a new one, and the old entry ages out).
 * `JsonEncoder.serialize` writes the answer with JSON.stringify, a placeholder standing for each
 * marked string, and returns the bytes around each placeholder and the memoized text as pieces. Anywhere else a marked string serializes as the
 * plain string it holds.
 */

/** The placeholder: unguessable, so answer text cannot forge it (and if it ever did, see serialize). */
const MARK = `\u0000${randomBytes(12).toString('base64url')}`;
const QUOTED_MARK = JSON.stringify(MARK);

/** The marked strings met by the serialization running now, in the order they appear in its text. */
let collecting: EncodedString[] | null = null;

class EncodedString {
  constructor(
    readonly owner: object,
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

/** Serializes answers, splicing in the memoized text of their marked strings (at most `maxBytes` of it kept). */
export class JsonEncoder {
  private readonly memo: LRUCache<object, { value: string; bytes: Buffer }> | null;

  constructor(maxBytes: number) {
    this.memo = maxBytes > 0 ? new LRUCache<object, { value: string; bytes: Buffer }>({ maxSize: maxBytes, sizeCalculation: (e) => e.bytes.length + 64 }) : null;
  }

  /**
   * The JSON text of `answer` as UTF-8, in pieces: the memoized text of each marked string is one
   * piece of its own, not copied into a joined buffer (a topic body is most of a topic answer's bytes).
   */
  serialize(answer: unknown): Buffer[] {
    if (this.memo === null) return [Buffer.from(JSON.stringify(answer), 'utf8')];
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
    const pieces: Buffer[] = [];
    for (let i = 0; i < marked.length; i++) pieces.push(Buffer.from(parts[i], 'utf8'), this.textOf(marked[i]));
    pieces.push(Buffer.from(parts[marked.length], 'utf8'));
    return pieces;
  }

  private textOf(s: EncodedString): Buffer {
    const kept = this.memo!.get(s.owner);
    if (kept !== undefined && kept.value === s.value) return kept.bytes;
    const bytes = ownBytes(Buffer.from(JSON.stringify(s.value), 'utf8'));
    this.memo!.set(s.owner, { value: s.value, bytes });
    return bytes;
  }
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
